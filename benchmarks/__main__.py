"""Run every benchmark module in turn (``python -m benchmarks [name ...]``)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if m.name.startswith("bench_"))
    if argv:
        unknown = [a for a in argv if f"bench_{a}" not in names and a not in names]
        if unknown:
            print(f"unknown benchmarks {unknown}; available: {names}", file=sys.stderr)
            return 2
        names = [n for n in names if n in argv or n.removeprefix("bench_") in argv]
    failed = 0
    for name in names:
        print(f"== {name}", flush=True)
        module = importlib.import_module(f"benchmarks.{name}")
        failed += int(module.main([]) != 0)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
