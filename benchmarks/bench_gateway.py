"""Gateway benchmark: what gating costs a forwarded call, and what a hook costs a tool call.

**Gateway overhead.** The real npm filesystem server is called directly through the SDK client
and, alternately, through the gateway, in interleaved pairs (so both readings share the
machine's load at every moment). Two gateway set-ups: in-process (the client reaches the
gateway in memory, the gateway reaches the server over stdio) and ``colony gateway`` as a
process (the client and the gateway both use stdio). The colony state is in memory, the
agent is calibrated, every target is clear, so every gated call is EXECUTE with its outcome
recorded; read-only calls are forwarded without a proposal. The overhead is the median (and
99th percentile) of the per-pair differences. Target (issue 26): gated overhead ≤ 1.5 ms p50 per
forwarded call over calling the upstream directly, for a call without a change (``write_file``
with ``change: none``).

**Deriving a change** (issue 25). In process, ``write_file`` of a 100-line file over its earlier
100-line version, with the packaged ``change: write`` rule: the gateway reads the file, measures
the change and the kernel judges it (a colony without a cold-start prior, so the figure does not
depend on a prior file) and learns its outcome. Reported beside the same call without a change,
and :func:`colony.mcp.gateway.changes.derive` alone (the file read and the measuring).

**Hook.** Wall time from starting the hook process to its answer, for a PreToolUse payload:
the direct hook (``colony hook --state``: Python start-up, the CLI, the kernel's import, the
state opened and closed), the resident client (``python -I -S client.py --socket``, answered by a
``colony hook serve`` that owns the state), and a bare ``python -I -S -c pass`` as the floor.
Target (issue 26): the resident hook ≤ 50 ms p50 per call, end to end, process start included.

Run: ``python -m benchmarks.bench_gateway [--quick]``; writes ``output/benchmarks/gateway.json``
with the machine's load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import RequestParamsMeta

from benchmarks.common import repeated_us, summary_us, write_artefact
from colony.hook import client as hook_client
from colony.hook.resident import ResidentHook
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.mcp.gateway.changes import derive
from colony.mcp.gateway.config import ChangeRule, parse_gateway_config
from colony.mcp.gateway.core import Gateway
from colony.notebooks.live_gateway import filesystem_server

ROOT = Path(__file__).resolve().parents[1]
TARGET_OVERHEAD_MS = 1.5
TARGET_HOOK_MS = 50.0
AGENT = "bench-agent"
META: RequestParamsMeta = {  # type: ignore[typeddict-unknown-key]  # _meta is an open map
    "colony/rationale": "benchmark write",
    "colony/rollback_plan": "delete the benchmark file",
    "colony/expected_outcome": "the file holds the text",
    "colony/evidence": {"tests": ["benchmark check"], "metrics": ["0 errors"]},
}
Call = Callable[[str, dict[str, Any], dict[str, Any] | None], Awaitable[Any]]


CHANGED_LINES = 100


def _config(files: Path, *, changes: bool) -> dict[str, Any]:
    fs = {"command": "node", "args": [str(filesystem_server(ROOT)), str(files)], "cwd": str(files)}
    # the issue 26 overhead is a call without a change: write_file's packaged change rule turned off
    upstreams: dict[str, Any] = {"fs": {**fs, "tools": {"read_*": {"read_only": True}, "write_file": {"change": "none"}}}}
    if changes:
        upstreams["fsc"] = {**fs, "tools": {"read_*": {"read_only": True}}}  # write_file: {change: write}, as packaged
    return {"kernel": {"calibrate": {AGENT: 0.7}}, "defaults": {"tick_interval_seconds": 0}, "upstreams": upstreams}


def _hundred_lines(i: int) -> str:
    return "".join(f"value_{j} = compute(item_{j}, {i}, scale={j * i % 97})\n" for j in range(CHANGED_LINES))


def _fs(files: Path) -> StdioServerParameters:
    return StdioServerParameters(command="node", args=[str(filesystem_server(ROOT)), str(files)])


async def _pairs(direct: Client, gated: Client, files: Path, n: int, warm: int, *, changes: bool) -> dict[str, Any]:
    """Interleaved (direct, through the gateway) pairs for a gated write and an ungated read (and a changed write).

    The changed write's file is reset to its earlier version before each of the two calls (untimed).
    """
    out: dict[str, Any] = {}
    kinds = [("gated_write", "fs", "write_file"), ("read_only", "fs", "read_text_file")]
    if changes:  # the same 100-line write without and with its change
        kinds += [("unchanged_write_100_lines", "fs", "write_file"), ("changed_write_100_lines", "fsc", "write_file")]
    for kind, upstream, tool in kinds:
        direct_s: list[float] = []
        gateway_s: list[float] = []
        for i in range(warm + n):
            path = str(files / f"{kind}{i % 200}.txt")
            hundred = kind.endswith("100_lines")
            content = _hundred_lines(i) if hundred else f"v{i}"
            args = {"path": path, "content": content} if tool == "write_file" else {"path": path}
            if tool == "read_text_file":
                (files / f"{kind}{i % 200}.txt").write_text("x")
            elif hundred:
                (files / f"{kind}{i % 200}.txt").write_text(_hundred_lines(i - 1))  # the file's earlier version
            t = time.perf_counter()
            r1 = await direct.call_tool(tool, args)
            direct_took = time.perf_counter() - t
            if hundred:
                (files / f"{kind}{i % 200}.txt").write_text(_hundred_lines(i - 1))  # the gateway reads the old file too
            t1 = time.perf_counter()
            r2 = await gated.call_tool(f"{upstream}__{tool}", args, meta=META if tool == "write_file" else None)
            t2 = time.perf_counter()
            if r1.is_error or r2.is_error:
                raise RuntimeError(f"{tool} failed: {r1.content} / {r2.content}")
            stamp = (r2.meta or {}).get("colony/gateway", {})
            if tool == "write_file" and stamp.get("decision") != "execute":
                raise RuntimeError(f"the benchmark call was not executed: {r2.meta}")
            if kind.startswith("changed") and stamp.get("change", {}).get("la") != CHANGED_LINES:
                raise RuntimeError(f"the benchmark call carried no {CHANGED_LINES}-line change: {stamp}")
            if upstream == "fs" and "change" in stamp:
                raise RuntimeError(f"the call without a change carried one: {stamp}")
            if i >= warm:
                direct_s.append(direct_took)
                gateway_s.append(t2 - t1)
        diffs = [g - d for g, d in zip(gateway_s, direct_s, strict=True)]
        out[kind] = {"direct": summary_us(direct_s), "gateway": summary_us(gateway_s), "overhead": summary_us(diffs)}
    return out


async def bench_in_process(n: int, warm: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        files = Path(tmp).resolve()
        kernel = ColonyKernel(ColonyKernelConfig(change_prior=None))  # a colony learning from zero: no prior file needed
        try:
            async with (
                Gateway(parse_gateway_config(_config(files, changes=True)), kernel=kernel) as gw,
                Client(gw.server(AGENT)) as g,
                Client(_fs(files)) as d,
            ):
                return await _pairs(d, g, files, n, warm, changes=True)
        finally:
            kernel.close()


def bench_derive(n: int) -> dict[str, Any]:
    """:func:`derive` alone for a 100-line write over the file's earlier 100-line version (read from disk each time)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        target = root / "module.py"
        target.write_text(_hundred_lines(0))
        rule, args, roots = ChangeRule(kind="write"), {"path": str(target), "content": _hundred_lines(1)}, (str(root),)
        derived = derive(rule, args, roots)
        if derived.change is None or derived.change.la != CHANGED_LINES:
            raise RuntimeError(f"derive measured no {CHANGED_LINES}-line change: {derived}")
        return repeated_us(lambda: derive(rule, args, roots), n)


async def bench_process(n: int, warm: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        files = Path(tmp).resolve()
        config = Path(tmp) / "gateway.yaml"
        config.write_text(json.dumps(_config(files, changes=False)))  # JSON is YAML
        args = ["-m", "colony.cli", "gateway", "--config", str(config), "--agent-id", AGENT]
        gateway = StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT))
        async with Client(gateway) as g, Client(_fs(files)) as d:
            return await _pairs(d, g, files, n, warm, changes=False)


def _wall(argv: list[str], stdin: str, n: int) -> list[float]:
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        done = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=120)
        samples.append(time.perf_counter() - t)
        if done.returncode != 0:
            raise RuntimeError(f"{argv[:3]} exited {done.returncode}: {done.stderr[-300:]}")
    return samples


def _payload(cwd: Path, i: int) -> str:
    return json.dumps(
        {
            "session_id": "bench",
            "cwd": str(cwd),
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_use_id": f"toolu_bench_{i}",
            "tool_input": {"file_path": str(cwd / f"f{i}.py"), "content": "x"},
        }
    )


def bench_hooks(n: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        state = work / "colony.sqlite"
        with ColonyKernel(ColonyKernelConfig(state_path=state)) as k:
            k.calibrate_agent(AGENT, trust_score=0.7)
        colony = Path(sys.executable).with_name("colony")
        floor = _wall([sys.executable, "-I", "-S", "-c", "pass"], "", n)
        direct = [
            _wall([str(colony), "hook", "--state", str(state), "--agent-id", AGENT], _payload(work, i), 1)[0] for i in range(n)
        ]
        sock = work / "hook.sock"
        with ColonyKernel(ColonyKernelConfig(state_path=state)) as kernel, ResidentHook(sock, kernel) as server:
            thread = threading.Thread(target=server.serve_forever, daemon=True)
            thread.start()
            client = [sys.executable, "-I", "-S", str(Path(hook_client.__file__)), "--socket", str(sock), "--agent-id", AGENT]
            resident = [_wall(client, _payload(work, 1000 + i), 1)[0] for i in range(n)]
            server.shutdown()
            thread.join(10)
    return {"python_floor": summary_us(floor), "direct": summary_us(direct), "resident_client": summary_us(resident)}


def _load() -> dict[str, float]:
    one, five, fifteen = os.getloadavg()
    return {"load_1m": one, "load_5m": five, "load_15m": fifteen}


def target_check(results: dict[str, Any]) -> dict[str, Any]:
    """The issue's targets against the measured medians (ms)."""
    overhead = results["in_process"]["gated_write"]["overhead"]["median_us"] / 1e3
    hook = results["hooks"]["resident_client"]["median_us"] / 1e3
    return {
        "gated_overhead_ms": {"measured": overhead, "target": TARGET_OVERHEAD_MS, "met": overhead <= TARGET_OVERHEAD_MS},
        "hook_ms": {"measured": hook, "target": TARGET_HOOK_MS, "met": hook <= TARGET_HOOK_MS},
    }


def _print(title: str, rows: dict[str, Any]) -> None:
    print(f"{title}: per call (ms)")
    for kind, r in rows.items():
        d, g, o = r["direct"], r["gateway"], r["overhead"]
        print(
            f"  {kind:<25} direct p50 {d['median_us'] / 1e3:6.2f}   gateway p50 {g['median_us'] / 1e3:6.2f}   "
            f"overhead p50 {o['median_us'] / 1e3:6.2f}  p99 {o['p99_us'] / 1e3:6.2f}  (n={o['n']})"
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    args = parser.parse_args(argv)
    n_mem, n_proc, n_hook, warm = (60, 40, 6, 10) if args.quick else (400, 200, 20, 30)
    before = _load()
    in_process = anyio.run(bench_in_process, n_mem, warm)
    _print("gateway in process (client in memory, upstream over stdio)", in_process)
    process = anyio.run(bench_process, n_proc, warm)
    _print("colony gateway as a process (client and upstream over stdio)", process)
    derived = bench_derive(n_mem * 5)
    overhead = {k: r["overhead"]["median_us"] for k, r in in_process.items()}
    change_cost = overhead["changed_write_100_lines"] - overhead["unchanged_write_100_lines"]
    print(
        f"deriving a {CHANGED_LINES}-line write's change: derive() p50 {derived['median_us'] / 1e3:.3f} ms; "
        f"the gateway's overhead with the change over without it, p50 {change_cost / 1e3:.2f} ms"
    )
    hooks = bench_hooks(n_hook)
    print("hook start-up + decision (ms, wall time per process)")
    for name, s in hooks.items():
        print(f"  {name:<16} p50 {s['median_us'] / 1e3:7.1f}   p99 {s['p99_us'] / 1e3:7.1f}   (n={s['n']})")
    results: dict[str, Any] = {"in_process": in_process, "process": process, "hooks": hooks, "quick": args.quick}
    results["change"] = {"derive_write_100_lines": derived, "overhead_with_over_without_change_us": change_cost}
    results["load"] = {"before": before, "after": _load(), "cpu_count": os.cpu_count()}
    results["targets"] = target_check(results)
    for name, t in results["targets"].items():
        print(f"target {name}: {t['measured']:.2f} <= {t['target']}: {'met' if t['met'] else 'MISSED'}")
    print(
        f"load average before {before['load_1m']:.2f}, after {results['load']['after']['load_1m']:.2f} on {os.cpu_count()} cores"
    )
    print(f"wrote {write_artefact('gateway', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
