"""Consequence memory in content space: the changes the gate judged, what came of them, and the risk learned from them.

The kernel hands :class:`ChangeMemory` each change a proposal carries, as colony measured it
(:mod:`colony.kernel.change`). :meth:`~ChangeMemory.assess` gives its learned risk
(:class:`~colony.kernel.change_risk.ChangeRisk`, started from the packaged prior:
:mod:`colony.kernel.change_prior`) and the hold threshold that the policy's hold budget sets over
the risks of the last ``change.window`` changes (:class:`RiskWindow`); :meth:`~ChangeMemory.remember`
stores what was measured (never text) and the risk given; when the proposal's outcome is recorded,
:meth:`~ChangeMemory.learn` teaches the model what came of it. Labels arrive late, in any order:
the model learns them in the order they are recorded, and that order is stored (``learned_seq``).

The store is the truth (:data:`colony.storage.schema.CHANGE_MEMORY`): the model is the prior plus
every learned outcome in that order, with a snapshot every ``change.snapshot_every`` outcomes so a
restart replays only the outcomes after it. Same outcomes, same order: the same model, byte for byte,
on either backend and across restarts. A rolled-back transaction rebuilds it from the store; on a
shared store each call first applies what other processes learned (:meth:`~ChangeMemory.sync`).

>>> from colony.kernel.change import measure_edits
>>> memory = ChangeMemory(prior=None)
>>> change = measure_edits([{"path": "a.py", "content": "eval(user_input)\\n"}])
>>> a = memory.assess(change)
>>> memory.remember("p-1", a, tick=0)
>>> memory.learn("p-1", failed=True), memory.learn("p-1", failed=True)
(True, False)
>>> memory.assess(change).risk > a.risk
True
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from colony.canonical import json_text
from colony.config import ChangePolicy, default_policy
from colony.kernel.change import ChangeRecord, MeasuredChange
from colony.kernel.change_prior import ChangePrior, load_prior
from colony.kernel.change_risk import ChangeAssessment, ChangeRisk
from colony.kernel.risk_window import RiskWindow
from colony.storage import StateStore, open_state
from colony.storage.schema import CHANGE_MEMORY

__all__ = ["SCHEMA", "ChangeMemory"]

#: the change memory's tables, as a SQLite state store creates them (a shared store's migration made them already)
SCHEMA = CHANGE_MEMORY.script("sqlite")
_CACHE = 4096  # measured records of changes still waiting for their outcome, kept in process


class ChangeMemory:
    """The changes the gate judged, the model learned from their outcomes, and the window of recent risks.

    Nothing is read until a change arrives: a kernel whose proposals carry no change never loads the
    prior or the model (the prior itself is read once per process, :func:`~colony.kernel.change_prior.load_prior`).

    Parameters:
        db: the state store (None: a private in-memory one).
        policy: the ``change`` policy section.
        prior: the cold-start prior; ``"policy"`` (default) the one the policy names, a path to another prior
            file, a :class:`~colony.kernel.change_prior.ChangePrior`, or None to start from zero.
    """

    def __init__(
        self,
        db: StateStore | None = None,
        *,
        policy: ChangePolicy | None = None,
        prior: ChangePrior | str | Path | None = "policy",
    ) -> None:
        self.policy = policy if policy is not None else default_policy().change
        self.db: StateStore = db if db is not None else open_state(None, schemas=(SCHEMA,))
        self.db.ensure_schema(SCHEMA)
        self._prior_spec = prior
        self._records: OrderedDict[str, ChangeRecord] = OrderedDict()
        self._loaded = False
        self._any = self._stored_any()

    def _stored_any(self) -> bool:
        """Whether the store holds a change at all (on a private store this process then keeps the answer)."""
        return self.db.conn.execute("SELECT 1 FROM change_memory LIMIT 1").fetchone() is not None

    @property
    def prior(self) -> ChangePrior | None:
        """The cold-start prior in use (loaded on first use)."""
        spec = self._prior_spec
        if isinstance(spec, ChangePrior) or spec is None:
            return spec
        self._prior_spec = load_prior(None if spec == "policy" else spec, policy=self.policy)
        return self._prior_spec

    # ------------------------------------------------------------------ state
    def _fresh_model(self) -> ChangeRisk:
        prior = self.prior
        return prior.model(policy=self.policy) if prior is not None else ChangeRisk(policy=self.policy)

    def _ensure(self) -> None:
        if not self._loaded:
            self.restore()

    def restore(self) -> None:
        """Rebuild everything from the store: the snapshot, the outcomes learned after it, the window.

        Also what a rolled-back transaction calls: the in-process copies never run ahead of the store.
        """
        self._records.clear()
        if self.db.shared:
            self._any = self._stored_any()
        if not self._any:  # nothing stored: start lazily again when a change arrives
            self._loaded = False
            return
        conn = self.db.conn
        snap = conn.execute("SELECT learned_seq, state_json FROM change_model WHERE id = 1").fetchone()
        if snap is None:
            self.model, self.learned = self._fresh_model(), 0
        else:
            self.model, self.learned = ChangeRisk.from_state(json.loads(snap[1]), policy=self.policy), int(snap[0])
        self._learn_rows(self.learned)
        cfg = self.policy
        rows = conn.execute(
            "SELECT rowid, risk, lines, held FROM change_memory ORDER BY rowid DESC LIMIT ?", (cfg.window,)
        ).fetchall()
        rows.reverse()
        prior = self.prior
        seed = list(prior.reference) if prior is not None and len(rows) < cfg.window else []
        self.window = RiskWindow(cfg.window, cfg.hold_budget, cfg.budget_unit, seed[len(seed) - (cfg.window - len(rows)) :])
        for _, risk, lines, held in rows:
            self.window.add(float(risk), int(lines), held=bool(held))
        self._rowid = int(rows[-1][0]) if rows else 0
        self._loaded = True

    def _max_rowid(self) -> int:
        row = self.db.conn.execute("SELECT max(rowid) FROM change_memory").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def _learn_rows(self, after: int) -> None:
        """Learn, in their order, the stored outcomes after ``after`` (what a snapshot or this process has not seen)."""
        rows = self.db.conn.execute(
            "SELECT learned_seq, record_json, failed FROM change_memory WHERE learned_seq > ? ORDER BY learned_seq",
            (after,),
        ).fetchall()
        for seq, record_json, failed in rows:
            self.model.learn(ChangeRecord.from_dict(json.loads(record_json), policy=self.policy), failed=bool(failed))
            self.learned = int(seq)

    def sync(self, full: bool) -> None:
        """On a shared store, inside the call's transaction: apply what other processes remembered and learned."""
        if full or not self._loaded:
            self._loaded = False  # read again when a change next needs it
            return
        self._learn_rows(self.learned)
        rows = self.db.conn.execute(
            "SELECT rowid, risk, lines, held FROM change_memory WHERE rowid > ? ORDER BY rowid", (self._rowid,)
        ).fetchall()
        for rowid, risk, lines, held in rows:
            self.window.add(float(risk), int(lines), held=bool(held))
            self._rowid = int(rowid)

    # -------------------------------------------------------------- the gate
    def assess(self, change: MeasuredChange) -> ChangeAssessment:
        """The change's risk and whether the hold budget holds it; a held change names its riskiest lines."""
        if not self._loaded:
            self._any = True
            self.restore()
            if not self._loaded:  # an empty store: the prior (or zero) and its reference risks
                self.model, self.learned, self._rowid = self._fresh_model(), 0, 0
                prior, cfg = self.prior, self.policy
                seed = prior.reference if prior is not None else ()
                self.window = RiskWindow(cfg.window, cfg.hold_budget, cfg.budget_unit, seed)
                self._loaded = True
        model, window = self.model, self.window
        risk = model.risk(change)
        threshold = window.threshold()
        above = risk > threshold
        held = above and window.room(change.record.la + change.record.ld)
        lines = model.riskiest_lines(change, self.policy.reason_lines) if above else ()
        return ChangeAssessment(risk, threshold, held, model.version, change.record, lines, above and not held)

    def remember(self, proposal_id: str, assessment: ChangeAssessment, *, tick: int) -> None:
        """Store the judged change (inside the proposal's transaction); its risk joins the window."""
        r = assessment.record
        lines = r.la + r.ld
        cursor = self.db.conn.execute(
            "INSERT INTO change_memory (proposal_id, record_json, risk, lines, held, tick) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING",
            (proposal_id, r.to_json(), assessment.risk, lines, int(assessment.held), tick),
        )
        if cursor.rowcount == 0:  # this proposal's change is remembered already (a repeated id): keep the first
            return
        self._any = True
        self.window.add(assessment.risk, lines, held=assessment.held)
        # the row's place, so a shared store's sync does not add it again (writes are serialised under the colony lock)
        self._rowid = cursor.lastrowid if not self.db.shared else self._max_rowid()
        self._records[proposal_id] = r
        if len(self._records) > _CACHE:
            self._records.popitem(last=False)

    def learn(self, proposal_id: str, *, failed: bool) -> bool:
        """Learn what came of a remembered change (once); False for a proposal without one, or learned already."""
        if not (self._any or (self.db.shared and self._stored_any())):
            return False
        conn = self.db.conn
        row = conn.execute("SELECT record_json, learned_seq FROM change_memory WHERE proposal_id = ?", (proposal_id,)).fetchone()
        if row is None or row[0] is None or row[1] is not None:
            return False
        self._ensure()
        record = self._records.pop(proposal_id, None)
        if record is None:
            record = ChangeRecord.from_dict(json.loads(row[0]), policy=self.policy)
        seq = self.learned + 1
        conn.execute(
            "UPDATE change_memory SET learned_seq = ?, failed = ? WHERE proposal_id = ?", (seq, int(failed), proposal_id)
        )
        self.model.learn(record, failed=failed)
        self.learned = seq
        if seq % self.policy.snapshot_every == 0 and self.db.persistent:  # in memory there is no restart to speed up
            self._snapshot()
        return True

    def _snapshot(self) -> None:
        """Write the model at this point of the learning order, and drop rows nothing will read again."""
        conn = self.db.conn
        conn.execute(
            "INSERT INTO change_model (id, learned_seq, state_json) VALUES (1, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET learned_seq = excluded.learned_seq, state_json = excluded.state_json",
            (self.learned, json_text(self.model.state())),
        )
        # rows older than the window that are learned (in the snapshot now) or forgotten (no record) are not needed
        conn.execute(
            "DELETE FROM change_memory WHERE rowid < (SELECT min(rowid) FROM "
            "(SELECT rowid FROM change_memory ORDER BY rowid DESC LIMIT ?) AS newest) "
            "AND (record_json IS NULL OR learned_seq <= ?)",
            (self.policy.window, self.learned),
        )

    def forget(self, proposal_ids: Sequence[str]) -> None:
        """Proposals retention deleted: their changes will never be learned; keep only their place in the window."""
        self.db.conn.executemany(
            "UPDATE change_memory SET record_json = NULL WHERE proposal_id = ? AND learned_seq IS NULL",
            [(pid,) for pid in proposal_ids],
        )
        for pid in proposal_ids:
            self._records.pop(pid, None)

    def status(self) -> dict[str, Any]:
        """What ``colony_status`` reports of change risk: the model, its outcomes, the budget and its threshold now."""
        cfg = self.policy
        self._ensure()
        if not self._loaded:  # no change judged yet: nothing loaded, nothing to report but the policy
            return {"model": None, "learned": 0, "hold_budget": cfg.hold_budget, "budget_unit": cfg.budget_unit}
        model = self.model
        return {
            "model": model.version,
            "learned": self.learned,
            "learned_failures": model.failures - (self.prior.state["failures"] if self.prior is not None else 0),
            "hold_budget": cfg.hold_budget,
            "budget_unit": cfg.budget_unit,
            "threshold": self.window.threshold(),
            "window": len(self.window),
            "prior": None if self.prior is None else {"sha256": self.prior.sha256, **dict(self.prior.provenance)},
        }
