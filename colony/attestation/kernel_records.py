"""What the kernel's own tables must agree with in the signed events (``colony ledger verify`` checks it).

The kernel keeps its outcomes in ``consequences`` and its proposals in ``proposals``, in the state database that
holds its ledger. An attested outcome signs its proposal, ``tests_passed`` and ``consequence_id``; a proposal signs
its agent and target. So for one run:

* each signed outcome that names a consequence has that ``consequences`` row, marked attested, with the same
  proposal, the signed ``tests_passed`` and the agent of the signed proposal;
* each ``consequences`` row marked attested whose proposal this run signed has a signed outcome here;
* a ``proposals`` row of a signed proposal names the agent and target the proposal signs.

Each disagreement is a ``bad_record`` issue that names the row. What cannot be checked (the threat model says so):
an outcome recorded without attestation (``attested = 0``, or a kernel with attestation off) has no signed
counterpart; the rest of a row (a proposal's rationale, evidence and budget, an outcome's feedback and trust delta)
is signed only as a digest of the dict the kernel was given, which cannot be rebuilt from the row; and outcomes
signed before outcomes named their consequence carry only that digest. A ledger file without the kernel's tables
is checked for none of this.

>>> import sqlite3
>>> kernel_problems(sqlite3.connect(":memory:"), SignedFacts())
[]
"""

from __future__ import annotations

import sqlite3
from typing import Any

from colony.attestation.events import LedgerIssue
from colony.attestation.events import LedgerValidationStatus as S
from colony.attestation.validation import SignedFacts
from colony.storage.sqlite_connection import table_exists

__all__ = ["kernel_problems"]


def kernel_problems(conn: sqlite3.Connection, facts: SignedFacts) -> list[LedgerIssue]:
    """Every row of ``consequences`` and ``proposals`` that disagrees with what one run signs (``facts``)."""
    out: list[LedgerIssue] = []
    if facts.outcomes or facts.proposals:
        if table_exists(conn, "consequences"):
            out += _consequence_problems(conn, facts)
        if table_exists(conn, "proposals"):
            out += _proposal_problems(conn, facts)
    return out


def _consequence_problems(conn: sqlite3.Connection, facts: SignedFacts) -> list[LedgerIssue]:
    rows = conn.execute("SELECT consequence_id, proposal_id, agent_id, tests_passed, attested FROM consequences").fetchall()
    by_id = {str(r[0]): r for r in rows}
    out: list[LedgerIssue] = []
    outcome_of = {pid for _, _, pid, _, _ in facts.outcomes}
    for seq, eid, pid, passed, cid in facts.outcomes:
        if not isinstance(cid, str):
            continue  # signed before outcomes named their consequence: only a digest to go by

        def bad(message: str, seq: int = seq, eid: str = eid) -> None:
            out.append(LedgerIssue(seq, eid, S.BAD_RECORD, message))

        row = by_id.get(cid)
        if row is None:
            bad(f"consequences row {cid!r} (proposal {pid!r}) is gone: the signed outcome records it")
            continue
        _, stored_pid, agent, stored_passed, attested = row
        what = f"consequences row {cid!r} (proposal {pid!r})"
        if stored_pid != pid:
            bad(f"{what}: proposal_id is {stored_pid!r}, the signed outcome's is {pid!r}")
        if isinstance(passed, bool) and stored_passed != int(passed):
            bad(f"{what}: tests_passed is {stored_passed!r}, the signed outcome says {int(passed)}")
        if attested != 1:
            bad(f"{what}: attested is {attested!r}, but its outcome is signed")
        signed_agent = _signed(facts, pid, 2)
        if isinstance(signed_agent, str) and agent != signed_agent:
            bad(f"{what}: agent_id is {agent!r}, the signed proposal's is {signed_agent!r}")
    for cid, pid, _agent, _passed, attested in rows:
        if attested == 1 and pid in facts.proposals and pid not in outcome_of:
            seq, eid = facts.proposals[pid][:2]
            message = f"consequences row {cid!r} (proposal {pid!r}) is marked attested, but this run signs no outcome for it"
            out.append(LedgerIssue(seq, eid, S.BAD_RECORD, message))
    return out


def _proposal_problems(conn: sqlite3.Connection, facts: SignedFacts) -> list[LedgerIssue]:
    out: list[LedgerIssue] = []
    for pid, agent, target in conn.execute("SELECT proposal_id, agent_id, target FROM proposals").fetchall():
        signed = facts.proposals.get(pid)
        if signed is None:
            continue
        seq, eid, signed_agent, signed_target = signed
        for name, stored, value in (("agent_id", agent, signed_agent), ("target", target, signed_target)):
            if isinstance(value, str) and stored != value:
                message = f"proposals row {pid!r}: {name} is {stored!r}, the signed proposal's is {value!r}"
                out.append(LedgerIssue(seq, eid, S.BAD_RECORD, message))
    return out


def _signed(facts: SignedFacts, proposal_id: str, index: int) -> Any:
    found = facts.proposals.get(proposal_id)
    return None if found is None else found[index]
