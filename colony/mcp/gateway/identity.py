"""Who is calling: the authenticated caller, never an argument of the call.

The gateway asks this in one place, :func:`caller_agent`, and reads the answer from
:func:`colony.mcp.auth.caller`, as the colony MCP server does:

* a registered agent's token (``colony agents add``; mode ``agent``) names the agent. A
  gateway started with ``--agent-id`` serves that agent only, and any other agent's
  token gets an error, except an operator's token calling the gateway's own operator tools
  (``operator_tool``: listing and approving held calls), so the agent's holds can be approved;
* the single shared token (mode ``shared``) names no agent. The gateway's ``--agent-id``
  binding names it, so one gateway process serves one agent;
* without credentials (stdio, or an in-process client) the binding is the caller.

Nothing in the call's arguments or ``_meta`` changes the answer.

>>> from colony.mcp.auth import Caller
>>> caller_agent(Caller("agent-7", False, "stdio"))
Caller(agent_id='agent-7', operator=False, mode='stdio')
>>> caller_agent(Caller(None, False, "stdio"))
Traceback (most recent call last):
...
colony.mcp.gateway.identity.IdentityError: no authenticated agent: start the gateway with --agent-id NAME, or give each agent its own token (colony agents add)
"""

from __future__ import annotations

from colony.errors import ColonyError
from colony.mcp.auth import Caller, caller

__all__ = ["IdentityError", "caller_agent"]


class IdentityError(ColonyError):
    """The caller's identity is unknown or contradicts the gateway's binding."""


def caller_agent(bound: Caller, *, operator_tool: bool = False) -> Caller:
    """The caller this call acts for, with its agent named: the token's agent, else the gateway's binding ``bound``.

    ``operator_tool``: the call is to one of the gateway's own operator tools, which an operator's
    token may call on a gateway bound to another agent (it acts for nobody's agent there).
    """
    who = caller()
    if who.mode == "agent":
        if bound.agent_id is not None and who.agent_id != bound.agent_id and not (operator_tool and who.operator):
            raise IdentityError(f"the access token names agent {who.agent_id!r}, but this gateway serves {bound.agent_id!r} only")
        return who
    if who.mode == "shared":  # the shared token names nobody: the binding does; the token's rights stay
        who = Caller(bound.agent_id, who.operator, "shared")
    elif who.mode == "unbound":  # no credentials with this request
        who = bound
    if not who.agent_id:
        raise IdentityError(
            "no authenticated agent: start the gateway with --agent-id NAME, or give each agent its own token (colony agents add)"
        )
    return who
