"""Ed25519 keys for signing the publication manifest.

The private key comes from ``$COLONY_BUNDLE_KEY`` (64 hex characters) or from a key file,
by default ``~/.config/colony/bundle_ed25519.key`` (``$XDG_CONFIG_HOME`` is honoured), created
with mode 0600 on first use. A key file inside the project or its output is refused: the key
must never travel with the sources or the bundle. Only the public key ships in the bundle.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from scripts.errors import BuildError

__all__ = ["ENV_VAR", "default_key_path", "fingerprint", "load_signing_key", "public_hex", "sign", "signature_valid"]

ENV_VAR = "COLONY_BUNDLE_KEY"
KEY_HEX_LENGTH = 64


def default_key_path() -> Path:
    """``$XDG_CONFIG_HOME/colony/bundle_ed25519.key``, else ``~/.config/colony/bundle_ed25519.key``."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "colony" / "bundle_ed25519.key"


def _parse(text: str, source: str) -> Ed25519PrivateKey:
    text = text.strip()
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raw = b""
    if len(text) != KEY_HEX_LENGTH or len(raw) != KEY_HEX_LENGTH // 2:
        raise BuildError("bundle", f"{source} must hold an Ed25519 private key as {KEY_HEX_LENGTH} hex characters")
    return Ed25519PrivateKey.from_private_bytes(raw)


def _create(path: Path) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    raw = Ed25519PrivateKey.generate().private_bytes_raw()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(raw.hex() + "\n")


def load_signing_key(*, forbidden: tuple[Path, ...] = (), key_path: Path | None = None) -> tuple[Ed25519PrivateKey, str]:
    """Return the signing key and where it came from; create the key file on first use.

    ``forbidden`` lists directories the key file must not be inside (the project root).
    """
    value = os.environ.get(ENV_VAR, "").strip()
    if value:
        return _parse(value, f"${ENV_VAR}"), f"${ENV_VAR}"
    path = (key_path or default_key_path()).expanduser().absolute()
    for directory in forbidden:
        if path.resolve().is_relative_to(directory.resolve()):
            raise BuildError(
                "bundle", f"refusing the signing key {path}: it lies inside {directory}, where it could be committed or shipped"
            )
    if not path.exists():
        _create(path)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise BuildError("bundle", f"the signing key {path} is readable by others (mode {mode:o}); chmod 600 it")
    return _parse(path.read_text(encoding="ascii"), str(path)), str(path)


def public_hex(key: Ed25519PrivateKey) -> str:
    """The raw public key as hex."""
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def fingerprint(public_key_hex: str) -> str:
    """A short, stable name for a public key: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(bytes.fromhex(public_key_hex)).hexdigest()[:16]


def sign(key: Ed25519PrivateKey, data: bytes) -> str:
    """Sign ``data``; return the signature as hex."""
    return key.sign(data).hex()


def signature_valid(public_key_hex: str, data: bytes, signature_hex: str) -> bool:
    """True when ``signature_hex`` is a valid Ed25519 signature of ``data`` under the public key."""
    try:
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key_hex.strip()))
        public.verify(bytes.fromhex(signature_hex.strip()), data)
    except (ValueError, InvalidSignature):
        return False
    return True
