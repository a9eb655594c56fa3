"""ColonyTools: the MCP tools as plain methods over one lazily created, serialised kernel.

JSON in, JSON out: every method takes JSON-shaped arguments and returns a JSON object.
Bad input and refused operations come back as ``{"error": message}`` with nothing
changed; a verdict of HOLD or REFUSE is a normal result. Exceptions are translated to
results in exactly one place (:meth:`ColonyTools.invoke`); an unexpected one is logged with
its traceback here and reaches the caller only as ``"internal error (logged)"``.

The methods are the tools of :data:`colony.mcp.tools.TOOLS`, one per row, each checked by its
function's annotations (:meth:`colony.mcp.spec.ToolSpec.check`) before it runs.

>>> tools = ColonyTools()
>>> tools.colony_agent_profile("new-agent")["role"]
'sandbox'
>>> tools.colony_pheromone_query("pkg.mod", "smell")["error"]
"signal_type: unknown signal type 'smell'; expected one of ['failure', 'success', 'risk', 'need', 'dependency', 'human_priority']"
>>> tools.colony_record_outcome("a", "patch_file", "pkg.mod", "ok", 1)["error"]
'tests_passed: must be a boolean (true or false), got int'
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import logging
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from colony.config import Policy
from colony.errors import ColonyError, ConflictError, NotFoundError, ValidationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.mcp.spec import ToolSpec
from colony.mcp.tools import TOOLS
from colony.models import ActionProposal, ColonySignal, ConsequenceRecord, DecayRate

__all__ = ["INTERNAL_ERROR", "MCP_AGENT_TYPE", "ColonyTools"]

log = logging.getLogger("colony.mcp")

INTERNAL_ERROR = "internal error (logged)"
MCP_AGENT_TYPE = "mcp_agent"
_STATUS_KEYS = (
    "tick_count",
    "pheromone_summary",
    "budget_usage",
    "role_distribution",
    "recent_consequences",
    "pruning_candidates_count",
    "attestation_mode",
    "retention",
)


def default_expected_outcome(action_type: str, target: str) -> str:
    """The expected outcome a proposal gets when the caller does not state one."""
    return f"Successful execution of {action_type} on {target}."


class ColonyTools:
    """The colony MCP tools bound to one kernel.

    Parameters:
        config: how to build the kernel on first use (default: in-memory, attestation off).
        kernel: an existing kernel to use instead (``config`` is then ignored).

    Calls are serialised on one lock, so a proposal and its bookkeeping are one step.
    """

    def __init__(self, config: ColonyKernelConfig | None = None, *, kernel: ColonyKernel | None = None) -> None:
        if kernel is not None:
            config, policy = kernel.config, kernel.policy
        else:
            config = config or ColonyKernelConfig()
            policy = config.resolve_policy()
            config = dataclasses.replace(config, policy=policy)  # loaded once, here: a bad policy fails now
        self._config = config
        self._policy = policy
        self._kernel = kernel
        self._lock = threading.RLock()

    @property
    def config(self) -> ColonyKernelConfig:
        """The kernel configuration (known before the kernel exists)."""
        return self._config

    @property
    def policy(self) -> Policy:
        """The policy in force (known before the kernel exists)."""
        return self._policy

    @property
    def attestation_enabled(self) -> bool:
        """Whether the attested lifecycle tools apply."""
        return self._config.attestation_mode != "disabled"

    @property
    def kernel(self) -> ColonyKernel:
        """The kernel, created on first use."""
        with self._lock:
            if self._kernel is None:
                self._kernel = ColonyKernel(self._config)
            return self._kernel

    def close(self) -> None:
        """Close the kernel if it was created."""
        with self._lock:
            if self._kernel is not None:
                self._kernel.close()
                self._kernel = None

    # ------------------------------------------------------------- calling
    def invoke(self, spec: ToolSpec, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Run ``spec``'s tool with already checked ``arguments`` (an MCP call: the SDK checked them)."""
        return self._guarded(spec, lambda: spec.fn(self, **arguments))

    def call(self, spec: ToolSpec, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Run ``spec``'s tool as a plain call: its annotations check the arguments first."""
        return self._guarded(spec, lambda: spec.fn(self, **spec.check(args, kwargs)))

    def _guarded(self, spec: ToolSpec, run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Serialise the call on the lock (unless the tool reads no kernel state); any exception becomes ``{"error": ...}``."""
        try:
            with self._lock if spec.serialised else contextlib.nullcontext():
                return run()
        except ColonyError as exc:
            return {"error": str(exc)}
        except Exception:
            log.exception("MCP tool %s failed", spec.name)
            return {"error": INTERNAL_ERROR}

    if TYPE_CHECKING:  # the tool methods are attached below, one per row of the table

        def __getattr__(self, name: str) -> Callable[..., dict[str, Any]]: ...

    # ------------------------------------------------- what the tools share
    def new_proposal(
        self, agent_id: str, action_type: str, target: str, rationale: str, expected_outcome: str, **fields: Any
    ) -> ActionProposal:
        """A proposal from an MCP caller, stamped now (a blank expected outcome gets the default)."""
        return ActionProposal(
            agent_id=agent_id,
            agent_type=MCP_AGENT_TYPE,
            action_type=action_type,
            target=target,
            rationale=rationale,
            expected_outcome=expected_outcome or default_expected_outcome(action_type, target),
            created_at=self.kernel.config.clock(),
            **fields,
        )

    def linked_proposal(self, proposal_id: str, agent_id: str, target: str) -> ActionProposal:
        """The open proposal an outcome report names; it must be the reporter's and at the same target."""
        proposal = self.kernel.get_proposal(proposal_id)
        if proposal is None:
            if self.kernel.consequence_memory.has_outcome(proposal_id):
                raise ConflictError(f"proposal {proposal_id!r} already has a recorded outcome", ident=proposal_id)
            raise NotFoundError("proposal", proposal_id)
        if proposal.agent_id != agent_id:
            raise ValidationError(
                "agent_id", f"proposal {proposal_id!r} was made by {proposal.agent_id!r}, not {agent_id!r}", value=agent_id
            )
        if proposal.target != target:
            raise ValidationError("target", f"proposal {proposal_id!r} targets {proposal.target!r}, not {target!r}", value=target)
        return proposal

    @staticmethod
    def feedback(human_feedback: float) -> str | None:
        """Operator feedback as the kernel records it (0 = none)."""
        return repr(float(human_feedback)) if human_feedback else None

    @staticmethod
    def outcome(action_type: str, target: str, actual_outcome: str, repair_needed: bool) -> dict[str, Any]:
        """The outcome record of a report."""
        return {"summary": actual_outcome, "repair_needed": repair_needed, "action_taken": f"{action_type} on {target}"}

    def recorded(self, record: ConsequenceRecord, *, linked: bool) -> dict[str, Any]:
        """The answer to a recorded outcome: ids and the agent's trust afterwards."""
        profile = self.kernel.agent_profile(record.proposal.agent_id)
        return {
            "status": "recorded",
            "consequence_id": record.consequence_id,
            "proposal_id": record.proposal.proposal_id,
            "linked": linked,
            "trust_delta": record.trust_delta,
            "trust_score": profile.trust_score,
            "role": profile.role.value,
        }

    def status(self) -> dict[str, Any]:
        """The dashboard snapshot the status and tick tools answer."""
        s = self.kernel.colony_status()
        return {k: s[k] for k in _STATUS_KEYS}

    def signal(self, s: ColonySignal) -> dict[str, Any]:
        """One pheromone trace as the query tool answers it."""
        rates = self.kernel.policy.pheromone.decay_per_tick
        return {
            "location": s.location,
            "signal_type": s.signal_type.value,
            "strength": s.strength,
            # Rounded so 0.3 / 0.1 reads 3.0, not 2.9999999999999996.
            "decay_rate": round(getattr(rates, s.decay_rate.value) / getattr(rates, DecayRate.NORMAL.value), 9),
            "decay_class": s.decay_rate.value,
            "source": s.source.value,
            "evidence": s.evidence,
            "last_reinforced": s.last_reinforced,
        }


def _plain_method(spec: ToolSpec) -> Callable[..., dict[str, Any]]:
    def method(self: ColonyTools, /, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return self.call(spec, *args, **kwargs)

    method.__name__ = spec.name
    method.__qualname__ = f"ColonyTools.{spec.name}"
    method.__doc__ = spec.fn.__doc__
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    method.__signature__ = spec.signature.replace(parameters=[self_param, *spec.signature.parameters.values()])  # type: ignore[attr-defined]
    return method


for _spec in TOOLS:
    setattr(ColonyTools, _spec.name, _plain_method(_spec))
