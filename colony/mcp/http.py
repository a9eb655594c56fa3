"""Streamable HTTP safeguards: loopback by default, Host/Origin checks, bounded sessions.

The session limits' defaults are in :mod:`colony.mcp.options`.

Authentication (bearer tokens) is :mod:`colony.mcp.auth`; failed attempts are slowed by
:mod:`colony.mcp.ratelimit`.

>>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
(True, True, False)
"""

from __future__ import annotations

import ipaddress

from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings

from colony.errors import ValidationError
from colony.mcp.options import MAX_SESSIONS, SESSION_IDLE_TIMEOUT_S

__all__ = [
    "MAX_SESSIONS",
    "SESSION_IDLE_TIMEOUT_S",
    "auth_settings",
    "check_bind_host",
    "is_loopback",
    "transport_security",
    "url_host",
]

_LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    """True for loopback addresses and ``localhost``."""
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind_host(host: str, *, allow_remote: bool) -> None:
    """Refuse a non-loopback bind address unless the operator explicitly allowed remote clients."""
    if not is_loopback(host) and not allow_remote:
        raise ValidationError(
            "host", f"{host!r} is not a loopback address; pass --allow-remote to accept connections from other hosts", value=host
        )


def url_host(host: str) -> str:
    """``host`` as it appears in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def transport_security(
    host: str, *, extra_hosts: tuple[str, ...] = (), extra_origins: tuple[str, ...] = ()
) -> TransportSecuritySettings:
    """Host and Origin allow-lists: loopback names, the bind host, and any explicitly added."""
    names = ["127.0.0.1", "localhost", "[::1]", url_host(host), *extra_hosts]
    hosts = sorted({f"{n}:*" for n in names} | set(extra_hosts))
    origins = sorted({f"http://{n}:*" for n in names} | set(extra_origins))
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


def auth_settings(host: str, port: int) -> AuthSettings:
    """Resource-server auth settings for a server at ``host:port`` (tokens are checked locally)."""
    return AuthSettings(issuer_url=f"http://{url_host(host)}:{port}", resource_server_url=None)  # type: ignore[arg-type]
