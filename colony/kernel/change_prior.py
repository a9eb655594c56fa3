"""The cold-start prior of consequence memory: a change-risk model fitted on other histories, shipped with its provenance.

A new colony has seen no outcome, so :class:`~colony.kernel.change_risk.ChangeRisk` would give every
change the same risk. The packaged prior (``colony/config/change_prior.json.gz``) is a model fitted,
one labelled change at a time and in time order, on the committed real histories; the colony then
keeps learning from its own outcomes. A prior holds:

* ``state``: the model (:meth:`ChangeRisk.state`), learned under the policy's ``change:`` settings;
* ``reference``: ``[risk, changed lines]`` of a sample of the changes it was fitted on, scored by the
  fitted model. They seed the window of recent risks that sets the hold threshold, so a new colony
  holds its budget's share from its first change;
* ``provenance``: what it was fitted on (datasets and their digests, label rules, counts);
* ``sha256``: the digest of the three above (canonical JSON), checked on every load. ``policy.yaml``
  pins the packaged prior's digest (``change.prior_sha256``), so a changed file is refused.

>>> from colony.kernel.change import measure_edits
>>> risky = measure_edits([{"path": "a.py", "content": "eval(x)\\n"}]).record
>>> safe = measure_edits([{"path": "a.py", "content": "y = 0\\n"}]).record
>>> prior = fit_prior([(risky, True), (safe, False)] * 10, provenance={"fitted_on": "doctest"})
>>> prior.model().risk(risky) > prior.model().risk(safe), len(prior.reference)
(True, 20)
>>> ChangePrior.from_dict(prior.to_dict()) == prior
True
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from colony.canonical import canonical_bytes, sha256_json
from colony.config import ChangePolicy, default_policy
from colony.errors import ConfigError, ValidationError
from colony.kernel.change import ChangeRecord
from colony.kernel.change_risk import ChangeRisk

__all__ = ["FORMAT", "PACKAGED_PRIOR", "ChangePrior", "fit_prior", "load_prior", "write_prior"]

FORMAT = 1
PACKAGED_PRIOR = Path(__file__).resolve().parents[1] / "config" / "change_prior.json.gz"
"""The prior ``policy.yaml``'s ``change.prior: packaged`` names."""
_KEYS = ("format", "provenance", "reference", "sha256", "state")


@dataclass(frozen=True, slots=True)
class ChangePrior:
    """A fitted model, the risks it gives the changes it saw, and where it came from (see the module docstring)."""

    state: Mapping[str, Any]
    reference: tuple[tuple[float, int], ...]
    provenance: Mapping[str, Any]
    sha256: str

    def model(self, *, policy: ChangePolicy | None = None) -> ChangeRisk:
        """A fresh :class:`ChangeRisk` in the prior's state (it must match the policy's settings)."""
        return ChangeRisk.from_state(self.state, policy=policy)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "provenance": dict(self.provenance),
            "reference": [list(pair) for pair in self.reference],
            "sha256": self.sha256,
            "state": dict(self.state),
        }

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "<prior>") -> ChangePrior:
        """Validate a stored prior: its keys, format, digest and reference pairs; the state is read by :meth:`model`."""
        if not isinstance(data, Mapping) or set(data) != set(_KEYS):
            raise ConfigError("change.prior", f"expected a mapping with keys {list(_KEYS)}", path=source)
        if data["format"] != FORMAT:
            raise ConfigError("change.prior", f"unknown prior format {data['format']!r} (expected {FORMAT})", path=source)
        digest = _digest(data["state"], data["reference"], data["provenance"])
        if data["sha256"] != digest:
            raise ConfigError(
                "change.prior", f"its content hashes to {digest}, not to the {data['sha256']!r} it states", path=source
            )
        reference = []
        for i, pair in enumerate(data["reference"]):
            ok = isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], float) and type(pair[1]) is int
            if not ok or not 0.0 < pair[0] < 1.0 or pair[1] < 0:
                raise ConfigError(f"change.prior.reference[{i}]", "must be [risk in (0, 1), lines >= 0]", path=source)
            reference.append((pair[0], pair[1]))
        if not isinstance(data["state"], Mapping) or not isinstance(data["provenance"], Mapping):
            raise ConfigError("change.prior", "state and provenance must be mappings", path=source)
        return cls(data["state"], tuple(reference), data["provenance"], digest)


def _digest(state: Any, reference: Any, provenance: Any) -> str:
    return sha256_json({"provenance": provenance, "reference": reference, "state": state})


def fit_prior(
    changes: Iterable[tuple[ChangeRecord, bool] | tuple[ChangeRecord, bool, int]],
    *,
    provenance: Mapping[str, Any],
    policy: ChangePolicy | None = None,
    reference_size: int | None = None,
) -> ChangePrior:
    """Learn ``(record, failed[, lines])`` in the order given; the reference is an even sample of what was learned.

    ``lines`` (default: the record's LA + LD) is the change's size for a hold budget in changed lines.
    ``reference_size`` defaults to the policy's ``change.window``.
    """
    cfg = policy or default_policy().change
    model = ChangeRisk(policy=cfg)
    seen: list[tuple[ChangeRecord, int]] = []
    for item in changes:
        record, failed = item[0], item[1]
        lines = item[2] if len(item) == 3 else record.la + record.ld  # type: ignore[misc]
        model.learn(record, failed=failed)
        seen.append((record, lines))
    if not seen:
        raise ValidationError("changes", "a prior needs at least one labelled change")
    size = min(len(seen), reference_size if reference_size is not None else cfg.window)
    step = len(seen) / size
    sample = [seen[int(i * step)] for i in range(size)]
    reference = [[model.risk(record), lines] for record, lines in sample]
    state = model.state()
    digest = _digest(state, reference, dict(provenance))
    return ChangePrior.from_dict(
        {"format": FORMAT, "provenance": dict(provenance), "reference": reference, "sha256": digest, "state": state}
    )


def write_prior(prior: ChangePrior, path: str | Path) -> Path:
    """Write ``prior`` as gzip-compressed canonical JSON (no timestamp in the header: the same prior, the same bytes)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(gzip.compress(canonical_bytes(prior.to_dict()), compresslevel=9, mtime=0))
    return out


def load_prior(path: str | Path | None = None, *, policy: ChangePolicy | None = None) -> ChangePrior | None:
    """The prior at ``path``, or the one the policy names (None for ``change.prior: none``).

    The policy's prior (the packaged one, or the file ``change.prior`` names) must hash to
    ``change.prior_sha256``; any prior must hash to the digest it states. A prior is read once
    per process and file content.
    """
    cfg = policy or default_policy().change
    if path is None and cfg.prior == "none":
        return None
    pinned = path is None
    where = Path(path) if path is not None else PACKAGED_PRIOR if cfg.prior == "packaged" else Path(cfg.prior)
    try:
        raw = where.read_bytes()
    except OSError as exc:
        raise ConfigError("change.prior", f"cannot read the prior: {exc}", path=str(where)) from None
    prior = _parsed(raw, str(where))
    if pinned and prior.sha256 != cfg.prior_sha256:
        raise ConfigError(
            "change.prior_sha256",
            f"the prior hashes to {prior.sha256}, but the policy pins {cfg.prior_sha256}",
            path=str(where),
        )
    prior.model(policy=cfg)  # learned under these settings, or refused now
    return prior


@lru_cache(maxsize=8)
def _parsed(raw: bytes, source: str) -> ChangePrior:
    try:
        data = json.loads(gzip.decompress(raw))
    except (OSError, EOFError, ValueError) as exc:
        raise ConfigError("change.prior", f"cannot read the prior: {exc}", path=source) from None
    return ChangePrior.from_dict(data, source=source)
