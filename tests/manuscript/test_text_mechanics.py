"""The mechanics behind the text: template line endings, printed values, prose artefacts, the appendix and the page limit."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pypandoc
import pytest
from manuscript_support import ROOT, repo_config

from scripts import validate
from scripts.buildconfig import BuildConfig
from scripts.compile import TYPST_OPTIONS, join_paper, page_counts
from scripts.errors import BuildError
from scripts.manuscript import Page, load_manuscript
from scripts.prose import check_prose, prose_paragraphs
from scripts.templating import keep_text_line_endings, make_environment

FILTER = str(ROOT / "manuscript" / "crossref.lua")


def render(source: str, **values: object) -> str:
    return make_environment().from_string(source).render(**values)


# ---------------------------------------------------------------- template whitespace and printed values


def test_a_block_tag_ending_a_line_of_text_keeps_the_line_ending() -> None:
    """Regression: ``refusing.<% if x %>`` + newline + ``This`` rendered as ``refusing.This``."""
    source = "for refusing.<% if held %>\nThis is a result against HOLD.<% endif %>\n<< scope >>\n"
    text = render(source, held=True, scope="Next sentence.")
    assert "refusing.This" not in text and "HOLD.Next" not in text
    assert " ".join(text.split()) == "for refusing. This is a result against HOLD. Next sentence."
    assert " ".join(render(source, held=False, scope="Next.").split()) == "for refusing. Next."


def test_tag_only_lines_keep_jinja_trimming_so_tables_stay_tables() -> None:
    source = "| a |\n|---|\n<% for v in values %>\n| << v >> |\n<% endfor %>\n\n: caption\n"
    assert render(source, values=[1, 2]) == "| a |\n|---|\n| 1 |\n| 2 |\n\n: caption\n"
    macro = "<% macro row(v) %>\n<% if v %>\n<< row2(v) >><% else %>\n| x |\n<% endif %>\n<% endmacro %>"
    assert keep_text_line_endings(macro) == macro  # an expression alone does not make a line prose


def test_a_boolean_printed_into_the_text_is_an_error() -> None:
    with pytest.raises(TypeError, match="boolean"):
        render("the runs were identical (<< same >>)", same=True)
    assert render("identical: << same | yesno >>", same=True) == "identical: yes"


def test_a_can_say_cannot_say_note_prints_as_a_sentence() -> None:
    note = "Can say: under this model, whether revising pays. Cannot say: whether real revisions help."
    assert render("<< n >>", n=note) == (
        "This comparison can show under this model, whether revising pays; it cannot show whether real revisions help."
    )
    assert render("<< n >>", n="Observational within runs.") == "Observational within runs."


# ---------------------------------------------------------------- prose artefacts


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("the expected utility for refusing.This is a result against HOLD.", "glued sentence"),
        ("we report it as such.Can say: nothing.", "glued sentence"),
        ("the two runs were identical (yes), all held", "boolean in prose"),
        ("the targets were met: yes and yes.", "boolean in prose"),
        ("the chain valid flag was True.", "boolean in prose"),
    ],
)
def test_each_text_artefact_is_reported(text: str, rule: str) -> None:
    problems = check_prose([text])
    assert problems and all(p.startswith(rule) for p in problems), problems


def test_clean_prose_passes() -> None:
    text = (
        "False positives are rare; colony.kernel and e.g. U.S. spelling pass. The verdict is EXECUTE. "
        "Yes, this sentence starts with yes and no rule fires on ordinary words."
    )
    assert check_prose([text]) == []


def test_prose_leaves_out_code_math_and_tables() -> None:
    html = (
        "<p>Text with <code>colony.ColonyKernel</code> and <math><mi>a.B</mi></math> inline.</p>"
        "<table><tr><td>yes</td><td>no</td></tr></table><pre>x.Y</pre><li>A list item.</li>"
        '<details class="figure-description"><summary>Description</summary><p>A described figure.</p></details>'
    )
    paragraphs = prose_paragraphs(html)
    # inline code stays as a backquoted span (the identifier rule reads it; the other rules skip it)
    assert paragraphs == ["Text with `colony.ColonyKernel` and inline.", "A list item.", "Description", "A described figure."]
    assert check_prose(paragraphs) == []


# ---------------------------------------------------------------- appendix, page geometry and the page limit


def test_page_geometry_is_checked(tmp_path: Path) -> None:
    assert Page().text_width_in == pytest.approx(6.5) and Page("a4", 1.0).text_width_in == pytest.approx(210 / 25.4 - 2)
    meta = (ROOT / "manuscript" / "metadata.yaml").read_text(encoding="utf-8")
    manuscript_dir = tmp_path / "manuscript"
    manuscript_dir.mkdir()
    (manuscript_dir / "sections").mkdir()
    for name in ("01.md.j2",):
        (manuscript_dir / "sections" / name).write_text("# A\n", encoding="utf-8")
    config = dataclasses.replace(BuildConfig.load(ROOT), root=tmp_path)
    base = meta[: meta.index("sections:")] + "sections:\n  - sections/01.md.j2\n"
    for page, message in (
        ("page: {paper: a3}", "page.paper"),
        ("page: {margin_in: 0}", "page.margin_in"),
        ("page: {main_text_limit: 0}", "page.main_text_limit"),
        ("page: {columns: 2}", "unknown keys"),
    ):
        (manuscript_dir / "metadata.yaml").write_text(base + page + "\n", encoding="utf-8")
        with pytest.raises(BuildError, match=message):
            load_manuscript(config)
    (manuscript_dir / "metadata.yaml").write_text(base + "appendix:\n  - sections/01.md.j2\n", encoding="utf-8")
    with pytest.raises(BuildError, match="both sections and appendix"):
        load_manuscript(config)


def test_the_appendix_follows_the_main_text_in_one_div() -> None:
    paper = join_paper({"a": "# Main {#sec:a}", "refs": "# References", "b": "# Extra {#sec:b}"}, ("b",))
    assert paper.index("# References") < paper.index("::: {.appendix}") < paper.index("# Extra")
    assert paper.rstrip().endswith(":::")


def test_page_counts_end_the_main_text_where_the_references_begin() -> None:
    assert page_counts(["one", "two\nReferences\n[1]", "A Appendix"]) == {"total": 3, "main_text": 2}
    assert page_counts(["see the References below", "x"]) == {"total": 2, "main_text": None}


def _pandoc(text: str, to: str) -> str:
    command = [pypandoc.get_pandoc_path(), "--from", "markdown", "--to", to, "--number-sections", "--wrap=none"]
    command += ["--lua-filter", FILTER]
    return subprocess.run(command, input=text, capture_output=True, text=True, check=True).stdout


APPENDIX_DOC = """# Intro {#sec:intro}

See @sec:apx, @sec:apx-part and @eq:e. The score is

$$ x = 1 $$ {#eq:e}

where x is one.

# References {.unnumbered}

::: {.appendix}
# Policy {#sec:apx}

## Part {#sec:apx-part}

# Tests {#sec:apx2}
:::
"""


def test_appendix_sections_are_lettered_in_html_and_typst() -> None:
    html = _pandoc(APPENDIX_DOC, "html5")
    assert '<a href="#sec:apx" class="xref">Section\u00a0A</a>' in html
    assert '<a href="#sec:apx-part" class="xref">Section\u00a0A.1</a>' in html
    assert '<span class="header-section-number">B</span> Tests' in html
    typst = _pandoc(APPENDIX_DOC, "typst")
    reset = typst.index('#set heading(numbering: "A.1")')
    assert typst.index("References") < reset < typst.index("= Policy")


def test_a_display_equation_sticks_to_the_sentence_before_it_in_typst() -> None:
    typst = _pandoc(APPENDIX_DOC, "typst")
    opening = typst.index("#block(sticky: true)[\nSee @sec:apx")
    assert opening < typst.index("$ x = 1 $") and "#block(sticky: true)[#[#set math.equation(" in typst


def test_validate_fails_when_the_main_text_exceeds_its_page_limit(tmp_path: Path) -> None:
    local = repo_config(tmp_path / "out")  # the real manuscript's limit; no artefacts needed
    limit = load_manuscript(local).page.main_text_limit
    paper = tmp_path / "out" / "paper"
    paper.mkdir(parents=True)
    manuscript = load_manuscript(local)
    venue = manuscript.venue
    assert venue is not None
    fits = {"total": 30, "main_text": venue.main_text_limit}
    (paper / "compile_report.json").write_text(json.dumps({"pages": {"total": 40, "main_text": limit + 1}, "venue_pages": fits}))
    assert validate._check_pages(local, manuscript) == [
        f"paper.pdf: the main text fills {limit + 1} pages, more than the limit of {limit} (metadata.yaml page.main_text_limit)"
    ]
    (paper / "compile_report.json").write_text(json.dumps({"pages": {"total": 40, "main_text": limit}, "venue_pages": fits}))
    assert validate._check_pages(local, manuscript) == []
    long_venue = {"total": 30, "main_text": venue.main_text_limit + 1}
    (paper / "compile_report.json").write_text(
        json.dumps({"pages": {"total": 40, "main_text": limit}, "venue_pages": long_venue})
    )
    assert validate._check_pages(local, manuscript) == [
        f"venue.pdf: the main text fills {venue.main_text_limit + 1} pages, more than {venue.main_text_limit} (venue.main_text_limit)"
    ]


def test_a_negative_number_that_wraps_to_a_line_start_keeps_its_minus_sign_in_typst() -> None:
    """Regression: pandoc wrapped the abstract so that a line began with "-0.040", escaped it as "\\-0.040"
    and Typst printed a hyphen there, against a minus sign before every other negative number."""
    text = "word " * 13 + "and -0.040 and -0.111.\n"  # at pandoc's default width the line breaks before -0.040
    run = [pypandoc.get_pandoc_path(), "--from", "markdown"]
    wrapped = subprocess.run([*run, "--to", "typst"], input=text, capture_output=True, text=True, check=True).stdout
    assert "\\-0.040" in wrapped  # the default wrapping is what broke the sign
    ours = subprocess.run([*run, *TYPST_OPTIONS], input=text, capture_output=True, text=True, check=True).stdout
    assert "\\-" not in ours and "-0.040" in ours and "-0.111" in ours
