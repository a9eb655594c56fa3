"""Canonical JSON and digests."""

from __future__ import annotations

import hashlib
import json

import pytest

from colony.attestation.canonical import canonical_json, canonical_text, digest_json, encode_loaded
from colony.errors import ValidationError


def test_keys_sorted_compact_and_utf8() -> None:
    assert canonical_json({"b": 1, "a": {"z": [1, 2.5], "y": "é"}}) == '{"a":{"y":"é","z":[1,2.5]},"b":1}'.encode()


def test_equal_values_have_one_form_whatever_the_insertion_order() -> None:
    a = {"x": 1, "y": [True, None], "z": {"p": 1.0, "q": "s"}}
    b = {"z": {"q": "s", "p": 1.0}, "y": [True, None], "x": 1}
    assert canonical_json(a) == canonical_json(b)
    assert digest_json(a) == digest_json(b) == hashlib.sha256(canonical_json(a)).hexdigest()


def test_tuples_encode_as_lists() -> None:
    assert canonical_json({"a": (1, 2)}) == canonical_json({"a": [1, 2]})


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_numbers_are_refused_with_the_path(bad: float) -> None:
    with pytest.raises(ValidationError, match=r"proposal\.evidence\.m\[1\]"):
        canonical_json({"evidence": {"m": [1.0, bad]}}, field="proposal")


@pytest.mark.parametrize("bad", [{1: "int key"}, {"a": {None: 1}}, {"a": [{(1, 2): 3}]}])
def test_non_string_keys_are_refused(bad: dict) -> None:
    with pytest.raises(ValidationError, match="non-string key"):
        canonical_text(bad, field="payload")


@pytest.mark.parametrize("bad", [{"a": {1, 2}}, {"a": b"bytes"}, {"a": object()}])
def test_values_that_are_not_json_data_are_refused(bad: dict) -> None:
    with pytest.raises(ValidationError, match="payload"):
        canonical_json(bad, field="payload")


def test_encode_loaded_matches_the_strict_form_and_refuses_nan() -> None:
    value = json.loads('{"b":[1,2.5,"x"],"a":null}')
    assert encode_loaded(value) == canonical_json(value)
    with pytest.raises(ValueError):
        encode_loaded(json.loads('{"a": NaN}'))
