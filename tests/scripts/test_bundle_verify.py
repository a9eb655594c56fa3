"""The signed bundle: verify passes, and fails naming the file for any byte flipped, file removed,
manifest edit or foreign signing key."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from build_fixtures import OTHER_KEY, ROOT, TEST_KEY, copy_project
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from scripts import bundle
from scripts.buildconfig import BuildConfig
from scripts.signing import public_hex, sign

pytestmark = pytest.mark.build_e2e

NAME = "tiny-0.0.1"


def bundle_files(built_project: Path) -> list[str]:
    root = built_project / "output" / "release" / NAME
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


@pytest.fixture
def copied(built_project: Path, tmp_path: Path) -> Path:
    """A private copy of the built bundle (outside any output/ tree)."""
    return Path(shutil.copytree(built_project / "output" / "release" / NAME, tmp_path / NAME))


def flip_one_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def test_fresh_bundle_verifies_with_the_shipped_and_the_pinned_key(copied: Path) -> None:
    assert bundle.verify(copied) == []
    assert bundle.verify(copied, public_key=public_hex(Ed25519PrivateKey.from_private_bytes(bytes.fromhex(TEST_KEY)))) == []


def test_every_file_is_listed_with_size_and_hash(copied: Path, built_project: Path) -> None:
    manifest = json.loads((copied / bundle.MANIFEST).read_text(encoding="utf-8"))
    listed = {a["path"] for a in manifest["artifacts"]}
    assert listed | bundle.CONTROL_FILES == set(bundle_files(built_project))
    assert all(a["size"] > 0 and len(a["sha256"]) == 64 and a["role"] for a in manifest["artifacts"])


def test_flipping_a_byte_in_any_file_fails_naming_it(copied: Path, built_project: Path) -> None:
    for rel in bundle_files(built_project):
        target = copied / rel
        original = target.read_bytes()
        flip_one_byte(target)
        problems = bundle.verify(copied)
        assert problems, f"flipping a byte of {rel} went unnoticed"
        assert any(rel in p for p in problems), (rel, problems)
        target.write_bytes(original)
    assert bundle.verify(copied) == []


def test_removing_a_file_fails_naming_it(copied: Path) -> None:
    (copied / "figures" / "decay.png").unlink()
    assert "figures/decay.png: missing" in bundle.verify(copied)


def test_an_unlisted_file_fails(copied: Path) -> None:
    (copied / "extra.txt").write_text("smuggled\n", encoding="utf-8")
    assert "extra.txt: not listed in publication_manifest.json" in bundle.verify(copied)


def test_editing_the_manifest_breaks_the_signature(copied: Path) -> None:
    path = copied / bundle.MANIFEST
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["version"] = "9.9.9"
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    problems = bundle.verify(copied)
    assert any(p.startswith(f"{bundle.SIGNATURE}: the signature of {bundle.MANIFEST} does not verify") for p in problems)


def test_a_signature_by_another_key_fails(copied: Path) -> None:
    other = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(OTHER_KEY))
    (copied / bundle.SIGNATURE).write_text(sign(other, (copied / bundle.MANIFEST).read_bytes()) + "\n", encoding="ascii")
    assert any(p.startswith(bundle.SIGNATURE) for p in bundle.verify(copied))


def test_a_bundle_signed_with_another_key_fails_against_the_pinned_key(
    built_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_project(built_project, tmp_path / "tiny")
    monkeypatch.setenv("COLONY_BUNDLE_KEY", OTHER_KEY)
    bundle.run(BuildConfig.load(root), force=True)
    resigned = root / "output" / "release" / NAME
    trusted = public_hex(Ed25519PrivateKey.from_private_bytes(bytes.fromhex(TEST_KEY)))
    assert bundle.verify(resigned) == []  # self-consistent with its own shipped key ...
    problems = bundle.verify(resigned, public_key=trusted)  # ... but not signed by the trusted key
    assert any("expected" in p and p.startswith(bundle.MANIFEST) for p in problems)
    assert any(p.startswith(bundle.SIGNATURE) for p in problems)


def test_verify_command_line(copied: Path, tmp_path: Path) -> None:
    key_file = tmp_path / "trusted.pub"
    key_file.write_text(public_hex(Ed25519PrivateKey.from_private_bytes(bytes.fromhex(TEST_KEY))) + "\n", encoding="ascii")
    script = str(ROOT / "scripts" / "bundle.py")
    ok = subprocess.run(
        [sys.executable, script, "verify", str(copied), "--public-key", str(key_file)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0 and "pinned key" in ok.stdout
    flip_one_byte(copied / f"{NAME}.pdf")
    bad = subprocess.run([sys.executable, script, "verify", str(copied)], capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and f"{NAME}.pdf: SHA-256 differs from the manifest" in bad.stderr
