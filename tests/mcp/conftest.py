"""Fixtures for the MCP tests: a shared HTTP server process, always stopped."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.mcp.support import ServerProcess, start_http_server


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def http_server() -> Iterator[ServerProcess]:
    """One HTTP server (in-memory state, fixed token) for the tests of a module."""
    server = start_http_server()
    try:
        assert server.url is not None, server.stderr
        yield server
    finally:
        server.stop()
