"""The worker function, run in this process on tiny notebooks: success, a raising cell, a broken notebook."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from colony.notebooks import run_all
from colony.notebooks.runner import _execute

pytestmark = pytest.mark.xdist_group("notebooks")


def _read(path: Path) -> Any:
    import nbformat

    return nbformat.read(path, as_version=4)


def _write(path: Path, *sources: str) -> Path:
    import nbformat  # here, not at import: it costs seconds of every collection
    from nbformat.v4 import new_code_cell, new_notebook

    cells = [new_code_cell(sources[0], metadata={"tags": ["parameters"]})]
    cells += [new_code_cell(src) for src in sources[1:]]
    nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nbformat.write(nb, path)
    return path


@pytest.mark.e2e
def test_worker_runs_a_notebook_and_times_its_cells(tmp_path: Path) -> None:
    src = _write(tmp_path / "01_ok.ipynb", "x = 1", "import sys\nprint('to stderr', file=sys.stderr)\ny = x * 2\nprint(y)")
    out = tmp_path / "out" / "01_ok.ipynb"
    result = _execute("01_ok", str(src), str(out), {"x": 21}, str(tmp_path))
    assert result.ok and result.error is None
    executed = _read(out)
    assert any("42" in o.get("text", "") for c in executed.cells for o in c.get("outputs", []))
    assert result.cell_time_s > 0.0 and result.overhead_s >= 0.0
    assert result.to_dict()["parameters"] == {"x": 21}
    assert (tmp_path / "out" / "logs" / "01_ok.log").exists()


@pytest.mark.e2e
def test_worker_keeps_the_failed_notebook_with_its_error(tmp_path: Path) -> None:
    src = _write(tmp_path / "02_bad.ipynb", "limit = 1", "raise RuntimeError(f'limit {limit} exceeded')", "print('never')")
    out = tmp_path / "out" / "02_bad.ipynb"
    result = _execute("02_bad", str(src), str(out), {"limit": 5}, str(tmp_path))
    assert result.status == "failed"
    assert result.error == "RuntimeError: limit 5 exceeded"
    assert result.cell_index is not None
    executed = _read(out)
    assert any(o.get("ename") == "RuntimeError" for c in executed.cells for o in c.get("outputs", []))


def test_worker_reports_a_notebook_that_cannot_run(tmp_path: Path) -> None:
    src = tmp_path / "03_broken.ipynb"
    src.write_text("{ not json", encoding="utf-8")
    result = _execute("03_broken", str(src), str(tmp_path / "out" / "03_broken.ipynb"), {}, str(tmp_path))
    assert result.status == "failed" and result.error
    assert result.cell_time_s == 0.0


@pytest.mark.e2e
def test_run_all_over_another_directory_runs_serially_longest_first(tmp_path: Path) -> None:
    nbs = tmp_path / "nbs"
    nbs.mkdir()
    _write(nbs / "01_a.ipynb", "n = 1\noutput_dir = 'x'", "open(f'{output_dir}/a.txt', 'w').write(str(n))")
    _write(nbs / "02_b.ipynb", "n = 1", "assert n == 1")
    out = tmp_path / "out"
    out.mkdir()
    # an earlier run recorded 02_b as slow: it is scheduled first
    (out / "02_b.ipynb").write_text(json.dumps({"metadata": {"papermill": {"duration": 99.0}}}), encoding="utf-8")
    done: list[str] = []
    results = run_all(
        parameters={"n": 2},
        parallel=1,
        output_dir=out,
        notebook_dir=nbs,
        cwd=tmp_path,
        progress=lambda r, i, t: done.append(r.name),
    )
    assert [r.name for r in results] == ["01_a", "02_b"] and done == ["02_b", "01_a"]
    assert results[0].ok and (out / "a.txt").read_text() == "2"
    assert not results[1].ok and "AssertionError" in (results[1].error or "")


@pytest.mark.e2e
def test_the_batch_runs_on_the_workers_of_a_dask_scheduler(tmp_path: Path) -> None:
    """``scheduler=`` sends each notebook to that cluster's worker processes: each kernel's parent is a Dask worker."""
    import os

    from colony.distributed import dask_client

    nbs = tmp_path / "nbs"
    nbs.mkdir()
    for name in ("01_a", "02_b", "03_c"):
        _write(
            nbs / f"{name}.ipynb",
            "output_dir = 'x'",
            f"import os\nopen(f'{{output_dir}}/{name}.pid', 'w').write(str(os.getppid()))",
        )
    out = tmp_path / "out"
    seen: list[int] = []
    with dask_client(workers=2) as client:
        workers = set(client.run(os.getpid).values())
        results = run_all(output_dir=out, notebook_dir=nbs, cwd=tmp_path, scheduler=client.scheduler.address,
                          progress=lambda r, done, total: seen.append(done))  # fmt: skip
    assert [r.name for r in results] == ["01_a", "02_b", "03_c"] and all(r.ok for r in results)
    parents = {int((out / f"{name}.pid").read_text()) for name in ("01_a", "02_b", "03_c")}
    assert parents <= workers and os.getpid() not in parents
    assert sorted(seen) == [1, 2, 3]
