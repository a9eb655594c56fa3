"""Our Lua cross-reference filter through the bundled pandoc: numbering, links, Typst refs, alt text."""

from __future__ import annotations

import subprocess

import pypandoc
from build_fixtures import ROOT

FILTER = str(ROOT / "manuscript" / "crossref.lua")
DOC = """# Intro {#sec:intro}

See @fig:b, [@tbl:t], @eq:e and @sec:intro.

![First](a.png){#fig:a alt="alt a"}

![Second](b.png){#fig:b alt="alt b" width=50%}

$$ x = 1 $$ {#eq:e}

| a |
|---|
| 1 |

: A table {#tbl:t}
"""


def pandoc(text: str, to: str) -> subprocess.CompletedProcess[str]:
    command = [pypandoc.get_pandoc_path(), "--from", "markdown", "--to", to, "--lua-filter", FILTER, "--wrap=none"]
    return subprocess.run(command, input=text, capture_output=True, text=True, check=True)


def test_html_numbers_and_links_every_kind() -> None:
    html = pandoc(DOC, "html5").stdout
    for target, label in (
        ("fig:b", "Figure\u00a02"),
        ("tbl:t", "Table\u00a01"),
        ("eq:e", "Equation\u00a01"),
        ("sec:intro", "Section\u00a01"),
    ):
        assert f'<a href="#{target}" class="xref">{label}</a>' in html
    assert "<strong>Figure 1:</strong> First" in html and "<strong>Figure 2:</strong> Second" in html
    assert "<strong>Table 1:</strong> A table" in html
    assert '<span id="eq:e"' in html and "(1)" in html


def test_typst_uses_native_refs_and_carries_alt_text() -> None:
    typst = pandoc(DOC, "typst").stdout
    assert "@fig:b" in typst and "@tbl:t" in typst and "@eq:e" in typst and "@sec:intro" in typst
    assert 'image("/b.png", width: 50%, alt: "alt b")' in typst
    assert '#set math.equation(alt: " x = 1 ", numbering: "(1)")' in typst and "<eq:e>" in typst


def test_unresolved_reference_is_reported_and_marked() -> None:
    proc = pandoc("See @fig:missing.\n", "html5")
    assert "crossref: unresolved reference @fig:missing" in proc.stderr
    assert 'class="xref-unresolved"' in proc.stdout and "??" in proc.stdout


def test_plain_citations_are_left_to_citeproc() -> None:
    proc = pandoc("As @smith2020 said [@doe2021; @fig:x].\n\n![X](x.png){#fig:x}\n", "native")
    assert 'citationId = "smith2020"' in proc.stdout and 'citationId = "doe2021"' in proc.stdout
    assert 'citationId = "fig:x"' not in proc.stdout
