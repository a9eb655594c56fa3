"""The study's trace: one record per attempt, one JSONL line each; :data:`TRACE_FIELDS` documents every key.

Records are written by :mod:`colony.research.condition_runner` and read back by the analysis
(:mod:`colony.research.outcomes`), so the trace alone reproduces every number of the study.

>>> {"run", "condition", "decision", "failed"} <= set(TRACE_FIELDS)
True
"""

from __future__ import annotations

__all__ = ["TRACE_FIELDS"]

TRACE_FIELDS: dict[str, str] = {
    "record": "always 'attempt'",
    "run": "run index",
    "condition": "condition name",
    "phase": "'warmup' (excluded from metrics) or 'measured'",
    "item_id": "stable workload item id",
    "proposal_id": "item id, or '<item>.rev<n>' for the n-th re-proposal",
    "supersedes": "the proposal id this re-proposal replaces (null for a first proposal)",
    "attempt": "0 for the first proposal, n for the n-th re-proposal",
    "seq": "position of this attempt in the (run, condition) order",
    "tick": "kernel tick at which the attempt was proposed",
    "agent_id": "proposing agent",
    "target": "proposal target",
    "fragile": "whether the target is fragile (hidden)",
    "action_type": "proposal action type",
    "missing": "elements the proposal lacks (empty once supplied)",
    "complete": "every element supplied (a re-proposal after a HOLD that asked for evidence)",
    "supplied": "this attempt is the one that supplied the missing elements (charged hold.revision_cost)",
    "waited_ticks": "ticks this attempt waited since the HOLD it follows (0 for a first proposal)",
    "trust": "agent trust just before the proposal",
    "role": "agent role the gate used",
    "budget_ok": "ledger could afford the estimate just before the proposal",
    "risk": "RISK at the target just before the proposal",
    "failure": "FAILURE at the target just before the proposal",
    "hazard": "max(RISK, FAILURE) at the target just before the proposal",
    "proposal_risk": "RISK at the target owed to outstanding proposal-time deposits",
    "proposal_failure": "FAILURE at the target owed to outstanding proposal-time deposits",
    "gate_missing": "completeness fields the gate counted as missing",
    "recent_failures": "the agent's failures among its recent outcomes (gate input)",
    "ticks_since_failure": "ticks since this condition last saw a failed outcome at the target (null: never)",
    "probe_score": "gate score of the standard probe at the target just before the proposal",
    "kernel_decision": "ColonyKernel verdict (all conditions)",
    "kernel_score": "ColonyKernel gate score",
    "falsification_severity": "max finding weight the kernel saw",
    "decision": "the condition's decision (acted on)",
    "hold_needs": "what a HOLD waits for (budget, decay, evidence, recent_failure, trust); empty otherwise",
    "executed": "decision == execute",
    "attested": "the outcome went through the attested lifecycle (authorize, receipt, outcome)",
    "reported_failed": "the outcome the agent reported (differs from 'failed' only for a misreporting agent)",
    "u": "oracle draw u[run, item] (same in every condition and attempt)",
    "p_fail": "hidden failure probability of this attempt",
    "would_fail": "u < p_fail: the outcome had it been executed",
    "failed": "oracle outcome if executed, else null",
    "probe_after": "probe score at the target just after the outcome was reported (executed only)",
    "revision_tick": "tick of the re-proposal after a HOLD, else null",
    "abandoned_tick": "tick at which a held item was given up, else null",
    "adversary": "adversarial workloads: the behaviour that made this item (misreport, sybil, boilerplate, farm, attack, "
    "attacker); null for an honest item. Flood items (sybil) are proposed only: never executed, held or re-proposed",
}
