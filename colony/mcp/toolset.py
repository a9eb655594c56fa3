"""ColonyTools: the MCP tools as plain methods over one lazily created, serialised kernel.

JSON in, JSON out: every method takes JSON-shaped arguments and returns a JSON object.
Bad input and refused operations come back as ``{"error": message}`` with nothing
changed; a verdict of HOLD or REFUSE is a normal result. Exceptions are translated to
results in exactly one place (:func:`_boundary`); an unexpected one is logged with its
traceback here and reaches the caller only as ``"internal error (logged)"``.

>>> tools = ColonyTools()
>>> tools.colony_agent_profile("new-agent")["role"]
'sandbox'
>>> tools.colony_pheromone_query("pkg.mod", "smell")["error"]
"signal_type: unknown signal type 'smell'; expected one of ['failure', 'success', 'risk', 'need', 'dependency', 'human_priority']"
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import threading
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec

from colony.config import Policy
from colony.errors import ColonyError, ConflictError, NotFoundError, ValidationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.mcp import inputs
from colony.models import ActionProposal, ColonySignal, ConsequenceRecord, DecayRate

__all__ = ["INTERNAL_ERROR", "MCP_AGENT_TYPE", "ColonyTools"]

log = logging.getLogger("colony.mcp")

INTERNAL_ERROR = "internal error (logged)"
MCP_AGENT_TYPE = "mcp_agent"
RECORD_RATIONALE = "Outcome recorded via colony_record_outcome MCP tool."

P = ParamSpec("P")


def _translated(
    method: Callable[Concatenate[ColonyTools, P], dict[str, Any]],
) -> Callable[Concatenate[ColonyTools, P], dict[str, Any]]:
    """Serialise the call on the toolset's lock and turn any exception into ``{"error": ...}``."""
    return _boundary(method, serialised=True)


def _unserialised(
    method: Callable[Concatenate[ColonyTools, P], dict[str, Any]],
) -> Callable[Concatenate[ColonyTools, P], dict[str, Any]]:
    """Like :func:`_translated` for a tool that reads no kernel state (it may run beside others)."""
    return _boundary(method, serialised=False)


def _boundary(
    method: Callable[Concatenate[ColonyTools, P], dict[str, Any]], *, serialised: bool
) -> Callable[Concatenate[ColonyTools, P], dict[str, Any]]:
    @functools.wraps(method)
    def call(self: ColonyTools, *args: P.args, **kwargs: P.kwargs) -> dict[str, Any]:
        try:
            with self._lock if serialised else contextlib.nullcontext():
                return method(self, *args, **kwargs)
        except ColonyError as exc:
            return {"error": str(exc)}
        except Exception:
            log.exception("MCP tool %s failed", method.__name__)
            return {"error": INTERNAL_ERROR}

    return call


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

    # ------------------------------------------------------------- proposals
    def _new_proposal(
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

    def _linked_proposal(self, proposal_id: str, agent_id: str, target: str) -> ActionProposal:
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
    def _report(
        actual_outcome: str, tests_passed: bool, human_feedback: float, repair_needed: bool
    ) -> tuple[str, bool, str | None, bool]:
        """The checked report: (actual_outcome, tests_passed, feedback as the kernel records it, repair_needed)."""
        actual_outcome = inputs.text("actual_outcome", actual_outcome, allow_empty=True)
        tests_passed = inputs.flag("tests_passed", tests_passed)
        feedback = inputs.feedback(human_feedback)
        repair_needed = inputs.flag("repair_needed", repair_needed)
        return actual_outcome, tests_passed, repr(feedback) if feedback else None, repair_needed

    @staticmethod
    def _outcome(action_type: str, target: str, actual_outcome: str, repair_needed: bool) -> dict[str, Any]:
        return {"summary": actual_outcome, "repair_needed": repair_needed, "action_taken": f"{action_type} on {target}"}

    def _recorded(self, record: ConsequenceRecord, *, linked: bool) -> dict[str, Any]:
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

    # ----------------------------------------------------------------- tools
    @_translated
    def colony_propose_action(
        self,
        agent_id: str,
        action_type: str,
        target: str,
        rationale: str,
        rollback_plan: str,
        evidence: str = "{}",
        expected_outcome: str = "",
    ) -> dict[str, Any]:
        """Submit a proposal to the actuation gate; returns the verdict and the ``proposal_id``."""
        agent_id = inputs.text("agent_id", agent_id)
        action_type = inputs.text("action_type", action_type)
        target = inputs.text("target", target)
        rationale = inputs.text("rationale", rationale)
        rollback_plan = inputs.text("rollback_plan", rollback_plan, allow_empty=True)
        parsed = inputs.json_object("evidence", evidence)
        expected = inputs.text("expected_outcome", expected_outcome, allow_empty=True).strip()
        proposal = self._new_proposal(
            agent_id, action_type, target, rationale, expected, rollback_plan=rollback_plan, evidence=parsed
        )
        result = self.kernel.propose_action(proposal)
        return {**result.to_dict(), "proposal_id": proposal.proposal_id}

    @_translated
    def colony_record_outcome(
        self,
        agent_id: str,
        action_type: str,
        target: str,
        actual_outcome: str,
        tests_passed: bool,
        human_feedback: float = 0.0,
        repair_needed: bool = False,
        proposal_id: str | None = None,
    ) -> dict[str, Any]:
        """Record a caller-reported outcome; links to an earlier proposal when ``proposal_id`` is given."""
        agent_id = inputs.text("agent_id", agent_id)
        action_type = inputs.text("action_type", action_type)
        target = inputs.text("target", target)
        actual_outcome, tests_passed, feedback, repair_needed = self._report(
            actual_outcome, tests_passed, human_feedback, repair_needed
        )
        if proposal_id is not None:
            proposal = self._linked_proposal(inputs.text("proposal_id", proposal_id), agent_id, target)
        else:
            proposal = self._new_proposal(agent_id, action_type, target, RECORD_RATIONALE, actual_outcome.strip())
        record = self.kernel.record_outcome(
            proposal, self._outcome(action_type, target, actual_outcome, repair_needed), tests_passed, feedback
        )
        return self._recorded(record, linked=proposal_id is not None)

    @_translated
    def colony_agent_profile(self, agent_id: str) -> dict[str, Any]:
        """The agent's trust profile (an unknown agent gets the SANDBOX default, not stored)."""
        return self.kernel.agent_profile(inputs.text("agent_id", agent_id)).to_dict()

    @_translated
    def colony_status(self) -> dict[str, Any]:
        """Dashboard snapshot: tick, field, budget, roles, recent outcomes, pruning count."""
        return self._status()

    def _status(self) -> dict[str, Any]:
        s = self.kernel.colony_status()
        keys = (
            "tick_count",
            "pheromone_summary",
            "budget_usage",
            "role_distribution",
            "recent_consequences",
            "pruning_candidates_count",
            "attestation_mode",
            "retention",
        )
        return {k: s[k] for k in keys}

    @_translated
    def colony_pheromone_query(self, location: str, signal_type: str, include_descendants: bool = False) -> dict[str, Any]:
        """Signals of one type at ``location`` (and below it with ``include_descendants``)."""
        location = inputs.text("location", location)
        signal_type = inputs.text("signal_type", signal_type)
        prefix = inputs.flag("include_descendants", include_descendants)
        signals = self.kernel.query(location, signal_type, prefix=prefix)
        return {"signals": [self._signal(s) for s in signals]}

    def _signal(self, s: ColonySignal) -> dict[str, Any]:
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

    @_unserialised
    def colony_falsify_plan(self, plan_json: str) -> dict[str, Any]:
        """Falsify a JSON plan without touching the colony (the server's repository root only)."""
        plan = inputs.json_object("plan_json", plan_json)
        # the kernel's long-lived worker keeps its parsed-import cache between calls (repo mode)
        return self.kernel.falsify_plan(plan)

    @_translated
    def colony_pruning_report(self) -> dict[str, Any]:
        """Advisory pruning candidates derived from DEPENDENCY traces."""
        report = self.kernel.pruning_report()
        return {k: report[k] for k in ("candidates", "total_candidates", "generated_at")}

    @_translated
    def colony_tick(self) -> dict[str, Any]:
        """Advance one tick and return the status afterwards."""
        self.kernel.tick()
        return self._status()

    # ------------------------------------------------- attested lifecycle
    @_translated
    def colony_authorize_execution(self, proposal_id: str, actor_id: str = "executor") -> dict[str, Any]:
        """Authorize an attested EXECUTE verdict (once)."""
        pid = inputs.text("proposal_id", proposal_id)
        event = self.kernel.authorize_execution(pid, inputs.text("actor_id", actor_id))
        return {"proposal_id": pid, "event": event.to_dict()}

    @_translated
    def colony_record_execution_receipt(self, proposal_id: str, receipt: str, actor_id: str = "executor") -> dict[str, Any]:
        """Link a JSON execution receipt to the proposal's authorization."""
        pid = inputs.text("proposal_id", proposal_id)
        parsed = inputs.json_object("receipt", receipt)
        event = self.kernel.record_execution_receipt(pid, parsed, inputs.text("actor_id", actor_id))
        return {"proposal_id": pid, "event": event.to_dict()}

    @_translated
    def colony_record_attested_outcome(
        self,
        proposal_id: str,
        actual_outcome: str,
        tests_passed: bool,
        human_feedback: float = 0.0,
        repair_needed: bool = False,
        actor_id: str = "observer",
    ) -> dict[str, Any]:
        """Record the outcome of an executed, receipted proposal."""
        pid = inputs.text("proposal_id", proposal_id)
        actual_outcome, tests_passed, feedback, repair_needed = self._report(
            actual_outcome, tests_passed, human_feedback, repair_needed
        )
        actor = inputs.text("actor_id", actor_id)
        proposal = self.kernel.get_proposal(pid)
        if proposal is None:
            raise NotFoundError("proposal", pid)
        record = self.kernel.record_attested_outcome(
            proposal,
            self._outcome(proposal.action_type, proposal.target, actual_outcome, repair_needed),
            tests_passed,
            feedback,
            actor_id=actor,
        )
        return self._recorded(record, linked=True)

    @_translated
    def colony_attestation_status(self, run_id: str = "") -> dict[str, Any]:
        """Validate the server's attestation run (or a named one)."""
        run = inputs.text("run_id", run_id, allow_empty=True).strip() or None
        status = self.kernel.attestation_status(run)
        if status is None:
            raise ValidationError("attestation", "attestation is disabled on this server (start it with --attestation)")
        return status.to_dict()
