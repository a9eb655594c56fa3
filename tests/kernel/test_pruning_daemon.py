"""PruningDaemon: tiers, protection and veto, the derived registry, and contained archiving."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from colony.config import default_policy
from colony.errors import ConflictError, NotFoundError, PathSafetyError, ValidationError
from colony.kernel.pheromone_store import PheromoneStore
from colony.kernel.pruning_daemon import PruningDaemon
from colony.models import ColonySignal, DecayRate, PruningCandidate, SignalSource, SignalType
from tests.examples import examples

POLICY = default_policy()
DAY = 86400.0
NOW = 1000 * DAY


def clock() -> float:
    return NOW


def candidate(path: str, reason: str = "never used since registration", confidence: float = 0.9) -> PruningCandidate:
    return PruningCandidate(path, 0.0, 0, None, reason, confidence)


def deposit(store: PheromoneStore, location: str, signal_type: SignalType, strength: float) -> None:
    store.deposit(ColonySignal(location, signal_type, strength, DecayRate.SLOW, SignalSource.RUNTIME))


# ---------------------------------------------------------------------------------------------- scan


def test_tiers_reasons_and_order() -> None:
    registry: dict[str, dict[str, Any]] = {
        "low": {"last_used": NOW - 40 * DAY, "call_count": 4},
        "dup_a": {"last_used": NOW, "call_count": 50, "duplicate_of": "pkg.main"},
        "never": {},
        "busy_stale": {"last_used": NOW - 40 * DAY, "call_count": 5},
        "no_calls": {"last_used": NOW - 31 * DAY, "call_count": 0},
        "recent_idle": {"last_used": NOW - 29 * DAY, "call_count": 0},
        "boundary": {"last_used": NOW - 30 * DAY, "call_count": 0},
        "dup_b": {"last_used": NOW, "call_count": 1, "duplicate_of": "pkg.other"},
    }
    daemon = PruningDaemon(clock=clock)
    found = daemon.scan(registry)
    conf = POLICY.pruning.confidence
    assert [(c.module_path, c.confidence, c.reason) for c in found] == [
        ("never", conf.never_used, "never used since registration"),
        ("dup_a", conf.duplicate, "duplicate of pkg.main"),
        ("dup_b", conf.duplicate, "duplicate of pkg.other"),
        ("no_calls", conf.no_calls_stale, "no calls; last used 31.0 days ago"),
        ("low", conf.low_usage_stale, "low usage (4 calls); last used 40.0 days ago"),
    ]
    assert daemon.last_scan_count == 5
    assert found[0].last_used == 0.0 and found[0].call_count == 0


def test_min_confidence_filters() -> None:
    strict = dataclasses.replace(POLICY, pruning=dataclasses.replace(POLICY.pruning, min_confidence=0.6))
    registry = {"low": {"last_used": NOW - 40 * DAY, "call_count": 1}, "never": {}}
    assert [c.module_path for c in PruningDaemon(strict, clock=clock).scan(registry)] == ["never"]


def test_dependency_veto_and_human_priority() -> None:
    store = PheromoneStore(POLICY.pheromone)
    veto = POLICY.pruning.dependency_veto
    deposit(store, "vetoed", SignalType.DEPENDENCY, veto)
    deposit(store, "below_veto", SignalType.DEPENDENCY, veto - 0.1)
    deposit(store, "protected", SignalType.HUMAN_PRIORITY, 0.05)
    daemon = PruningDaemon(pheromone_store=store, clock=clock)
    found = daemon.scan({"vetoed": {}, "below_veto": {}, "protected": {}, "plain": {}})
    assert [c.module_path for c in found] == ["below_veto", "plain"]


@pytest.mark.parametrize(
    ("registry", "field"),
    [
        ([("a", {})], "module_registry"),
        ({"a": 3}, "module_registry['a']"),
        ({"": {}}, "module_registry"),
        ({"a": {"call_count": -1}}, "module_registry['a'].call_count"),
        ({"a": {"call_count": True}}, "module_registry['a'].call_count"),
        ({"a": {"call_count": "3"}}, "module_registry['a'].call_count"),
        ({"a": {"last_used": float("nan")}}, "module_registry['a'].last_used"),
        ({"a": {"last_used": "yesterday"}}, "module_registry['a'].last_used"),
        ({"a": {"duplicate_of": 7}}, "module_registry['a'].duplicate_of"),
    ],
)
def test_bad_registry_entries_are_rejected_before_anything_changes(registry: Any, field: str) -> None:
    daemon = PruningDaemon(clock=clock)
    daemon.scan({"x": {}})
    with pytest.raises(ValidationError) as info:
        daemon.scan({"ok": {}, **registry} if isinstance(registry, dict) else registry)
    assert info.value.field == field
    assert daemon.last_scan_count == 1


def test_registry_from_store_takes_every_dependency_trace() -> None:
    store = PheromoneStore(POLICY.pheromone, clock=lambda: NOW - 45 * DAY)
    for i in range(10_050):
        deposit(store, f"pkg.mod{i:05d}", SignalType.DEPENDENCY, 0.5)
    deposit(store, "pkg.risky", SignalType.RISK, 1.0)
    daemon = PruningDaemon(pheromone_store=store, clock=clock)
    registry = daemon.registry_from_store()
    assert len(registry) == 10_050 and "pkg.risky" not in registry
    assert registry["pkg.mod00000"] == {"last_used": NOW - 45 * DAY, "call_count": 1, "duplicate_of": None}
    report = daemon.report()
    assert report["total_candidates"] == 10_050 == len(report["candidates"])
    assert report["generated_at"] == NOW
    assert report["candidates"][0]["reason"] == "low usage (1 calls); last used 45.0 days ago"


def test_report_of_a_fresh_field_is_empty_and_accepts_a_registry() -> None:
    daemon = PruningDaemon(pheromone_store=PheromoneStore(POLICY.pheromone), clock=clock)
    assert daemon.report() == {"candidates": [], "total_candidates": 0, "generated_at": NOW}
    assert PruningDaemon(clock=clock).report({"m": {}})["candidates"][0]["module_path"] == "m"


# ---------------------------------------------------------------------------------------------- archive


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "pkg" / "old").mkdir(parents=True)
    (project / "pkg" / "old" / "__init__.py").write_text("", encoding="utf-8")
    (project / "notes.txt").write_text("n", encoding="utf-8")
    return project


def archived(root: Path) -> Path:
    return root / POLICY.pruning.archive_dir


def test_archive_is_a_dry_run_by_default(root: Path) -> None:
    daemon = PruningDaemon(repo_root=root)
    text = daemon.archive(candidate("pkg/old"))
    assert text.startswith("[DRY RUN] PruningDaemon archive plan:\n")
    assert f"move to {archived(root).resolve() / 'old'}" in text and "confidence: 90%" in text
    assert (root / "pkg" / "old").is_dir() and not archived(root).exists()


def test_archive_moves_inside_the_root(root: Path) -> None:
    daemon = PruningDaemon(repo_root=root)
    text = daemon.archive(candidate("pkg/old"), dry_run=False)
    assert not text.startswith("[DRY RUN]")
    assert not (root / "pkg" / "old").exists()
    assert (archived(root) / "old" / "__init__.py").is_file()


def test_archive_resolves_dotted_module_names_and_absolute_paths(root: Path) -> None:
    daemon = PruningDaemon(repo_root=root)
    daemon.archive(candidate("pkg.old"), dry_run=False)
    assert (archived(root) / "old").is_dir()
    daemon.archive(candidate(str(root / "notes.txt")), dry_run=False)
    assert (archived(root) / "notes.txt").is_file()


@pytest.mark.parametrize("path", ["", ".", "..", "pkg/../..", "/", "/etc/passwd", "../outside.txt"])
@pytest.mark.parametrize("dry_run", [True, False])
def test_archive_refuses_the_root_and_anything_outside(root: Path, path: str, dry_run: bool) -> None:
    (root.parent / "outside.txt").write_text("x", encoding="utf-8")
    path = path or "."
    with pytest.raises(PathSafetyError):
        PruningDaemon(repo_root=root).archive(candidate(path), dry_run=dry_run)
    with pytest.raises(PathSafetyError):
        PruningDaemon(repo_root=root).archive(candidate(str(root)), dry_run=dry_run)
    assert (root.parent / "outside.txt").exists() and (root / "pkg").exists() and not archived(root).exists()


@pytest.mark.parametrize("path", ["docs", "docs/plans", "docs/plans/archived"])
def test_archive_refuses_the_archive_folder_and_its_ancestors(root: Path, path: str) -> None:
    archived(root).mkdir(parents=True)
    with pytest.raises(PathSafetyError):
        PruningDaemon(repo_root=root).archive(candidate(path), dry_run=False)
    assert archived(root).is_dir()


def test_archive_refuses_symlinks_leading_out(root: Path) -> None:
    outside = root.parent / "elsewhere"
    outside.mkdir()
    os.symlink(outside, root / "pkg" / "link", target_is_directory=True)
    with pytest.raises(PathSafetyError):
        PruningDaemon(repo_root=root).archive(candidate("pkg/link"), dry_run=False)
    assert (root / "pkg" / "link").is_symlink() and outside.is_dir()


def test_archive_folder_leading_out_is_refused(root: Path) -> None:
    outside = root.parent / "elsewhere"
    outside.mkdir()
    os.symlink(outside, root / "docs", target_is_directory=True)
    with pytest.raises(PathSafetyError):
        PruningDaemon(repo_root=root).archive(candidate("pkg/old"), dry_run=False)
    assert list(outside.iterdir()) == [] and (root / "pkg" / "old").is_dir()


def test_archive_missing_path_and_existing_destination(root: Path) -> None:
    daemon = PruningDaemon(repo_root=root)
    with pytest.raises(NotFoundError):
        daemon.archive(candidate("pkg/gone"), dry_run=False)
    assert "does not exist" in daemon.archive(candidate("pkg/gone"))
    (archived(root) / "old").mkdir(parents=True)
    with pytest.raises(ConflictError):
        daemon.archive(candidate("pkg/old"), dry_run=False)
    assert (root / "pkg" / "old" / "__init__.py").is_file() and not any((archived(root) / "old").iterdir())


def test_archive_without_a_root(root: Path) -> None:
    daemon = PruningDaemon()
    text = daemon.archive(candidate("pkg/old"))
    assert text.startswith("[DRY RUN]") and "no repository root is configured" in text
    with pytest.raises(PathSafetyError):
        daemon.archive(candidate(str(root / "pkg" / "old")), dry_run=False)
    assert (root / "pkg" / "old").is_dir()


def test_bad_roots_and_candidates(tmp_path: Path) -> None:
    with pytest.raises(PathSafetyError):
        PruningDaemon(repo_root="/")
    with pytest.raises(ValidationError):
        PruningDaemon(repo_root=tmp_path / "missing")
    with pytest.raises(ValidationError):
        PruningDaemon(repo_root=tmp_path).archive("pkg/old")  # type: ignore[arg-type]


@settings(max_examples=examples(120), deadline=None)
@given(
    deposits=st.lists(
        st.tuples(
            st.integers(0, 25),
            st.sampled_from([SignalType.DEPENDENCY, SignalType.DEPENDENCY, SignalType.HUMAN_PRIORITY, SignalType.RISK]),
            st.sampled_from([0.5, 1.0, 2.5]),
            st.floats(0.0, 60.0).map(lambda days: NOW - days * DAY),
        ),
        max_size=50,
    ),
    monotone=st.booleans(),
)
def test_the_derived_report_equals_a_scan_of_the_whole_derived_registry(deposits: list, monotone: bool) -> None:
    """report() reads only the stale DEPENDENCY traces; that must be exactly what scanning them all gives."""
    if monotone:
        deposits = sorted(deposits, key=lambda d: d[3])
    stamp = [0.0]
    store = PheromoneStore(clock=lambda: stamp[0])
    for i, stype, strength, when in deposits:
        stamp[0] = when
        deposit(store, f"pkg.m{i}", stype, strength)
    daemon = PruningDaemon(pheromone_store=store, clock=clock)
    full = daemon.scan(daemon.registry_from_store())
    assert daemon.report()["candidates"] == [c.to_dict() for c in full]
