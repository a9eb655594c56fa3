"""``colony new``: scaffolding with name validation, no overwrite, and files the build accepts."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from colony.notebooks.parameters import parameter_spec
from tests.cli.conftest import Runner, write


def _digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def test_new_experiment_creates_notebook_figure_and_wired_section(colony: Runner, tiny: Path) -> None:
    result = colony("new", "probe-run", "--description", "Whether the probe converges.", "--json", "--project", tiny)
    out = result.json
    assert result.code == 0 and out["template_used"] == "experiment"
    assert out["files_created"] == [
        "notebooks/01_probe_run.ipynb",
        "figures/probe_run.py",
        "manuscript/sections/03_probe_run.md.j2",
    ]
    assert out["files_modified"] == ["manuscript/metadata.yaml"]
    sections = yaml.safe_load((tiny / "manuscript" / "metadata.yaml").read_text(encoding="utf-8"))["sections"]
    assert sections[-1] == "sections/03_probe_run.md.j2"
    section = (tiny / "manuscript" / "sections" / "03_probe_run.md.j2").read_text(encoding="utf-8")
    assert '<< figure("probe_run") >>' in section and "@fig:probe_run" in section and "Whether the probe converges." in section
    spec = parameter_spec(tiny / "notebooks" / "01_probe_run.ipynb")
    assert {"points", "scale", "output_dir"} <= set(spec) and spec["points"].kind is int
    assert any("after the references" in s for s in out["next_steps"])  # the fixture's refs block is in 02_results


def test_figure_reads_notebook_results_when_the_build_runs_notebooks(colony: Runner, tiny: Path) -> None:
    write(tiny / "tinypkg" / "notebooks.py", '"""Notebook runner stand-in: its presence is what the build checks."""\n')
    colony("new", "withnb", "--project", tiny)
    assert 'RESULTS = "notebooks.results.01_withnb.results"' in (tiny / "figures" / "withnb.py").read_text(encoding="utf-8")
    colony("new", "plain", "--template", "figure", "--project", tiny)
    assert 'TESTS = "gates.tests"' in (tiny / "figures" / "plain.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["", "1abc", "-x", "a b", "a/b", "../up", "a.b", "x" * 33, "é", "__init__", "style"])
def test_bad_names_are_refused_and_change_nothing(colony: Runner, tiny: Path, name: str) -> None:
    before = _digest(tiny)
    result = colony("new", "--json", "--project", tiny, "--", name)
    assert result.code == 2 and result.json["error"].startswith("Project creation failed: name")
    assert _digest(tiny) == before


def test_existing_names_are_never_overwritten(colony: Runner, tiny: Path) -> None:
    assert colony("new", "again", "--project", tiny).code == 0
    (tiny / "figures" / "again.py").write_text("# edited by hand\n", encoding="utf-8")
    before = _digest(tiny)
    for name in ("again", "Again", "decay"):  # same slug, and a clash with an existing figure id
        result = colony("new", name, "--json", "--project", tiny)
        assert result.code == 2 and "already exists" in result.json["error"], name
    assert _digest(tiny) == before


def test_bad_template_description_and_unwirable_metadata(colony: Runner, tiny: Path) -> None:
    before = _digest(tiny)
    assert "unknown template" in colony("new", "x1", "--template", "web", "--json", "--project", tiny).json["error"]
    assert (
        "must not type numbers"
        in colony("new", "x2", "--description", "Runs 3 times.", "--json", "--project", tiny).json["error"]
    )
    assert "template" in colony("new", "x3", "--description", "uses << x >>", "--json", "--project", tiny).json["error"]
    assert _digest(tiny) == before
    meta = tiny / "manuscript" / "metadata.yaml"
    text = meta.read_text(encoding="utf-8")
    meta.write_text(
        text.split("sections:")[0] + "sections: [sections/01_intro.md.j2, sections/02_results.md.j2]\n", encoding="utf-8"
    )
    flow = _digest(tiny)
    result = colony("new", "x4", "--json", "--project", tiny)
    assert result.code == 2 and "block-style" in result.json["error"]
    assert _digest(tiny) == flow  # nothing half-created


def test_generated_figure_is_lint_and_format_clean_for_the_longest_name(colony: Runner, tiny: Path) -> None:
    name = "a" * 32
    assert colony("new", name, "--template", "figure", "--project", tiny).code == 0
    figure = tiny / "figures" / f"{name}.py"
    assert max(len(line) for line in figure.read_text(encoding="utf-8").splitlines()) <= 88
    ruff = [sys.executable, "-m", "ruff"]
    opts = ["--isolated", "--line-length", "88"]
    check = subprocess.run([*ruff, "check", *opts, "--select", "E,F,W,I,B,UP,SIM", str(figure)], capture_output=True, text=True)
    fmt = subprocess.run([*ruff, "format", *opts, "--check", str(figure)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout
    assert fmt.returncode == 0, fmt.stdout


def test_a_metadata_file_linked_out_of_the_project_is_refused(colony: Runner, tiny: Path, tmp_path: Path) -> None:
    # regression (issue 18, item 5): the section was appended to the file the link pointed at, outside the project
    meta = tiny / "manuscript" / "metadata.yaml"
    outside = tmp_path / "elsewhere" / "metadata.yaml"
    outside.parent.mkdir()
    outside.write_text(meta.read_text(encoding="utf-8"), encoding="utf-8")
    meta.unlink()
    meta.symlink_to(outside)
    before, digest = outside.read_text(encoding="utf-8"), _digest(tiny)
    result = colony("new", "escape", "--json", "--project", tiny)
    assert result.code == 2 and "leads out of the project through a symlink" in result.json["error"]
    assert outside.read_text(encoding="utf-8") == before and _digest(tiny) == digest


def test_nothing_is_scaffolded_into_a_hidden_directory(colony: Runner, tiny: Path) -> None:
    (tiny / ".git").mkdir(exist_ok=True)
    (tiny / ".git" / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\n', encoding="utf-8")
    digest = _digest(tiny)
    result = colony("new", "sneaky", "--template", "notebook", "--path", ".git", "--json", "--project", tiny)
    assert result.code == 2 and "hidden path ('.git')" in result.json["error"]
    assert not any((tiny / ".git").rglob("*sneaky*")) and _digest(tiny) == digest
