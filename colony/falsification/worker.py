"""FalsificationWorker: runs the eleven checks over a plan or a proposal.

``evaluate_plan`` returns a report and, when the worker was given a pheromone
store (standalone use), deposits one prospective RISK trace at the target.
``analyze`` (the kernel's entry point) and ``falsify_plan`` (the MCP tool's
semantics) never deposit. The repository root for import-cycle analysis is fixed
at construction; a plan can never choose it.

>>> result = falsify_plan({"action_type": "delete", "target": "codomyrmex.dark", "rationale": "Unused", "rollback_plan": ""})
>>> result["severity_score"], result["recommendation"]
(0.45, 'hold')
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from colony.canonical import json_text
from colony.config import default_policy
from colony.errors import ValidationError
from colony.falsification.checks import CheckContext
from colony.falsification.containment import configured_root
from colony.falsification.import_graph import RepoImportScanner
from colony.falsification.plan import PlanView
from colony.falsification.registry import run_checks
from colony.falsification.report import (
    FalsificationReport,
    build_report,
    mean_severity,
    recommendation,
    risk_deposit,
    severity_score,
)
from colony.models import (
    ActionProposal,
    ColonySignal,
    DecayRate,
    FalsificationFinding,
    SignalSource,
    SignalType,
)

if TYPE_CHECKING:
    from colony.config import Policy

__all__ = ["FalsificationWorker", "RiskField", "falsify_plan"]

_FINDINGS_CACHE = 1024  # proposals whose findings are kept (each a few small records)


class RiskField(Protocol):
    """Where :meth:`FalsificationWorker.evaluate_plan` deposits (the kernel's pheromone store is one)."""

    def deposit(self, signal: ColonySignal, trust_factor: float = 1.0) -> float: ...


class FalsificationWorker:
    """Adversarial pre-flight review of plans and proposals.

    Parameters:
        policy: the policy in force (default: :func:`colony.config.default_policy`).
        pheromone_store: where :meth:`evaluate_plan` deposits its RISK trace (optional).
        repo_root: the directory import cycles may be searched under, fixed at start-up.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        pheromone_store: RiskField | None = None,
        repo_root: str | os.PathLike[str] | None = None,
    ) -> None:
        self._policy = policy if policy is not None else default_policy()
        self._store = pheromone_store
        self._root = configured_root(repo_root) if repo_root is not None else None
        fp = self._policy.falsification
        scanner = RepoImportScanner(self._root, fp.import_graph_max_files) if self._root is not None else None
        self._ctx = CheckContext(fp, scanner)
        self._risk_decay = DecayRate(self._policy.pheromone.signal_defaults.risk)
        self._findings: dict[tuple[str | None, ...], tuple[FalsificationFinding, ...]] = {}

    @property
    def policy(self) -> Policy:
        """The policy this worker reads its numbers from."""
        return self._policy

    @property
    def repo_root(self) -> Path | None:
        """The resolved repository root, or None in plan-only mode."""
        return self._root

    def _check(self, plan: Any) -> tuple[PlanView, list[FalsificationFinding]]:
        view = PlanView.from_mapping(plan)
        return view, run_checks(view, self._ctx)

    def evaluate_plan(self, plan: Mapping[str, Any]) -> FalsificationReport:
        """Run the checks over ``plan``; with a store, deposit one RISK trace for MEDIUM-or-worse findings."""
        view, findings = self._check(plan)
        report = build_report(view.summary, findings)
        if self._store is not None:
            self._deposit(self._store, view.target, findings)
        return report

    def analyze(self, proposal: ActionProposal, *, evidence_json: str | None = None) -> list[FalsificationFinding]:
        """Findings for ``proposal``, read with every field and evidence key; never deposits.

        Without a repository the checks read only the proposal's text fields and evidence, so a
        proposal made again (a re-proposal, an agent's routine change) gets the findings its
        first one got from a bounded cache, keyed on exactly what the checks read.
        ``evidence_json``: the evidence's canonical JSON when the caller has it already.
        """
        if not isinstance(proposal, ActionProposal):
            raise ValidationError("proposal", f"must be an ActionProposal, got {type(proposal).__name__}", value=None)
        if self._root is not None:  # repository-aware checks read the tree, which changes: never cached
            return run_checks(PlanView.of_proposal(proposal), self._ctx)
        evidence = proposal.evidence
        key = (
            proposal.agent_id,
            proposal.action_type,
            proposal.target,
            proposal.rationale,
            proposal.rollback_plan,
            proposal.expected_outcome,
            (evidence_json if evidence_json is not None else json_text(evidence)) if evidence else None,
        )
        cache = self._findings
        found = cache.get(key)
        if found is None:
            found = tuple(run_checks(PlanView.of_proposal(proposal), self._ctx))
            if len(cache) >= _FINDINGS_CACHE:
                del cache[next(iter(cache))]  # the oldest entry
            cache[key] = found
        return list(found)

    def falsify(self, plan: Any) -> dict[str, Any]:
        """The ``colony_falsify_plan`` result for ``plan``: report, max and mean severity, recommendation."""
        view, findings = self._check(plan)
        weights = self._policy.gate.severity_weights
        score = severity_score(findings, weights)
        result = build_report(view.summary, findings).to_dict()
        result["severity_score"] = score
        result["mean_severity"] = mean_severity(findings, weights)
        result["recommendation"] = recommendation(score, self._policy.falsification)
        return result

    def _deposit(self, store: RiskField, target: str, findings: list[FalsificationFinding]) -> None:
        serious, strength = risk_deposit(findings, self._policy.proposal)
        if not serious or not target:
            return
        store.deposit(
            ColonySignal(
                location=target,
                signal_type=SignalType.RISK,
                strength=strength,
                decay_rate=self._risk_decay,
                source=SignalSource.AGENT,
                evidence={"findings": len(serious), "attack_vectors": sorted({f.attack_vector.value for f in serious})},
            ),
            trust_factor=1.0,
        )


def falsify_plan(plan: Any, *, policy: Policy | None = None, repo_root: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Falsify ``plan`` without depositing anything and return the ``colony_falsify_plan`` result.

    Returns ``{plan_summary, findings, verdict, required_changes, severity_score,
    mean_severity, recommendation}``. A non-dict plan raises ``ValidationError("plan", ...)``;
    a plan key ``repo_root``/``_repo_root`` raises ``ValidationError("plan.repo_root", ...)``.
    """
    return FalsificationWorker(policy, repo_root=repo_root).falsify(plan)
