"""The public surface of colony.research is exactly its ``__all__``."""

from __future__ import annotations

import colony.research as research

EXPECTED = {
    "DecisionContext", "Outcome", "OutcomeOracle", "ReferenceGate", "ReferenceInput", "ReferencePolicy", "ReferenceResult",
    "StudyConfig", "StudyOutputs", "Workload", "analyze", "build_conditions", "check_obligations", "differential_test",
    "generate_workload", "kernel_invariants", "load_study_config", "parse_study_config", "policy_invariants", "read_traces",
    "register_condition", "run_study", "write_workload", "z3_available",
}  # fmt: skip


def test_all_is_exactly_the_public_names() -> None:
    assert set(research.__all__) == EXPECTED
    assert all(getattr(research, name) is not None for name in research.__all__)
