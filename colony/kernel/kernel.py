"""ColonyKernel: the eight subsystems behind one thread-safe, restart-persistent API.

>>> from colony.models import ActionProposal
>>> kernel = ColonyKernel()
>>> _ = kernel.calibrate_agent("agent-42", trust_score=0.5)
>>> p = ActionProposal(agent_id="agent-42", agent_type="dispatcher", action_type="patch_file",
...     target="pkg.mod", rationale="Fix the off-by-one in the tick counter",
...     expected_outcome="targeted tests pass", rollback_plan="git revert the bounded change",
...     evidence={"tests": ["tests/test_mod.py"], "metrics": ["error rate < 1%"]})
>>> kernel.propose_action(p).decision.value
'execute'
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colony.attestation import (
    AttestationLedger,
    AttestedLifecycle,
    Signer,
    signer_from_config,
    signer_from_env,
)
from colony.config import Policy, default_policy, load_policy
from colony.errors import ValidationError
from colony.falsification import FalsificationWorker
from colony.falsification.report import risk_deposit
from colony.kernel.actuation_gate import ActuationGate
from colony.kernel.attested import AttestedLifecycleMixin
from colony.kernel.consequence_memory import SCHEMA as MEMORY_SCHEMA
from colony.kernel.consequence_memory import ConsequenceMemory
from colony.kernel.limits import InputLimits
from colony.kernel.pheromone_store import PheromoneStore
from colony.kernel.pruning_daemon import PruningDaemon
from colony.kernel.recording import OutcomeMixin
from colony.kernel.resource_ledger import ResourceLedger
from colony.kernel.retention import Retention
from colony.kernel.role_adapter import RoleAdapter
from colony.kernel.trust import quantize
from colony.models import (
    ActionProposal,
    AgentTrustProfile,
    ColonySignal,
    DecayRate,
    FalsificationFinding,
    GateDecision,
    GateResult,
    SignalSource,
    SignalType,
    check_finite,
    check_json_value,
    check_text,
)
from colony.storage import open_state

__all__ = ["ATTESTATION_MODES", "ColonyKernel", "ColonyKernelConfig"]

log = logging.getLogger(__name__)

ATTESTATION_MODES = ("disabled", "optional", "required")


@dataclass(frozen=True)
class ColonyKernelConfig:
    """How to build a kernel.

    Parameters:
        state_path: where the whole kernel state lives: a SQLite file (owned by this kernel's process
            while it is open), a ``postgresql://`` URL (one colony shared by processes and hosts; see
            :mod:`colony.storage.postgres`), or None (in memory).
        wait_lock: seconds to wait for another process that owns the state file (0: refuse at once
            with a StateLockedError naming it).
        config_dir: directory with a ``policy.yaml`` (None: ``$COLONY_CONFIG`` or the packaged policy).
        policy: an already-loaded policy (wins over ``config_dir``).
        repo_root: the only tree repository-aware checks and pruning may read or move files in.
        repo_checks_on_propose: also run the repository-aware import-cycle check on every proposal
            (a directory walk per proposal; by default only :meth:`ColonyKernel.falsify_plan` uses it).
        attestation_mode: ``"disabled"``, ``"optional"`` or ``"required"``.
        attestation_key: HMAC key (≥ 16 bytes) or, with ``attestation_algorithm="ed25519"``, a
            32-byte private key; None reads ``COLONY_ATTESTATION_KEY`` / ``COLONY_ATTESTATION_ED25519_KEY``.
        clock: wall-clock source for timestamps and the budget period (injectable for replay).
        run_id: attestation run id (default: persisted in the state file, or a new one).
    """

    state_path: str | Path | None = None
    wait_lock: float = 0.0
    config_dir: str | Path | None = None
    policy: Policy | None = None
    repo_root: str | Path | None = None
    repo_checks_on_propose: bool = False
    attestation_mode: str = "disabled"
    attestation_key: bytes | str | None = field(default=None, repr=False)
    attestation_algorithm: str = "hmac"
    clock: Callable[[], float] = time.time
    run_id: str | None = None

    def resolve_policy(self) -> Policy:
        """The policy this configuration names: ``policy``, else ``config_dir``'s, else the one in force."""
        if self.policy is not None:
            return self.policy
        return load_policy(self.config_dir) if self.config_dir is not None else default_policy()

    def __post_init__(self) -> None:
        if self.attestation_mode not in ATTESTATION_MODES:
            raise ValidationError(
                "attestation_mode",
                f"must be one of {', '.join(ATTESTATION_MODES)}; got {self.attestation_mode!r}",
                value=self.attestation_mode,
            )
        if self.attestation_algorithm not in ("hmac", "ed25519"):
            raise ValidationError("attestation_algorithm", "must be 'hmac' or 'ed25519'", value=self.attestation_algorithm)


class ColonyKernel(OutcomeMixin, AttestedLifecycleMixin):
    """The colony control plane. Public methods are safe under concurrent callers."""

    def __init__(self, config: ColonyKernelConfig | None = None) -> None:
        self.config = config = config if config is not None else ColonyKernelConfig()
        self.policy = config.resolve_policy()
        self._clock = config.clock
        self.db = open_state(config.state_path, schemas=(MEMORY_SCHEMA,), wait_lock=config.wait_lock)
        self._lock = self.db.lock
        p = self.policy
        self.pheromones = PheromoneStore(p.pheromone, clock=self._clock)
        self.resource_ledger = ResourceLedger(p.budget, clock=self._clock)
        self.consequence_memory = ConsequenceMemory(
            self.db, policy=p.trust, recent_window=p.gate.recent_failure_window, clock=self._clock
        )
        self.role_adapter = RoleAdapter(p.roles, clock=self._clock)
        self.gate = ActuationGate(
            p.gate,
            pheromone_store=self.pheromones,
            resource_ledger=self.resource_ledger,
            recent_failures=self.consequence_memory.recent_failures,
        )
        self.repo_falsification_worker = FalsificationWorker(p, repo_root=config.repo_root)
        self.falsification_worker = (
            self.repo_falsification_worker
            if config.repo_checks_on_propose or config.repo_root is None
            else FalsificationWorker(p)
        )
        self.pruning_daemon = PruningDaemon(p, pheromone_store=self.pheromones, repo_root=config.repo_root, clock=self._clock)
        self._decay_default = {st: DecayRate(getattr(p.pheromone.signal_defaults, st.value)) for st in SignalType}
        self._limits = InputLimits(p.limits)
        self.retention = Retention(p.retention, self.consequence_memory, self.db)
        self.db.on_rollback(self.consequence_memory.invalidate_cache)
        try:
            self._restore()
        except BaseException:
            self.db.close()  # a refused or unreachable store: let go of the file (and its lock) at once
            raise
        self.run_id = self._init_run_id(config.run_id)
        self.attestation = self._init_attestation()
        self._lean = not self.db.persistent and self.attestation is None

    # ----------------------------------------------------------- persistence
    def _restore(self) -> None:
        db = self.db
        if db.shared:  # several processes: every call first reloads what another one changed (colony.storage.postgres)
            self._pruning_count = 0
            db.on_sync(self._reload)
            with db.transaction():
                pass
            self.pheromones.set_journal(db.save_trace)
            self.resource_ledger.set_journal(db.save_budget)
            return
        if db.persistent:
            tick = int(db.get_meta("tick") or 0)
            self.pheromones.restore(tick, db.load_traces({r: self.pheromones.eps_for(r) for r in DecayRate}))
            budget = db.load_budget()
            if budget is not None:
                self.resource_ledger.restore(*budget)
            with db.transaction():
                db.delete_expired_traces(tick)
                db.save_budget(self.resource_ledger.used, self.resource_ledger.period_start)
            self.pheromones.set_journal(db.save_trace)
            self.resource_ledger.set_journal(db.save_budget)
        self._pruning_count = int(db.get_meta("pruning_candidates_count") or 0) if db.persistent else 0

    def _reload(self, full: bool) -> None:
        """Bring every in-process copy of shared state up to the store's (inside the call's transaction).

        ``full``: replace the field and the known agents; otherwise apply what changed since
        (``colony.storage.postgres`` says which rows). Budget, retention and the tick come from meta rows.
        """
        db: Any = self.db
        eps = {r: self.pheromones.eps_for(r) for r in DecayRate}
        tick = int(db.get_meta("tick") or 0)
        if full or tick < self.pheromones.tick_count:  # a tick set back (calm_down on an empty field): start over
            self.pheromones.restore(tick, db.load_traces(eps))
            self.consequence_memory.invalidate_cache()
        else:
            self.pheromones.advance_to(tick)
            for trace in db.changed_traces(eps):
                self.pheromones.apply(trace)
            self.consequence_memory.refresh(db.new_agent_ids())
        budget = db.load_budget()
        if budget is not None:
            self.resource_ledger.restore(*budget)
        self.retention.load()
        self._pruning_count = int(db.get_meta("pruning_candidates_count") or 0)

    def _init_run_id(self, requested: str | None) -> str:
        """The attestation run id: requested, else the state file's, else a new one (kept in a state file)."""
        if not self.db.persistent:
            return requested or f"kernel-{uuid.uuid4().hex}"
        with self.db.transaction():  # one transaction: servers starting together on a shared store agree on one run
            stored = self.db.get_meta("run_id")
            run_id = requested or stored or f"kernel-{uuid.uuid4().hex}"
            if run_id != stored:
                self.db.set_meta("run_id", run_id)
        return run_id

    def _init_attestation(self) -> AttestedLifecycle | None:
        if self.config.attestation_mode == "disabled":
            return None
        key = self.config.attestation_key
        signer: Signer | None
        if key is not None:
            if self.config.attestation_algorithm == "ed25519":
                signer = signer_from_config(ed25519_private_key=key, key_id="kernel")
            else:
                signer = signer_from_config(hmac_key=key, key_id="kernel")
        else:
            signer = signer_from_env()
        ledger = AttestationLedger(self.db.conn, signer=signer, clock=self._clock, lock=self._lock)
        return AttestedLifecycle(ledger, run_id=self.run_id)

    def _atomic(self) -> AbstractContextManager[object]:
        """One kernel call = one transaction; a rollback also drops the profile caches (see __init__)."""
        return self.db.transaction()

    def _proposal_scope(self, agent_id: str) -> AbstractContextManager[object]:
        """The proposal's write scope: no BEGIN/COMMIT when the call writes one statement.

        In memory, without attestation, a stored agent's proposal writes exactly one row
        (its count follows by trigger, in the same statement), which SQLite commits
        atomically by itself. A role change it causes is saved by a second statement; the
        role is derived from trust and count and recomputed on every call, so it is never
        left wrong. Every other case (a new agent, a state file, the ledger) is one transaction.
        """
        if self._lean and self.consequence_memory.is_stored_id(agent_id):
            return self.db.single_statement()
        return self.db.transaction()

    def close(self) -> None:
        """Close the state database."""
        with self._lock:
            self.db.close()

    def __enter__(self) -> ColonyKernel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --------------------------------------------------------------- propose
    def propose_action(self, proposal: ActionProposal, *, supersedes: str | None = None) -> GateResult:
        """Falsify → budget pre-check → trust/role refresh → gate; deposits land after the verdict.

        Returns a GateResult for EXECUTE, HOLD and REFUSE alike. Does not consume budget.
        With attestation on, the proposal and its verdict are appended to the ledger; a
        re-proposal after HOLD is a new proposal id that names the old one in ``supersedes``.
        Everything is checked before anything changes.
        """
        if type(proposal) is not ActionProposal and not isinstance(proposal, ActionProposal):
            raise ValidationError("proposal", f"must be an ActionProposal, got {type(proposal).__name__}", value=proposal)
        evidence_json = self._limits.proposal(proposal)
        findings = self.falsification_worker.analyze(proposal)
        if supersedes is not None and self.attestation is None:
            raise ValidationError("supersedes", "links proposals in the attestation ledger, which is disabled", value=supersedes)
        memory = self.consequence_memory
        agent_id = proposal.agent_id
        with self._proposal_scope(agent_id):  # a refused ledger append below rolls back everything before it
            budget_ok = self.resource_ledger.can_afford(proposal.budget_estimate)[0]
            profile = memory.profile(agent_id)
            tick = self.retention.lifetime_tick
            memory.note_proposal(profile, proposal, evidence_json, tick=tick)
            if self.role_adapter.update(profile):
                memory.save_profile(profile, tick=tick)
            result = self.gate.evaluate(proposal, profile, findings, budget_ok, recent_failures=memory.recent_failures(agent_id))
            if self.attestation is not None:
                event = self.attestation.record_proposal(proposal.to_dict(), agent_id, supersedes=supersedes)
                self.attestation.record_verdict(event, result.decision.value, result.to_dict(), "kernel")
            if findings or result.decision is GateDecision.REFUSE:
                self._proposal_deposits(proposal, profile, findings, result)
        return result

    def _proposal_deposits(
        self, proposal: ActionProposal, profile: AgentTrustProfile, findings: list[FalsificationFinding], result: GateResult
    ) -> None:
        pp = self.policy.proposal
        serious, strength = risk_deposit(findings, pp)
        if serious:
            worst = max(serious, key=lambda f: f.severity.rank).severity
            evidence = {"proposal_id": proposal.proposal_id, "finding_count": len(serious), "max_severity": worst.value}
            self._deposit_capped(proposal, profile, SignalType.RISK, strength, evidence)
        if result.decision is GateDecision.REFUSE:
            strength = pp.refuse_failure_base + pp.refuse_failure_severity_scale * result.falsification_severity
            evidence = {"proposal_id": proposal.proposal_id, "reason": result.reason[:200]}
            self._deposit_capped(proposal, profile, SignalType.FAILURE, strength, evidence)

    def _deposit_capped(
        self,
        proposal: ActionProposal,
        profile: AgentTrustProfile,
        signal_type: SignalType,
        strength: float,
        evidence: dict[str, Any],
    ) -> None:
        """A proposal-time deposit at the target: unverified, so capped per key for all agents together, weighted by trust."""
        self.pheromones.deposit_capped_trusted(
            proposal.target,
            signal_type,
            strength,
            self._decay_default[signal_type],
            SignalSource.AGENT,
            evidence,
            profile.trust_score,
            self.policy.proposal.proposal_deposit_cap,
        )

    def get_proposal(self, proposal_id: str) -> ActionProposal | None:
        """A proposal the kernel has seen (through propose or an outcome report), or None."""
        if not isinstance(proposal_id, str) or not proposal_id.strip():
            raise ValidationError("proposal_id", "must be a non-empty string", value=proposal_id)
        with self._lock:
            return self.consequence_memory.get_proposal(proposal_id)

    def falsify_plan(self, plan: Any) -> dict[str, Any]:
        """Run the falsification checks on a plan without depositing anything.

        Repository-aware checks run inside the configured ``repo_root`` only. Returns the
        findings, verdict, ``severity_score`` (the maximum finding weight), ``mean_severity``
        and a recommendation. A plan is JSON data within the policy's ``limits.json_bytes``.
        """
        if isinstance(plan, dict):
            check_json_value("plan", plan)
            self._limits.json("plan", plan)
        return self.repo_falsification_worker.falsify(plan)

    # -------------------------------------------------------------- profiles
    def agent_profile(self, agent_id: str) -> AgentTrustProfile:
        """The agent's profile; unknown agents get the default SANDBOX profile (not stored)."""
        with self._lock:
            return self.consequence_memory.get_profile(agent_id)

    def calibrate_agent(self, agent_id: str, *, trust_score: float, total_proposals: int = 3) -> AgentTrustProfile:
        """Write a supervised calibration profile (a fixed history before measurement, paper §4.1.5).

        The role follows from the ladder; the profile is marked as calibrated. Trust is
        stored at the policy's precision (``trust.decimals``), like every trust value.
        """
        trust = quantize(check_finite("trust_score", trust_score, minimum=0.0, maximum=1.0), self.policy.trust.decimals)
        if isinstance(total_proposals, bool) or not isinstance(total_proposals, int) or total_proposals < 0:
            raise ValidationError("total_proposals", "must be a non-negative integer", value=total_proposals)
        if total_proposals.bit_length() >= self.policy.limits.integer_bits:
            raise ValidationError("total_proposals", f"must fit a signed {self.policy.limits.integer_bits}-bit integer")
        memory = self.consequence_memory
        with self.db.single_statement() if self._lean else self._atomic():  # in memory, without a ledger: one upsert
            profile = memory.profile(agent_id)
            profile.trust_score = trust
            profile.total_proposals = total_proposals
            profile.last_updated = self._clock()
            self.role_adapter.update(profile)
            memory.save_profile(profile, calibrated=True, tick=self.retention.lifetime_tick)
            if self.attestation is not None:
                self.attestation.record_calibration(
                    agent_id, {"trust_score": trust, "total_proposals": total_proposals, "role": profile.role.value}, "kernel"
                )
            return profile.copy()

    # ----------------------------------------------------------------- field
    def query(self, location: str, signal_type: SignalType | str | None = None, *, prefix: bool = True) -> list[ColonySignal]:
        """Signals at a location (and below it with ``prefix``), strongest first."""
        st = None
        if signal_type is not None:
            try:
                st = SignalType(str(signal_type).lower())
            except ValueError:
                raise ValidationError(
                    "signal_type",
                    f"unknown signal type {signal_type!r}; expected one of {[s.value for s in SignalType]}",
                    value=signal_type,
                ) from None
        with self._lock:
            return self.pheromones.query(location, st, prefix=prefix)

    def tick(self) -> None:
        """Advance one tick: decay the field, roll the budget period if it elapsed, sweep retention."""
        before = self.retention.snapshot()
        # in memory, a tick writes nothing unless retention sweeps: then it needs no transaction
        scope = self.db.single_statement() if self._lean and not self.retention.due() else self._atomic()
        try:
            with scope:
                self.pheromones.tick()
                self.resource_ledger.maybe_reset()
                self.retention.step()
                if self.db.persistent:
                    self.db.save_tick(self.pheromones.tick_count)
        except BaseException:
            self.retention.rollback(before)
            raise

    @property
    def tick_count(self) -> int:
        with self._lock:  # on a shared store: the colony's tick, not this process's last look at it
            return self.pheromones.tick_count

    def calm_down(self, reason: str = "emergency_brake") -> dict[str, Any]:
        """Emergency brake: clear the field, reset the budget period and the tick count; keep history."""
        if not isinstance(reason, str) or not reason.strip():
            raise ValidationError("reason", "must be a non-empty string", value=reason)
        self._limits.text("reason", check_text("reason", reason))
        with self._atomic():
            before = self.pheromones.tick_count
            cleared = self.pheromones.clear()
            self.pheromones.set_tick(0)
            self.resource_ledger.reset_period()
            if self.db.persistent:
                self.db.set_meta("tick", "0")
        log.warning("colony calm_down (%s): cleared %d signals at tick %d", reason, cleared, before)
        return {"reset_reason": reason, "tick_count_before": before, "signals_cleared": cleared}

    # ---------------------------------------------------------------- status
    def colony_status(self) -> dict[str, Any]:
        """Dashboard snapshot: tick, field, budget, roles, recent outcomes, pruning count."""
        with self._lock:
            return {
                "tick_count": self.pheromones.tick_count,
                "pheromone_summary": {
                    "total_signals": len(self.pheromones),
                    "top_signals": self.pheromones.top_signals(10),
                },
                "budget_usage": self.resource_ledger.usage_summary(),
                "role_distribution": self.consequence_memory.role_distribution(),
                "recent_consequences": self.consequence_memory.recent_consequences(10),
                "pruning_candidates_count": self._pruning_count,
                "attestation_mode": self.config.attestation_mode,
                "retention": self.retention.status(),
            }

    def pruning_report(self, module_registry: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        """Scan a module registry (default: derived from every DEPENDENCY trace) for pruning candidates."""
        with self.db.single_statement() if not self.db.persistent else self._atomic():  # in memory it writes nothing
            report = self.pruning_daemon.report(module_registry)
            self._pruning_count = int(report["total_candidates"])
            if self.db.persistent:
                self.db.set_meta("pruning_candidates_count", str(self._pruning_count))
            return report
