"""The learned baseline: logistic regression on what the kernel can see, fitted on separate training runs.

Features (all visible to the kernel when it decides; none is hidden ground truth): the agent's
trust, RISK and FAILURE at the target, the number of missing completeness fields, the
falsification severity, the agent's recent failures and whether the budget can afford the
estimate. The model is fitted (scikit-learn, L2-regularised, standardised features) on every
executed attempt of ``conditions.learned.training_runs`` *training* runs: an always-execute
policy on workloads drawn from a seed derived from the study's seed for this purpose alone,
so no measured item, and no oracle draw of one, is ever seen in training. The condition then
executes an attempt iff the predicted failure probability is below the utility break-even
(:func:`~colony.research.conditions.break_even`), else refuses it; :mod:`colony.research.registry` builds it.

>>> from colony.config import default_policy
>>> from colony.research.study_config import load_study_config
>>> cfg = load_study_config().with_overrides(runs=1, items=5, warmup_ticks=1)
>>> model = fit_model(cfg, default_policy())
>>> model.features == FEATURES and 0.0 < model.predict((0.5, 0.0, 0.0, 0, 0.0, 0, 1.0)) < 1.0
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from colony.config import Policy
from colony.errors import ValidationError
from colony.models import GateDecision
from colony.research.condition_runner import run_condition
from colony.research.conditions import AlwaysExecute, DecisionContext
from colony.research.oracle import OutcomeOracle
from colony.research.seeding import derive_seed
from colony.research.study_config import StudyConfig
from colony.research.workload import generate_workload, sigmoid

__all__ = ["FEATURES", "LearnedModel", "LearnedPolicy", "features_of_context", "features_of_record", "fit_model"]

FEATURES = ("trust", "risk", "failure", "missing_fields", "falsification_severity", "recent_failures", "budget_ok")


def features_of_context(ctx: DecisionContext) -> tuple[float, ...]:
    """The feature vector of a decision, from the gate inputs the kernel used."""
    x = ctx.inputs
    if x is None:
        raise ValidationError("ctx", "the learned policy needs the gate inputs")
    return (x.trust_score, x.risk, x.failure, len(x.missing), ctx.gate.falsification_severity, x.recent_failures,
            float(ctx.budget_ok))  # fmt: skip


def features_of_record(rec: dict[str, Any]) -> tuple[float, ...]:
    """The same feature vector, from a trace record."""
    return (rec["trust"], rec["risk"], rec["failure"], rec["gate_missing"], rec["falsification_severity"],
            rec["recent_failures"], float(rec["budget_ok"]))  # fmt: skip


@dataclass(frozen=True, slots=True)
class LearnedModel:
    """A fitted logistic model: standardisation and coefficients, evaluated without scikit-learn."""

    features: tuple[str, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    coefficients: tuple[float, ...]
    intercept: float
    training_attempts: int
    training_failures: int

    def predict(self, x: Sequence[float]) -> float:
        """Predicted failure probability of one feature vector."""
        z = self.intercept + sum(
            c * (v - m) / s for c, v, m, s in zip(self.coefficients, x, self.means, self.scales, strict=True)
        )
        return sigmoid(z)

    def to_dict(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "coefficients": dict(zip(self.features, self.coefficients, strict=True)),
            "intercept": self.intercept,
            "training_attempts": self.training_attempts,
            "training_failures": self.training_failures,
        }


def training_config(cfg: StudyConfig) -> StudyConfig:
    """The training study: its own seed (derived for this purpose), ``training_runs`` runs."""
    seed = derive_seed(cfg.study.seed, "learned-training") % (1 << 31)
    return cfg.with_overrides(runs=cfg.conditions.learned.training_runs, seed=seed)


@lru_cache(maxsize=8)
def fit_model(cfg: StudyConfig, policy: Policy) -> LearnedModel:
    """Fit the model on always-execute training runs (deterministic; cached per process)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    train = training_config(cfg)
    workload = generate_workload(train, trust_deltas=(policy.trust.pass_delta, policy.trust.fail_delta))
    oracle = OutcomeOracle(train.study.seed)
    rows, labels = [], []
    control = AlwaysExecute()
    for run in workload.runs:
        for rec in run_condition(train, policy, run, control, oracle).records:
            rows.append(features_of_record(rec))
            labels.append(int(rec["failed"]))
    x = np.asarray(rows, dtype=np.float64)
    y = np.asarray(labels)
    if len(set(labels)) < 2:
        raise ValidationError("conditions.learned.training_runs", "training runs produced only one outcome class")
    means = x.mean(axis=0)
    scales = x.std(axis=0)
    scales[scales == 0] = 1.0
    model = LogisticRegression(C=cfg.conditions.learned.regularisation, solver="lbfgs", max_iter=1000)
    model.fit((x - means) / scales, y)
    return LearnedModel(
        FEATURES,
        tuple(float(v) for v in means),
        tuple(float(v) for v in scales),
        tuple(float(v) for v in model.coef_[0]),
        float(model.intercept_[0]),
        len(labels),
        int(sum(labels)),
    )


@dataclass(frozen=True, slots=True)
class LearnedPolicy:
    """EXECUTE iff the fitted model's failure probability is below ``cutoff``, else REFUSE."""

    model: LearnedModel
    cutoff: float
    name: str = "learned"
    description: str = "logistic regression on kernel-visible features (separate training runs): EXECUTE iff p < break-even"

    def decide(self, ctx: DecisionContext) -> GateDecision:
        return GateDecision.EXECUTE if self.model.predict(features_of_context(ctx)) < self.cutoff else GateDecision.REFUSE

    def hold_needs(self, ctx: DecisionContext) -> frozenset[str]:
        return frozenset()
