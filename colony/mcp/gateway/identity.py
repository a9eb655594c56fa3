"""Who is calling: the authenticated caller, never an argument of the call.

The one place the gateway asks this is :func:`caller_agent`. Over Streamable HTTP the SDK's
auth middleware puts the verified access token in a context variable
(``mcp.server.auth.middleware.auth_context.get_access_token()``); a token issued to one
agent names it in ``client_id``. The single shared token of ``colony.mcp.http`` names no
agent (its ``client_id`` is :data:`SHARED_TOKEN_CLIENT`), so a gateway behind it — and any
gateway on stdio — is bound to one agent with ``--agent-id``: one gateway process, one agent.

>>> caller_agent("agent-7")
'agent-7'
"""

from __future__ import annotations

from mcp.server.auth.middleware.auth_context import get_access_token

from colony.errors import ColonyError

__all__ = ["SHARED_TOKEN_CLIENT", "IdentityError", "caller_agent"]

SHARED_TOKEN_CLIENT = "colony-mcp-client"  # the client_id colony.mcp.http.StaticTokenVerifier grants


class IdentityError(ColonyError):
    """The caller's identity is unknown or contradicts the gateway's binding."""


def caller_agent(bound: str | None) -> str:
    """The agent this call acts for: the token's agent, else the gateway's ``--agent-id`` binding."""
    token = get_access_token()
    named = token.client_id if token is not None and token.client_id != SHARED_TOKEN_CLIENT else None
    if named and bound and named != bound:
        raise IdentityError(f"the access token names agent {named!r}, but this gateway is bound to {bound!r}")
    agent = named or bound
    if not agent:
        raise IdentityError("no authenticated agent: start the gateway with --agent-id NAME")
    return agent
