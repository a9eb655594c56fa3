"""Timeouts and tool-list changes, against a real SDK server that is slow or grows a tool on demand."""

from __future__ import annotations

import dataclasses
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from colony.models import SignalType
from tests.gateway.conftest import Scratch, gateway_config, running

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_a_slow_upstream_times_out_and_the_call_is_a_failure(scratch: Scratch) -> None:
    async with running(gateway_config(scratch, dynamic=True)) as (gw, c):  # dyn: call_timeout_seconds 1.0
        quick = await c.call_tool("dyn__slow", {"seconds": 0.01})
        assert not quick.is_error and quick.meta is not None and quick.meta["colony/gateway"]["outcome"] == "success"
        with anyio.fail_after(10):
            slow = await c.call_tool("dyn__slow", {"seconds": 5})
        assert slow.is_error and slow.structured_content is not None
        assert slow.structured_content["failure"] == "timeout" and "no answer within 1 s" in slow.structured_content["error"]
        assert gw.kernel.query("dyn", SignalType.FAILURE, prefix=False)[0].strength == pytest.approx(3.0)  # default target
        assert gw.upstreams["dyn"].state == "ready"  # a timeout does not drop the connection


async def test_an_upstream_tool_list_change_reaches_modern_and_handshake_clients(scratch: Scratch) -> None:
    notified: list[Any] = []

    async def handler(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            notified.append(message)

    async with running(gateway_config(scratch, dynamic=True)) as (gw, modern):
        assert modern.protocol_version == "2026-07-28"
        async with Client(gw.server("alice"), mode="legacy", message_handler=handler) as legacy:
            assert legacy.server_capabilities.tools is not None
            assert "dyn__extra" not in {t.name for t in (await legacy.list_tools()).tools}
            async with modern.listen(tools_list_changed=True) as sub:
                grown = await modern.call_tool("dyn__grow", {})
                assert not grown.is_error
                with anyio.fail_after(10):
                    event = await sub.__anext__()
                assert type(event).__name__ == "ToolsListChanged"
            with anyio.fail_after(10):
                while not notified:
                    await anyio.sleep(0.05)
            names = {t.name for t in (await legacy.list_tools()).tools}
            assert "dyn__extra" in names
            extra = await modern.call_tool("dyn__extra", {"text": "loud"})
            assert not extra.is_error and extra.content[0].text == "LOUD"  # type: ignore[union-attr]


async def test_a_handshake_era_upstream_announcing_a_change_is_followed(scratch: Scratch) -> None:
    config = gateway_config(scratch, dynamic=True)
    dyn = dataclasses.replace(config.upstreams["dyn"], protocol="legacy")
    config = dataclasses.replace(config, upstreams={**config.upstreams, "dyn": dyn})
    async with running(config) as (gw, c):
        assert gw.upstreams["dyn"].protocol_version == "2025-11-25"
        assert not (await c.call_tool("dyn__grow", {})).is_error
        with anyio.fail_after(10):
            while "extra" not in gw.upstreams["dyn"].tools:
                await anyio.sleep(0.05)
        assert "dyn__extra" in {t.name for t in (await c.list_tools()).tools}


async def test_an_upstream_starts_when_stderr_has_no_file_descriptor(scratch: Scratch, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: in a notebook kernel ``sys.stderr`` has no ``fileno()``, and every stdio upstream failed to start."""
    import io
    import sys

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    async with running(gateway_config(scratch)) as (gw, c):
        assert {u["state"] for u in gw.status()["upstreams"]} == {"ready"}
        assert not (await c.call_tool("fs__write_file", {"path": str(scratch.files / "nb.txt"), "content": "ok"})).is_error
