"""What the tests and the benchmarks both need, so that neither imports the other.

* :mod:`testkit.pg_cluster` — a throw-away PostgreSQL cluster (``initdb`` + ``pg_ctl``);
* :mod:`testkit.mcp_http` — an MCP server over Streamable HTTP in its own process, and a lean client;
* :mod:`testkit.fuzz_http` — the HTTP fuzzer (a small run in the tests, 10,000 calls in ``benchmarks/bench_fuzz.py``);
* :mod:`testkit.storage_load` — load on MCP servers sharing one PostgreSQL database.

Not part of the colony package (``pyproject.toml`` packages ``colony*`` only); importable from the
repository root, where pytest's ``pythonpath`` and ``python -m benchmarks`` put it.
"""
