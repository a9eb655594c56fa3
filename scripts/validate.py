"""Stage 6, validate: the rendered paper is complete, consistent and traceable.

Checks, all reported together in ``output/validate/report.json``:

* the outputs are current (no stale marker, the manifest matches the snapshot);
* no unresolved template variable, cross-reference or citation, in Markdown, HTML or PDF;
* every registered figure is included and referenced, matches its PNG, and carries alt text;
* no number is typed into prose, figure texts or threat rows unless allow-listed (:mod:`scripts.literals`);
* every claim in ``claims.yaml`` is well formed and its evidence paths exist in the project;
* no text artefact in the prose: glued sentences, booleans standing for values, "(s)" plurals, zero-width
  bounds, hyphens as minus signs, identifiers and lower-case project names (:mod:`scripts.prose`);
* every "colony prevents / detects / guarantees X" in the prose is a tested claim (:mod:`scripts.guarantees`);
* every total in ``manuscript/sums.yaml`` equals the sum of its parts in the snapshot, and the sentence that prints
  its parts (``printed``) adds up to it in the rendered paper (:mod:`scripts.sums`);
* the main text fits its page limit, and no figure prints text smaller than the minimum size or
  two texts (tick labels included) over each other.

Run alone: ``python scripts/validate.py [--root DIR] [--force]``.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections.abc import Callable, Sequence
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from typing import Any

if __package__ in (None, ""):  # run as a file: import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import yaml

from scripts.buildconfig import BuildConfig
from scripts.cache import StageCache, code_digest, write_if_changed
from scripts.compile import pdf_pages
from scripts.errors import BuildError
from scripts.guarantees import paper_guarantees
from scripts.hashing import digest_files, digest_mapping, file_sha256
from scripts.literals import load_allowlist, numeric_values, scan
from scripts.manuscript import Manuscript, load_manuscript
from scripts.prose import check_prose, prose_paragraphs
from scripts.render_figures import MIN_PRINTED_PT, discover, load_registry
from scripts.stage import StageResult, stage_main
from scripts.status import require_current
from scripts.sums import check_printed, check_sums, load_sums
from scripts.variables import load_snapshot

__all__ = ["CLAIM_CLASSES", "CLAIM_STATUSES", "bib_keys", "check_claims", "evidence_path", "run"]

CLAIM_CLASSES = frozenset(
    {"definition", "implementation_contract", "local_measurement", "hypothesis", "analogy", "external_scholarship"}
)
CLAIM_STATUSES = frozenset({"supported", "conditional", "not_run", "historical"})
NEEDS_CITATION = frozenset({"analogy", "external_scholarship"})
LEFTOVER = re.compile(r"<<|>>|<%|%>|<#|#>")
BIB_KEY = re.compile(r"^\s*@\w+\s*\{\s*([^,\s]+)\s*,", re.MULTILINE)


class _Images(HTMLParser):
    """Collect ``<img>`` attributes and visible text from the HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[dict[str, str]] = []
        self.classes: list[str] = []
        self.text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        self.classes.extend(values.get("class", "").split())
        if tag == "img":
            self.images.append(values)
        if tag in ("style", "script", "math"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script", "math") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)


def bib_keys(path: Path) -> set[str]:
    """The entry keys of a BibTeX file."""
    return set(BIB_KEY.findall(path.read_text(encoding="utf-8"))) if path.is_file() else set()


def evidence_path(config: BuildConfig, rel: str) -> Path | None:
    """Where an evidence path points (``output/...`` means the configured output directory); None if it escapes."""
    pure = PurePosixPath(rel)
    if not rel or pure.is_absolute() or ".." in pure.parts:
        return None
    if pure.parts[0] == "output":
        return config.out.root.joinpath(*pure.parts[1:])
    return config.root / pure


def check_claims(config: BuildConfig, manuscript: Manuscript) -> list[str]:
    """Problems with the claim ledger (ids, classes, statuses, evidence paths, citations)."""
    path = manuscript.claims
    if not path.is_file():
        return [f"{config.rel(path)} does not exist"]
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    claims = data.get("claims")
    if not isinstance(claims, list) or not claims:
        return [f"{path.name}: 'claims' must be a non-empty list"]
    keys = bib_keys(manuscript.bibliography)
    problems: list[str] = []
    seen: set[str] = set()
    for i, claim in enumerate(claims):
        if not isinstance(claim, dict):
            problems.append(f"{path.name}: claims[{i}] is not a mapping")
            continue
        cid = str(claim.get("id", "")).strip() or f"claims[{i}]"
        if cid in seen:
            problems.append(f"{path.name}: duplicate claim id {cid}")
        seen.add(cid)
        if not str(claim.get("statement", "")).strip():
            problems.append(f"{path.name}: {cid}: empty statement")
        if claim.get("class") not in CLAIM_CLASSES:
            problems.append(f"{path.name}: {cid}: class {claim.get('class')!r} is not one of {sorted(CLAIM_CLASSES)}")
        if claim.get("status") not in CLAIM_STATUSES:
            problems.append(f"{path.name}: {cid}: status {claim.get('status')!r} is not one of {sorted(CLAIM_STATUSES)}")
        evidence = claim.get("evidence")
        if not isinstance(evidence, list) or not evidence:
            problems.append(f"{path.name}: {cid}: needs at least one evidence path")
            evidence = []
        for rel in evidence:
            target = evidence_path(config, str(rel))
            if target is None:
                problems.append(f"{path.name}: {cid}: evidence {rel!r} is outside the project")
            elif not target.exists():
                problems.append(f"{path.name}: {cid}: evidence {rel!r} does not exist")
        citations = claim.get("citations") or []
        if claim.get("class") in NEEDS_CITATION and not citations:
            problems.append(f"{path.name}: {cid}: a {claim.get('class')} claim needs citations")
        problems.extend(
            f"{path.name}: {cid}: citation {k!r} is not in {manuscript.bibliography.name}" for k in citations if k not in keys
        )
        problems.extend(f"{path.name}: {cid}: {p}" for p in _check_test_ids(config, claim.get("tests") or []))
    return problems


def _check_test_ids(config: BuildConfig, tests: Any) -> list[str]:
    """Each ``path::name`` must name a test function (module level or in a class) in a file of the project."""
    if not isinstance(tests, list):
        return [f"'tests' must be a list of 'path::test_name', got {tests!r}"]
    problems = []
    for ref in tests:
        file_part, sep, name = str(ref).partition("::")
        target = evidence_path(config, file_part)
        if not sep or not name:
            problems.append(f"test {ref!r} is not of the form 'path::test_name'")
        elif target is None or not target.is_file():
            problems.append(f"test file {file_part!r} does not exist")
        elif name.split("::")[-1].split("[")[0] not in _test_functions(target):
            problems.append(f"test {ref!r}: no function {name!r} in {file_part}")
    return problems


def _test_functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test")}


def _evidence_state(config: BuildConfig, manuscript: Manuscript) -> dict[str, str]:
    try:
        data = yaml.safe_load(manuscript.claims.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return {}
    state = {}
    for claim in data.get("claims") or []:
        for rel in (claim.get("evidence") or []) if isinstance(claim, dict) else []:
            target = evidence_path(config, str(rel))
            if target is None or not target.exists():
                state[str(rel)] = "missing"
            else:
                state[str(rel)] = file_sha256(target) if target.is_file() else "dir"
    return state


def _check_snapshot(config: BuildConfig) -> list[str]:
    manifest_path = config.out.variable_manifest
    if not manifest_path.is_file():
        return [f"{config.rel(manifest_path)} does not exist"]
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    problems = [f"undefined variable {u['variable']} in {u['template']}" for u in manifest.get("undefined", [])]
    if manifest.get("snapshot_sha256") != file_sha256(config.out.variables):
        problems.append("the variable manifest does not belong to the current snapshot")
    return problems


def _check_rendered(config: BuildConfig) -> list[str]:
    paper = config.out.paper
    problems = []
    for name in ("paper.md", "paper.html", "paper.pdf", "compile_report.json"):
        if not (paper / name).is_file():
            problems.append(f"{config.rel(paper / name)} does not exist")
    if problems:
        return problems
    markdown = (paper / "paper.md").read_text(encoding="utf-8")
    for number, line in enumerate(markdown.splitlines(), start=1):
        if LEFTOVER.search(line):
            problems.append(f"paper.md:{number}: unresolved template syntax: {line.strip()[:80]}")
    report = json.loads((paper / "compile_report.json").read_text(encoding="utf-8"))
    problems += [f"unresolved cross-reference @{r}" for r in report.get("unresolved_references", [])]
    problems += [f"citation {k!r} not found in the bibliography" for k in report.get("missing_citations", [])]
    parser = _Images()
    parser.feed((paper / "paper.html").read_text(encoding="utf-8"))
    text = "".join(parser.text)
    if "??" in text or "xref-unresolved" in parser.classes:
        problems.append("paper.html shows an unresolved reference ('??')")
    if LEFTOVER.search(text):
        problems.append("paper.html contains unresolved template syntax")
    pdf_text = "\n".join(pdf_pages(paper / "paper.pdf"))
    if "??" in pdf_text:
        problems.append("paper.pdf shows an unresolved reference ('??')")
    if LEFTOVER.search(pdf_text):
        problems.append("paper.pdf contains unresolved template syntax")
    if not pdf_text.strip():
        problems.append("paper.pdf has no text")
    return problems


def _check_figures(config: BuildConfig) -> list[str]:
    registry = load_registry(config)
    paper = config.out.paper
    markdown = (paper / "paper.md").read_text(encoding="utf-8") if (paper / "paper.md").is_file() else ""
    parser = _Images()
    if (paper / "paper.html").is_file():
        parser.feed((paper / "paper.html").read_text(encoding="utf-8"))
    problems: list[str] = []
    alts = [img.get("alt", "") for img in parser.images]
    registered = set()
    for entry in registry["figures"]:
        fid, png = entry["id"], config.out.root / entry["file"]
        registered.add(entry["file"])
        if not png.is_file():
            problems.append(f"figure {fid}: {entry['file']} does not exist")
        elif png.stat().st_size != entry["bytes"] or file_sha256(png) != entry["sha256"]:
            problems.append(f"figure {fid}: {entry['file']} does not match its registry size/SHA-256")
        if f"{{#fig:{fid} " not in markdown and f"{{#fig:{fid}}}" not in markdown:
            problems.append(f"figure {fid} is registered but not included in the manuscript")
        if f"@fig:{fid}" not in markdown:
            problems.append(f"figure {fid} is never referenced in the text (@fig:{fid})")
        if entry["alt"] not in alts:
            problems.append(f"figure {fid}: the HTML has no image with its alt text")
        if entry["alt"].strip() == entry["caption"].strip() or len(entry["description"]) <= len(entry["alt"]):
            problems.append(f"figure {fid}: alt text must differ from the caption and be shorter than the description")
    # image syntax whose caption may hold bracketed text (one level: links, citations)
    for target in re.findall(r"!\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(([^)\s]+)", markdown):
        if target not in registered:
            problems.append(f"paper.md includes an unregistered image {target}")
    if len(parser.images) != len(registry["figures"]):
        problems.append(f"paper.html has {len(parser.images)} images, the registry {len(registry['figures'])}")
    problems += [
        f"paper.html: an image has no alt text ({img.get('src', '')[:40]})"
        for img in parser.images
        if not img.get("alt", "").strip()
    ]
    return problems


def _check_literals(config: BuildConfig, manuscript: Manuscript, snapshot: dict[str, Any]) -> list[str]:
    allowed = load_allowlist(manuscript.allowlist)
    known = numeric_values(snapshot)
    found = []
    for name, source in manuscript.templates().items():
        found += scan(name, source, allowed, known)
    for figure in discover(config):
        for field in ("caption", "alt", "description"):
            found += scan(f"{config.rel(figure.path)}#{field}", getattr(figure.spec, field), allowed, known)
    for row in snapshot.get("threats", {}).get("rows", []):  # threat rows print claims.yaml text as prose
        for field in ("name", "prevents", "not_prevented"):
            found += scan(f"claims.yaml#{row['claim']}.threat.{field}", row[field], allowed, known)
    return [str(f) for f in found]


def condition_ids(snapshot: dict[str, Any]) -> set[str]:
    """The condition identifiers of the history and synthetic studies: the prose prints their names."""
    history = snapshot.get("history", {}).get("conditions") or []
    study = snapshot.get("study", {}).get("conditions") or {}
    return {str(c) for c in [*history, *study] if "_" in str(c)}


def _check_prose(config: BuildConfig, snapshot: dict[str, Any]) -> list[str]:
    html = config.out.paper / "paper.html"
    return (
        check_prose(prose_paragraphs(html.read_text(encoding="utf-8")), condition_ids(snapshot))
        if html.is_file()
        else [f"{config.rel(html)} does not exist"]
    )


def _check_printed_sums(config: BuildConfig, snapshot: dict[str, Any]) -> list[str]:
    html = config.out.paper / "paper.html"  # a missing page is the rendered check's to report
    paragraphs = prose_paragraphs(html.read_text(encoding="utf-8")) if html.is_file() else []
    return check_printed(load_sums(config.manuscript / "sums.yaml"), snapshot, paragraphs)


def _check_guarantees(config: BuildConfig, manuscript: Manuscript) -> list[str]:
    return paper_guarantees(config.out.paper / "paper.html", manuscript.claims)


def _check_pages(config: BuildConfig, manuscript: Manuscript) -> list[str]:
    path = config.out.paper / "compile_report.json"
    if not path.is_file():
        return [f"{config.rel(path)} does not exist"]
    pages = json.loads(path.read_text(encoding="utf-8")).get("pages") or {}
    main, limit = pages.get("main_text"), manuscript.page.main_text_limit
    if main is None:
        return ["paper.pdf: no page starts the references, so the main text's length is unknown"]
    problems = []
    if main > limit:
        problems.append(
            f"paper.pdf: the main text fills {main} pages, more than the limit of {limit} (metadata.yaml page.main_text_limit)"
        )
    venue = manuscript.venue
    if venue is not None:
        vmain = (json.loads(path.read_text(encoding="utf-8")).get("venue_pages") or {}).get("main_text")
        if vmain is None:
            problems.append("venue.pdf: missing, or no page starts the references")
        elif vmain > venue.main_text_limit:
            problems.append(
                f"venue.pdf: the main text fills {vmain} pages, more than {venue.main_text_limit} (venue.main_text_limit)"
            )
    return problems


def _check_figure_fonts(config: BuildConfig) -> list[str]:
    return check_figure_fonts(load_registry(config)["figures"], venue=load_manuscript(config).venue is not None)


def check_figure_fonts(figures: list[dict[str, Any]], *, venue: bool) -> list[str]:
    """One problem per figure whose smallest text prints below :data:`MIN_PRINTED_PT` in paper.pdf, or in venue.pdf
    (at the width it prints there) when there is a venue version.

    >>> check_figure_fonts([{"id": "f", "min_font_pt": 7.0, "venue_min_font_pt": 3.7, "min_font_text": "0.5"}], venue=True)
    ["figure f: text '0.5' prints at 3.7 pt in venue.pdf, below 7 pt"]
    """
    problems = []
    for entry in figures:
        for key, where in (("min_font_pt", ""), *((("venue_min_font_pt", " in venue.pdf"),) if venue else ())):
            smallest = entry.get(key)
            if not isinstance(smallest, int | float):
                problems.append(f"figure {entry['id']}: the registry records no printed font size{where}")
            elif smallest < MIN_PRINTED_PT:
                problems.append(
                    f"figure {entry['id']}: text {entry.get('min_font_text', '')!r} prints at {smallest:.1f} pt{where}, below {MIN_PRINTED_PT:g} pt"
                )
        problems += [f"figure {entry['id']}: texts {a!r} and {b!r} overlap" for a, b in entry.get("overlapping_texts") or []]
    return problems


def _input_key(config: BuildConfig, manuscript: Manuscript) -> str:
    out = config.out
    return digest_mapping(
        {
            "outputs": digest_files(config.root, [out.paper, out.figure_registry, out.variables, out.variable_manifest]),
            "figures": digest_files(config.root, [out.figures]),
            "sources": digest_files(config.root, [config.manuscript, config.figures]),
            "evidence": _evidence_state(config, manuscript),
            "tool": code_digest("validate.py", "literals.py", "compile.py", "prose.py", "sums.py", "guarantees.py"),
        }
    )


def run(config: BuildConfig, *, force: bool = False, in_build: bool = False) -> StageResult:
    """Run every check; write the report; raise :class:`BuildError` listing all problems."""
    if not in_build:
        require_current(config, "validate")
    manuscript = load_manuscript(config)
    cache = StageCache(config)
    key = _input_key(config, manuscript)
    if not force and cache.lookup("validate", key) is not None:
        return StageResult("validate", skipped=True, summary="all checks passed (unchanged)")
    snapshot = load_snapshot(config)
    checks: list[tuple[str, Callable[[], list[str]]]] = [
        ("snapshot", lambda: _check_snapshot(config)),
        ("rendered", lambda: _check_rendered(config)),
        ("figures", lambda: _check_figures(config)),
        ("literals", lambda: _check_literals(config, manuscript, snapshot)),
        ("claims", lambda: check_claims(config, manuscript)),
        ("prose", lambda: _check_prose(config, snapshot)),
        ("sums", lambda: check_sums(load_sums(config.manuscript / "sums.yaml"), snapshot)),
        ("printed sums", lambda: _check_printed_sums(config, snapshot)),
        ("guarantees", lambda: _check_guarantees(config, manuscript)),
        ("pages", lambda: _check_pages(config, manuscript)),
        ("figure_fonts", lambda: _check_figure_fonts(config)),
    ]
    results: list[dict[str, Any]] = []
    for name, check in checks:
        found = check()
        results.append({"name": name, "passed": not found, "problems": found})
    passed = all(r["passed"] for r in results)
    report = {"schema": 1, "passed": passed, "checks": results}
    write_if_changed(config.out.validation, json.dumps(report, indent=2, sort_keys=True) + "\n")
    if not passed:
        problems = tuple(f"{r['name']}: {p}" for r in results for p in r["problems"])
        raise BuildError("validate", f"{len(problems)} problems, first: {problems[0]}", details=problems)
    cache.store("validate", key, [config.out.validation])
    return StageResult("validate", skipped=False, summary=f"{len(results)} checks passed")


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run the validation alone."""
    return stage_main("validate", run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
