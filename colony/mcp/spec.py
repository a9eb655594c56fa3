"""How a colony MCP tool is declared: one annotated function, one row of the table.

A tool is a plain function ``fn(kernel, **arguments) -> dict`` whose parameters carry their
JSON type, constraints and description as ``Annotated[..., Field(...)]``. Everything else
is derived from that one signature:

* :attr:`ToolSpec.mcp_signature`, from which the SDK builds the argument model of MCP calls:
  the ``kernel`` parameter dropped, ``agent_id`` moved last and made optional (a server that
  knows the caller fills it in, :mod:`colony.mcp.access`), the declared output type as the
  return annotation;
* :meth:`ToolSpec.check`, the same rules for a plain call (``ColonyTools``, ``colony.mcp_tools``),
  worded as the plain API always worded them (``tests_passed: must be a boolean (true or false), got int``);
* :attr:`ToolSpec.identity`, the argument that names who acts.

>>> from typing import Annotated
>>> from pydantic import Field
>>> def colony_echo(kernel: object, agent_id: Annotated[str, Field(strict=True)], loud: bool = False) -> dict:
...     '''Echo.'''
...     return {"agent_id": agent_id}
>>> spec = ToolSpec(colony_echo, READ_ONLY, dict, "Echo the caller.")
>>> list(spec.mcp_signature.parameters), spec.identity
(['loud', 'agent_id'], 'agent_id')
>>> spec.check((None,), {})
Traceback (most recent call last):
...
colony.errors.ValidationError: agent_id: must be a string, got NoneType
"""

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, create_model
from pydantic import ValidationError as PydanticValidationError

from colony.errors import ValidationError

__all__ = ["IDENTITY_ARGUMENTS", "READ_ONLY", "WRITES", "ToolSpec"]

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
#: The arguments that name who acts, in order of precedence; ``agent_id`` may be left out over MCP.
IDENTITY_ARGUMENTS = ("agent_id", "actor_id")

# The plain API's wording of the rules pydantic checks (translated here, once).
_PLAIN_WORDING = {
    "string_type": "must be a string, got {kind}",
    "bool_type": "must be a boolean (true or false), got {kind}",
    "float_type": "must be a number, got {kind}",
    "finite_number": "must be finite, got {value!r}",
    "greater_than_equal": "must be >= {ge}, got {value!r}",
    "less_than_equal": "must be <= {le}, got {value!r}",
}


@dataclass(frozen=True, slots=True, eq=False)
class ToolSpec:
    """One colony MCP tool: its function and how it is served.

    Parameters:
        fn: the tool, ``fn(kernel, **arguments) -> dict``; its name is the tool's name.
        annotations: the MCP hints (read-only, destructive, idempotent, open world).
        output: the TypedDict of a successful result (the tool's ``outputSchema``).
        description: what clients read, a template filled with the policy's numbers (:meth:`describe`).
        attested: served only when attestation is on.
        operator: only an operator may call it.
        serialised: False for a tool that reads no kernel state: it runs beside other calls, and off
            the event loop when the server has a repository root to walk.
    """

    fn: Callable[..., dict[str, Any]]
    annotations: ToolAnnotations
    output: Any
    description: str
    attested: bool = False
    operator: bool = False
    serialised: bool = True
    signature: inspect.Signature = field(init=False)
    mcp_signature: inspect.Signature = field(init=False)
    identity: str | None = field(init=False)
    _model: type[BaseModel] = field(init=False)

    def __post_init__(self) -> None:
        params = list(inspect.signature(self.fn).parameters.values())[1:]  # without ``kernel``
        names = [p.name for p in params]
        identity = next((name for name in IDENTITY_ARGUMENTS if name in names), None)
        over_mcp = [p for p in params if p.name != "agent_id"]
        over_mcp += [p.replace(default="") for p in params if p.name == "agent_id"]
        fields: dict[str, Any] = {
            p.name: (p.annotation, ... if p.default is inspect.Parameter.empty else p.default) for p in params
        }
        set_ = object.__setattr__  # a frozen dataclass computes its derived fields once, here
        set_(self, "signature", inspect.Signature(params))
        set_(self, "mcp_signature", inspect.Signature(over_mcp, return_annotation=Annotated[CallToolResult, self.output]))
        set_(self, "identity", identity)
        set_(self, "_model", create_model(f"{self.name}_arguments", **fields))

    @property
    def name(self) -> str:
        """The tool's name (its function's)."""
        return self.fn.__name__

    def describe(self, values: Mapping[str, Any]) -> str:
        """The description with the policy's numbers filled in (``values``: see :func:`colony.mcp.tools.policy_values`)."""
        return self.description.format_map(values)

    def check(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments of a plain call, checked by the annotations (ValidationError naming the argument).

        A missing or unknown argument is a TypeError, as for any Python call.
        """
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        try:
            checked = self._model.model_validate(bound.arguments)
        except PydanticValidationError as exc:
            raise _plain_error(exc) from None
        return {name: getattr(checked, name) for name in bound.arguments}


def _plain_error(exc: PydanticValidationError) -> ValidationError:
    err = exc.errors()[0]
    value = err.get("input")
    template = _PLAIN_WORDING.get(err["type"])
    message = template.format(kind=type(value).__name__, value=value, **err.get("ctx", {})) if template else err["msg"]
    return ValidationError(".".join(str(p) for p in err["loc"]), message, value=value)
