"""The attested lifecycle behind the kernel: its run id, its ledger, and authorize → receipt → attested outcome.

:func:`attestation_run_id` and :func:`open_lifecycle` set the ledger up when a kernel opens;
:class:`AttestedFlow` runs each step of the lifecycle in one transaction of the kernel's state.
Every step needs ``attestation_mode`` ``"optional"`` or ``"required"``.

>>> from colony.kernel import ColonyKernel, ColonyKernelConfig
>>> from colony.models import ActionProposal
>>> kernel = ColonyKernel(ColonyKernelConfig(attestation_mode="optional", attestation_key=b"k" * 32))
>>> _ = kernel.propose_action(ActionProposal("agent-1", "t", "patch_file", "pkg.mod", "r", "e"))
>>> kernel.attestation_status().valid
True
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from colony.attestation import AttestationLedger, AttestedLifecycle, Signer, signer_from_config, signer_from_env
from colony.errors import AttestationError, ValidationError
from colony.kernel.outcomes import parse_outcome
from colony.models import ActionProposal, ConsequenceRecord, check_json_value, check_text

if TYPE_CHECKING:
    from colony.attestation import LedgerEvent, LedgerValidationResult
    from colony.kernel.kernel_config import ColonyKernelConfig
    from colony.kernel.limits import InputLimits
    from colony.kernel.recording import OutcomeRecorder
    from colony.storage import StateStore

__all__ = ["AttestedFlow", "attestation_run_id", "open_lifecycle"]


def attestation_run_id(db: StateStore, requested: str | None) -> str:
    """The attestation run id: requested, else the state file's, else a new one (kept in a state file)."""
    if not db.persistent:
        return requested or f"kernel-{uuid.uuid4().hex}"
    with db.transaction():  # one transaction: servers starting together on a shared store agree on one run
        stored = db.get_meta("run_id")
        run_id = requested or stored or f"kernel-{uuid.uuid4().hex}"
        if run_id != stored:
            db.set_meta("run_id", run_id)
    return run_id


def open_lifecycle(
    config: ColonyKernelConfig, db: StateStore, *, clock: Callable[[], float], run_id: str
) -> AttestedLifecycle | None:
    """The kernel's attested lifecycle over a ledger in its state (None when attestation is disabled)."""
    if config.attestation_mode == "disabled":
        return None
    key = config.attestation_key
    signer: Signer | None
    if key is not None:
        if config.attestation_algorithm == "ed25519":
            signer = signer_from_config(ed25519_private_key=key, key_id="kernel")
        else:
            signer = signer_from_config(hmac_key=key, key_id="kernel")
    else:
        signer = signer_from_env()
    ledger = AttestationLedger(db.conn, signer=signer, clock=clock, lock=db.lock)
    return AttestedLifecycle(ledger, run_id=run_id)


class AttestedFlow:
    """Each lifecycle step checked first, then run in one transaction (the kernel's public methods call these)."""

    def __init__(
        self,
        lifecycle: AttestedLifecycle | None,
        *,
        db: StateStore,
        limits: InputLimits,
        recorder: OutcomeRecorder,
        run_id: str,
    ) -> None:
        self.lifecycle = lifecycle
        self.db = db
        self.limits = limits
        self.recorder = recorder
        self.run_id = run_id

    def _require(self) -> AttestedLifecycle:
        if self.lifecycle is None:
            raise AttestationError("attestation is disabled for this kernel", status=None)
        return self.lifecycle

    def authorize(self, proposal_id: str, actor_id: str) -> LedgerEvent:
        """Authorize an attested EXECUTE verdict (at most once)."""
        att = self._require()
        check_actor(actor_id)
        with self.db.transaction():
            return att.authorize(proposal_id, actor_id)

    def receipt(self, proposal_id: str, receipt: dict[str, Any], actor_id: str) -> LedgerEvent:
        """Link an execution receipt to the proposal's authorization."""
        att = self._require()
        check_actor(actor_id)
        if not isinstance(receipt, dict):
            raise ValidationError("receipt", "must be a dict", value=receipt)
        check_json_value("receipt", receipt)
        self.limits.json("receipt", receipt)
        with self.db.transaction():
            return att.record_receipt(proposal_id, receipt, actor_id)

    def outcome(
        self,
        proposal: ActionProposal,
        outcome: dict[str, Any],
        tests_passed: bool,
        human_feedback: str | None,
        actor_id: str,
        *,
        observed: bool = False,
    ) -> ConsequenceRecord:
        """Record the outcome of an executed, receipted proposal (one per receipt)."""
        att = self._require()
        recorder = self.recorder
        parsed = parse_outcome(proposal, outcome, tests_passed, human_feedback)
        evidence_json = recorder.check(proposal, parsed)
        check_actor(actor_id)  # checked before anything changes, not first by the ledger append below
        with self.db.transaction():
            att.check_can_record_outcome(proposal.proposal_id)
            standing = recorder.standing(proposal, observed=observed)
            record = recorder.store(proposal, tests_passed, parsed, evidence_json, attested=True)
            att.record_outcome(
                proposal.proposal_id, {**outcome, "tests_passed": tests_passed, "consequence_id": record.consequence_id}, actor_id
            )
            recorder.effects(proposal, tests_passed, parsed, standing=standing)  # in memory: once nothing can refuse
            return record

    def status(self, run_id: str | None) -> LedgerValidationResult | None:
        """Validate the kernel's (or a named) attestation run; None when attestation is disabled."""
        if self.lifecycle is None:
            return None
        with self.db.lock:
            return self.lifecycle.status(run_id or self.run_id)


def check_actor(actor_id: object) -> str:
    """An actor id as the ledger requires it: a non-blank string of valid Unicode."""
    if not isinstance(actor_id, str) or not actor_id.strip():
        raise ValidationError("actor_id", "must be a non-empty string", value=actor_id)
    return check_text("actor_id", actor_id)
