"""Access rules for MCP tool calls: identity comes from credentials, admin tools need an operator.

:class:`AccessPolicy` is applied by the server to every tool call, before the SDK parses
the arguments (so one place covers the identity of the colony tools, the ``cli_*`` tools
and whatever is registered later):

* a caller bound to an agent (an agent's own token over HTTP, ``--agent-id`` on stdio) may
  only act as that agent: an identity argument (``agent_id``, or ``actor_id`` of the
  attested lifecycle) that names someone else is refused, and a missing one is filled in
  from the credentials. Operators may read any agent's profile;
* the tools in :data:`OPERATOR_TOOLS` (tick, pruning, the gateway's approvals) need operator
  rights, and so do the ``cli_*`` tools that write files or run code (their rows say so;
  their registration refuses other callers with :func:`require_operator`);
* in registry-only mode, an ``agent_id`` must name a registered, unrevoked agent.

>>> policy = AccessPolicy(bound=Caller("ant-1", False, "stdio"))
>>> policy.admit("colony_propose_action", {"target": "pkg.a"})
{'target': 'pkg.a', 'agent_id': 'ant-1'}
>>> policy.admit("colony_propose_action", {"agent_id": "queen"})
Traceback (most recent call last):
...
colony.errors.ValidationError: agent_id: names 'queen', but the credentials of this call are those of 'ant-1'
>>> policy.admit("colony_tick", {})
Traceback (most recent call last):
...
colony.errors.ValidationError: colony_tick: only an operator may call this tool; 'ant-1' is an agent
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from colony.errors import ValidationError
from colony.mcp.auth import UNBOUND, Caller, caller
from colony.mcp.gateway.approval import APPROVE_TOOL, LIST_TOOL
from colony.mcp.tools import TOOLS

if TYPE_CHECKING:
    from colony.mcp.agents import AgentRegistry

__all__ = ["IDENTITY_ARGUMENTS", "OPERATOR_TOOLS", "AccessPolicy", "require_operator"]

#: Tool → the argument that names who acts (from the tools' signatures).
IDENTITY_ARGUMENTS: Final[Mapping[str, str]] = {spec.name: spec.identity for spec in TOOLS if spec.identity is not None}
#: Tools whose identity argument only names whom to read (the read-only ones): an operator may name any agent.
READ_SUBJECT_TOOLS: Final = frozenset(spec.name for spec in TOOLS if spec.identity and spec.annotations.read_only_hint)
#: Tools only an operator may call, from their tables: time and pruning (the rows of :data:`TOOLS` marked
#: ``operator``) and the gateway's approval tools (releasing a held call is a person's decision). The ``cli_*``
#: rows marked ``operator`` (the tools that write files or run code) refuse other callers where they are
#: registered (:mod:`colony.cli_tools.mcp`), with :func:`require_operator` too.
OPERATOR_TOOLS: Final = frozenset({*(spec.name for spec in TOOLS if spec.operator), APPROVE_TOOL, LIST_TOOL})


def require_operator(tool: str, who: Caller) -> None:
    """Return if ``who`` has operator rights, else ValidationError naming ``tool``: the one wording of that refusal."""
    if not who.operator:
        raise ValidationError(tool, f"only an operator may call this tool; {who.agent_id!r} is an agent")


@dataclass(frozen=True, slots=True)
class AccessPolicy:
    """How a server decides who may call what.

    Parameters:
        bound: the caller of a request without a bearer token (stdio: ``--agent-id``; else unbound).
        registry: the agent registry (needed for ``registry_only``).
        registry_only: refuse any ``agent_id`` that is not a registered, unrevoked agent.
    """

    bound: Caller = UNBOUND
    registry: AgentRegistry | None = None
    registry_only: bool = False

    def __post_init__(self) -> None:
        if self.registry_only and self.registry is None:
            raise ValidationError("registry_only", "needs an agent registry (a state file)")

    def who(self) -> Caller:
        """The caller of the current request: its bearer token's identity, else :attr:`bound`."""
        found = caller()
        return self.bound if found.mode == "unbound" else found

    def admit(self, tool: str, arguments: Mapping[str, Any], who: Caller | None = None) -> dict[str, Any]:
        """The arguments ``tool`` runs with for ``who`` (default: :meth:`who`), or ValidationError; never mutates ``arguments``."""
        who = self.who() if who is None else who
        if tool in OPERATOR_TOOLS:
            require_operator(tool, who)
        args = dict(arguments)
        name = IDENTITY_ARGUMENTS.get(tool)
        if name is None:
            return args
        given = args.get(name)
        if who.agent_id is not None:
            if given is None or given == "":
                args[name] = given = who.agent_id
            elif given != who.agent_id and not (who.operator and tool in READ_SUBJECT_TOOLS):
                raise ValidationError(name, f"names {given!r}, but the credentials of this call are those of {who.agent_id!r}")
        registry = self.registry if self.registry_only and name == "agent_id" else None
        verified = who.mode == "agent" and given == who.agent_id  # this request's token was just found in the registry
        if registry is not None and not verified and isinstance(given, str) and registry.active(given) is None:
            raise ValidationError(name, f"{given!r} is not a registered agent (this server admits registered agents only)")
        return args
