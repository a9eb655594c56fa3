"""Change-risk priors fitted on committed histories: the packaged prior and the study's leave-one-out priors.

A dataset's labelled change stream (:func:`change_stream`) is its judged commits in commit-time
order, each with its measured change (``record["change"]``; a commit without one is skipped and
counted) and ``failed`` = inducing within the horizon under the primary labels (the all-labels view,
as a replay delivers it: :func:`colony.history.replay.commit_outcomes`). :func:`fit_history_prior`
learns the streams of several datasets in one online pass (merged in commit-time order; ties by
dataset name, then position) with :func:`colony.kernel.change_prior.fit_prior`, and records what it
was fitted on: each dataset's name, manifest ``sha256_gz`` and counts, the label rules, the horizon,
the totals, the model's version and ``code_sha256``, a digest of the source of the functions that make
the stream and fit it (:func:`change_stream`, :func:`fit_history_prior` and
:func:`colony.history.replay.commit_outcomes`; the learner is named by the model's version). The
same datasets, configuration and code give the same prior, byte for byte (:func:`write_prior` writes
no timestamp).

* The packaged prior (``colony/config/change_prior.json.gz``, pinned by ``policy.yaml``'s
  ``change.prior_sha256``) is fitted on every dataset ``history.yaml`` names:
  ``colony history prior --data data/history --output colony/config/change_prior.json.gz``.
* The study's prior for repository R is fitted on every other dataset (``--leave-out R``;
  :func:`leave_one_out_prior`), so no evaluated commit is learned before it is replayed.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from colony.config import ChangePolicy, default_policy
from colony.errors import ValidationError
from colony.history.changes import check_settings
from colony.history.config import HistoryConfig
from colony.history.dataset import dataset_paths, read_manifest, read_records, verify_dataset
from colony.history.labels import derive_labels
from colony.history.replay import ReplaySettings, commit_outcomes
from colony.kernel.change import ChangeRecord
from colony.kernel.change_prior import ChangePrior, fit_prior
from colony.kernel.change_risk import ChangeRisk

__all__ = ["LabelledChange", "change_stream", "fit_history_prior", "leave_one_out_prior", "prior_datasets"]

_FITTED: dict[tuple[Any, ...], ChangePrior] = {}  # leave-one-out priors fitted in this process (a few)


@dataclass(frozen=True, slots=True)
class LabelledChange:
    """One judged commit of a stream: when, where it stands in its dataset, its change and what came of it."""

    time: int
    seq: int
    record: ChangeRecord
    failed: bool


def change_stream(
    records: Sequence[dict[str, Any]], cfg: HistoryConfig, *, policy: ChangePolicy | None = None
) -> tuple[list[LabelledChange], dict[str, int]]:
    """A dataset's judged commits with a measured change, in commit-time order, and its counts.

    Labels are ``cfg``'s primary ones (fix rule, blame cap; the all-labels view) and ``failed`` is
    inducing within ``cfg.replay.horizon_days``; right censoring is the replay's
    (``cfg.replay.censor_days``, default the horizon). Counts: ``commits`` (non-merge), ``judged``,
    ``unmeasured`` (judged, no change: left out), ``learned`` and ``failed``.
    """
    cp = policy or default_policy().change
    commits = [r for r in records if not r["merge"]]
    settings = ReplaySettings(
        horizon_days=cfg.replay.horizon_days, tick_seconds=cfg.replay.tick_seconds, censor_days=cfg.replay.censor_days
    )
    outcomes = commit_outcomes(commits, derive_labels(records, cfg.labels.rules()), settings)
    stream: list[LabelledChange] = []
    judged = unmeasured = 0
    for rec, out in zip(commits, outcomes, strict=True):
        if not out.judged:
            continue
        judged += 1
        if rec["change"] is None:
            unmeasured += 1
            continue
        stream.append(LabelledChange(rec["time"], rec["seq"], ChangeRecord.from_dict(rec["change"], policy=cp), out.inducing))
    counts = {
        "commits": len(commits),
        "judged": judged,
        "unmeasured": unmeasured,
        "learned": len(stream),
        "failed": sum(c.failed for c in stream),
    }
    return stream, counts


def prior_datasets(
    cfg: HistoryConfig, data_dir: str | Path, datasets: Sequence[str] | None = None, leave_out: str | None = None
) -> list[str]:
    """The datasets a prior is fitted on: ``datasets``, else those the study would read from ``data_dir``
    (:func:`colony.history.studied.studied_datasets`), without ``leave_out`` (the study's prior for that repository).

    >>> from colony.history.config import load_history_config
    >>> prior_datasets(load_history_config(), "data/history", ["aider", "openhands"], leave_out="aider")
    ['openhands']
    """
    from colony.history.studied import studied_datasets

    names = list(datasets) if datasets else studied_datasets(cfg, data_dir)
    if leave_out is not None:
        if leave_out not in names:
            raise ValidationError("--leave-out", f"{leave_out!r} is not among the datasets {names}", value=leave_out)
        names = [n for n in names if n != leave_out]
    if not names:
        raise ValidationError("--dataset", "no dataset is left to fit the prior on", value=names)
    return names


def fit_history_prior(
    data_dir: str | Path, names: Sequence[str], cfg: HistoryConfig, *, policy: ChangePolicy | None = None
) -> ChangePrior:
    """The prior learned from the change streams of datasets ``names`` in ``data_dir`` (see the module docstring).

    Each dataset is checked against its manifest and must have been measured under the policy's
    ``change`` settings; at least one dataset and one labelled change are needed.
    """
    if isinstance(names, str) or not names or len(set(names)) != len(names):
        raise ValidationError("names", "must name at least one dataset, each once", value=names)
    cp = policy or default_policy().change
    merged: list[tuple[int, str, int, ChangeRecord, bool]] = []
    datasets = []
    for name in sorted(names):
        data, manifest_path = dataset_paths(data_dir, name)
        manifest = verify_dataset(manifest_path)
        check_settings(manifest, cp)
        stream, counts = change_stream(list(read_records(data)), cfg, policy=cp)
        merged.extend((c.time, name, c.seq, c.record, c.failed) for c in stream)
        datasets.append({"name": name, "sha256_gz": manifest["sha256_gz"], "counts": counts})
    merged.sort(key=lambda item: item[:3])
    provenance = {
        "fitted_by": "colony.history.prior.fit_history_prior",
        "datasets": datasets,
        "labels": {**asdict(cfg.labels.rules()), "view": "all"},
        "horizon_days": cfg.replay.horizon_days,
        "censor_days": cfg.replay.censor_days,
        "order": "judged commits in commit-time order, ties by dataset name then position",
        "counts": {"learned": len(merged), "failed": sum(item[4] for item in merged)},
        "model": ChangeRisk(policy=cp).version,
        "code_sha256": _code_digest(),
    }
    return fit_prior(((item[3], item[4]) for item in merged), provenance=provenance, policy=cp)


def _code_digest() -> str:
    """sha256 of the source of what makes and fits the stream (an edit elsewhere in the module leaves a prior as it is)."""
    return hashlib.sha256(
        "".join(inspect.getsource(f) for f in (change_stream, fit_history_prior, commit_outcomes)).encode()
    ).hexdigest()


def leave_one_out_prior(data_dir: str | Path, name: str, cfg: HistoryConfig) -> ChangePrior:
    """The study's prior for repository ``name``: fitted on every other dataset the study reads from ``data_dir``.

    Fitted once per process for the same datasets (their manifests' ``sha256_gz``) and configuration.
    """
    names = prior_datasets(cfg, data_dir, leave_out=name)
    digests = tuple((n, read_manifest(dataset_paths(data_dir, n)[1]).get("sha256_gz")) for n in names)
    key = (str(Path(data_dir).resolve()), digests, cfg.sha256)
    if key not in _FITTED:
        if len(_FITTED) >= 8:
            _FITTED.pop(next(iter(_FITTED)))
        _FITTED[key] = fit_history_prior(data_dir, names, cfg)
    return _FITTED[key]
