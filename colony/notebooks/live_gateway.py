"""The live gateway experiment: scripted agents act through ``colony gateway`` on two real MCP servers.

The gateway fronts the real ``mcp-server-git`` (PyPI) on a scratch git repository and the real
``@modelcontextprotocol/server-filesystem`` (npm, installed by ``make setup`` into
``.cache/npm``) on the same directory. Several agents, each bound to its own gateway server over
one shared colony, follow a seeded plan through the SDK client: write, edit and commit files,
check out branches. Some actions fail on purpose — a write where the directory is missing, an
edit whose text is not in the file, a checkout of a branch that does not exist — so failure
pressure appears at those targets, holds the next change there, and decays tick by tick. One
newcomer, never calibrated, is refused throughout and never reaches a server. Attestation is
required: every forwarded call leaves its whole chain, and the ledger file is verified at the end.

No LLM is involved; the same seed gives the same session, verdict for verdict. Timestamps and
random ids never enter the results.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp_types import RequestParamsMeta

from colony.attestation import Ed25519Signer
from colony.attestation.verify import verify_ledger_file
from colony.errors import ValidationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.mcp.gateway.config import GatewayConfig, parse_gateway_config
from colony.mcp.gateway.core import Gateway
from colony.models import SignalType

__all__ = ["ACTIONS", "DEFAULT_AGENTS", "filesystem_server", "live_gateway_session", "scratch_repository"]

NPM_SERVER = Path(".cache/npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
DEFAULT_AGENTS: dict[str, float | None] = {"ant-1": 0.5, "ant-2": 0.5, "ant-3": 0.7, "newcomer": None}
FILES = ("src/core.py", "src/io.py", "docs/guide.md", "build/report.txt")  # build/ never exists: writes there fail
ACTIONS = {"write": 0.35, "edit": 0.3, "commit": 0.2, "checkout": 0.15}
MARKER = "# colony-marker"
_EPOCH = 1_800_000_000.0


def filesystem_server(project_root: str | Path) -> Path:
    """The pinned npm filesystem server under ``project_root`` (``make setup`` installs it)."""
    path = (Path(project_root) / NPM_SERVER).resolve()
    if not path.is_file():
        raise ValidationError("filesystem_server", f"{path} is missing: run `make setup` (scripts/setup_npm.sh)")
    return path


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def scratch_repository(path: str | Path) -> Path:
    """A fresh git repository at ``path`` with ``src/`` and ``docs/`` (empty) and one commit."""
    repo = Path(path).resolve()
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "live-gateway@colony.invalid")
    _git(repo, "config", "user.name", "colony live gateway")
    for d in ("src", "docs"):
        (repo / d).mkdir()
        (repo / d / ".keep").write_text("")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "scratch repository")
    return repo


def _config(repo: Path, fs_server: Path, agents: dict[str, float | None]) -> GatewayConfig:
    """Both servers run in the repository and are called with relative paths, so no target names the scratch directory."""
    return parse_gateway_config(
        {
            "kernel": {"calibrate": {name: trust for name, trust in agents.items() if trust is not None}},
            "defaults": {"tick_interval_seconds": 0, "call_timeout_seconds": 30},
            "upstreams": {
                "git": {
                    "command": sys.executable,
                    "args": ["-m", "mcp_server_git", "--repository", str(repo)],
                    "cwd": str(repo),
                    "tools": {
                        "git_status": {"read_only": True},
                        "git_checkout": {"target": "repo:{branch_name}"},
                        "git_*": {"target": "repo"},
                    },
                },
                "fs": {
                    "command": "node",
                    "args": [str(fs_server), str(repo)],
                    "cwd": str(repo),
                    "tools": {"read_*": {"read_only": True}},
                },
            },
        }
    )


def _plan(rng: random.Random, agent: str, step: int, fail_rate: float) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls of one step: an action chosen by the seeded generator, failing on purpose at ``fail_rate``."""
    action = rng.choices(list(ACTIONS), weights=list(ACTIONS.values()))[0]
    path = rng.choice(FILES)
    fails = rng.random() < fail_rate
    if action == "write":
        return [("fs__write_file", {"path": path, "content": f"{MARKER}\n# step {step} by {agent}\n"})]
    if action == "edit":
        old = "# text that is not there" if fails else MARKER
        return [("fs__edit_file", {"path": path, "edits": [{"oldText": old, "newText": f"{MARKER}\n# edited at step {step}"}]})]
    if action == "commit":
        return [
            ("git__git_add", {"repo_path": ".", "files": [path]}),
            ("git__git_commit", {"repo_path": ".", "message": f"step {step} by {agent}"}),
        ]
    branch = "no-such-branch" if fails else "main"
    return [("git__git_checkout", {"repo_path": ".", "branch_name": branch})]


def _meta(rng: random.Random, meta_rate: float, tool: str) -> RequestParamsMeta | None:
    if rng.random() >= meta_rate:
        return None
    return {  # type: ignore[return-value]  # _meta is an open map
        "colony/rationale": f"scripted step: {tool}",
        "colony/rollback_plan": "git checkout -- the touched file, or git revert the commit",
        "colony/expected_outcome": "the tool returns a result that is not an error",
        "colony/evidence": {"tests": ["the scripted session's own check of the result"], "metrics": ["0 errors"]},
    }


def _record(result: Any) -> dict[str, Any]:
    stamp = (result.meta or {}).get("colony/gateway") or result.structured_content or {}
    if stamp.get("gated") is False:
        return {"decision": "ungated", "gate_score": None, "outcome": "failure" if result.is_error else "success", "target": None}
    return {
        "decision": stamp.get("decision", "error"),
        "gate_score": stamp.get("gate_score"),
        "outcome": stamp.get("outcome"),
        "failure": stamp.get("failure"),
        "target": stamp.get("target"),
        "proposal_id": stamp.get("proposal_id"),
    }


async def _session(
    gateway: Gateway, agents: list[str], *, seed: int, rounds: int, fail_rate: float, meta_rate: float
) -> dict[str, Any]:
    kernel = gateway.kernel
    rng = random.Random(seed)
    timeline: list[dict[str, Any]] = []
    pressure: list[dict[str, Any]] = []
    forwarded: list[str] = []
    step = 0
    clients = {name: Client(gateway.server(name)) for name in agents}
    async with AsyncExitStack() as stack:
        for c in clients.values():
            await stack.enter_async_context(c)
        for rnd in range(rounds):
            order = list(agents)
            rng.shuffle(order)
            for agent in order:
                step += 1
                for tool, args in _plan(rng, agent, step, fail_rate):
                    result = await clients[agent].call_tool(tool, args, meta=_meta(rng, meta_rate, tool))
                    row = _record(result)
                    if row["decision"] == "execute":
                        forwarded.append(row.pop("proposal_id"))
                    row.pop("proposal_id", None)
                    timeline.append({"step": step, "round": rnd, "agent": agent, "tool": tool, **row})
            targets = sorted({r["target"] for r in timeline if r["target"]})
            pressure.append(
                {
                    "round": rnd,
                    "tick": kernel.tick_count,
                    "failure": {t: _strength(kernel, t, SignalType.FAILURE) for t in targets},
                    "risk": {t: _strength(kernel, t, SignalType.RISK) for t in targets},
                }
            )
            kernel.tick()
    chains = [kernel.attestation.state(pid) for pid in forwarded]  # type: ignore[union-attr]
    return {
        "timeline": timeline,
        "pressure": pressure,
        "chains_complete": sum(1 for c in chains if c.complete and c.receipt is not None),
        "forwarded": len(forwarded),
    }


def _strength(kernel: ColonyKernel, target: str, signal: SignalType) -> float:
    return round(sum(s.strength for s in kernel.query(target, signal, prefix=False)), 9)


def _newcomer_traces(repo: Path, agent: str) -> int:
    """Files holding text an agent wrote, plus commits it made: zero when it never reached a server."""
    mark = f"by {agent}"
    files = sum(1 for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts and mark in p.read_text(errors="replace"))
    log = subprocess.run(["git", "log", "--format=%s"], cwd=repo, check=True, capture_output=True, text=True).stdout
    return files + sum(1 for line in log.splitlines() if line.endswith(mark))


def _summary(timeline: list[dict[str, Any]], agents: dict[str, float | None], repo: Path) -> dict[str, Any]:
    decisions = ("execute", "hold", "refuse", "ungated")
    per_agent = {a: {d: sum(1 for r in timeline if r["agent"] == a and r["decision"] == d) for d in decisions} for a in agents}
    gated = [r for r in timeline if r["decision"] in ("execute", "hold", "refuse")]
    uncalibrated = [a for a, trust in agents.items() if trust is None]
    return {
        "calls": len(timeline),
        "gated": len(gated),
        "per_agent": per_agent,
        "totals": {d: sum(v[d] for v in per_agent.values()) for d in decisions},
        "forwarded_failures": sum(1 for r in timeline if r["decision"] == "execute" and r["outcome"] == "failure"),
        "forwarded_successes": sum(1 for r in timeline if r["decision"] == "execute" and r["outcome"] == "success"),
        "uncalibrated_agents": uncalibrated,
        "uncalibrated_traces_in_repository": sum(_newcomer_traces(repo, a) for a in uncalibrated),
        "targets": sorted({r["target"] for r in gated}),
    }


def live_gateway_session(
    *,
    workdir: str | Path,
    project_root: str | Path,
    seed: int = 7,
    rounds: int = 10,
    fail_rate: float = 0.25,
    meta_rate: float = 0.8,
    agents: dict[str, float | None] | None = None,
) -> dict[str, Any]:
    """Run the scripted session in ``workdir`` (a new directory) and return its JSON-shaped record."""
    agents = dict(DEFAULT_AGENTS if agents is None else agents)
    if rounds < 1 or not 0.0 <= fail_rate <= 1.0 or not 0.0 <= meta_rate <= 1.0 or not agents:
        raise ValidationError("parameters", "need rounds >= 1, fail_rate and meta_rate in [0, 1], and at least one agent")
    work = Path(workdir)
    repo = scratch_repository(work / "repo")
    state = work / "colony.sqlite"
    signer = Ed25519Signer(hashlib.sha256(f"live-gateway-{seed}".encode()).digest())
    ticks = itertools.count()
    config = ColonyKernelConfig(
        state_path=state,
        attestation_mode="required",
        attestation_key=signer.private_key_bytes(),
        attestation_algorithm="ed25519",
        clock=lambda: _EPOCH + next(ticks) * 0.001,
        run_id=f"live-gateway-{seed}",
    )
    gw_config = _config(repo, filesystem_server(project_root), agents)
    with ColonyKernel(config) as kernel:

        async def main() -> tuple[dict[str, Any], dict[str, Any]]:
            async with Gateway(gw_config, kernel=kernel) as gateway:
                down = [u for u in gateway.status()["upstreams"] if u["state"] != "ready"]
                if down:
                    raise ValidationError("upstreams", f"not all upstream servers started: {down}")
                session = await _session(
                    gateway, list(agents), seed=seed, rounds=rounds, fail_rate=fail_rate, meta_rate=meta_rate
                )
                return session, gateway.status()

        # a thread of its own: a notebook's kernel already runs an event loop in this one
        with ThreadPoolExecutor(max_workers=1) as pool:
            session, status = pool.submit(anyio.run, main).result()
    ledger = verify_ledger_file(state, public_key=signer.public_key_bytes())
    return {
        "upstreams": [{k: s[k] for k in ("name", "transport", "protocol_version", "tools")} for s in status["upstreams"]],
        "agents": agents,
        "timeline": session["timeline"],
        "pressure": session["pressure"],
        "summary": _summary(session["timeline"], agents, repo),
        "ledger": {
            "valid": ledger["valid"],
            "status": ledger["status"],
            "events": sum(r["event_count"] for r in ledger["runs"]),
            "forwarded_calls": session["forwarded"],
            "complete_chains": session["chains_complete"],
        },
    }
