"""Change-risk priors fitted on history datasets: the labelled stream, provenance, determinism, the command."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

from colony.cli import main
from colony.config import default_policy
from colony.errors import ConfigError, ValidationError
from colony.history.config import load_history_config
from colony.history.dataset import DatasetMismatchError, dataset_paths, read_manifest
from colony.history.labels import derive_labels
from colony.history.prior import change_stream, fit_history_prior, leave_one_out_prior, prior_datasets
from colony.history.replay import ReplaySettings, replay
from colony.kernel.change import ChangeRecord
from colony.kernel.change_prior import ChangePrior, fit_prior, load_prior, write_prior
from colony.kernel.change_risk import ChangeRisk

CFG = load_history_config()


@pytest.fixture
def data_dir(extracted, extracted_dir):
    """The directory holding the extracted fixture dataset (``fixture.jsonl.gz`` and its manifest)."""
    return extracted_dir


def test_the_stream_is_the_judged_commits_in_time_order_labelled_as_the_replay_delivers_them(extracted):
    stream, counts = change_stream(extracted.records, CFG)
    settings = ReplaySettings(horizon_days=CFG.replay.horizon_days, tick_seconds=CFG.replay.tick_seconds)
    rows = replay(extracted.records, derive_labels(extracted.records, CFG.labels.rules()), settings, default_policy())
    judged = [r for r in rows if r["judged"]]
    assert [(c.seq, c.failed) for c in stream] == [(r["seq"], r["inducing"]) for r in judged]
    assert [c.time for c in stream] == sorted(c.time for c in stream)
    records = {r["seq"]: r for r in extracted.records}
    assert all(c.record == ChangeRecord.from_dict(records[c.seq]["change"]) for c in stream)
    assert counts == {"commits": 8, "judged": 7, "unmeasured": 0, "learned": 7, "failed": 2}


def test_a_commit_without_a_measured_change_is_left_out_and_counted(extracted):
    records = [dict(r) for r in extracted.records]
    records[0]["change"], records[0]["lines"] = None, []
    stream, counts = change_stream(records, CFG)
    assert records[0]["seq"] not in [c.seq for c in stream]
    assert (counts["judged"], counts["unmeasured"], counts["learned"]) == (7, 1, 6)


def test_the_prior_is_the_stream_learned_in_order_with_its_provenance(extracted, data_dir):
    prior = fit_history_prior(data_dir, ["fixture"], CFG)
    stream, counts = change_stream(extracted.records, CFG)
    model = ChangeRisk()
    for c in stream:
        model.learn(c.record, failed=c.failed)
    assert prior.state == model.state()
    p = prior.provenance
    manifest = read_manifest(dataset_paths(data_dir, "fixture")[1])
    assert p["datasets"] == [{"name": "fixture", "sha256_gz": manifest["sha256_gz"], "counts": counts}]
    assert p["labels"] == {"fix_rule": "subject", "blame_cap": 20, "escape_days": 1.0, "session_gap_hours": 2.0,
                           "follow_renames": True, "view": "all"}  # fmt: skip
    assert (p["horizon_days"], p["counts"], p["model"]) == (30.0, {"learned": 7, "failed": 2}, model.version)
    assert len(p["code_sha256"]) == 64
    assert ChangePrior.from_dict(prior.to_dict()) == prior


def test_the_same_datasets_give_the_same_bytes_and_the_file_loads(data_dir, tmp_path):
    a = write_prior(fit_history_prior(data_dir, ["fixture"], CFG), tmp_path / "a.json.gz")
    b = write_prior(fit_history_prior(data_dir, ["fixture"], CFG), tmp_path / "b.json.gz")
    assert a.read_bytes() == b.read_bytes()
    loaded = load_prior(a)
    assert loaded is not None and loaded.sha256 == json.loads(gzip.decompress(a.read_bytes()))["sha256"]


def two_copies(data_dir, tmp_path):
    """A data directory holding the fixture dataset twice, as ``one`` and ``two``."""
    data = tmp_path / "data"
    data.mkdir()
    for name in ("one", "two"):
        for src, dst in zip(dataset_paths(data_dir, "fixture"), dataset_paths(data, name), strict=True):
            shutil.copy(src, dst)
        manifest = json.loads(dst.read_text())
        dst.write_text(json.dumps({**manifest, "file": f"{name}.jsonl.gz"}))
    return data


def test_several_datasets_are_merged_in_commit_time_order(data_dir, tmp_path):
    data = two_copies(data_dir, tmp_path)  # every change is learned twice, interleaved
    both = fit_history_prior(data, ["two", "one"], CFG)
    stream, _ = change_stream(list(_records(data_dir)), CFG)
    twice = fit_prior([(c.record, c.failed) for c in stream for _ in range(2)], provenance={})
    assert both.state == twice.state
    assert [d["name"] for d in both.provenance["datasets"]] == ["one", "two"]
    assert both.provenance["counts"] == {"learned": 14, "failed": 4}


def test_the_leave_one_out_prior_is_fitted_on_the_others_once(data_dir, tmp_path):
    data = two_copies(data_dir, tmp_path)
    prior = leave_one_out_prior(data, "one", CFG)
    assert [d["name"] for d in prior.provenance["datasets"]] == ["two"]
    assert prior == fit_history_prior(data, ["two"], CFG)
    assert leave_one_out_prior(data, "one", CFG) is prior


def _records(directory):
    from colony.history.dataset import read_records

    return read_records(dataset_paths(directory, "fixture")[0])


def test_a_changed_dataset_or_one_measured_otherwise_is_refused(data_dir, tmp_path):
    data_path, manifest_path = dataset_paths(data_dir, "fixture")
    shutil.copy(manifest_path, tmp_path / manifest_path.name)
    packed = bytearray(data_path.read_bytes())
    packed[len(packed) // 2] ^= 0xFF
    (tmp_path / data_path.name).write_bytes(bytes(packed))
    with pytest.raises(DatasetMismatchError):
        fit_history_prior(tmp_path, ["fixture"], CFG)
    shutil.copy(data_path, tmp_path / data_path.name)
    manifest = json.loads(manifest_path.read_text())
    manifest["change"]["buckets"] = 1024
    (tmp_path / manifest_path.name).write_text(json.dumps(manifest))
    with pytest.raises(ValidationError, match="manifest.change.buckets"):
        fit_history_prior(tmp_path, ["fixture"], CFG)
    with pytest.raises(ValidationError, match="at least one dataset"):
        fit_history_prior(data_dir, [], CFG)


def test_prior_datasets_leave_the_evaluated_repository_out(data_dir):
    assert prior_datasets(CFG, data_dir) == ["fixture"]  # a directory without the configured datasets: all it holds
    assert prior_datasets(CFG, data_dir, ["aider", "openhands"], "openhands") == ["aider"]
    with pytest.raises(ValidationError, match="no dataset is left"):
        prior_datasets(CFG, data_dir, leave_out="fixture")
    with pytest.raises(ValidationError, match="not among"):
        prior_datasets(CFG, data_dir, leave_out="aider")


def test_the_command_writes_the_prior_and_prints_its_digest(data_dir, tmp_path, capsys):
    out = tmp_path / "prior.json.gz"
    assert main(["history", "prior", "--data", str(data_dir), "--output", str(out), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    prior = load_prior(out)
    assert prior is not None and printed["sha256"] == prior.sha256 and printed["path"] == str(out)
    assert printed["provenance"]["datasets"][0]["name"] == "fixture"
    assert out.read_bytes() == write_prior(fit_history_prior(data_dir, ["fixture"], CFG), tmp_path / "b").read_bytes()
    assert main(["history", "prior", "--data", str(data_dir), "--leave-out", "fixture", "--output", str(out)]) == 2
    assert "no dataset is left" in capsys.readouterr().err


def test_a_pinned_policy_refuses_a_prior_of_another_digest(data_dir, tmp_path):
    import dataclasses

    prior = fit_history_prior(data_dir, ["fixture"], CFG)
    path = write_prior(prior, tmp_path / "p.json.gz")
    good = dataclasses.replace(default_policy().change, prior=str(path), prior_sha256=prior.sha256)
    assert load_prior(policy=good) is not None
    with pytest.raises(ConfigError, match="policy pins"):
        load_prior(policy=dataclasses.replace(good, prior_sha256="0" * 64))


def test_the_module_examples_run():
    import doctest

    import colony.history.prior

    result = doctest.testmod(colony.history.prior)
    assert result.attempted > 0 and result.failed == 0
