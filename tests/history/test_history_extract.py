"""Extraction on the fixture repository: exact records, SZZ blame, reverts, Kamei metrics, determinism."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from colony.errors import ValidationError
from colony.history.dataset import dataset_paths, read_records, verify_dataset
from colony.history.extract import extract, read_oidmap
from tests.history.conftest import DAY, T0


def by_name(extracted, fixture_repo) -> dict[str, dict]:
    rec = {r["id"]: r for r in extracted.records}
    return {name: rec[ident] for name, ident in fixture_repo.ids.items()}


def test_records_follow_commit_time_and_carry_authorship(extracted, fixture_repo):
    r = by_name(extracted, fixture_repo)
    assert [x["id"] for x in extracted.records] == [fixture_repo.ids[f"c{i}"] for i in range(1, 9)]
    assert [x["seq"] for x in extracted.records] == list(range(8))
    assert r["c2"]["kind"] == "agent" and r["c2"]["agent_id"] == "Ann (aider)" and r["c2"]["operator"] == "Ann"
    assert r["c5"]["agent_id"] == "Ann"  # 'ann' at the same address is the same person
    assert r["c3"]["kind"] == "human" and r["c3"]["time"] == T0 + 3 * DAY
    assert r["c1"]["tests"] is True and r["c3"]["tests"] is False
    assert r["c1"]["modules"] == ["pkg", "pkg.core", "tests.test_core"]


def test_szz_blames_the_inducing_line_only(extracted, fixture_repo):
    r = by_name(extracted, fixture_repo)
    ids = fixture_repo.ids
    assert r["c3"]["fix"] == {"leading": True, "message": True, "subject": True}
    assert r["c3"]["blame"] == [[ids["c2"], 1, False]]
    assert r["c3"]["countable"] == 1


def test_whitespace_and_comment_only_fix_labels_nothing(extracted, fixture_repo):
    r = by_name(extracted, fixture_repo)["c4"]
    assert r["fix"]["subject"] is True
    assert r["blame"] == [] and r["countable"] == 0


def test_fix_after_rename_follows_the_file(extracted, fixture_repo):
    r = by_name(extracted, fixture_repo)
    assert r["c7"]["files"] == [["pkg/maths.py", "pkg/core.py", "RENAME", 0, 0]]
    assert r["c8"]["blame"] == [[fixture_repo.ids["c1"], 1, True]]


def test_revert_names_the_reverted_commit(extracted, fixture_repo):
    r = by_name(extracted, fixture_repo)
    assert r["c6"]["revert"] is True and r["c6"]["reverts"] == fixture_repo.ids["c5"]
    assert r["c6"]["blame"] is None  # not a fix under any rule
    assert r["c5"]["revert"] is False and r["c5"]["reverts"] is None


def test_kamei_metrics_come_from_earlier_history(extracted, fixture_repo):
    k = by_name(extracted, fixture_repo)["c3"]["kamei"]
    assert k == {
        "NS": 1, "ND": 1, "NF": 1, "Entropy": 0.0, "LA": 1, "LD": 1, "LT": 11, "FIX": 1,
        "NDEV": 2, "AGE": 2.0, "NUC": 2, "EXP": 0, "REXP": 0.0, "SEXP": 0,
    }  # fmt: skip
    first = by_name(extracted, fixture_repo)["c1"]["kamei"]
    assert (first["NF"], first["NS"], first["LA"], first["EXP"], first["NDEV"]) == (3, 2, 11, 0, 0)
    assert first["Entropy"] == pytest.approx(
        -(6 / 11) * __import__("math").log2(6 / 11) - (5 / 11) * __import__("math").log2(5 / 11), abs=1e-6
    )
    c8 = by_name(extracted, fixture_repo)["c8"]["kamei"]
    assert (c8["NUC"], c8["NDEV"], c8["AGE"], c8["EXP"], c8["SEXP"]) == (5, 3, 40.0, 3, 3)  # history kept across the rename


def test_manifest_counts_and_verification(extracted):
    m = extracted.manifest
    assert m["counts"]["commits"] == 8 and m["counts"]["kinds"] == {"agent": 1, "human": 7}
    assert m["counts"]["fixes"] == {"leading": 3, "message": 3, "subject": 3}
    assert m["counts"]["add_only_fixes"] == 1 and m["counts"]["blamed_via_rename"] == 1
    assert m["upstream_repository"] == "local/fixture" and "B-SZZ" in m["szz_variant"]
    assert m["bundle_sha256"] is None


def test_extraction_is_byte_identical_and_bundle_equals_directory(fixture_repo, extracted, tmp_path):
    data_path, manifest_path = dataset_paths(tmp_path / "again", "fixture")
    again = extract(fixture_repo.path, name="fixture", output_dir=tmp_path / "again", upstream_repository="local/fixture")
    first_path, _ = dataset_paths(Path(extracted.manifest["file"]).parent, "fixture")
    assert again.manifest["sha256_gz"] == extracted.manifest["sha256_gz"]
    bundle = fixture_repo.bundle(tmp_path)
    oidmap = tmp_path / "fixture.oidmap"
    oidmap.write_text("".join(f"{i} {'f' * 40 if n == 'c8' else i}\n" for n, i in fixture_repo.ids.items()))
    via_bundle = extract(bundle, name="fixture", output_dir=tmp_path / "bundle", oidmap=oidmap)
    assert via_bundle.manifest["bundle_sha256"] is not None and via_bundle.manifest["head_upstream"] == "f" * 40
    stripped = [{k: v for k, v in r.items() if k != "upstream"} for r in via_bundle.records]
    assert stripped == [{k: v for k, v in r.items() if k != "upstream"} for r in extracted.records]
    assert list(read_records(data_path)) == again.records
    assert verify_dataset(manifest_path)["records"] == 8


def test_bad_input_is_refused_before_anything_is_written(tmp_path, fixture_repo):
    with pytest.raises(ValidationError, match="REPO_OR_BUNDLE"):
        extract(tmp_path / "missing", name="x", output_dir=tmp_path / "out")
    with pytest.raises(ValidationError, match="--name"):
        extract(fixture_repo.path, name="../x", output_dir=tmp_path / "out")
    bad = tmp_path / "bad.oidmap"
    bad.write_text("abc def\n")
    with pytest.raises(ValidationError, match="--oidmap: line 1"):
        extract(fixture_repo.path, name="x", output_dir=tmp_path / "out", oidmap=bad)
    assert not (tmp_path / "out").exists()
    assert read_oidmap(None) == {}


@pytest.mark.e2e
def test_cli_extract_and_verify(fixture_repo, tmp_path):
    out = tmp_path / "cli"
    cmd = [".venv/bin/python", "-m", "colony.cli", "history", "extract", str(fixture_repo.path), "--name", "fx",
           "--output", str(out), "--cache", str(tmp_path / "cache")]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "extract fx" in done.stderr and "8 commits" in done.stdout
    verify = [".venv/bin/python", "-m", "colony.cli", "history", "verify", str(out / "fx.manifest.json")]
    assert subprocess.run(verify, capture_output=True, text=True, check=False).returncode == 0
    data = out / "fx.jsonl.gz"
    data.write_bytes(data.read_bytes()[:-4] + b"\0\0\0\0")
    broken = subprocess.run(verify, capture_output=True, text=True, check=False)
    assert broken.returncode == 1 and "MISMATCH" in broken.stdout
    bad = subprocess.run(cmd[:5] + [str(tmp_path / "nope"), "--name", "fx"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "REPO_OR_BUNDLE" in bad.stderr
