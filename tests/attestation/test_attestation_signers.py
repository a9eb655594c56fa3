"""Signers: HMAC-SHA256 and Ed25519 behind one interface, and keys from configuration."""

from __future__ import annotations

import pytest

from colony.attestation.signers import (
    Ed25519Signer,
    Ed25519Verifier,
    HMACSigner,
    Signer,
    ephemeral_signer,
    parse_key_text,
    signer_from_config,
    signer_from_env,
)
from colony.errors import AttestationError, ConfigError, ValidationError


def test_hmac_signs_and_verifies_and_rejects_changed_data() -> None:
    s = HMACSigner(b"0123456789abcdef", key_id="k1")
    sig = s.sign(b"data")
    assert sig["algorithm"] == "hmac-sha256" and sig["key_id"] == "k1" and len(sig["value"]) == 64
    assert s.verify(b"data", sig)
    assert not s.verify(b"datA", sig)
    assert isinstance(s, Signer)


def test_hmac_key_shorter_than_16_bytes_is_refused() -> None:
    with pytest.raises(ValidationError, match="hmac_key") as info:
        HMACSigner(b"fifteen bytes!!")
    assert info.value.field == "hmac_key"
    assert HMACSigner("sixteen chars!!!").verify(b"x", HMACSigner(b"sixteen chars!!!").sign(b"x"))


def test_hmac_verify_checks_key_algorithm_label_and_value_shape() -> None:
    s = HMACSigner(b"0123456789abcdef", key_id="k1")
    sig = s.sign(b"data")
    assert not HMACSigner(b"fedcba9876543210", key_id="k1").verify(b"data", sig)
    assert not HMACSigner(b"0123456789abcdef", key_id="k2").verify(b"data", sig)
    assert not s.verify(b"data", {**sig, "algorithm": "ed25519"})
    assert not s.verify(b"data", {**sig, "value": 12})
    assert not s.verify(b"data", {**sig, "value": sig["value"][:-1] + ("0" if sig["value"][-1] != "0" else "1")})
    assert not s.verify(b"data", "not a dict")  # type: ignore[arg-type]


def test_empty_key_id_is_refused() -> None:
    with pytest.raises(ValidationError, match="key_id"):
        HMACSigner(b"0123456789abcdef", key_id=" ")


def test_repr_never_shows_the_secret() -> None:
    assert "0123456789abcdef" not in repr(HMACSigner(b"0123456789abcdef"))


def test_ed25519_public_key_verifies_without_the_private_key() -> None:
    signer = Ed25519Signer.generate(key_id="ed")
    sig = signer.sign(b"payload")
    verifier = Ed25519Verifier(signer.public_key_bytes(), key_id="ed")
    assert sig["public_key"] == signer.public_key_bytes().hex()
    assert verifier.verify(b"payload", sig)
    assert not verifier.verify(b"payload!", sig)
    other = Ed25519Signer.generate(key_id="ed")
    assert not verifier.verify(b"payload", other.sign(b"payload"))
    assert not verifier.verify(b"payload", {**sig, "value": "zz"})
    assert not Ed25519Verifier(signer.public_key_bytes(), key_id="other").verify(b"payload", sig)


def test_ed25519_verifier_cannot_sign() -> None:
    verifier = Ed25519Signer.generate().verifier()
    with pytest.raises(AttestationError, match="verify-only"):
        verifier.sign(b"x")


def test_ed25519_private_key_round_trips() -> None:
    s = Ed25519Signer(bytes(range(32)))
    again = Ed25519Signer(s.private_key_bytes())
    assert again.public_key_bytes() == s.public_key_bytes()
    assert again.sign(b"m") == s.sign(b"m")  # Ed25519 signatures are deterministic


@pytest.mark.parametrize("bad", [b"short", bytes(33), "not bytes"])
def test_ed25519_keys_must_be_32_raw_bytes(bad: object) -> None:
    with pytest.raises(ValidationError):
        Ed25519Signer(bad)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Ed25519Verifier(bad)  # type: ignore[arg-type]


def test_parse_key_text_reads_hex_else_text() -> None:
    assert parse_key_text("00ff10") == b"\x00\xff\x10"
    assert parse_key_text("abc") == b"abc"  # odd length: text
    assert parse_key_text("a passphrase of some length") == b"a passphrase of some length"


def test_signer_from_config_needs_exactly_one_key() -> None:
    with pytest.raises(ConfigError):
        signer_from_config()
    with pytest.raises(ConfigError):
        signer_from_config(hmac_key="x" * 32, ed25519_private_key="00" * 32)
    with pytest.raises(ConfigError, match="ed25519"):
        signer_from_config(ed25519_private_key="zz" * 32)
    with pytest.raises(ConfigError, match="ed25519"):
        signer_from_config(ed25519_private_key="00" * 31)
    with pytest.raises(ConfigError, match="hmac"):
        signer_from_config(hmac_key=b"short")
    assert isinstance(signer_from_config(ed25519_private_key=bytes(32)), Ed25519Signer)
    assert signer_from_config(hmac_key="k" * 16, key_id="cfg").key_id == "cfg"


def test_signer_from_env() -> None:
    assert signer_from_env({}) is None
    hex_key = "11" * 32
    s = signer_from_env({"COLONY_ATTESTATION_KEY": hex_key, "COLONY_ATTESTATION_KEY_ID": "prod"})
    assert isinstance(s, HMACSigner) and s.key_id == "prod"
    assert s.verify(b"x", HMACSigner(bytes.fromhex(hex_key), key_id="prod").sign(b"x"))
    text = signer_from_env({"COLONY_ATTESTATION_KEY": "a long enough passphrase"})
    assert isinstance(text, HMACSigner) and text.verify(b"x", HMACSigner(b"a long enough passphrase").sign(b"x"))
    ed = signer_from_env({"COLONY_ATTESTATION_ED25519_KEY": bytes(range(32)).hex()})
    assert isinstance(ed, Ed25519Signer) and ed.public_key_bytes() == Ed25519Signer(bytes(range(32))).public_key_bytes()
    with pytest.raises(ConfigError):
        signer_from_env({"COLONY_ATTESTATION_KEY": hex_key, "COLONY_ATTESTATION_ED25519_KEY": "00" * 32})
    with pytest.raises(ConfigError):
        signer_from_env({"COLONY_ATTESTATION_KEY": "too short"})


def test_ephemeral_signers_differ() -> None:
    a, b = ephemeral_signer(), ephemeral_signer()
    assert a.key_id == "ephemeral"
    assert not b.verify(b"x", a.sign(b"x"))
