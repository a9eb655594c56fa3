"""The mutation script locates its sites exactly or stops loudly (the gate's code is being optimised)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bench_mutation import MUTANTS, SITE, MutationSiteNotFound, mutate

GATE = (Path(__file__).resolve().parents[2] / SITE).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_every_mutant_applies_once_and_changes_the_gate(name: str) -> None:
    mutated = mutate(GATE, name)
    assert mutated != GATE and len(mutated.splitlines()) == len(GATE.splitlines())
    compile(mutated, SITE, "exec")  # still Python


def test_a_moved_site_fails_loudly() -> None:
    with pytest.raises(MutationSiteNotFound, match="mutation site not found: hazard_band_strict"):
        mutate(GATE.replace("hazard >= p.hazard_medium", "hazard >= self.policy.hazard_medium"), "hazard_band_strict")
    with pytest.raises(MutationSiteNotFound, match="matches 2 times"):
        mutate(GATE + "\n# hazard >= p.hazard_medium\n", "hazard_band_strict")


def test_quick_mode_declares_existing_tests_for_every_mutant() -> None:
    from benchmarks.bench_mutation import QUICK, ROOT, TESTS

    assert set(QUICK) == set(MUTANTS)
    for name, selection in QUICK.items():
        assert selection, name
        for node in selection:
            path, _, function = node.partition("::")
            assert path in TESTS, node  # quick mode runs a subset of the full mode's files
            assert f"def {function}(" in (ROOT / path).read_text(encoding="utf-8") if function else (ROOT / path).is_file()
