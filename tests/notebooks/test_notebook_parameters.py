"""Parameter validation happens before any kernel starts: unknown names and wrong types are clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from colony.cli import main as colony_main
from colony.errors import ValidationError
from colony.notebooks import discover_notebooks, parameter_spec, parse_assignment, plan_parameters, run_all, validate_parameters
from colony.notebooks.parameters import coerce_value, parameter_spec_from_source

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ("01_paired_locality", "02_decay", "03_trust", "04_gate_landscape")


def test_repository_notebooks_declare_tagged_parameters_and_have_no_outputs() -> None:
    found = discover_notebooks()
    assert set(NOTEBOOKS) <= set(found)
    for name, path in found.items():
        spec = parameter_spec(path)
        assert "output_dir" in spec and spec["output_dir"].default == "output/notebooks"
        nb = json.loads(path.read_text(encoding="utf-8"))
        assert nb["nbformat"] == 4 and nb["metadata"]["kernelspec"]["name"] == "python3"
        assert all(not c.get("outputs") and c.get("execution_count") is None for c in nb["cells"] if c["cell_type"] == "code")
        assert all(p.help for p in spec.values()), name


def test_notebooks_import_from_colony_and_type_no_policy_numbers() -> None:
    for name in NOTEBOOKS:
        path = discover_notebooks()[name]
        nb = json.loads(path.read_text(encoding="utf-8"))
        code = "\n".join(
            "".join(c["source"])
            for c in nb["cells"]
            if c["cell_type"] == "code" and "parameters" not in c["metadata"].get("tags", [])
        )
        assert "from colony" in code
        for constant in ("0.75", "0.875", "0.725", "0.3,", "0.35", "6.0", "3.0", "0.04"):
            assert constant not in code, (path.name, constant)


def test_types_come_from_the_literals() -> None:
    spec = parameter_spec(discover_notebooks()["02_decay"])
    assert {k: p.kind for k, p in spec.items()} == {
        "strengths": list,
        "decay_classes": list,
        "ticks": int,
        "show_explorer": bool,
        "output_dir": str,
    }
    assert validate_parameters("02_decay", {"strengths": [1, 2.5], "ticks": 3}) == {"strengths": [1.0, 2.5], "ticks": 3}
    assert validate_parameters("decay", {"show_explorer": False}) == {"show_explorer": False}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"bogus": 1}, "02_decay.bogus"),
        ({"ticks": 2.5}, "02_decay.ticks"),
        ({"ticks": True}, "02_decay.ticks"),
        ({"ticks": "12"}, "02_decay.ticks"),
        ({"strengths": [1.0, "x"]}, "02_decay.strengths[1]"),
        ({"strengths": 1.0}, "02_decay.strengths"),
        ({"show_explorer": 1}, "02_decay.show_explorer"),
        ({"strengths": [float("nan")]}, "02_decay.strengths"),
    ],
)
def test_bad_values_name_the_notebook_and_key(params: dict, field: str) -> None:
    with pytest.raises(ValidationError) as err:
        validate_parameters(discover_notebooks()["02_decay"], params)
    assert err.value.field == field


def test_plan_applies_shared_keys_to_declaring_notebooks_and_scoped_keys_to_one() -> None:
    nbs = discover_notebooks()
    plan = plan_parameters(nbs, {"show_explorer": False, "01_paired_locality": {"agent_trust": 0.7}, "trust": {"feedback": []}})
    assert plan["02_decay"] == {"show_explorer": False} and plan["04_gate_landscape"] == {"show_explorer": False}
    assert plan["01_paired_locality"] == {"agent_trust": 0.7}
    assert plan["03_trust"] == {"feedback": []}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"no_such_key": 1}, "no_such_key"),
        ({"output_dir": "/tmp/x"}, "output_dir"),
        ({"02_decay": {"output_dir": "/tmp/x"}}, "02_decay.output_dir"),
        ({"03_trust": {"agent_trust": 0.5}}, "03_trust.agent_trust"),
        ({"agent_trust": "high"}, "01_paired_locality.agent_trust"),
        ({"99_missing": {"x": 1}}, "99_missing"),
    ],
)
def test_run_all_rejects_bad_parameters_before_creating_anything(tmp_path: Path, params: dict, field: str) -> None:
    out = tmp_path / "never"
    with pytest.raises(ValidationError) as err:
        run_all(parameters=params, output_dir=out)
    assert err.value.field == field
    assert not out.exists()


def test_run_all_rejects_unknown_names_and_bad_parallelism(tmp_path: Path) -> None:
    with pytest.raises(ValidationError) as err:
        run_all(names=["99_nope"], output_dir=tmp_path / "x")
    assert err.value.field == "names"
    with pytest.raises(ValidationError) as err:
        run_all(parallel=0, output_dir=tmp_path / "x")
    assert err.value.field == "parallel"


def test_parse_assignment_reads_literals_and_falls_back_to_text() -> None:
    assert parse_assignment("agent_trust=0.7") == (None, "agent_trust", 0.7)
    assert parse_assignment("02_decay.strengths=[1, 2]") == ("02_decay", "strengths", [1, 2])
    assert parse_assignment("role=dispatcher") == (None, "role", "dispatcher")
    assert parse_assignment("role='guard_ant'") == (None, "role", "guard_ant")
    for bad in ("novalue", "=3", "bad-name=1"):
        with pytest.raises(ValidationError):
            parse_assignment(bad)


def test_parameters_cell_must_be_literal_assignments() -> None:
    assert parameter_spec_from_source("x = None\ny: int = 3  # why")["y"].help == "why"
    spec = parameter_spec_from_source("x = None")
    assert coerce_value("nb", spec["x"], {"any": [1]}) == {"any": [1]}
    for src in ("x = f(1)", "import os", "x = y = 1", "x +=", "a.b = 1"):
        with pytest.raises(ValidationError):
            parameter_spec_from_source(src)


@pytest.mark.e2e
def test_cli_bad_parameter_fails_fast_with_a_clear_message(tmp_path: Path) -> None:
    out = tmp_path / "never"
    proc = subprocess.run(
        [sys.executable, "-m", "colony.notebooks", "run", "-p", "ticks=lots", "--output-dir", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "02_decay.ticks: expected int, got str 'lots'" in proc.stderr
    assert not out.exists()


def test_colony_notebooks_list_and_errors_through_the_main_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert colony_main(["notebooks", "list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["01_paired_locality"]["agent_trust"] == {
        "default": 0.5,
        "type": "float",
        "help": "calibrated trust of the proposing agent (must earn a non-SANDBOX role)",
    }
    assert colony_main(["notebooks", "run", "-p", "nope=1", "--output-dir", str(tmp_path / "x")]) == 2
    assert "nope" in capsys.readouterr().err
    assert colony_main(["notebooks"]) == 2
