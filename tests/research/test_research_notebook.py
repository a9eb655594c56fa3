"""notebooks/05_research_study.ipynb under papermill: reads a study, writes its JSON and figures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import papermill as pm
import pytest

from colony.notebooks import parameter_spec
from colony.research.adversarial_study import run_adversarial
from colony.research.seeding import canonical_json, sha256_file
from colony.research.study import StudyOutputs
from colony.research.tables import headline
from colony.research.tradeoff import run_tradeoff
from tests.research.conftest import small_config

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


@pytest.mark.e2e
def test_notebook_plots_a_study_with_every_condition_and_its_extras(small_study: StudyOutputs, tmp_path: Path) -> None:
    study = tmp_path / "study"
    study.mkdir()
    shutil.copyfile(small_study.paths["study"], study / "study.json")
    cfg = small_config().with_values({"tradeoff.runs": 2, "tradeoff.execute_threshold": [0.85], "tradeoff.cutoff": [0.2],
                                      "tradeoff.static_trust_threshold": [0.4], "tradeoff.hazard_only_ticks": [1],
                                      "adversarial.runs": 1, "adversarial.sybil_ids": [2]})  # fmt: skip
    results_same_cfg = dict(small_study.results, parameters=cfg.to_dict())
    tradeoff = run_tradeoff(cfg, study_results=results_same_cfg, built={c.name: c for c in small_study.conditions})
    (study / "tradeoff.json").write_text(canonical_json(tradeoff), encoding="utf-8")
    (study / "adversarial.json").write_text(canonical_json(run_adversarial(cfg)), encoding="utf-8")
    out = tmp_path / "nb"
    out.mkdir()
    pm.execute_notebook(
        str(NOTEBOOK), str(out / "05_research_study.ipynb"), kernel_name="python3", cwd=str(ROOT), progress_bar=False,
        parameters={"study_path": str(study / "study.json"), "run_if_missing": False, "output_dir": str(out)},
    )  # fmt: skip
    data = json.loads((out / "05_research_study.json").read_text())
    assert data["notebook"] == "05_research_study"
    results = data["results"]
    assert results["study_sha256"] == sha256_file(small_study.paths["study"])
    expected = headline(small_study.results)
    assert len(small_study.results["analysis"]["conditions"]) >= 11
    assert results["hypotheses"] == expected["hypotheses"] and set(results["conditions"]) == set(expected["conditions"])
    assert results["conditions"]["composite"]["failure_rate"] == expected["conditions"]["composite"]["failure_rate"]
    assert results["tradeoff_present"] is True and results["adversarial_present"] is True
    labels = {"dispositions", "rates", "paired", "hypotheses", "tradeoff", "calibration"}
    assert set(results["figures"]) == labels
    for label in labels:
        png = out / "figures" / f"05_research_study_{label}.png"
        assert png.read_bytes().startswith(b"\x89PNG")
    import nbformat  # here, not at import: it costs seconds of every collection

    executed = nbformat.read(out / "05_research_study.ipynb", as_version=4)
    images = [o for c in executed.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(images) == len(labels)


@pytest.mark.e2e
def test_a_missing_study_fails_when_not_allowed_to_run_it(tmp_path: Path) -> None:
    with pytest.raises(pm.PapermillExecutionError, match="colony study run"):
        pm.execute_notebook(
            str(NOTEBOOK), str(tmp_path / "out.ipynb"), kernel_name="python3", cwd=str(ROOT), progress_bar=False,
            parameters={"study_path": str(tmp_path / "absent.json"), "run_if_missing": False, "output_dir": str(tmp_path)},
        )  # fmt: skip
