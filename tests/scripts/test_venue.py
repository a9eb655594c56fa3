"""The venue version's settings in metadata.yaml: moved sections must be main sections, limits positive."""

from __future__ import annotations

from pathlib import Path

import pytest
from build_fixtures import ROOT

from scripts.compile import page_counts
from scripts.errors import BuildError
from scripts.manuscript import _venue

SECTIONS = ROOT / "manuscript"


def test_the_repository_venue_moves_only_main_sections_and_keeps_ten_pages() -> None:
    import yaml

    data = yaml.safe_load((SECTIONS / "metadata.yaml").read_text(encoding="utf-8"))
    sections = [SECTIONS / p for p in data["sections"]]
    venue = _venue(SECTIONS, data, sections)
    assert venue is not None and venue.main_text_limit == 10 and set(venue.moved) <= set(sections)


def test_a_moved_appendix_section_or_a_bad_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "sections").mkdir()
    for name in ("a.md.j2", "b.md.j2"):
        (tmp_path / "sections" / name).write_text("# x\n", encoding="utf-8")
    main = [tmp_path / "sections" / "a.md.j2"]
    with pytest.raises(BuildError, match="not main sections"):
        _venue(tmp_path, {"venue": {"moved": ["sections/b.md.j2"]}}, main)
    with pytest.raises(BuildError, match="main_text_limit"):
        _venue(tmp_path, {"venue": {"main_text_limit": 0}}, main)
    assert _venue(tmp_path, {}, main) is None


def test_two_column_pages_are_counted_up_to_the_references() -> None:
    assert page_counts(["Intro", "left column\nReferences\n[1] x", "A"])["main_text"] == 2


def _venue_pdf(tmp_path: Path, venue_header: Path) -> Path:
    """A two-column document compiled as compile.py compiles venue.pdf, with one figure drawn 6.5 in wide."""
    import matplotlib.pyplot as plt
    import pypandoc
    import typst
    import yaml

    from scripts.compile import TYPST_OPTIONS

    (tmp_path / "figures").mkdir(parents=True)
    drawn, _ = plt.subplots(figsize=(6.5, 2.5))
    drawn.savefig(tmp_path / "figures" / "wide.png", dpi=200)
    plt.close(drawn)
    words = "Words of the paper in two columns. " * 150
    (tmp_path / "venue.md").write_text(
        f"# One\n\n{words}\n\n![A wide figure](figures/wide.png){{#fig:wide width=100%}}\n\n{words}\n"
    )
    data = yaml.safe_load((SECTIONS / "metadata.yaml").read_text(encoding="utf-8"))
    venue = _venue(SECTIONS, data, [SECTIONS / p for p in data["sections"]])
    assert venue is not None
    margin = f"{venue.margin_in:g}in"
    meta = {"title": "t", "papersize": data["page"]["paper"], "margin": {"x": margin, "y": margin}}
    (tmp_path / "venue.yaml").write_text(yaml.safe_dump(meta), encoding="utf-8")
    args = [*TYPST_OPTIONS, "--standalone", "--metadata-file", "venue.yaml", "-V", "columns=2", "-o", "venue.typ",
            "--include-in-header", str(SECTIONS / "header.typ"), "--include-in-header", str(venue_header)]  # fmt: skip
    pypandoc.convert_file(str(tmp_path / "venue.md"), "typst", format="markdown", extra_args=args, cworkdir=str(tmp_path))
    pdf = tmp_path / "venue.pdf"
    pdf.write_bytes(typst.compile(str(tmp_path / "venue.typ"), root=str(tmp_path)))
    return pdf


def _printed_width_in(pdf: Path) -> float:
    """The printed width of the PDF's one image: its pixels over its resolution on the page (pdfimages -list)."""
    import subprocess

    rows = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True).stdout.splitlines()
    image = next(r.split() for r in rows[2:] if r.split()[2] == "image")
    return int(image[3]) / int(image[12])  # width in pixels / x-ppi


def test_a_venue_figure_prints_over_both_columns_at_the_width_the_font_check_uses(tmp_path: Path) -> None:
    import yaml

    from scripts.manuscript import PAPERS, Page

    data = yaml.safe_load((SECTIONS / "metadata.yaml").read_text(encoding="utf-8"))
    venue = _venue(SECTIONS, data, [SECTIONS / p for p in data["sections"]])
    assert venue is not None
    page = Page(paper=data["page"]["paper"], margin_in=data["page"]["margin_in"])
    expected = venue.figure_width_in(page)
    printed = _printed_width_in(_venue_pdf(tmp_path / "repo", SECTIONS / "venue.typ"))
    assert abs(printed - expected) < 0.02 * expected, (printed, expected)
    assert printed >= page.text_width_in  # so text drawn at 7 pt prints at 7 pt or larger
    # the old rule (a figure in one column) printed it at about 3.5 in: 7 pt text at about 3.7 pt
    old = tmp_path / "venue_column.typ"
    old.write_text((SECTIONS / "venue.typ").read_text(encoding="utf-8").replace(', scope: "parent"', ""), encoding="utf-8")
    column = _printed_width_in(_venue_pdf(tmp_path / "old", old))
    assert column < (PAPERS[page.paper] - 2 * venue.margin_in) / 2


def test_the_font_check_reads_the_venue_width_when_there_is_a_venue() -> None:
    from scripts.validate import check_figure_fonts

    legible = {"id": "f", "min_font_pt": 7.2, "venue_min_font_pt": 7.9, "min_font_text": "0.5"}
    assert check_figure_fonts([legible], venue=True) == []
    shrunk = {**legible, "venue_min_font_pt": 3.7}
    assert check_figure_fonts([shrunk], venue=True) == ["figure f: text '0.5' prints at 3.7 pt in venue.pdf, below 7 pt"]
    assert check_figure_fonts([shrunk], venue=False) == []
    unmeasured = {**legible, "venue_min_font_pt": None}
    assert check_figure_fonts([unmeasured], venue=True) == ["figure f: the registry records no printed font size in venue.pdf"]


DOC = '#set document(title: "t")\n= A heading\n\nSome words.\n'  # PDF/UA-1 needs a title


def _has_tag_tree(pdf: bytes) -> bool:
    return b"/StructTreeRoot" in pdf


def test_a_pdf_is_tagged_and_a_broken_source_fails_the_stage_without_falling_back(tmp_path: Path) -> None:
    from scripts.compile import CompileReport, typst_pdf

    (tmp_path / "doc.typ").write_text(DOC, encoding="utf-8")
    report = CompileReport()
    typst_pdf(tmp_path, tmp_path, "doc", 0, report)
    assert report.untagged == {} and _has_tag_tree((tmp_path / "doc.pdf").read_bytes())
    (tmp_path / "bad.typ").write_text("#let x = (\n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"could not compile bad\.typ"):
        typst_pdf(tmp_path, tmp_path, "bad", 0, report)
    assert report.untagged == {} and not (tmp_path / "bad.pdf").exists()


def test_typsts_tag_tree_error_gives_an_untagged_pdf_that_the_report_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """typst/typst#8487: a positional internal error in Typst's tag tree; only it falls back, and visibly."""
    import typst

    from scripts.compile import CompileReport, typst_pdf

    real = typst.compile_with_warnings
    calls: list[bool] = []

    def tag_tree_fails(*args: object, pdf_tags: bool = True, **kwargs: object) -> object:
        calls.append(pdf_tags)
        if pdf_tags:
            raise RuntimeError("internal error: parent group (occurred at crates/typst-pdf/src/tags/tree/build.rs:202:14)")
        return real(*args, pdf_tags=pdf_tags, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(typst, "compile_with_warnings", tag_tree_fails)
    (tmp_path / "venue.typ").write_text(DOC, encoding="utf-8")
    report = CompileReport()
    typst_pdf(tmp_path, tmp_path, "venue", 0, report)
    assert calls == [True, False]
    assert list(report.untagged) == ["venue.pdf"] and "parent group" in report.untagged["venue.pdf"]
    assert "not PDF/UA-1" in report.untagged["venue.pdf"]
    pdf = (tmp_path / "venue.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and not _has_tag_tree(pdf)

    def other_internal_error(*args: object, **kwargs: object) -> object:
        raise RuntimeError("internal error: something else")

    monkeypatch.setattr(typst, "compile_with_warnings", other_internal_error)
    with pytest.raises(BuildError, match="something else"):
        typst_pdf(tmp_path, tmp_path, "venue", 0, CompileReport())
