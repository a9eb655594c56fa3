"""Signers: one interface over HMAC-SHA256 (default) and Ed25519.

A signer turns bytes into a signature dict ``{algorithm, key_id, value[, public_key]}``
and checks such a dict. Keys come from configuration or the environment
(:func:`signer_from_config`, :func:`signer_from_env`) so a file ledger written by one
process validates in the next; :func:`ephemeral_signer` is for in-memory ledgers only.

>>> s = HMACSigner(b"0123456789abcdef", key_id="lab")
>>> sig = s.sign(b"data")
>>> s.verify(b"data", sig), s.verify(b"other", sig)
(True, False)
>>> k = Ed25519Signer.generate()
>>> Ed25519Verifier(k.public_key_bytes()).verify(b"x", k.sign(b"x"))
True
"""

from __future__ import annotations

import hmac
import os
import secrets
import string
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from colony.errors import AttestationError, ConfigError, ValidationError

__all__ = [
    "ED25519_ENV",
    "HMAC_ENV",
    "KEY_ID_ENV",
    "MIN_HMAC_KEY_BYTES",
    "Ed25519Signer",
    "Ed25519Verifier",
    "HMACSigner",
    "Signer",
    "ephemeral_signer",
    "parse_key_text",
    "signer_from_config",
    "signer_from_env",
]

#: Shortest HMAC key accepted (128 bits). A cryptographic floor, not a tunable policy.
MIN_HMAC_KEY_BYTES = 16
HMAC_ENV = "COLONY_ATTESTATION_KEY"
ED25519_ENV = "COLONY_ATTESTATION_ED25519_KEY"
KEY_ID_ENV = "COLONY_ATTESTATION_KEY_ID"

_ED25519_KEY_BYTES = 32
_HEX = frozenset(string.hexdigits)


@runtime_checkable
class Signer(Protocol):
    """Signs bytes and verifies signature dicts; ``sign`` may raise for verify-only keys."""

    @property
    def algorithm(self) -> str: ...

    @property
    def key_id(self) -> str: ...

    def sign(self, data: bytes) -> dict[str, str]: ...

    def verify(self, data: bytes, signature: Mapping[str, Any]) -> bool: ...


def _check_key_id(key_id: str) -> str:
    if not isinstance(key_id, str) or not key_id.strip():
        raise ValidationError("key_id", "must be a non-empty string", value=key_id)
    return key_id


def _label_matches(signature: Mapping[str, Any], algorithm: str, key_id: str) -> bool:
    return isinstance(signature, Mapping) and signature.get("algorithm") == algorithm and signature.get("key_id") == key_id


def parse_key_text(text: str) -> bytes:
    """Key bytes from configuration text: even-length hex decodes, anything else is UTF-8 text.

    >>> parse_key_text("00ff"), parse_key_text("not hex at all")
    (b'\\x00\\xff', b'not hex at all')
    """
    stripped = text.strip()
    if stripped and len(stripped) % 2 == 0 and set(stripped) <= _HEX:
        return bytes.fromhex(stripped)
    return text.encode("utf-8")


class HMACSigner:
    """HMAC-SHA256 signer; the same key signs and verifies (constant-time comparison).

    Parameters:
        key: at least 16 bytes; a ``str`` is UTF-8 encoded as is.
        key_id: a label stored with each signature; verification requires it to match.
    """

    __slots__ = ("_key", "_key_id")

    def __init__(self, key: bytes | str, *, key_id: str = "default") -> None:
        raw = key.encode("utf-8") if isinstance(key, str) else key
        if not isinstance(raw, bytes | bytearray):
            raise ValidationError("hmac_key", f"must be bytes or str, got {type(key).__name__}")
        if len(raw) < MIN_HMAC_KEY_BYTES:
            raise ValidationError("hmac_key", f"must contain at least {MIN_HMAC_KEY_BYTES} bytes, got {len(raw)}")
        self._key = bytes(raw)
        self._key_id = _check_key_id(key_id)

    @property
    def algorithm(self) -> str:
        """``"hmac-sha256"``."""
        return "hmac-sha256"

    @property
    def key_id(self) -> str:
        return self._key_id

    def sign(self, data: bytes) -> dict[str, str]:
        """Return ``{algorithm, key_id, value}`` with the hex HMAC of ``data``."""
        value = hmac.digest(self._key, data, "sha256").hex()
        return {"algorithm": self.algorithm, "key_id": self._key_id, "value": value}

    def verify(self, data: bytes, signature: Mapping[str, Any]) -> bool:
        """True iff ``signature`` carries this algorithm, key id and the HMAC of ``data``."""
        if not _label_matches(signature, self.algorithm, self._key_id):
            return False
        value = signature.get("value")
        if not isinstance(value, str):
            return False
        expected = hmac.digest(self._key, data, "sha256").hex()
        return hmac.compare_digest(expected.encode("ascii"), value.encode("utf-8", "replace"))

    def __repr__(self) -> str:  # never print the key
        return f"HMACSigner(key_id={self._key_id!r})"


def _ed25519_module() -> Any:
    from cryptography.hazmat.primitives.asymmetric import ed25519

    return ed25519


class Ed25519Verifier:
    """Verify-only Ed25519 key: checks signatures with the public key, cannot sign."""

    __slots__ = ("_key_id", "_public", "_public_hex")

    def __init__(self, public_key: bytes, *, key_id: str = "default") -> None:
        if not isinstance(public_key, bytes | bytearray) or len(public_key) != _ED25519_KEY_BYTES:
            raise ValidationError("public_key", f"must be {_ED25519_KEY_BYTES} raw bytes")
        self._public = _ed25519_module().Ed25519PublicKey.from_public_bytes(bytes(public_key))
        self._public_hex = bytes(public_key).hex()
        self._key_id = _check_key_id(key_id)

    @property
    def algorithm(self) -> str:
        return "ed25519"

    @property
    def key_id(self) -> str:
        return self._key_id

    def public_key_bytes(self) -> bytes:
        """The 32 raw bytes of the public key."""
        return bytes.fromhex(self._public_hex)

    def sign(self, data: bytes) -> dict[str, str]:
        """Refuse: a verifier holds no private key."""
        raise AttestationError("this Ed25519 key is verify-only (public key); it cannot sign", status="bad_signature")

    def verify(self, data: bytes, signature: Mapping[str, Any]) -> bool:
        """True iff ``signature`` is this key's Ed25519 signature of ``data``."""
        if not _label_matches(signature, self.algorithm, self._key_id):
            return False
        if signature.get("public_key") != self._public_hex:
            return False
        value = signature.get("value")
        if not isinstance(value, str):
            return False
        try:
            self._public.verify(bytes.fromhex(value), data)
        except Exception:  # InvalidSignature, or a malformed hex value
            return False
        return True

    def __repr__(self) -> str:
        return f"Ed25519Verifier(key_id={self._key_id!r}, public_key={self._public_hex[:16]}…)"


class Ed25519Signer(Ed25519Verifier):
    """Ed25519 signer from a 32-byte raw private key; anyone with the public key can verify."""

    __slots__ = ("_private",)

    def __init__(self, private_key: bytes, *, key_id: str = "default") -> None:
        if not isinstance(private_key, bytes | bytearray) or len(private_key) != _ED25519_KEY_BYTES:
            raise ValidationError("ed25519_private_key", f"must be {_ED25519_KEY_BYTES} raw bytes")
        from cryptography.hazmat.primitives import serialization

        self._private = _ed25519_module().Ed25519PrivateKey.from_private_bytes(bytes(private_key))
        public = self._private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        super().__init__(public, key_id=key_id)

    @classmethod
    def generate(cls, *, key_id: str = "default") -> Ed25519Signer:
        """A signer with a fresh random private key."""
        return cls(secrets.token_bytes(_ED25519_KEY_BYTES), key_id=key_id)

    def private_key_bytes(self) -> bytes:
        """The 32 raw private-key bytes (store them in configuration to sign again after a restart)."""
        from cryptography.hazmat.primitives import serialization

        return self._private.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )

    def verifier(self) -> Ed25519Verifier:
        """The verify-only counterpart (public key only)."""
        return Ed25519Verifier(self.public_key_bytes(), key_id=self.key_id)

    def sign(self, data: bytes) -> dict[str, str]:
        """Return ``{algorithm, key_id, value, public_key}`` with the hex signature of ``data``."""
        return {
            "algorithm": self.algorithm,
            "key_id": self.key_id,
            "value": self._private.sign(data).hex(),
            "public_key": self._public_hex,
        }

    def __repr__(self) -> str:
        return f"Ed25519Signer(key_id={self.key_id!r}, public_key={self._public_hex[:16]}…)"


def ephemeral_signer() -> HMACSigner:
    """A random HMAC key that lives as long as the process: for in-memory ledgers only."""
    return HMACSigner(secrets.token_bytes(32), key_id="ephemeral")


def signer_from_config(
    *,
    hmac_key: bytes | str | None = None,
    ed25519_private_key: bytes | str | None = None,
    key_id: str = "default",
) -> HMACSigner | Ed25519Signer:
    """Build the signer named by configuration: exactly one of the two keys.

    A ``str`` key is read with :func:`parse_key_text` (hex, else UTF-8 text for HMAC);
    an Ed25519 key given as ``str`` must be 64 hex digits.
    """
    if (hmac_key is None) == (ed25519_private_key is None):
        raise ConfigError("attestation.key", "configure exactly one of hmac_key and ed25519_private_key")
    if ed25519_private_key is not None:
        raw = ed25519_private_key
        if isinstance(raw, str):
            try:
                raw = bytes.fromhex(raw.strip())
            except ValueError:
                raise ConfigError("attestation.ed25519_private_key", "must be 64 hex digits") from None
        if len(raw) != _ED25519_KEY_BYTES:
            raise ConfigError("attestation.ed25519_private_key", f"must be {_ED25519_KEY_BYTES} bytes, got {len(raw)}")
        return Ed25519Signer(raw, key_id=key_id)
    assert hmac_key is not None
    raw_hmac = parse_key_text(hmac_key) if isinstance(hmac_key, str) else hmac_key
    if len(raw_hmac) < MIN_HMAC_KEY_BYTES:
        raise ConfigError("attestation.hmac_key", f"must contain at least {MIN_HMAC_KEY_BYTES} bytes")
    return HMACSigner(raw_hmac, key_id=key_id)


def signer_from_env(environ: Mapping[str, str] | None = None) -> HMACSigner | Ed25519Signer | None:
    """The signer configured in the environment, or None if neither key variable is set.

    ``COLONY_ATTESTATION_KEY`` (hex, else text; at least 16 bytes) → HMAC;
    ``COLONY_ATTESTATION_ED25519_KEY`` (64 hex digits) → Ed25519; both set → ConfigError.
    ``COLONY_ATTESTATION_KEY_ID`` sets the key id (default ``"default"``).
    """
    env = os.environ if environ is None else environ
    hmac_text = env.get(HMAC_ENV) or None
    ed_text = env.get(ED25519_ENV) or None
    if hmac_text is None and ed_text is None:
        return None
    if hmac_text is not None and ed_text is not None:
        raise ConfigError(HMAC_ENV, f"set only one of {HMAC_ENV} and {ED25519_ENV}")
    key_id = env.get(KEY_ID_ENV) or "default"
    return signer_from_config(hmac_key=hmac_text, ed25519_private_key=ed_text, key_id=key_id)
