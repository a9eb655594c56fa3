"""The manuscript's jinja environment: pandoc-safe delimiters, strict undefineds, typed filters."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from scripts.compile import render_manuscript
from scripts.errors import BuildError
from scripts.manuscript import Manuscript
from scripts.templating import make_environment, resolve_path, template_variables

SNAPSHOT = {
    "policy": {"gate": {"execute_threshold": 0.75, "weights": {"risk": 0.3}}, "decay": {"fast": 0.3, "slow": 0.02}},
    "n": 1200,
}


def render(source: str, **context: object) -> str:
    return make_environment().from_string(source).render(context or SNAPSHOT)


def test_pandoc_labels_and_attributes_pass_through() -> None:
    text = "# Intro {#sec:intro}\n\n![c](a.png){#fig:a width=50%}\n\n$$ x $$ {#eq:x}\n<# hidden #>"
    assert render(text) == "# Intro {#sec:intro}\n\n![c](a.png){#fig:a width=50%}\n\n$$ x $$ {#eq:x}\n"


def test_variables_blocks_and_filters() -> None:
    text = "<< policy.gate.execute_threshold | fmt3 >> <% for k, v in policy.decay | dictsort %><< k >>=<< v | num >> <% endfor %><< n | count >>"
    assert render(text) == "0.750 fast=0.3 slow=0.02 1,200"


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("0.875 | pct", "87.5%"),
        ("83.333 | percent", "83.3%"),
        ("-0.08 | signed", "\u22120.08"),
        ("-0.0404 | fmt3", "\u22120.040"),
        ("0.04 | signed", "+0.04"),
        ("2 | num", "2"),
        ("'missing_fields no longer counts' | code_ids", "`missing_fields` no longer counts"),
        ("1 | plural('tick')", "1 tick"),
        ("2 | plural('time')", "2 times"),
        ("3 | plural('identity', 'identities')", "3 identities"),
        ("true | yesno", "yes"),
        ("'abcdef0123456789' | digest(8)", "abcdef01"),
        ("0.5 | fixed(1)", "0.5"),
    ],
)
def test_filter_formats(expr: str, expected: str) -> None:
    assert render(f"<< {expr} >>") == expected


@pytest.mark.parametrize("expr", ["'text' | fmt3", "true | num", "1.5 | count", "'XYZ' | digest", "1 | yesno"])
def test_filters_reject_the_wrong_type(expr: str) -> None:
    with pytest.raises(TypeError):
        render(f"<< {expr} >>")


def test_undefined_variable_fails_the_render() -> None:
    with pytest.raises(jinja2.UndefinedError):
        render("<< policy.gate.nope >>")


def test_template_variables_are_dotted_paths_without_locals() -> None:
    env = make_environment()
    source = "<% set w = policy.gate.weights %><< w.risk >> << policy.gate.execute_threshold >><% for k, v in policy.decay.items() %><< k >><% endfor %><< figure('x') >>"
    assert template_variables(env, source) == {"policy.gate.weights", "policy.gate.execute_threshold", "policy.decay"}


def test_resolve_path_names_the_missing_part() -> None:
    assert resolve_path(SNAPSHOT, "policy.gate.weights.risk") == 0.3
    with pytest.raises(KeyError, match="policy.gate.missing"):
        resolve_path(SNAPSHOT, "policy.gate.missing.deeper")


def test_a_compile_error_names_the_template_and_line(tmp_path: Path) -> None:
    section = tmp_path / "s.md.j2"
    section.write_text(
        "# A {#sec:a}\n\nfine << policy.gate.execute_threshold >>\n\nbroken << policy.gate.nothing >>\n", encoding="utf-8"
    )
    manuscript = Manuscript(tmp_path, "T", "", (), (), "MIT", "https://example.org", "abstract", (section,))
    with pytest.raises(BuildError, match=r"s\.md\.j2:5: UndefinedError"):
        render_manuscript(manuscript, SNAPSHOT, {"figures": []})


def test_unknown_figure_fails_the_render(tmp_path: Path) -> None:
    section = tmp_path / "s.md.j2"
    section.write_text("<< figure('ghost') >>\n", encoding="utf-8")
    manuscript = Manuscript(tmp_path, "T", "", (), (), "MIT", "https://example.org", "abstract", (section,))
    with pytest.raises(BuildError, match="ghost"):
        render_manuscript(manuscript, SNAPSHOT, {"figures": []})
