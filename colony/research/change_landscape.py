"""The gate by change risk: where the hold threshold sits, what the example changes score, and how the verdict moves.

The data of the gate-landscape notebook's change section, from the real gate and the example prior
(:mod:`colony.research.change_examples`): the hold threshold a new colony started from that prior
would have (the policy's hold budget over its reference risks), each example change's learned risk and
riskiest lines, and the gate's score and decision over change risk in [0, 1] for a few trust levels
and missing proposal fields (no hazard at the target, role DISPATCHER, the hold budget with room).
Every number comes from the policy in force; a notebook plots it.

>>> data = change_landscape(risk_steps=11)
>>> [(c["trust"], c["missing"]) for c in data["curves"]]  # the replay's agent and full credit; complete, or two fields missing
[(0.5, 0), (0.5, 2), (0.6, 0), (0.6, 2)]
>>> [code for code, r in zip(data["curves"][1]["decision_code"], data["risk"]) if r in (0.5, 0.6)]  # EXECUTE, then REFUSE
[2, 0]
>>> [r["name"] for r in data["examples"] if r["held"]]  # the riskiest tenth of the examples, and the risky paired change
['paired-risky', 'swallowed-error', 'shell-deploy']
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import Any

from colony.config import Policy, default_policy
from colony.errors import ValidationError
from colony.kernel.actuation_gate import COMPLETENESS_FIELDS, ActuationGate, GateInputs
from colony.kernel.change_risk import ChangeAssessment
from colony.kernel.pheromone_store import PheromoneStore
from colony.models import AgentRole, GateResult
from colony.research.change_examples import EXAMPLE_CHANGES, RISKY_CHANGE, SAFE_CHANGE, ExampleScorer
from colony.research.paired_fixture import DIGITS
from colony.research.replay import DEFAULT_AGENT_TRUST

__all__ = ["change_landscape"]

_CODES = {"refuse": 0, "hold": 1, "execute": 2}  # as the notebooks' DECISION_CODES


def change_landscape(
    *,
    trusts: Sequence[float] | None = None,
    missing_counts: Sequence[int] = (0, 2),
    risk_steps: int = 101,
    policy: Policy | None = None,
) -> dict[str, Any]:
    """The change section's data (see the module docstring); ``trusts`` defaults to 0.5 and the policy's full credit.

    Returns ``{threshold, hold_budget, budget_unit, window, reference, model, examples: [{name,
    failed, risk, held, lines: [{path, line, added, score, text}]}], risk, curves: [{trust, missing,
    score, decision_code}], cases: [{trust, change, risk, held, decision, gate_score}]}``: a curve's
    entries follow ``risk`` (the risky paired change at that risk), one curve per trust and missing
    count; ``cases`` has each trust, complete, with no change, the safe and the risky paired change.
    """
    policy = policy if policy is not None else default_policy()
    if isinstance(risk_steps, bool) or not isinstance(risk_steps, int) or risk_steps < 2:
        raise ValidationError("risk_steps", f"must be an integer >= 2, got {risk_steps!r}", value=risk_steps)
    gp, cp = policy.gate, policy.change
    levels = list(trusts) if trusts is not None else [DEFAULT_AGENT_TRUST, gp.trust_full_credit]
    for m in missing_counts:
        if isinstance(m, bool) or not isinstance(m, int) or not 0 <= m <= len(COMPLETENESS_FIELDS):
            raise ValidationError("missing_counts", f"entries must be integers in [0, {len(COMPLETENESS_FIELDS)}]", value=m)
    gate = ActuationGate(gp, pheromone_store=PheromoneStore(policy.pheromone))
    scorer = ExampleScorer(cp)
    threshold = scorer.threshold
    scored = {e.name: (e, scorer.score(e.diff)) for e in (SAFE_CHANGE, RISKY_CHANGE, *EXAMPLE_CHANGES)}
    examples = [
        {
            "name": name,
            "failed": e.failed,
            "risk": round(s.risk, DIGITS),
            "held": s.risk > threshold,
            "lines": [
                {"path": x.path, "line": x.line, "added": x.added, "score": round(x.score, DIGITS), "text": text.strip()}
                for x, text in zip(s.lines, s.texts, strict=True)
            ],
        }
        for name, (e, s) in scored.items()
    ]
    risks = [round(i / (risk_steps - 1), DIGITS) for i in range(risk_steps)]
    risky = scored[RISKY_CHANGE.name][1]

    def verdict(trust: float, change: ChangeAssessment | None, missing: int = 0) -> GateResult:
        inputs = GateInputs(trust_score=trust, role=AgentRole.DISPATCHER, missing=COMPLETENESS_FIELDS[:missing], change=change)
        return gate.evaluate_inputs(inputs)

    curves = []
    for trust, m in product(levels, missing_counts):  # the risky change at every risk: held above the threshold
        verdicts = [verdict(trust, scorer.assessment(risky, risk=r, threshold=threshold, room=True), m) for r in risks]
        curves.append(
            {
                "trust": trust,
                "missing": m,
                "score": [round(v.gate_score, DIGITS) for v in verdicts],
                "decision_code": [_CODES[v.decision.value] for v in verdicts],
            }
        )
    cases = []
    for trust in levels:
        for name in ("none", SAFE_CHANGE.name, RISKY_CHANGE.name):
            s = scored[name][1] if name != "none" else None
            a = None if s is None else scorer.assessment(s, risk=s.risk, threshold=threshold, room=True)
            result = verdict(trust, a)
            cases.append(
                {
                    "trust": trust,
                    "change": name,
                    "risk": None if a is None else round(a.risk, DIGITS),
                    "held": a is not None and a.held,
                    "decision": result.decision.value,
                    "gate_score": round(result.gate_score, DIGITS),
                }
            )
    return {
        "threshold": round(threshold, DIGITS),
        "hold_budget": cp.hold_budget,
        "budget_unit": cp.budget_unit,
        "window": cp.window,
        "reference": len(scorer.prior.reference),
        "model": scorer.model.version,
        "examples": examples,
        "risk": risks,
        "curves": curves,
        "cases": cases,
    }
