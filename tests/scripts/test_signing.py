"""Signing keys: environment, key file created 0600 on first use, refusals."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from build_fixtures import TEST_KEY

from scripts.errors import BuildError
from scripts.signing import ENV_VAR, fingerprint, load_signing_key, public_hex, sign, signature_valid


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path


def test_key_file_is_created_once_with_mode_0600(isolated_home: Path) -> None:
    key, source = load_signing_key()
    path = isolated_home / "config" / "colony" / "bundle_ed25519.key"
    assert source == str(path) and stat.S_IMODE(path.stat().st_mode) == 0o600
    again, _ = load_signing_key()
    assert public_hex(again) == public_hex(key)


def test_environment_key_wins_and_is_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, TEST_KEY)
    key, source = load_signing_key()
    assert source == f"${ENV_VAR}" and len(public_hex(key)) == 64
    monkeypatch.setenv(ENV_VAR, "not-hex")
    with pytest.raises(BuildError, match="64 hex characters"):
        load_signing_key()


def test_a_key_inside_the_project_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="inside"):
        load_signing_key(forbidden=(tmp_path,), key_path=tmp_path / "keys" / "k.key")
    assert not (tmp_path / "keys").exists()


def test_a_readable_key_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "k.key"
    path.write_text(TEST_KEY + "\n", encoding="ascii")
    path.chmod(0o644)
    with pytest.raises(BuildError, match="readable by others"):
        load_signing_key(key_path=path)


def test_signatures_verify_only_with_the_right_key_and_data() -> None:
    key, _ = load_signing_key()
    signature = sign(key, b"manifest")
    assert signature_valid(public_hex(key), b"manifest", signature)
    assert not signature_valid(public_hex(key), b"manifesT", signature)
    assert not signature_valid("00" * 32, b"manifest", signature)
    assert not signature_valid(public_hex(key), b"manifest", "zz")
    assert len(fingerprint(public_hex(key))) == 16
