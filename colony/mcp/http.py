"""Streamable HTTP safeguards: one bearer token, Host/Origin checks, loopback by default.

>>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
(True, True, False)
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets

from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings

from colony.errors import ValidationError

__all__ = [
    "TOKEN_ENV",
    "StaticTokenVerifier",
    "auth_settings",
    "check_bind_host",
    "is_loopback",
    "resolve_token",
    "transport_security",
    "url_host",
]

TOKEN_ENV = "COLONY_MCP_TOKEN"
_LOOPBACK_NAMES = ("localhost",)


class StaticTokenVerifier(TokenVerifier):
    """Accept exactly one bearer token (compared in constant time)."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValidationError("token", "must be non-empty")
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str) -> AccessToken | None:
        """The access grant for the configured token; None for any other."""
        if hmac.compare_digest(token.encode("utf-8", "replace"), self._token):
            return AccessToken(token=token, client_id="colony-mcp-client", scopes=[])
        return None


def resolve_token() -> tuple[str, bool]:
    """The bearer token from ``COLONY_MCP_TOKEN``, or a new random one; and whether it was generated."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    if token:
        return token, False
    return secrets.token_urlsafe(32), True


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
    """Resource-server auth settings for a server at ``host:port`` (the token is checked locally)."""
    return AuthSettings(issuer_url=f"http://{url_host(host)}:{port}", resource_server_url=None)  # type: ignore[arg-type]
