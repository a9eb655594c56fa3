"""Labels from a dataset: which commits induced a defect, and when that became known.

A label links an inducing commit to the commit that revealed it:

* **SZZ**: a fix (under the chosen fix rule) blames the commit; the fix's time is the discovery time;
* **revert**: a revert labels the commit it reverts, at the revert's time.

Hygiene rules (each declared; :mod:`colony.history.hygiene` reports their sensitivity):

* merges carry no diff: they are never fixes, never blamed and not replayed;
* a fix that blames more than ``blame_cap`` distinct commits labels nothing (tangled or sweeping changes);
* renames are followed (blame follows the file; Kamei histories move with it); ``follow_renames=False``
  drops the blame reached only through a rename, for the sensitivity analysis;
* a fix with no countable removed line ("adds only") labels nothing; the dataset counts them;
* right censoring: a commit is judged only when its whole horizon lies inside the history.

Line-level labels (:func:`defective_lines`): a line of an inducing commit is defective when a fix
that labels the commit under the rules blamed exactly that line (the commit, its path there and its
line number there, from the record's ``blame_lines``). A revert names no lines.

Two views of consequence:

* ``all``: every label;
* ``escaped``: only labels that escaped the session that made them: discovered more than
  ``escape_days`` later, or by another operator, or by the same operator after a pause longer
  than ``session_gap_hours`` between two of their commits (a new working session).

>>> recs = [
...     {"id": "a", "seq": 0, "time": 0, "operator": "ann", "merge": False, "fix": {"subject": False}, "blame": None, "reverts": None},
...     {"id": "b", "seq": 1, "time": 600, "operator": "ann", "merge": False, "fix": {"subject": True}, "blame": [["a", 2, False]], "reverts": None},
... ]
>>> labels = derive_labels(recs, LabelRules(fix_rule="subject", blame_cap=20, escape_days=1.0, session_gap_hours=2.0))
>>> [(x.inducing, x.fixing, x.latency, x.escaped) for x in labels["a"]]
[('a', 'b', 600, False)]
>>> discovery(labels, "a", "escaped") is None
True
>>> recs[1]["files"], recs[1]["blame_lines"] = [["m.py", "m.py", "MODIFY", 1, 2]], [["a", "m.py", 3], ["a", "m.py", 7]]
>>> lines = defective_lines(recs, LabelRules(fix_rule="subject", blame_cap=20, escape_days=1.0, session_gap_hours=2.0))
>>> {commit: sorted(keys) for commit, keys in lines.items()}
{'a': [('m.py', 3), ('m.py', 7)]}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from colony.errors import ValidationError
from colony.history.rules import FIX_RULES

__all__ = ["VIEWS", "Label", "LabelRules", "defective_lines", "derive_labels", "discovery", "sessions"]

VIEWS = ("all", "escaped")
_DAY = 86400


@dataclass(frozen=True, slots=True)
class LabelRules:
    """The declared labelling choices (their values live in ``colony/config/history.yaml``: ``cfg.labels.rules()``)."""

    fix_rule: str
    blame_cap: int | None
    escape_days: float
    session_gap_hours: float
    follow_renames: bool = True

    def __post_init__(self) -> None:
        if self.fix_rule not in FIX_RULES:
            raise ValidationError("fix_rule", f"unknown rule {self.fix_rule!r}; expected one of {sorted(FIX_RULES)}")
        if self.blame_cap is not None and (isinstance(self.blame_cap, bool) or int(self.blame_cap) < 1):
            raise ValidationError("blame_cap", "must be a positive integer or null", value=self.blame_cap)
        if not self.escape_days >= 0 or not self.session_gap_hours > 0:
            raise ValidationError("escape_days", "escape_days must be >= 0 and session_gap_hours > 0")


@dataclass(frozen=True, slots=True)
class Label:
    """One inducing → revealing link."""

    inducing: str
    fixing: str
    time: int
    latency: int
    source: str
    escaped: bool


def sessions(records: Sequence[dict[str, Any]], gap_seconds: float) -> dict[str, tuple[str, int]]:
    """Commit id → (operator, session number): an operator's commits split where they pause longer than ``gap_seconds``."""
    out: dict[str, tuple[str, int]] = {}
    last: dict[str, tuple[int, int]] = {}
    for r in sorted(records, key=lambda r: r["seq"]):
        op = r["operator"]
        prev = last.get(op)
        number = 0 if prev is None else prev[1] + (1 if r["time"] - prev[0] > gap_seconds else 0)
        last[op] = (r["time"], number)
        out[r["id"]] = (op, number)
    return out


def derive_labels(records: Sequence[dict[str, Any]], rules: LabelRules) -> dict[str, list[Label]]:
    """Inducing commit id → its labels, earliest first (commits without labels are absent)."""
    by_id = {r["id"]: r for r in records}
    session = sessions(records, rules.session_gap_hours * 3600)
    out: dict[str, list[Label]] = {}

    def add(inducing: str, fixing: dict[str, Any], source: str) -> None:
        target = by_id.get(inducing)
        if target is None or target["merge"] or inducing == fixing["id"]:
            return
        latency = max(0, fixing["time"] - target["time"])
        same = session[inducing] == session[fixing["id"]]
        escaped = latency > rules.escape_days * _DAY or not same
        out.setdefault(inducing, []).append(Label(inducing, fixing["id"], fixing["time"], latency, source, escaped))

    for r in records:
        if r["merge"]:
            continue
        if r["fix"].get(rules.fix_rule) and r["blame"]:
            blamed = sorted({b[0] for b in r["blame"] if rules.follow_renames or not b[2]})
            if rules.blame_cap is None or len(blamed) <= rules.blame_cap:
                for ident in blamed:
                    add(ident, r, "szz")
        if r["reverts"]:
            add(r["reverts"], r, "revert")
    for labels in out.values():
        labels.sort(key=lambda x: (x.time, x.fixing, x.source))
    return out


def discovery(labels: dict[str, list[Label]], commit: str, view: str) -> int | None:
    """When ``commit`` was first known to be inducing under ``view`` (None: never)."""
    if view not in VIEWS:
        raise ValidationError("view", f"must be one of {VIEWS}", value=view)
    for label in labels.get(commit, ()):
        if view == "all" or label.escaped:
            return label.time
    return None


_BLAMED = ("MODIFY", "RENAME", "DELETE")  # the changes whose removed lines the extractor blames (at their old path)


def _fix_lines(fix: Mapping[str, Any], follow_renames: bool) -> dict[str, set[tuple[str, int]]]:
    """Blamed commit id -> the (path, line) in it of each line ``fix`` blamed (reached through a rename only if asked)."""
    blamed = fix.get("blame_lines")
    if not isinstance(blamed, list):
        raise ValidationError(f"record {fix['id']}.blame_lines", "a fix must list its blamed lines: re-extract the dataset")
    own = {f[1] for f in fix["files"] if f[1] is not None and f[2] in _BLAMED}
    out: dict[str, set[tuple[str, int]]] = {}
    for ident, path, line in blamed:
        if follow_renames or path in own:
            out.setdefault(ident, set()).add((path, line))
    return out


def defective_lines(
    records: Sequence[dict[str, Any]],
    rules: LabelRules,
    *,
    labels: dict[str, list[Label]] | None = None,
    view: str = "all",
) -> dict[str, frozenset[tuple[str, int]]]:
    """Inducing commit id -> its defective lines: (path in it, line number in it) that a labelling fix blamed.

    The fixes are those of ``labels`` (default ``derive_labels(records, rules)``; pass a filtered copy, say up to a
    horizon, to count fewer) whose SZZ label is in ``view``, so the fix rule and the blame cap are
    :func:`derive_labels`' own. With ``rules.follow_renames`` off, a line whose path in the inducing commit is
    not one the fix changed was reached through a rename and does not count. Commits without one are absent.
    """
    if view not in VIEWS:
        raise ValidationError("view", f"must be one of {VIEWS}", value=view)
    found = derive_labels(records, rules) if labels is None else labels
    by_id = {r["id"]: r for r in records}
    per_fix: dict[str, dict[str, set[tuple[str, int]]]] = {}
    out: dict[str, frozenset[tuple[str, int]]] = {}
    for inducing, links in found.items():
        lines: set[tuple[str, int]] = set()
        for label in links:
            if label.source != "szz" or (view == "escaped" and not label.escaped):
                continue
            if label.fixing not in per_fix:
                per_fix[label.fixing] = _fix_lines(by_id[label.fixing], rules.follow_renames)
            lines |= per_fix[label.fixing].get(inducing, set())
        if lines:
            out[inducing] = frozenset(lines)
    return dict(sorted(out.items()))
