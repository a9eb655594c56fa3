"""The packaged change-risk prior: re-fitted from the committed datasets it is the committed file, byte for byte.

When the datasets, the label rules, the horizon or the fitting code change, re-fit it and pin its digest:
``colony history prior --data data/history --output colony/config/change_prior.json.gz``, then copy the printed
sha256 into ``colony/config/policy.yaml``'s ``change.prior_sha256``.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import tomllib
from pathlib import Path

import pytest

from colony.config import default_policy
from colony.errors import ConfigError
from colony.history.config import load_history_config
from colony.history.dataset import dataset_paths, read_manifest
from colony.history.prior import fit_history_prior
from colony.kernel.change_prior import PACKAGED_PRIOR, load_prior, write_prior

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "history"
CFG = load_history_config()
REFIT = "colony history prior --data data/history --output colony/config/change_prior.json.gz, then pin its sha256"


def test_refitting_on_the_committed_datasets_reproduces_the_packaged_prior(tmp_path):
    prior = fit_history_prior(DATA, CFG.datasets, CFG)
    written = write_prior(prior, tmp_path / "change_prior.json.gz")
    assert written.read_bytes() == PACKAGED_PRIOR.read_bytes(), f"the packaged prior is stale: {REFIT}"


def test_the_policy_pins_the_packaged_prior_and_it_loads():
    prior = load_prior()  # the policy's own: change.prior packaged, checked against change.prior_sha256
    assert prior is not None and prior.sha256 == default_policy().change.prior_sha256
    fitted_on = prior.provenance["datasets"]
    assert [d["name"] for d in fitted_on] == sorted(CFG.datasets)
    for d in fitted_on:
        assert d["sha256_gz"] == read_manifest(dataset_paths(DATA, d["name"])[1])["sha256_gz"]
    assert prior.provenance["counts"]["learned"] == sum(d["counts"]["learned"] for d in fitted_on) > 0
    assert PACKAGED_PRIOR.stat().st_size < 1_000_000


def test_an_edited_or_another_prior_is_refused(tmp_path):
    data = json.loads(gzip.decompress(PACKAGED_PRIOR.read_bytes()))
    data["state"]["intercept"] += 1.0
    edited = tmp_path / "edited.json.gz"
    edited.write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(ConfigError, match="hashes to"):  # its stated digest no longer matches its content
        load_prior(edited)
    from colony.kernel.change import measure_edits
    from colony.kernel.change_prior import fit_prior

    change = measure_edits([{"path": "a.py", "content": "eval(x)\n"}]).record
    other = write_prior(fit_prior([(change, True)], provenance={"fitted_on": "a test"}), tmp_path / "other.json.gz")
    policy = dataclasses.replace(default_policy().change, prior=str(other))  # still pinning the packaged digest
    with pytest.raises(ConfigError, match="policy pins"):
        load_prior(policy=policy)


def test_the_packaged_prior_ships_with_the_package():
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["colony"]
    assert "config/change_prior.json.gz" in package_data
