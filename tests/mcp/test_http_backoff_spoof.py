"""Backoff that cannot be spoofed (issue #27, item 6): X-Forwarded-For counts only from a ``--trusted-proxy``.

uvicorn trusted X-Forwarded-For from 127.0.0.1 and the failed-auth limiter keyed on the rewritten address: 200 wrong
tokens with a fresh XFF each drew no 429, and 12 failures naming another client's address locked that client out.
Real servers in real processes; a second client connects from another loopback address (127.0.0.3).
"""

from __future__ import annotations

import httpx
import pytest

from tests.mcp.support import TOKEN, initialize_message, start_http_server

pytestmark = pytest.mark.e2e
ACCEPT = {"accept": "application/json, text/event-stream"}


def _post(h: httpx.Client, url: str, token: str, **headers: str) -> int:
    auth = {"authorization": f"Bearer {token}"}
    return h.post(url, json=initialize_message("2025-06-18"), headers={**ACCEPT, **auth, **headers}).status_code


def test_wrong_tokens_with_a_fresh_forwarded_for_each_still_draw_429() -> None:
    server = start_http_server()
    assert server.url is not None
    try:
        with httpx.Client(timeout=30) as h:
            codes = [_post(h, server.url, f"wrong-{i}", **{"x-forwarded-for": f"10.{i // 250}.{i % 250}.7"}) for i in range(200)]
    finally:
        server.stop()
    assert codes[:11] == [401] * 11 and codes[11:] == [429] * 189


def test_failures_naming_another_clients_address_do_not_lock_it_out() -> None:
    server = start_http_server()
    assert server.url is not None
    try:
        with httpx.Client(timeout=30) as attacker:
            codes = [_post(attacker, server.url, f"wrong-{i}", **{"x-forwarded-for": "127.0.0.3"}) for i in range(12)]
        victim = httpx.Client(timeout=30, transport=httpx.HTTPTransport(local_address="127.0.0.3"))
        with victim:
            assert _post(victim, server.url, TOKEN) == 200
    finally:
        server.stop()
    assert codes == [401] * 11 + [429]  # the attacker's own address pays


def test_a_trusted_proxy_names_the_client_and_limits_key_on_it() -> None:
    server = start_http_server("--trusted-proxy", "127.0.0.1")
    assert server.url is not None
    try:
        with httpx.Client(timeout=30) as proxy:
            codes = [_post(proxy, server.url, f"wrong-{i}", **{"x-forwarded-for": "203.0.113.9"}) for i in range(12)]
            other = _post(proxy, server.url, TOKEN, **{"x-forwarded-for": "203.0.113.10"})
    finally:
        server.stop()
    assert codes == [401] * 11 + [429] and other == 200


def test_a_trusted_proxy_must_be_an_address() -> None:
    server = start_http_server("--trusted-proxy", "*")
    try:
        assert server.url is None and server.proc.wait(timeout=30) == 2
        assert "--trusted-proxy: must be an IP address or network" in server.stderr
    finally:
        server.stop()


def test_a_wrong_token_flood_does_not_lock_out_a_client_with_a_valid_token_on_the_same_address() -> None:
    # issue #27, item 6: the limiter keyed on the address only, and every loopback client shares 127.0.0.1
    server = start_http_server()
    assert server.url is not None
    try:
        with httpx.Client(timeout=30) as attacker, httpx.Client(timeout=30) as victim:
            flood = [_post(attacker, server.url, f"wrong-{i}") for i in range(30)]
            valid = [_post(victim, server.url, TOKEN) for _ in range(3)]  # a client that never authenticated before
            after = [_post(attacker, server.url, "wrong-again"), _post(attacker, server.url, TOKEN.upper())]
            probe = attacker.post(server.url, json=initialize_message("2025-06-18"), headers=ACCEPT)
    finally:
        server.stop()
    assert flood == [401] * 11 + [429] * 19  # the address still pays for its failures
    assert valid == [200, 200, 200]  # the valid token's requests are its agent's, not the address's
    assert after == [429, 429]  # a refused credential from the blocked address is still 429, and counted
    assert probe.status_code == 429 and int(probe.headers["retry-after"]) > 0  # so is a request without one
