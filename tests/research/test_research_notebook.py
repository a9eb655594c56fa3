"""notebooks/05_research_study.ipynb under papermill: reads a study, writes its JSON and figures."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import papermill as pm
import pytest

from colony.notebooks import parameter_spec
from colony.research.seeding import sha256_file
from colony.research.study import StudyOutputs
from colony.research.tables import headline

pytestmark = pytest.mark.xdist_group("notebooks")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "05_research_study.ipynb"


def test_parameters_cell_declares_output_dir_and_help() -> None:
    spec = parameter_spec(NOTEBOOK)
    assert set(spec) == {"study_path", "run_if_missing", "output_dir"}
    assert spec["output_dir"].default == "output/notebooks" and spec["study_path"].default == "output/research/study.json"
    assert all(p.help for p in spec.values())
    nb = json.loads(NOTEBOOK.read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    assert all(not c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code")


def test_notebook_plots_a_study(small_study: StudyOutputs, tmp_path: Path) -> None:
    out = tmp_path / "nb"
    out.mkdir()
    pm.execute_notebook(
        str(NOTEBOOK), str(out / "05_research_study.ipynb"), kernel_name="python3", cwd=str(ROOT), progress_bar=False,
        parameters={"study_path": str(small_study.paths["study"]), "run_if_missing": False, "output_dir": str(out)},
    )  # fmt: skip
    data = json.loads((out / "05_research_study.json").read_text())
    assert data["notebook"] == "05_research_study"
    results = data["results"]
    assert results["study_sha256"] == sha256_file(small_study.paths["study"])
    expected = headline(small_study.results)
    assert results["hypotheses"] == expected["hypotheses"]
    assert results["conditions"]["composite"]["failure_rate"] == expected["conditions"]["composite"]["failure_rate"]
    labels = {"dispositions", "rates", "paired", "hypotheses", "calibration"}
    assert set(results["figures"]) == labels
    for label in labels:
        png = out / "figures" / f"05_research_study_{label}.png"
        assert png.read_bytes().startswith(b"\x89PNG")
    executed = nbformat.read(out / "05_research_study.ipynb", as_version=4)
    images = [o for c in executed.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(images) == len(labels)


def test_a_missing_study_fails_when_not_allowed_to_run_it(tmp_path: Path) -> None:
    with pytest.raises(pm.PapermillExecutionError, match="colony benchmark run"):
        pm.execute_notebook(
            str(NOTEBOOK), str(tmp_path / "out.ipynb"), kernel_name="python3", cwd=str(ROOT), progress_bar=False,
            parameters={"study_path": str(tmp_path / "absent.json"), "run_if_missing": False, "output_dir": str(tmp_path)},
        )  # fmt: skip
