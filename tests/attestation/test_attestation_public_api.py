"""The package's public surface is deliberate: ``__all__`` is exactly what it exports."""

from __future__ import annotations

import types

import colony.attestation as attestation


def test_all_lists_exactly_the_public_names() -> None:
    public = {
        name
        for name, value in vars(attestation).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType) and name != "annotations"
    }
    assert set(attestation.__all__) == public
    assert len(attestation.__all__) == len(set(attestation.__all__))


def test_every_exported_name_resolves() -> None:
    for name in attestation.__all__:
        assert getattr(attestation, name) is not None
