"""The gateway judges the change a call makes, derived from the call and the files it names (issue #25, DESIGN §7).

Through the real npm filesystem server and mcp-server-git, with a fitted prior in which one line is
risky (:mod:`tests.gateway.risky`): a write, an edit and a commit adding that line are held, and the
answer names the line; the same calls with safe text are forwarded. A calibrated agent (trust 0.7),
so a held change is a HOLD, not a REFUSE.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
import yaml
from mcp import Client, StdioServerParameters
from mcp_types import RequestParamsMeta

from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.mcp.gateway.config import GatewayConfig, parse_gateway_config
from tests.gateway.conftest import GATEWAY, ROOT, Scratch, gate, running, upstreams
from tests.gateway.risky import RISKY_LINE, SAFE_TEXT, fit_risky_prior, risky_policy_dir

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]
TRUST = 0.7


def _config(scratch: Scratch) -> GatewayConfig:
    """The test upstreams, the filesystem server rooted in its directory (so a change names ``app.py``)."""
    ups = upstreams(scratch)
    ups["fs"]["cwd"] = str(scratch.files)
    return parse_gateway_config(
        {"kernel": {"calibrate": {"alice": TRUST}}, "defaults": {"tick_interval_seconds": 0}, "upstreams": ups}
    )


def _kernel(tmp_path: Path) -> ColonyKernel:
    return ColonyKernel(ColonyKernelConfig(change_prior=fit_risky_prior(tmp_path)[0]))


def _text(result: types.CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, types.TextContent))


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


async def test_a_risky_write_is_held_naming_its_line_and_a_safe_one_is_forwarded(scratch: Scratch, tmp_path: Path) -> None:
    app = scratch.files / "app.py"
    app.write_text("import subprocess\n")
    async with running(_config(scratch), kernel=_kernel(tmp_path)) as (gw, c):
        risky = await c.call_tool("fs__write_file", {"path": "app.py", "content": f"import subprocess\n{RISKY_LINE}\n"})
        assert risky.is_error and gate(risky)["decision"] == "hold", _text(risky)
        assert "app.py:2 (+" in _text(risky) and "learned change risk" in _text(risky)
        change = gate(risky)["change"]
        assert change["held"] and change["risk"] > change["threshold"]
        assert change["lines"][0]["path"] == "app.py" and change["lines"][0]["line"] == 2 and change["lines"][0]["added"]
        assert "review_the_riskiest_lines_or_make_a_smaller_change" in gate(risky)["required_evidence"]
        assert app.read_text() == "import subprocess\n"  # not forwarded
        safe = await c.call_tool("fs__write_file", {"path": "app.py", "content": SAFE_TEXT})
        assert not safe.is_error and gate(safe)["decision"] == "execute", _text(safe)
        assert gate(safe)["change"]["held"] is False and gate(safe)["change"]["la"] == 1
        assert app.read_text() == SAFE_TEXT
        # the forwarded change's outcome is learned, once
        assert gw.kernel.colony_status()["change_risk"]["learned"] == 1


async def test_an_edit_is_located_in_the_file_and_a_dry_run_carries_no_change(scratch: Scratch, tmp_path: Path) -> None:
    app = scratch.files / "app.py"
    original = "a = 1\nb = 2\nc = 3\nd = 4\n"
    app.write_text(original)
    async with running(_config(scratch), kernel=_kernel(tmp_path)) as (_, c):
        edit = {"oldText": "c = 3", "newText": RISKY_LINE}
        held = await c.call_tool("fs__edit_file", {"path": str(app), "edits": [edit]})
        assert gate(held)["decision"] == "hold" and "app.py:3 (+" in _text(held), _text(held)
        assert app.read_text() == original
        # whitespace the filesystem server forgives still finds the line
        loose = await c.call_tool(
            "fs__edit_file", {"path": str(app), "edits": [{"oldText": "   d = 4  ", "newText": RISKY_LINE}]}
        )
        assert gate(loose)["decision"] == "hold" and "app.py:4 (+" in _text(loose), _text(loose)
        dry = await c.call_tool("fs__edit_file", {"path": str(app), "edits": [edit], "dryRun": True})
        assert not dry.is_error and gate(dry)["decision"] == "execute" and "change" not in gate(dry)
        safe = await c.call_tool(
            "fs__edit_file", {"path": str(app), "edits": [{"oldText": "b = 2", "newText": "total = count + 1"}]}
        )
        assert gate(safe)["decision"] == "execute" and gate(safe)["change"]["held"] is False, _text(safe)
    assert app.read_text() == "a = 1\ntotal = count + 1\nc = 3\nd = 4\n"


async def test_a_change_colony_cannot_derive_is_judged_without_it_and_says_why(scratch: Scratch, tmp_path: Path) -> None:
    blob = scratch.files / "blob.bin"
    blob.write_bytes(b"\x00\x01binary")
    big = scratch.files / "big.txt"
    big.write_text("x" * (600 * 1024))  # over change.max_bytes (512 KB)
    async with running(_config(scratch), kernel=_kernel(tmp_path)) as (_, c):
        for path, why in ((blob, "is a binary file"), (big, "over change.max_bytes")):
            result = await c.call_tool("fs__write_file", {"path": str(path), "content": RISKY_LINE})
            assert not result.is_error and gate(result)["decision"] == "execute", _text(result)
            assert why in gate(result)["change"]["note"], gate(result)
        huge = await c.call_tool("fs__write_file", {"path": "new.txt", "content": "y\n" * (300 * 1024)})
        assert "colony cannot measure the change" in gate(huge)["change"]["note"]
    assert blob.read_text() == RISKY_LINE


async def test_a_kernel_without_its_prior_judges_calls_without_the_change_and_names_why(scratch: Scratch, tmp_path: Path) -> None:
    kernel = ColonyKernel(ColonyKernelConfig(change_prior=tmp_path / "missing.json.gz"))
    async with running(_config(scratch), kernel=kernel) as (gw, c):
        before = gw.kernel.agent_profile("alice").total_proposals
        result = await c.call_tool("fs__write_file", {"path": "app.py", "content": RISKY_LINE})
        assert not result.is_error and "colony cannot judge changes" in gate(result)["change"]["note"]
        assert gw.kernel.agent_profile("alice").total_proposals == before + 1  # judged, as before kernel v2
        assert gw.kernel.colony_status()["change_risk"]["model"] is None  # no change reached the kernel


async def test_a_commit_of_a_risky_staged_change_is_held_through_mcp_server_git(scratch: Scratch, tmp_path: Path) -> None:
    repo = scratch.repo
    (repo / "src").mkdir()
    (repo / "src" / "run.py").write_text(f"import subprocess\n{RISKY_LINE}\n")
    head = _git(repo, "rev-parse", "HEAD")
    async with running(_config(scratch), kernel=_kernel(tmp_path)) as (_, c):
        added = await c.call_tool("git__git_add", {"repo_path": str(repo), "files": ["src/run.py"]})
        assert not added.is_error and "change" not in gate(added), _text(added)
        held = await c.call_tool("git__git_commit", {"repo_path": str(repo), "message": "run commands"})
        assert held.is_error and gate(held)["decision"] == "hold", _text(held)
        assert "src/run.py:2 (+" in _text(held) and gate(held)["change"]["nf"] == 1
        assert _git(repo, "rev-parse", "HEAD") == head  # nothing was committed
        _git(repo, "reset", "-q")
        (repo / "notes.txt").write_text(SAFE_TEXT)
        assert not (await c.call_tool("git__git_add", {"repo_path": str(repo), "files": ["notes.txt"]})).is_error
        safe = await c.call_tool("git__git_commit", {"repo_path": str(repo), "message": "notes"})
        assert gate(safe)["decision"] == "execute" and gate(safe)["change"]["held"] is False, _text(safe)
        nothing = await c.call_tool("git__git_commit", {"repo_path": str(repo), "message": "empty"})
        assert gate(nothing)["change"] == {"note": "nothing is staged"}
    assert _git(repo, "log", "-1", "--format=%s").strip() in ("notes", "empty")
    assert "src/run.py" not in _git(repo, "log", "--name-only", "--format=")


async def test_a_patch_tools_diff_is_judged_wherever_the_call_carries_it(scratch: Scratch, tmp_path: Path) -> None:
    ups = upstreams(scratch, dynamic=True)
    ups["dyn"]["tools"] = {"apply_patch": {"change": "patch"}}  # no argument named: the one that reads as a diff
    config = parse_gateway_config(
        {"kernel": {"calibrate": {"alice": TRUST}}, "defaults": {"tick_interval_seconds": 0}, "upstreams": ups}
    )
    diff = f"--- a/pkg/run.py\n+++ b/pkg/run.py\n@@ -1,2 +1,3 @@\n import subprocess\n+{RISKY_LINE}\n x = 1\n"
    async with running(config, kernel=_kernel(tmp_path)) as (_, c):
        held = await c.call_tool("dyn__apply_patch", {"note": "a fix", "patch": diff})
        assert gate(held)["decision"] == "hold" and "pkg/run.py:2 (+" in _text(held), _text(held)
        safe = await c.call_tool("dyn__apply_patch", {"patch": diff.replace(RISKY_LINE, SAFE_TEXT.strip())})
        assert _text(safe) == "1 lines added" and gate(safe)["change"]["held"] is False
        escape = await c.call_tool("dyn__apply_patch", {"patch": diff.replace("a/pkg", "a/../etc").replace("b/pkg", "b/../etc")})
        assert not escape.is_error and "escapes the repository" in gate(escape)["change"]["note"]
        none = await c.call_tool("dyn__apply_patch", {"patch": "not a diff"})
        assert gate(none)["change"] == {"note": "the call carries no unified diff"}


async def test_an_approved_commit_releases_the_change_it_held_not_what_was_staged_after(scratch: Scratch, tmp_path: Path) -> None:
    repo = scratch.repo
    (repo / "run.py").write_text(f"{RISKY_LINE}\n")
    _git(repo, "add", "run.py")
    commit = {"repo_path": str(repo), "message": "run"}
    async with running(_config(scratch), kernel=_kernel(tmp_path)) as (gw, c):
        held = await c.call_tool("git__git_commit", commit)
        assert gate(held)["decision"] == "hold", _text(held)
        approved: RequestParamsMeta = {"colony/approved_hold": gate(held)["approval_id"]}  # type: ignore[typeddict-unknown-key]
        pid = approved["colony/approved_hold"]  # type: ignore[typeddict-item]
        async with Client(gw.server("ops", operator=True)) as ops:
            assert not (await ops.call_tool("colony_approve_hold", {"proposal_id": pid})).is_error
        (repo / "more.py").write_text(f"{RISKY_LINE}\n")
        _git(repo, "add", "more.py")  # staged after the operator looked: the same arguments, another change
        sneaked = await c.call_tool("git__git_commit", commit, meta=approved)
        assert sneaked.is_error and "or the change they make) differ" in _text(sneaked)
        _git(repo, "reset", "-q", "--", "more.py")
        released = await c.call_tool("git__git_commit", commit, meta=approved)
        assert not released.is_error and gate(released)["approved_by"] == "operator 'ops'", _text(released)
    assert _git(repo, "log", "-1", "--name-only", "--format=").split() == ["run.py"]


def _stdio_config(scratch: Scratch, tmp_path: Path) -> Path:
    ups = upstreams(scratch)
    ups["fs"]["cwd"] = str(scratch.files)
    data: dict[str, Any] = {
        "kernel": {"calibrate": {"alice": TRUST}, "policy_dir": str(risky_policy_dir(tmp_path))},
        "defaults": {"tick_interval_seconds": 0},
        "upstreams": ups,
    }
    path = tmp_path / "gateway.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


async def test_colony_gateway_as_a_process_holds_a_risky_write_and_names_the_line(scratch: Scratch, tmp_path: Path) -> None:
    app = scratch.files / "app.py"
    app.write_text("import subprocess\n")
    config = _stdio_config(scratch, tmp_path)
    params = StdioServerParameters(
        command=GATEWAY[0], args=[*GATEWAY[1:], "--config", str(config), "--agent-id", "alice"], cwd=str(ROOT)
    )
    async with Client(params) as c:
        held = await c.call_tool("fs__write_file", {"path": str(app), "content": f"import subprocess\n{RISKY_LINE}\n"})
        assert held.is_error and "colony HOLD" in _text(held) and "app.py:2 (+" in _text(held), _text(held)
        safe = await c.call_tool("fs__write_file", {"path": str(scratch.files / "notes.py"), "content": SAFE_TEXT})
        assert not safe.is_error and safe.meta is not None
        assert safe.meta["colony/gateway"]["change"]["held"] is False
    assert app.read_text() == "import subprocess\n" and (scratch.files / "notes.py").read_text() == SAFE_TEXT
