"""Run benchmark modules in turn.

``python -m benchmarks [NAME ...] [--quick] [--missing]``

* NAME: ``kernel``, ``mcp``, ... (default: every ``bench_*`` module);
* ``--quick``: smaller sizes and fewer repetitions, for modules that offer it;
* ``--missing``: run only the benchmarks whose artefact ``output/benchmarks/<name>.json`` is absent
  (the build uses this: measured timings are inputs of the build, made once, not on every build).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import time
from pathlib import Path

from benchmarks.common import OUTPUT

QUICK = frozenset(
    {"kernel", "change", "attestation", "falsification", "mcp", "reference", "research", "gateway", "mutation", "sweep_scaling"}
)


def available() -> list[str]:
    return sorted(
        m.name.removeprefix("bench_") for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name.startswith("bench_")
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help=f"benchmarks to run (default all: {', '.join(available())})")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for modules that offer it")
    parser.add_argument("--missing", action="store_true", help="only benchmarks whose artefact is absent")
    args = parser.parse_args(argv)
    names = [n.removeprefix("bench_") for n in args.names] or available()
    unknown = sorted(set(names) - set(available()))
    if unknown:
        parser.error(f"unknown benchmarks {unknown}; available: {available()}")
    if args.missing:
        names = [n for n in names if not (OUTPUT / f"{n}.json").is_file()]
    failed = []
    for name in names:
        print(f"== benchmark {name}", flush=True)
        start = time.perf_counter()
        module = importlib.import_module(f"benchmarks.bench_{name}")
        code = module.main(["--quick"] if args.quick and name in QUICK else [])
        print(f"== benchmark {name}: exit {code} in {time.perf_counter() - start:.1f} s", flush=True)
        if code:
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
