"""colony.research: the study of paper §4.1 (its four conditions and more), and the gate's verification tools.

* :mod:`~colony.research.study_config` — the study's parameters (``colony/config/research.yaml``);
* :mod:`~colony.research.workload` — the versioned, seeded synthetic workload with hidden ground truth;
* :mod:`~colony.research.oracle` — the independent outcome oracle;
* :mod:`~colony.research.conditions` — the conditions' protocol, the composite, baselines and oracle ceiling; the
  learned policy (:mod:`~colony.research.learned`) and ablations (:mod:`~colony.research.ablations`);
  :mod:`~colony.research.registry` names every built-in in one table;
* :mod:`~colony.research.tradeoff`, :mod:`~colony.research.adversarial_study`, :mod:`~colony.research.sweep` —
  trade-off curves, adversarial workloads and the sensitivity sweep;
* :mod:`~colony.research.condition_runner` / :mod:`~colony.research.runner` / :mod:`~colony.research.study` — one
  condition over one run, every condition over one run, the whole study and its artefacts (:mod:`~colony.research.trace`);
* :mod:`~colony.research.metrics`, :mod:`~colony.research.outcomes`, :mod:`~colony.research.analysis`,
  :mod:`~colony.research.hypotheses` — rates with denominators, paired bootstrap intervals, H1–H4;
* :mod:`~colony.research.reference_gate`, :mod:`~colony.research.differential`,
  :mod:`~colony.research.invariants`, :mod:`~colony.research.formal` — verification of the gate.

The names below load their module on first use (numpy and friends stay unloaded until a study needs them).

>>> from colony.research import load_study_config
>>> load_study_config().conditions.order[:4]
('composite', 'static_trust', 'budget_only', 'always_execute')
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "DecisionContext": "colony.research.conditions",
    "Outcome": "colony.research.oracle",
    "OutcomeOracle": "colony.research.oracle",
    "ReferenceGate": "colony.research.reference_gate",
    "ReferenceInput": "colony.research.reference_gate",
    "ReferencePolicy": "colony.research.reference_gate",
    "ReferenceResult": "colony.research.reference_gate",
    "StudyConfig": "colony.research.study_config",
    "StudyOutputs": "colony.research.study",
    "Workload": "colony.research.workload",
    "analyze": "colony.research.analysis",
    "build_conditions": "colony.research.registry",
    "check_obligations": "colony.research.formal",
    "differential_test": "colony.research.differential",
    "generate_workload": "colony.research.workload",
    "kernel_invariants": "colony.research.invariants",
    "load_study_config": "colony.research.study_config",
    "parse_study_config": "colony.research.study_config",
    "policy_invariants": "colony.research.invariants",
    "read_traces": "colony.research.study",
    "register_condition": "colony.research.registry",
    "run_study": "colony.research.study",
    "write_workload": "colony.research.workload",
    "z3_available": "colony.research.formal",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'colony.research' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
