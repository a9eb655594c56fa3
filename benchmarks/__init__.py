"""Benchmarks: each ``bench_*.py`` module has ``main(argv) -> int``, prints its figures and writes
``output/benchmarks/<name>.json``. Run one with ``python -m benchmarks.bench_kernel`` or all with
``python -m benchmarks``."""
