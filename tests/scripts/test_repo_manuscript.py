"""The repository's own manuscript against a live snapshot: every variable resolves, no typed
numbers, every citation and claim source exists, without a full build.

Marked ``build_e2e``: the build's test gate does not list the manuscript among its inputs (prose
edits must not rerun the whole suite), and the build's variables and validate stages run these
same checks on every build; ``make test`` runs them too."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import pytest
from build_fixtures import ROOT

sys.path.insert(0, str(ROOT / "tests" / "manuscript"))
from manuscript_support import repo_config, write_gate_report

from scripts import variables
from scripts.buildconfig import BuildConfig
from scripts.collectors import load_collectors
from scripts.literals import load_allowlist, numeric_values, scan
from scripts.manuscript import load_manuscript
from scripts.render_figures import discover
from scripts.templating import make_environment, template_variables
from scripts.validate import bib_keys, check_claims

pytestmark = pytest.mark.build_e2e


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> BuildConfig:
    out = tmp_path_factory.mktemp("repo-out")
    write_gate_report(out)
    return repo_config(out)


def test_every_template_variable_resolves_in_a_live_snapshot(config: BuildConfig) -> None:
    snapshot = variables.collect(config, load_collectors())
    manifest = variables.build_manifest(config, snapshot, "0" * 64)
    assert manifest["undefined"] == [] and manifest["time_fields_used"] == []
    assert "policy.gate.weights" in manifest["used"] or any(u.startswith("policy.gate.weights") for u in manifest["used"])


def test_no_number_is_typed_into_prose_or_figure_texts(config: BuildConfig) -> None:
    manuscript = load_manuscript(config)
    allowed = load_allowlist(manuscript.allowlist)
    found = [str(lit) for name, text in manuscript.templates().items() for lit in scan(name, text, allowed)]
    for figure in discover(config):
        found += [
            str(lit)
            for field in ("caption", "alt", "description")
            for lit in scan(figure.path.name, getattr(figure.spec, field), allowed)
        ]
    assert found == []


def test_the_scan_would_catch_a_typed_policy_constant(config: BuildConfig) -> None:
    manuscript = load_manuscript(config)
    text = manuscript.sections[1].read_text(encoding="utf-8").replace("<< policy.gate.hold_threshold | num >>", "0.5", 1)
    [literal] = scan(
        "policy", text, load_allowlist(manuscript.allowlist), numeric_values({"policy": {"gate": {"hold_threshold": 0.5}}})
    )
    assert literal.matches == "policy.gate.hold_threshold"


def test_citations_and_claim_sources_exist(config: BuildConfig) -> None:
    manuscript = load_manuscript(config)
    cited = {key for text in manuscript.templates().values() for key in re.findall(r"@([A-Za-z][\w-]*\d{4}\w*)", text)}
    assert cited and cited <= bib_keys(manuscript.bibliography)
    problems = [p for p in check_claims(config, manuscript) if "'output/" not in p]
    assert problems == []


def test_claim_checks_catch_missing_evidence(tmp_path: Path, config: BuildConfig) -> None:
    manuscript_dir = tmp_path / "manuscript"
    manuscript_dir.mkdir()
    for name in ("metadata.yaml", "references.bib"):
        (manuscript_dir / name).write_text((ROOT / "manuscript" / name).read_text(encoding="utf-8"), encoding="utf-8")
    (manuscript_dir / "sections").mkdir()
    for section in (ROOT / "manuscript" / "sections").iterdir():
        (manuscript_dir / "sections" / section.name).write_text(section.read_text(encoding="utf-8"), encoding="utf-8")
    (manuscript_dir / "claims.yaml").write_text(
        "claims:\n  - {id: A, statement: s, class: analogy, status: supported, evidence: [nowhere.txt]}\n"
        "  - {id: A, statement: '', class: guess, status: maybe, evidence: ['../escape']}\n"
        "  - {id: T, statement: s, class: analogy, status: supported, evidence: [pyproject.toml], citations: [x],\n"
        "     tests: ['tests/kernel/test_kernel.py::test_no_such_test', 'tests/nowhere.py::test_x', 'tests/kernel/test_kernel.py',\n"
        "             'tests/kernel/test_kernel.py::test_paired_locality_through_propose_action']}\n",
        encoding="utf-8",
    )
    problems = "\n".join(
        check_claims(
            dataclasses.replace(config, manuscript_dir=str(manuscript_dir)),
            load_manuscript(dataclasses.replace(config, manuscript_dir=str(manuscript_dir))),
        )
    )
    for expected in (
        "'nowhere.txt' does not exist",
        "needs citations",
        "duplicate claim id A",
        "empty statement",
        "class 'guess'",
        "status 'maybe'",
        "outside the project",
        "no function 'test_no_such_test'",
        "test file 'tests/nowhere.py' does not exist",
        "is not of the form 'path::test_name'",
    ):
        assert expected in problems
    assert "test_paired_locality_through_propose_action" not in problems


def test_repo_templates_parse_and_read_the_snapshot() -> None:
    env = make_environment()
    paths = sorted((ROOT / "manuscript" / "sections").glob("*.md.j2"))
    assert paths
    used = set().union(*(template_variables(env, p.read_text(encoding="utf-8")) for p in paths))
    assert "policy.gate.execute_threshold" in used and "gates.coverage.percent" in used


def test_metadata_can_override_version_and_date(tmp_path: Path, config: BuildConfig) -> None:
    from scripts.compile import _metadata
    from scripts.errors import BuildError

    manuscript_dir = tmp_path / "manuscript"
    manuscript_dir.mkdir()
    (manuscript_dir / "s.md.j2").write_text("# S\n", encoding="utf-8")
    base = "title: T\nauthors: [{given: A, family: B}]\nlicense: MIT\nrepository: r\nabstract: a\nsections: [s.md.j2]\n"
    local = dataclasses.replace(config, manuscript_dir=str(manuscript_dir))
    snapshot = {"project": {"version": "9.9.9"}, "git": {"commit_date": "2026-11-30"}}
    (manuscript_dir / "metadata.yaml").write_text(base, encoding="utf-8")
    default = _metadata(load_manuscript(local), snapshot, "abs")
    assert "version: 9.9.9" in default and "2026-11-30" in default
    (manuscript_dir / "metadata.yaml").write_text(base + "version: 1.0-preprint\ndate: 2027-01-02\n", encoding="utf-8")
    overridden = _metadata(load_manuscript(local), snapshot, "abs")
    assert "version: 1.0-preprint" in overridden and "2027-01-02" in overridden and "2026-11-30" not in overridden
    (manuscript_dir / "metadata.yaml").write_text(base + "date: soon\n", encoding="utf-8")
    with pytest.raises(BuildError, match="YYYY-MM-DD"):
        load_manuscript(local)
