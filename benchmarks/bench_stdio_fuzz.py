"""Stdio fuzz benchmark: 10,000+ requests, valid and malformed, to ``python -m colony.server`` over stdio (issue 27).

Every line that carries an ``id`` must be answered: the valid ones by the server, the ones the MCP SDK cannot parse
or validate by colony's transport boundary (:mod:`colony.mcp.stdio_guard`) with ``-32700`` or ``-32600``. The
malformed lines are the issue's shapes (a lone surrogate, nesting of 1,000, an integer over 4,300 digits, a NUL, a
BOM, ``params`` as an array, a float id) and random byte mutations after the id. Prints how many requests were sent,
answered and unanswered (which must be 0), and the answers' error codes.

Run: ``python -m benchmarks.bench_stdio_fuzz [--quick] [--calls N] [--seed S]``; writes ``output/benchmarks/stdio_fuzz.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from benchmarks.common import write_artefact

ROOT = Path(__file__).resolve().parents[1]
_INIT = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}},
}
_BODIES = (
    '"method":"ping"}',
    '"method":"tools/list","params":{}}',
    '"method":"resources/list","params":{}}',
    '"method":"tools/call","params":{"name":"colony_status","arguments":{}}}',
)


def _line(i: int, rng: random.Random) -> tuple[str, str]:
    """Request ``i``: (its id as written, the line)."""
    head = f'{{"jsonrpc":"2.0","id":{i},'
    kind = rng.randrange(12)
    body = rng.choice(_BODIES)
    if kind < 3:
        return str(i), head + body
    if kind == 3:
        return str(i), head + '"method":"tools/list","params":{"cursor":"\\ud800"}}'
    if kind == 4:
        return str(i), head + '"method":"ping","params":{"a":' + "[" * rng.randrange(1000, 1500) + "]" * 1000 + "}}"
    if kind == 5:
        return str(i), head + '"method":"ping","params":{"n":' + "7" * rng.randrange(4301, 6000) + "}}"
    if kind == 6:
        return str(i), head + '"method":"ping"\x00}'
    if kind == 7:
        return str(i), "\ufeff" + head + body
    if kind == 8:
        return str(i), head + '"method":"tools/list","params":[1,2]}'
    if kind == 9:
        return f"{i}.5", f'{{"jsonrpc":"2.0","id":{i}.5,' + body
    chars = list(body)  # random byte mutations after the id (never a line break)
    for _ in range(rng.randrange(1, 6)):
        pos = rng.randrange(len(chars))
        chars[pos] = chr(rng.choice([rng.randrange(0x20, 0x7F), rng.randrange(0x80, 0x800), 0, 0xFEFF]))
    return str(i), head + "".join(chars)


def run(calls: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    lines = [_line(i, rng) for i in range(calls)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "colony.server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(_INIT) + "\n").encode())
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    proc.stdin.flush()

    def write() -> None:
        assert proc.stdin is not None
        for _, line in lines:
            proc.stdin.write(line.encode("utf-8", "surrogatepass") + b"\n")
        proc.stdin.flush()

    writer = threading.Thread(target=write, daemon=True)
    start = time.perf_counter()
    writer.start()
    expected = {ident for ident, _ in lines}
    answered: set[str] = set()
    codes: Counter[str] = Counter()
    while answered < expected:
        raw = proc.stdout.readline()
        if not raw:
            break  # the server died or closed its stdout: whatever is missing is unanswered
        answer = json.loads(raw, parse_int=str, parse_float=str)
        ident = str(answer.get("id"))
        if ident in expected:
            answered.add(ident)
            codes[str(answer["error"]["code"]) if "error" in answer else "result"] += 1
    seconds = time.perf_counter() - start
    writer.join(timeout=10)
    proc.stdin.close()
    exit_code = proc.wait(timeout=60)
    return {
        "calls": calls,
        "answered": len(answered),
        "unanswered": len(expected - answered),
        "by_code": dict(codes),
        "server_exit_code": exit_code,
        "seconds": seconds,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 requests instead of 10,000")
    parser.add_argument("--calls", type=int, help="number of requests")
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args(argv)
    calls = args.calls or (1000 if args.quick else 10_000)
    load_before = os.getloadavg()
    result = {**run(calls, args.seed), "seed": args.seed, "load_average": [load_before, os.getloadavg()]}
    print(
        f"{result['calls']} stdio requests with an id in {result['seconds']:.1f} s: {result['answered']} answered, "
        f"{result['unanswered']} unanswered; answers by code {result['by_code']}; server exit code {result['server_exit_code']}"
    )
    print(f"machine load (1-minute average) {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(f"wrote {write_artefact('stdio_fuzz', result)}")
    return 0 if result["unanswered"] == 0 and result["server_exit_code"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
