"""Fuzz benchmark: 10,000+ random calls over Streamable HTTP with per-agent tokens (issue 18).

Prints and records how many calls were made, accepted and rejected, and the counts that
must be 0: server deaths, internal errors, tracebacks, and state changes from rejected
calls (:mod:`benchmarks.fuzz_http` says how each is detected).

Run: ``python -m benchmarks.bench_fuzz [--quick] [--calls N] [--seed S]``; writes ``output/benchmarks/fuzz.json``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from benchmarks.common import write_artefact
from testkit.fuzz_http import run_fuzz


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 calls instead of 10,000")
    parser.add_argument("--calls", type=int, help="number of fuzzed calls")
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args(argv)
    calls = args.calls or (1000 if args.quick else 10_000)
    load_before = os.getloadavg()
    start = time.perf_counter()
    stats = run_fuzz(calls, seed=args.seed)
    seconds = time.perf_counter() - start
    result = {**stats.to_dict(), "seed": args.seed, "seconds": seconds, "load_average": [load_before, os.getloadavg()]}
    print(
        f"{stats.calls} fuzzed calls over HTTP with per-agent tokens in {seconds:.0f} s: {stats.accepted} accepted, "
        f"{stats.rejected} rejected ({stats.by_status}); deaths {stats.deaths}, internal errors {stats.internal_errors}, "
        f"tracebacks {stats.tracebacks}, state changes from rejected calls {stats.changed_by_rejected}"
    )
    print(f"machine load (1-minute average) {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after")
    for example in stats.examples[:10]:
        print("  ", example)
    print(f"wrote {write_artefact('fuzz', result)}")
    return 0 if stats.clean and stats.calls == calls else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
