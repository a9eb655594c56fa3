"""colony.research: the study of paper §4.1 (its four conditions and more), and the gate's verification tools.

* :mod:`~colony.research.study_config` — the study's parameters (``colony/config/research.yaml``);
* :mod:`~colony.research.workload` — the versioned, seeded synthetic workload with hidden ground truth;
* :mod:`~colony.research.oracle` — the independent outcome oracle;
* :mod:`~colony.research.conditions` — the conditions registry: composite, baselines, oracle ceiling, learned
  policy (:mod:`~colony.research.learned`) and ablations (:mod:`~colony.research.ablations`);
* :mod:`~colony.research.tradeoff`, :mod:`~colony.research.adversarial_study`, :mod:`~colony.research.sweep` —
  trade-off curves, adversarial workloads and the sensitivity sweep;
* :mod:`~colony.research.runner` / :mod:`~colony.research.study` — running it, writing its artefacts;
* :mod:`~colony.research.metrics`, :mod:`~colony.research.outcomes`, :mod:`~colony.research.analysis`,
  :mod:`~colony.research.hypotheses` — rates with denominators, paired bootstrap intervals, H1–H4;
* :mod:`~colony.research.reference_gate`, :mod:`~colony.research.differential`,
  :mod:`~colony.research.invariants`, :mod:`~colony.research.formal` — verification of the gate.

>>> from colony.research import load_study_config
>>> load_study_config().conditions.order[:4]
('composite', 'static_trust', 'budget_only', 'always_execute')
"""

from colony.research.analysis import analyze
from colony.research.conditions import DecisionContext, build_conditions, register_condition
from colony.research.differential import differential_test
from colony.research.formal import check_obligations, z3_available
from colony.research.invariants import kernel_invariants, policy_invariants
from colony.research.oracle import Outcome, OutcomeOracle
from colony.research.reference_gate import ReferenceGate, ReferenceInput, ReferencePolicy, ReferenceResult
from colony.research.study import StudyOutputs, read_traces, run_study
from colony.research.study_config import StudyConfig, load_study_config, parse_study_config
from colony.research.workload import Workload, generate_workload, write_workload

__all__ = [
    "DecisionContext",
    "Outcome",
    "OutcomeOracle",
    "ReferenceGate",
    "ReferenceInput",
    "ReferencePolicy",
    "ReferenceResult",
    "StudyConfig",
    "StudyOutputs",
    "Workload",
    "analyze",
    "build_conditions",
    "check_obligations",
    "differential_test",
    "generate_workload",
    "kernel_invariants",
    "load_study_config",
    "parse_study_config",
    "policy_invariants",
    "read_traces",
    "register_condition",
    "run_study",
    "write_workload",
    "z3_available",
]
