"""Consequence memory in content space: an online, calibrated risk that a change leads to a failure.

:class:`ChangeRisk` is a logistic regression over a change's hashed token bag and its log-transformed
Kamei metrics (:func:`features`), learned one labelled change at a time by stochastic gradient
descent. Its update is river's ``linear_model.LogisticRegression(optimizer=optim.SGD(lr), l2=l2,
intercept_lr=intercept_lr)``, step for step: the raw score is the weights' dot product with the
features plus the intercept; the log loss's gradient (river's ``optim.losses.Log``, with its
branches past ``|z| > 18``) moves the intercept by ``intercept_learning_rate`` and each weight the
change touches by ``learning_rate * (x_j * g + l2 * w_j)`` (river's lazy L2: only touched weights
decay). It is written out here, in plain Python over two dicts, rather than by calling river. Both
meet the budgets (``benchmarks/bench_change.py``; river's Rust core is a little faster per call), but
importing river takes seconds and brings numpy, scipy and narwhals into the core an agent host
installs, every direct hook call would pay that import, and river's weights have no public way back
in from a stored state. ``tests/kernel/test_change_risk.py`` keeps both in agreement on one stream.

The model is deterministic: the same outcomes in the same order give the same :meth:`ChangeRisk.state`,
byte for byte. ``version`` names the algorithm and its settings, for the verdict to record.

>>> from colony.kernel.change import measure_edits
>>> risky = measure_edits([{"path": "a.py", "content": "eval(user_input)\\n"}]).record
>>> safe = measure_edits([{"path": "a.py", "content": "total = 0\\n"}]).record
>>> model = ChangeRisk()
>>> for _ in range(20):
...     model.learn(risky, failed=True)
...     model.learn(safe, failed=False)
>>> model.risk(risky) > 0.5 > model.risk(safe)
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat
from typing import Any

from colony.canonical import sha256_json
from colony.config import ChangePolicy, default_policy
from colony.errors import ValidationError
from colony.kernel.change import ChangeRecord, MeasuredChange

__all__ = ["ALGORITHM", "METRICS", "ChangeAssessment", "ChangeRisk", "LineRisk", "features"]

ALGORITHM = "colony-change-risk/sgd-logreg/1"
METRICS = ("la", "ld", "nf", "nd", "ns", "entropy")
"""The change metrics among the features: ``log1p`` of the five counts, and the entropy as it is (in [0, 1])."""
_STATE_KEYS = ("algorithm", "settings", "learned", "failures", "intercept", "metrics", "tokens")
_Z_LIMIT = 30.0  # a logit past this is clipped, so a risk stays strictly inside (0, 1)


def features(change: ChangeRecord | MeasuredChange) -> dict[int | str, float]:
    """The change's features: ``log1p`` of each token bucket's count (int keys) and the metrics (str keys).

    >>> from colony.kernel.change import measure_edits
    >>> x = features(measure_edits([{"path": "a.py", "content": "a = b + b\\n"}]))
    >>> round(x["la"], 6), sorted(round(v, 6) for k, v in x.items() if isinstance(k, int))
    (0.693147, [0.693147, 1.098612])
    """
    r = change.record if isinstance(change, MeasuredChange) else change
    x: dict[int | str, float] = {
        "la": math.log1p(r.la),
        "ld": math.log1p(r.ld),
        "nf": math.log1p(r.nf),
        "nd": math.log1p(r.nd),
        "ns": math.log1p(r.ns),
        "entropy": r.entropy,
    }
    for bucket, count in r.tokens:
        x[bucket] = math.log1p(count)
    return x


@lru_cache(maxsize=4)
def _log1p_table(count_cap: int) -> tuple[float, ...]:
    """``log1p(count)`` for every count a token bag may hold (0 .. ``count_cap``)."""
    return tuple(math.log1p(c) for c in range(count_cap + 1))


def _log_gradient(failed: bool, z: float) -> float:
    """river's ``optim.losses.Log().gradient(y_true, y_pred=z)`` for a bool label (weights 1)."""
    y = 1 if failed else -1
    yz = z * y
    if yz > 18.0:
        return math.exp(-yz) * -y
    if yz < -18.0:
        return float(-y)
    return -y / (math.exp(yz) + 1.0)


@dataclass(frozen=True, slots=True)
class LineRisk:
    """A changed line and how much its tokens raise the change's logit (the sum of their weights)."""

    path: str
    line: int
    added: bool
    score: float


@dataclass(frozen=True, slots=True)
class ChangeAssessment:
    """What the gate learns of a change: its risk, the budget's threshold, whether that holds it, and why.

    ``held``: the risk is above the threshold and the hold budget has room. ``budget_spent``: it is
    above, but the budget's share of recent changes is held already, so it passes with a warning.
    ``lines`` names the riskiest lines of a change above the threshold (empty otherwise).
    """

    risk: float
    threshold: float
    held: bool
    model: str
    record: ChangeRecord
    lines: tuple[LineRisk, ...]
    budget_spent: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The verdict's ``change`` entry (what the ledger attests): risk, threshold, model version, metrics, lines."""
        r = self.record
        return {
            "risk": self.risk,
            "threshold": self.threshold,
            "held": self.held,
            "budget_spent": self.budget_spent,
            "model": self.model,
            "digest": r.digest,
            "la": r.la,
            "ld": r.ld,
            "nf": r.nf,
            "lines": [{"path": x.path, "line": x.line, "added": x.added, "score": x.score} for x in self.lines],
        }


class ChangeRisk:
    """An online logistic regression of a change's failure, over hashed tokens and change metrics."""

    __slots__ = ("_cfg", "_l2", "_lr", "_ilr", "_tokens", "failures", "intercept", "learned", "metrics")

    def __init__(self, *, policy: ChangePolicy | None = None) -> None:
        self._cfg = policy or default_policy().change
        self._lr, self._ilr, self._l2 = self._cfg.learning_rate, self._cfg.intercept_learning_rate, self._cfg.l2
        self.intercept = 0.0
        self.metrics: dict[str, float] = {}
        self._tokens: dict[int, float] = {}
        self.learned = 0
        self.failures = 0

    @property
    def settings(self) -> dict[str, Any]:
        """The hyperparameters the weights were learned under (``policy.yaml``'s ``change:`` section)."""
        cfg = self._cfg
        return {
            "buckets": cfg.buckets,
            "learning_rate": cfg.learning_rate,
            "intercept_learning_rate": cfg.intercept_learning_rate,
            "l2": cfg.l2,
            "remembered_tokens": cfg.remembered_tokens,
            "count_cap": cfg.count_cap,
        }

    @property
    def version(self) -> str:
        """The algorithm and a digest of its settings: what a verdict records beside the risk."""
        return _version(self._cfg)

    def _logit(self, x: dict[int | str, float]) -> float:
        metrics, tokens = self.metrics, self._tokens
        z = 0.0
        for key, value in x.items():
            weight = tokens.get(key, 0.0) if isinstance(key, int) else metrics.get(key, 0.0)
            z += weight * value
        return z + self.intercept

    def risk(self, change: ChangeRecord | MeasuredChange) -> float:
        """The probability, strictly inside (0, 1), that ``change`` leads to a failure."""
        r = _record(change)
        m = self.metrics.get
        z = (
            m("la", 0.0) * math.log1p(r.la)
            + m("ld", 0.0) * math.log1p(r.ld)
            + m("nf", 0.0) * math.log1p(r.nf)
            + m("nd", 0.0) * math.log1p(r.nd)
            + m("ns", 0.0) * math.log1p(r.ns)
            + m("entropy", 0.0) * r.entropy
            + self.intercept
        )
        get, log1p = self._tokens.get, _log1p_table(self._cfg.count_cap)
        top = len(log1p)
        for bucket, count in r.tokens:
            weight = get(bucket)
            if weight is not None:
                z += weight * (log1p[count] if count < top else math.log1p(count))
        return 1.0 / (1.0 + math.exp(-max(-_Z_LIMIT, min(_Z_LIMIT, z))))

    def learn(self, change: ChangeRecord | MeasuredChange, *, failed: bool) -> None:
        """Learn one outcome: ``failed`` is whether ``change`` led to a failure (river's ``learn_one``)."""
        if not isinstance(failed, bool):
            raise ValidationError("failed", f"expected a bool, got {failed!r}", value=failed)
        x = features(_record(change))
        g = _log_gradient(failed, self._logit(x))
        self.intercept -= self._ilr * g
        lr, l2, metrics, tokens = self._lr, self._l2, self.metrics, self._tokens
        for key, value in x.items():
            table: dict[Any, float] = tokens if isinstance(key, int) else metrics
            weight = table.get(key, 0.0)
            table[key] = weight - lr * (value * g + l2 * weight)
        self.learned += 1
        self.failures += failed

    def weight(self, key: int | str) -> float:
        """The weight of a token bucket (int) or a metric (str); 0 for one never learned."""
        return self._tokens.get(key, 0.0) if isinstance(key, int) else self.metrics.get(key, 0.0)

    def riskiest_lines(self, change: MeasuredChange, k: int) -> tuple[LineRisk, ...]:
        """The (at most) ``k`` lines whose tokens raise the risk most: positive scores only, highest first.

        A line's score is the sum of its distinct tokens' weights, its share of the logit had each
        token counted once. Ties go to the earlier path, then to deletions, then the lower line.
        """
        if not isinstance(change, MeasuredChange):
            raise ValidationError("change", "line-level risk needs a measured change (with its lines)")
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ValidationError("k", f"must be an integer >= 0, got {k!r}", value=k)
        get, zeros = self._tokens.get, repeat(0.0)
        scored = []
        for line in change.lines:
            score = sum(map(get, dict.fromkeys(line.tokens), zeros))
            if score > 0.0:
                scored.append((-score, line.path, line.added, line.line))
        scored.sort()
        return tuple(LineRisk(path, no, added, -neg) for neg, path, added, no in scored[:k])

    def state(self) -> dict[str, Any]:
        """The model as JSON-shaped data: settings, counts, intercept and non-zero weights (tokens sorted)."""
        return {
            "algorithm": ALGORITHM,
            "settings": self.settings,
            "learned": self.learned,
            "failures": self.failures,
            "intercept": self.intercept,
            "metrics": {k: v for k, v in sorted(self.metrics.items()) if v != 0.0},
            "tokens": [[b, w] for b, w in sorted(self._tokens.items()) if w != 0.0],
        }

    @classmethod
    def from_state(cls, data: Any, *, policy: ChangePolicy | None = None) -> ChangeRisk:
        """Restore a :meth:`state`; it must have been learned under the policy's settings (``state.settings``)."""
        model = cls(policy=policy)
        if not isinstance(data, Mapping) or set(data) != set(_STATE_KEYS):
            raise ValidationError("state", f"expected a mapping with keys {list(_STATE_KEYS)}", value=data)
        if data["algorithm"] != ALGORITHM:
            raise ValidationError("state.algorithm", f"expected {ALGORITHM!r}", value=data["algorithm"])
        if data["settings"] != model.settings:
            raise ValidationError("state.settings", "learned under other settings than policy.yaml's change: section")
        for name in ("learned", "failures"):
            if isinstance(data[name], bool) or not isinstance(data[name], int) or data[name] < 0:
                raise ValidationError(f"state.{name}", "must be an integer >= 0", value=data[name])
        if data["failures"] > data["learned"]:
            raise ValidationError("state.failures", "must be <= state.learned", value=data["failures"])
        model.learned, model.failures = data["learned"], data["failures"]
        model.intercept = _finite(data["intercept"], "state.intercept")
        metrics = data["metrics"]
        if not isinstance(metrics, Mapping) or not set(metrics) <= set(METRICS):
            raise ValidationError("state.metrics", f"expected a mapping with keys among {list(METRICS)}", value=metrics)
        model.metrics = {k: _finite(v, f"state.metrics.{k}") for k, v in metrics.items()}
        model._tokens = _weights(data["tokens"], model._cfg.buckets)
        return model


@lru_cache(maxsize=8)
def _version(cfg: ChangePolicy) -> str:
    """:attr:`ChangeRisk.version` for the settings of ``cfg`` (made once per policy: every verdict records it)."""
    return f"{ALGORITHM}:{sha256_json(ChangeRisk(policy=cfg).settings)[:12]}"


def _record(change: Any) -> ChangeRecord:
    if isinstance(change, MeasuredChange):
        return change.record
    if isinstance(change, ChangeRecord):
        return change
    raise ValidationError("change", f"expected a measured change or its record, got {type(change).__name__}")


def _finite(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValidationError(name, f"must be a finite number, got {value!r}", value=value)
    return float(value)


def _weights(value: Any, buckets: int) -> dict[int, float]:
    if not isinstance(value, list):
        raise ValidationError("state.tokens", "expected a list of [bucket, weight] pairs", value=value)
    out: dict[int, float] = {}
    last = -1
    for i, pair in enumerate(value):
        if not isinstance(pair, list) or len(pair) != 2 or type(pair[0]) is not int or not last < pair[0] < buckets:
            raise ValidationError(f"state.tokens[{i}]", "must be [bucket, weight], buckets increasing and < buckets", value=pair)
        last = pair[0]
        out[last] = _finite(pair[1], f"state.tokens[{i}]")
    return out
