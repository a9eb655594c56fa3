"""The whole study: byte-for-byte determinism, pool independence, self-describing outputs, re-analysis."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from colony.config import default_policy, parse_policy
from colony.distributed import dask_client
from colony.errors import ValidationError
from colony.research.seeding import sha256_file
from colony.research.study import StudyOutputs, read_traces, reanalyze, run_study
from colony.research.study_config import load_study_config
from colony.research.trace import TRACE_FIELDS
from tests.research.conftest import small_config

pytestmark = pytest.mark.xdist_group("small_study")  # the session's small study is built on one worker only

FILES = ("study.json", "traces.jsonl", "workload.json", "workload.manifest.json")


def _bytes(directory: Path) -> dict[str, bytes]:
    return {name: (directory / name).read_bytes() for name in FILES}


@pytest.fixture(scope="module")
def pool() -> Iterator[Any]:
    """One LocalCluster of two worker processes for this module's pooled studies (what ``parallel=2`` opens).

    Starting a cluster and importing the study on its workers costs more than a small study; a
    pool that has already run a study must still give the same bytes. The default study runs on
    it too: its twenty runs share the two workers instead of queueing in the test's process.
    """
    with dask_client(workers=2) as client:
        yield client


@pytest.mark.e2e  # a Dask LocalCluster, like every test on the module's pool
def test_same_seed_gives_byte_identical_files_whatever_the_pool(small_study: StudyOutputs, pool: Any, tmp_path: Path) -> None:
    first = small_study.paths["study"].parent
    again = run_study(small_config(), output_dir=tmp_path / "again", verify=False)
    pooled = run_study(small_config(), output_dir=tmp_path / "pooled", client=pool, verify=False)
    assert _bytes(first) == _bytes(tmp_path / "again") == _bytes(tmp_path / "pooled")
    assert again.proposals == pooled.proposals == small_study.proposals


@pytest.mark.slow
@pytest.mark.e2e
def test_verified_studies_are_byte_identical_too(pool: Any, tmp_path: Path) -> None:
    cfg = small_config(runs=2, items=5, warmup_ticks=1)
    serial = run_study(cfg, output_dir=tmp_path / "serial")
    pooled = run_study(cfg, output_dir=tmp_path / "pooled", client=pool)
    assert _bytes(tmp_path / "serial") == _bytes(tmp_path / "pooled")
    v = serial.results["verification"]
    assert v["differential"]["disagreements"] == 0 and v["invariants"]["all_hold"]
    assert v["formal"]["total"] == 11 and pooled.results == serial.results


def test_different_seed_gives_a_different_workload(small_study: StudyOutputs, tmp_path: Path) -> None:
    other = run_study(small_config(seed=99), output_dir=tmp_path, verify=False)
    a = small_study.results["provenance"]["workload"]
    b = other.results["provenance"]["workload"]
    assert a["workload_digest"] != b["workload_digest"] and a["sha256"] != b["sha256"]
    assert (tmp_path / "traces.jsonl").read_bytes() != small_study.paths["traces"].read_bytes()


def test_results_describe_themselves(small_study: StudyOutputs) -> None:
    r = json.loads(small_study.paths["study"].read_text())
    assert r == small_study.results
    assert r["schema"] == "colony.research.study/1"
    assert r["parameters"] == small_config().to_dict()
    prov = r["provenance"]
    assert prov["traces"]["sha256"] == sha256_file(small_study.paths["traces"])
    assert prov["workload"]["sha256"] == sha256_file(small_study.paths["workload"])
    assert len(prov["code_sha256"]) == 64 and len(r["policy"]["sha256"]) == 64
    assert parse_policy(r["policy"]["values"]) == default_policy()
    assert set(r["conditions"]) == set(small_config().conditions.order)
    assert set(r["metric_definitions"]) >= {"failure_rate", "harm_per_item", "execution_volume", "utility_per_item"}
    assert (
        r["invariants"]["all_hold"]
        and r["invariants"]["kernels_checked"] == 3 * len(small_config().conditions.order)
        and r["invariants"]["violations"] == []
    )
    assert {"bootstrap", "warm_up", "oracle", "hold", "probe"} <= set(r["design"])
    assert r["attestation"] == {"ledgers": 3, "valid": 3, "events": r["attestation"]["events"], "conditions": ["composite"],
                                "invalid": []} and r["attestation"]["events"] > 0  # fmt: skip
    assert set(r["learned_model"]["coefficients"]) >= {"trust", "risk", "failure"}
    assert r["throughput"]["proposals_through_kernel"] == small_study.proposals == prov["traces"]["records"]
    text = small_study.paths["study"].read_text()
    assert "elapsed" not in text and "measured_at" not in text  # no wall clock in results


def test_traces_are_jsonl_with_a_header(small_study: StudyOutputs) -> None:
    lines = small_study.paths["traces"].read_text().splitlines()
    header = json.loads(lines[0])
    assert header["record"] == "header" and header["fields"] == TRACE_FIELDS
    assert header["parameters"] == small_config().to_dict()
    first = json.loads(lines[1])
    assert set(first) == set(TRACE_FIELDS) and first["phase"] == "warmup"
    assert list(first) == sorted(first)  # canonical: sorted keys
    _, records = read_traces(small_study.paths["traces"])
    assert len(records) == len(lines) - 1


def test_reanalysis_from_the_traces_alone_reproduces_the_results(small_study: StudyOutputs) -> None:
    assert reanalyze(small_study.paths["traces"]) == small_study.results["analysis"]


def test_reanalysis_rejects_foreign_files_and_policies(small_study: StudyOutputs, tmp_path: Path) -> None:
    not_traces = tmp_path / "x.jsonl"
    not_traces.write_text('{"record": "attempt"}\n')
    with pytest.raises(ValidationError) as info:
        reanalyze(not_traces)
    assert info.value.field == "traces"
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n")
    with pytest.raises(ValidationError, match="line 1"):
        read_traces(broken)
    with pytest.raises(ValidationError, match="cannot read"):
        read_traces(tmp_path / "absent.jsonl")
    data = default_policy().to_dict()
    data["gate"]["execute_threshold"] = 0.8
    with pytest.raises(ValidationError) as info:
        reanalyze(small_study.paths["traces"], policy=parse_policy(data))
    assert info.value.field == "policy"


def test_parallel_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        run_study(small_config(), output_dir=tmp_path, parallel=0)


@pytest.mark.slow
@pytest.mark.e2e
def test_the_default_study_runs_with_its_denominators(pool: Any, tmp_path: Path) -> None:
    cfg = load_study_config()
    out = run_study(cfg, output_dir=tmp_path, client=pool, verify=False)  # pooled gives the serial bytes (above)
    a = out.results["analysis"]
    n = cfg.study.runs * cfg.study.items
    assert n == 1000
    for c in cfg.conditions.order:
        assert a["per_condition"][c]["totals"]["items"] == n
        assert len(a["per_condition"][c]["per_run"]) == cfg.study.runs
    h1 = a["hypotheses"]["H1"]["result"]
    assert h1["n_pairs"] == 20 and h1["samples"] == 2000 and h1["ci_low"] <= h1["estimate"] <= h1["ci_high"]
    assert out.results["provenance"]["workload"]["measured_items"] == n
