"""The run-time path's reads: every stored event a lifecycle rule acts on is checked against its signature first.

The ledger finds rows by its index columns (``proposal_id``, ``parent_event_id``, ``decision``), which are derived
from the payload at write time and are not signed. So each row a lookup returns is checked before anything reads it:
its hash must match its content, its signature must verify with the ledger's key, and its index columns must say
what its signed payload says. Anything else is an :class:`~colony.errors.AttestationError` (``bad_hash``,
``bad_signature``, ``bad_index``), and the ledger refuses to act: an authorization whose ``parent_event_id`` was
set to NULL is found by its proposal and refused, so its verdict is not authorized a second time. The lookups stay
keyed, and the unique indexes stay the guard against concurrent writers.

What this cannot see is a row that no lookup finds: one whose key columns were all rewritten, or one that was
deleted. ``validate`` (``colony ledger verify``) reports both (``bad_index``; a sequence gap, a truncated head).

>>> from colony.attestation.signers import HMACSigner
>>> rows = TrustedRows(HMACSigner(b"0123456789abcdef"))
>>> "evt-1" in rows
False
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any, Final

from colony.attestation.events import LedgerEvent, LedgerEventType, signing_bytes
from colony.attestation.events import LedgerValidationStatus as S
from colony.attestation.payloads import Links, read_links
from colony.attestation.semantics import EventRef
from colony.attestation.signers import Signer
from colony.attestation.store import child_sql
from colony.attestation.validation import INDEXED_COLUMNS, decode_row, index_mismatch, stored_hash_matches
from colony.errors import AttestationError, ValidationError

__all__ = ["INDEXED_COLUMNS", "SqlRunView", "TrustedRows"]

_MAX_REMEMBERED: Final = 4096
_GET: Final = f"SELECT {INDEXED_COLUMNS} FROM attestation_events WHERE event_id = ? AND run_id = ?"
_LATEST: Final = (
    "SELECT event_id, sequence, event_hash, signature_json FROM attestation_events WHERE run_id = ?"
    " ORDER BY sequence DESC LIMIT 1"
)
_PROPOSAL: Final = (
    f"SELECT {INDEXED_COLUMNS} FROM attestation_events WHERE run_id = ? AND proposal_id = ? AND event_type = 'proposal'"
)


class TrustedRows:
    """Checks the rows the run-time path reads, remembering (bounded) the rows that checked out, whole.

    A row read again exactly as it was checked (every column equal: content, hash, signature and index) is not
    checked again; any change to it is a new row, checked in full. The ledger also remembers the rows it writes.
    """

    __slots__ = ("_known", "_signer")

    def __init__(self, signer: Signer) -> None:
        self._signer = signer
        self._known: dict[Any, tuple[tuple[Any, ...], LedgerEvent, Links]] = {}

    def __contains__(self, event_id: object) -> bool:
        return event_id in self._known

    def vouch(self, row: tuple[Any, ...], event: LedgerEvent, links: Links) -> None:
        """Remember ``row`` as the stored form of the signed ``event`` (this ledger wrote it, or checked it)."""
        if len(self._known) >= _MAX_REMEMBERED:
            self._known.clear()
        self._known[row[0]] = (row, event, links)

    def checked(self, row: Sequence[Any]) -> tuple[LedgerEvent, Links]:
        """The event of one ``INDEXED_COLUMNS`` row and its signed links; AttestationError saying what is wrong."""
        row = tuple(row)
        known = self._known.get(row[0])
        if known is not None and known[0] == row:
            return known[1], known[2]
        stored = decode_row(row)
        event, eid = stored.event, stored.event_id

        def refuse(status: S, why: str) -> AttestationError:
            return AttestationError(f"event {eid!r} {why}; refusing to act on it", status=status, event_id=eid)

        if event is None:
            raise refuse(S.BAD_HASH, f"cannot be read ({stored.decode_error})")
        if not stored_hash_matches(stored):
            raise refuse(S.BAD_HASH, "was altered after it was signed (its hash does not match its content)")
        if not event.signature_valid(self._signer):
            raise refuse(S.BAD_SIGNATURE, f"does not verify with key {self._signer.key_id!r}")
        try:
            links = read_links(event.event_type, event.payload)
        except ValidationError as exc:
            raise refuse(S.BAD_INDEX, f"has malformed link fields ({exc})") from None
        why = index_mismatch(links, stored.index or (None, None, None))
        if why is not None:
            raise refuse(S.BAD_INDEX, f"was altered: {why}")
        self.vouch(row, event, links)
        return event, links

    def event(self, row: Sequence[Any]) -> LedgerEvent:
        """The event of one ``INDEXED_COLUMNS`` row once it checks out (see :meth:`checked`)."""
        return self.checked(row)[0]

    def head(self, conn: sqlite3.Connection, run_id: str) -> tuple[int, str]:
        """(latest sequence, its hash) of ``run_id``, once the latest event's signature verifies with this key.

        Fails closed: a ledger opened with the wrong key, or one that another writer extended with a foreign key, is
        not extended. A latest event this ledger wrote or checked costs no verification.
        """
        row = conn.execute(_LATEST, (run_id,)).fetchone()
        if row is None:
            return 0, ""
        event_id, sequence, event_hash, signature_text = row
        known = self._known.get(event_id)
        if known is None or known[1].event_hash != event_hash:
            try:
                signature = json.loads(signature_text)
            except ValueError:
                signature = None
            if not isinstance(signature, dict) or not self._signer.verify(signing_bytes(event_hash), signature):
                raise AttestationError(
                    f"the latest event of run {run_id!r} does not verify with key {self._signer.key_id!r}; refusing to extend it",
                    status=S.BAD_SIGNATURE,
                    event_id=str(event_id),
                )
        return int(sequence), str(event_hash)


class SqlRunView:
    """The lifecycle rules' view of one run: keyed SQL lookups, each row checked by :class:`TrustedRows`."""

    __slots__ = ("_conn", "_rows", "_run")

    def __init__(self, conn: sqlite3.Connection, run_id: str, rows: TrustedRows) -> None:
        self._conn = conn
        self._run = run_id
        self._rows = rows

    def _found(self, sql: str, params: tuple[str, str]) -> tuple[LedgerEvent, Links] | None:
        row = self._conn.execute(sql, params).fetchone()
        return None if row is None else self._rows.checked(row)

    def get(self, event_id: str) -> EventRef | None:
        found = self._found(_GET, (event_id, self._run))
        if found is None:
            return None
        event, links = found
        return EventRef(event.event_type.value, links.proposal_id, links.decision)

    def proposal_event_id(self, proposal_id: str) -> str | None:
        found = self._found(_PROPOSAL, (self._run, proposal_id))
        return None if found is None else found[0].event_id

    def child(self, parent_event_id: str, event_type: LedgerEventType) -> str | None:
        found = self._found(child_sql(event_type, INDEXED_COLUMNS), (self._run, parent_event_id))
        return None if found is None else found[0].event_id
