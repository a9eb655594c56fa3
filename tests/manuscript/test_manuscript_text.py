"""The real manuscript's text: every variable resolves, no number is typed, every number follows the snapshot,
every claim points at real tests and artefacts, every citation resolves.

Marked ``build_e2e``: the manuscript is not among the test gate's inputs (a prose edit must not rerun
the whole suite), and the build's variables and validate stages check the same on every build.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from manuscript_support import ROOT, altered

from scripts import variables
from scripts.buildconfig import BuildConfig
from scripts.compile import render_manuscript
from scripts.literals import BLANKED, NUMBER, load_allowlist, numeric_values, scan
from scripts.manuscript import load_manuscript
from scripts.render_figures import discover
from scripts.templating import make_environment
from scripts.validate import bib_keys, check_claims

pytestmark = pytest.mark.build_e2e

CITATION = re.compile(r"(?<![\w@])@([a-z][\w-]*\d{4}[\w-]*)")
LABEL = re.compile(r"\{#(sec:[\w:.-]+)")


def registry_for(config: BuildConfig, snapshot: dict[str, Any]) -> dict[str, Any]:
    """The figure registry the figures stage would write, texts rendered from ``snapshot`` (no PNGs needed)."""
    env = make_environment()
    figures = []
    for figure in discover(config):
        spec = figure.spec
        texts = {n: env.from_string(getattr(spec, n)).render(snapshot).strip() for n in ("caption", "alt", "description")}
        figures.append({"id": spec.id, "file": f"figures/{spec.id}.png", "width": spec.width, **texts})
    return {"schema": 1, "count": len(figures), "figures": figures}


def rendered(config: BuildConfig, snapshot: dict[str, Any]) -> str:
    """Abstract, sections and figure texts rendered with ``snapshot``, in document order."""
    parts = render_manuscript(load_manuscript(config), snapshot, registry_for(config, snapshot))
    return "\n\n".join(parts.values())


DIGITS = re.compile(r"\d+(?:[.,]\d+)*(?:e[-+]?\d+)?")


def numbers(text: str) -> tuple[list[str | None], str]:
    """Every digit run of ``text`` outside markup, and the text with each replaced by a placeholder.

    A run the prose scan counts as a number is returned as that literal; one it does not (the 2 of
    "H2", the 5 of "trust-0.5") as None, still holding its place so both renderings align.
    """
    for pattern in BLANKED[3:]:  # the rendered text has no template syntax left; drop code, links, attributes
        text = pattern.sub(" \u2400 ", text)  # a fixed marker: what it replaces may change length
    found: list[str | None] = []
    for m in DIGITS.finditer(text):
        start = m.start() - 1 if m.start() and text[m.start() - 1] in "-+−" else m.start()
        literal = NUMBER.match(text, start) or NUMBER.match(text, m.start())
        found.append(literal.group() if literal else None)
    # a count's noun follows its number ("1 tick", "2 ticks"): the shape is the same whatever the count
    return found, re.sub(r"# (\w+?)s?\b", r"# \1", DIGITS.sub("#", text))


@pytest.mark.parametrize("which", ["complete", "degraded"])
def test_every_template_variable_resolves(which: str, request: pytest.FixtureRequest) -> None:
    config, snapshot = request.getfixturevalue(which)
    manifest = variables.build_manifest(config, snapshot, "0" * 64)
    assert manifest["undefined"] == [] and manifest["time_fields_used"] == []
    text = rendered(config, snapshot)
    missing = re.findall(r".{40}\bNone\b(?! of\b).{20}", re.sub(r"`[^`]*`", "", text))
    assert missing == [], "a missing value reached the text"
    assert "<built-in method" not in text and "<<" not in text and "<%" not in text
    if which == "degraded":
        assert "not measured" in text.lower() or "not run" in text.lower()


def test_no_number_is_typed_into_the_prose_or_the_figure_texts(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    config, snapshot = complete
    manuscript = load_manuscript(config)
    allowed = load_allowlist(manuscript.allowlist)
    known = numeric_values(snapshot)
    found = [str(lit) for name, text in manuscript.templates().items() for lit in scan(name, text, allowed, known)]
    for figure in discover(config):
        for field in ("caption", "alt", "description"):
            found += [str(lit) for lit in scan(f"{figure.path.name}#{field}", getattr(figure.spec, field), allowed, known)]
    assert found == []


def test_the_scan_catches_a_typed_number(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    config, snapshot = complete
    manuscript = load_manuscript(config)
    section = next(p for p in manuscript.sections if p.name.startswith("02_"))
    text = section.read_text(encoding="utf-8").replace("<< policy.gate.hold_threshold | num >>", "0.5", 1)
    [literal] = scan("semantics", text, load_allowlist(manuscript.allowlist), numeric_values(snapshot))
    assert literal.text == "0.5" and literal.matches is not None


def unchanged_numbers(config: BuildConfig, snapshot: dict[str, Any]) -> list[str]:
    """Numbers of the rendered document that stay the same when every snapshot value is altered."""
    allowed = load_allowlist(load_manuscript(config).allowlist)
    before, skeleton = numbers(rendered(config, snapshot))
    after, altered_skeleton = numbers(rendered(config, altered(snapshot)))
    assert len(before) > 500 and skeleton == altered_skeleton, "altering values must not change the document's shape"
    places = [m.start() for m in re.finditer("#", skeleton)]
    return [
        f"{a!r} in ...{skeleton[max(0, places[i] - 60) : places[i] + 20]!r}"
        for i, (a, b) in enumerate(zip(before, after, strict=True))
        if a is not None and a == b and a.lstrip("+") not in allowed
    ]


def test_altering_the_snapshot_changes_every_rendered_number(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    config, snapshot = complete
    unchanged = unchanged_numbers(config, snapshot)
    assert unchanged == [], "numbers that do not follow the snapshot:\n" + "\n".join(unchanged[:10])


def test_the_alteration_check_catches_a_typed_number(complete: tuple[BuildConfig, dict[str, Any]], tmp_path: Path) -> None:
    config, snapshot = complete
    copy = tmp_path / "manuscript"
    shutil.copytree(ROOT / "manuscript", copy)
    section = copy / "sections" / "05_results.md.j2"
    section.write_text(section.read_text(encoding="utf-8") + "\nThe paired score was 0.875 before.\n", encoding="utf-8")
    unchanged = unchanged_numbers(dataclasses.replace(config, manuscript_dir=str(copy)), snapshot)
    assert len(unchanged) == 1 and "'0.875'" in unchanged[0]


def _test_functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_")
    }


def test_every_claim_points_at_real_tests_artefacts_citations_and_sections(
    complete: tuple[BuildConfig, dict[str, Any]],
) -> None:
    config, _ = complete
    manuscript = load_manuscript(config)
    ledger = yaml.safe_load(manuscript.claims.read_text(encoding="utf-8"))
    labels = {m for text in manuscript.templates().values() for m in LABEL.findall(text)}
    keys = bib_keys(manuscript.bibliography)
    produced = {str(p.relative_to(config.out.root)) for p in config.out.root.rglob("*") if p.is_file()}
    problems = []
    for claim in ledger["claims"]:
        cid = claim["id"]
        for rel in claim.get("evidence") or []:
            if rel.startswith("output/"):
                artefact = rel.removeprefix("output/")
                if artefact not in produced and artefact != "figures/registry.json":
                    problems.append(f"{cid}: no stage of the build produces {rel}")
            elif not (ROOT / rel).exists():
                problems.append(f"{cid}: {rel} does not exist")
        for test in claim.get("tests") or []:
            path, _, name = test.partition("::")
            if not (ROOT / path).is_file() or name not in _test_functions(ROOT / path):
                problems.append(f"{cid}: {test} is not a test function")
        problems += [f"{cid}: citation {k} is not in references.bib" for k in claim.get("citations") or [] if k not in keys]
        problems += [f"{cid}: section {s} is not a label" for s in claim.get("sections") or [] if s not in labels]
        if claim.get("class") not in ("analogy", "external_scholarship") and not (claim.get("tests") or claim.get("evidence")):
            problems.append(f"{cid}: no support")
    assert problems == []
    assert [p for p in check_claims(config, manuscript) if "'output/" not in p] == []


def test_claims_check_rejects_a_test_that_does_not_exist(tmp_path: Path) -> None:
    fake = tmp_path / "test_fake.py"
    fake.write_text("def helper():\n    pass\n\nasync def test_real():\n    pass\n", encoding="utf-8")
    assert _test_functions(fake) == {"test_real"}


def test_every_citation_resolves_and_every_entry_is_cited(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    config, _ = complete
    manuscript = load_manuscript(config)
    cited = {key for text in manuscript.templates().values() for key in CITATION.findall(text)}
    cited -= {k for k in cited if k.startswith(("fig:", "tbl:", "eq:", "sec:"))}
    keys = bib_keys(manuscript.bibliography)
    assert cited and cited <= keys, sorted(cited - keys)
    assert keys <= cited, f"entries nobody cites: {sorted(keys - cited)}"


def test_metadata_lives_in_one_file(complete: tuple[BuildConfig, dict[str, Any]]) -> None:
    config, _ = complete
    manuscript = load_manuscript(config)
    assert manuscript.title and manuscript.authors and manuscript.keywords and manuscript.license
    listed = [p.name for p in (*manuscript.sections, *manuscript.appendix)]
    assert sorted(listed) == sorted(p.name for p in (ROOT / "manuscript" / "sections").glob("*.md.j2"))
    assert len(set(listed)) == len(listed), "a template is listed twice"
    assert manuscript.sections[-1].name == "99_references.md.j2", "the main text ends with the references"
