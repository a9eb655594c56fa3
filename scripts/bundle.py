"""Stage 7, bundle: ``output/release/<name>-<version>/``, hashed, listed and signed; and ``verify``.

The bundle holds the HTML, the PDF, the figures and their registry, the variable snapshot and
manifest, the replay artefact, the gate/compile/validation reports, the reproducibility inputs
(pyproject, lock file, configuration, bibliography, claims, metadata), ``CITATION.cff`` and
``.zenodo.json``. ``publication_manifest.json`` lists every file with role, size and SHA-256,
plus the source commit, dirty flag and tool versions; ``SHA256SUMS`` repeats the hashes; the
manifest is signed with Ed25519 (``publication_manifest.json.sig``) and the public key ships as
``bundle_ed25519.pub``.

    python scripts/bundle.py [prepare] [--root DIR] [--force]
    python scripts/bundle.py verify [DIR] [--public-key FILE]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

if __package__ in (None, ""):  # run as a file: import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import yaml

from scripts.buildconfig import BuildConfig
from scripts.cache import StageCache, code_digest
from scripts.errors import BuildError
from scripts.hashing import digest_mapping, file_sha256, sha256_bytes
from scripts.manuscript import load_manuscript
from scripts.publication import citation_cff, plain_text, zenodo_json
from scripts.render_figures import load_registry
from scripts.signing import fingerprint, load_signing_key, public_hex, sign, signature_valid
from scripts.stage import StageResult, stage_main
from scripts.status import require_current
from scripts.variables import load_snapshot

__all__ = ["CONTROL_FILES", "MANIFEST", "REQUIRED_ROLES", "run", "verify"]

MANIFEST = "publication_manifest.json"
SIGNATURE = "publication_manifest.json.sig"
PUBLIC_KEY = "bundle_ed25519.pub"
SUMS = "SHA256SUMS"
CONTROL_FILES = frozenset({MANIFEST, SIGNATURE, PUBLIC_KEY, SUMS})
REQUIRED_ROLES = frozenset(
    {"semantic-html", "distribution-pdf", "figure-registry", "variables", "citation-metadata", "zenodo-metadata"}
)


@dataclass(frozen=True, slots=True)
class Entry:
    """One bundled file: where it comes from (or its generated text), where it goes, its role."""

    path: str
    role: str
    source: Path | None = None
    text: str | None = None

    def data(self) -> bytes:
        if self.source is not None:
            return self.source.read_bytes()
        return (self.text or "").encode("utf-8")


def _entries(config: BuildConfig) -> tuple[list[Entry], dict[str, Any]]:
    out = config.out
    snapshot = load_snapshot(config)
    registry = load_registry(config)
    manuscript = load_manuscript(config)
    stem = f"{config.name}-{config.version}"
    entries = [
        Entry(f"{stem}.html", "semantic-html", out.paper / "paper.html"),
        Entry(f"{stem}.pdf", "distribution-pdf", out.paper / "paper.pdf"),
        *([Entry(f"{stem}-venue.pdf", "venue-pdf", out.paper / "venue.pdf")] if manuscript.venue is not None else []),
        Entry("source/paper.md", "rendered-source", out.paper / "paper.md"),
        Entry("figures/registry.json", "figure-registry", out.figure_registry),
        Entry("data/variables.json", "variables", out.variables),
        Entry("data/variable_manifest.json", "variable-manifest", out.variable_manifest),
        Entry("reports/gates.json", "gate-report", out.gate_report),
        Entry("reports/compile.json", "compile-report", out.paper / "compile_report.json"),
        Entry("reports/validation.json", "validation-report", out.validation),
        Entry("reproducibility/pyproject.toml", "reproducibility-input", config.root / "pyproject.toml"),
        Entry("reproducibility/manuscript/references.bib", "reproducibility-input", manuscript.bibliography),
        Entry("reproducibility/manuscript/claims.yaml", "reproducibility-input", manuscript.claims),
        Entry("reproducibility/manuscript/metadata.yaml", "reproducibility-input", manuscript.directory / "metadata.yaml"),
    ]
    entries += [Entry(e["file"], "figure", out.root / e["file"]) for e in registry["figures"]]
    if out.replay.is_file():
        entries.append(Entry("data/replay.json", "replay-artifact", out.replay))
    entries += [
        Entry(f"reproducibility/{n}", "reproducibility-input", config.root / n)
        for n in config.lock_files
        if (config.root / n).is_file()
    ]
    if config.config_glob:
        entries += [
            Entry(f"reproducibility/config/{p.name}", "reproducibility-input", p)
            for p in sorted(config.root.glob(config.config_glob))
        ]
    paper_meta = yaml.safe_load((out.paper / "metadata.yaml").read_text(encoding="utf-8")) or {}
    abstract = plain_text(str(paper_meta.get("abstract", "")))
    date = snapshot.get("git", {}).get("commit_date")
    entries.append(
        Entry(
            "CITATION.cff",
            "citation-metadata",
            text=citation_cff(manuscript, version=config.version, abstract=abstract, date=date),
        )
    )
    entries.append(
        Entry(
            ".zenodo.json", "zenodo-metadata", text=zenodo_json(manuscript, version=config.version, abstract=abstract, date=date)
        )
    )
    missing = [config.rel(e.source) for e in entries if e.source is not None and not e.source.is_file()]
    if missing:
        raise BuildError("bundle", f"cannot bundle missing files: {', '.join(missing)}")
    return entries, snapshot


def _manifest(config: BuildConfig, entries: list[Entry], snapshot: dict[str, Any], public_key: str) -> bytes:
    git = snapshot.get("git", {})
    artifacts = []
    for entry in sorted(entries, key=lambda e: e.path):
        data = entry.data()
        artifacts.append({"path": entry.path, "role": entry.role, "size": len(data), "sha256": sha256_bytes(data)})
    manifest = {
        "schema": 1,
        "name": config.name,
        "version": config.version,
        "source": {k: git.get(k) for k in ("commit", "dirty", "commit_time", "commit_date")},
        "tools": snapshot.get("tools", {}),
        "signature": {
            "algorithm": "Ed25519",
            "public_key": public_key,
            "fingerprint": fingerprint(public_key),
            "public_key_file": PUBLIC_KEY,
            "signature_file": SIGNATURE,
        },
        "artifacts": artifacts,
    }
    return (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode("utf-8")


def _sums(manifest: dict[str, Any], manifest_bytes: bytes) -> str:
    lines = [f"{a['sha256']}  {a['path']}" for a in manifest["artifacts"]]
    lines.append(f"{sha256_bytes(manifest_bytes)}  {MANIFEST}")
    return "\n".join(sorted(lines, key=lambda line: line.split("  ", 1)[1])) + "\n"


def run(config: BuildConfig, *, force: bool = False, in_build: bool = False) -> StageResult:
    """Assemble, sign and self-verify the bundle (skipped when no bundled byte changed)."""
    if not in_build:
        require_current(config, "bundle")
    report = config.out.validation
    if not report.is_file() or not json.loads(report.read_text(encoding="utf-8")).get("passed"):
        raise BuildError("bundle", f"no passing validation report at {config.rel(report)}: run validate first")
    entries, snapshot = _entries(config)
    key, source = load_signing_key(forbidden=(config.root,))
    public_key = public_hex(key)
    manifest_bytes = _manifest(config, entries, snapshot, public_key)
    cache = StageCache(config)
    target = config.bundle_dir
    cache_key = digest_mapping(
        {"manifest": sha256_bytes(manifest_bytes), "tool": code_digest("bundle.py", "publication.py", "signing.py")}
    )
    if not force and cache.lookup("bundle", cache_key) is not None:
        return StageResult("bundle", skipped=True, summary=config.rel(target))
    staging = target.with_name(f".{target.name}.new")
    shutil.rmtree(staging, ignore_errors=True)
    for entry in entries:
        dest = staging / entry.path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(entry.data())
    (staging / MANIFEST).write_bytes(manifest_bytes)
    (staging / SIGNATURE).write_text(sign(key, manifest_bytes) + "\n", encoding="ascii")
    (staging / PUBLIC_KEY).write_text(public_key + "\n", encoding="ascii")
    (staging / SUMS).write_text(_sums(json.loads(manifest_bytes), manifest_bytes), encoding="utf-8")
    problems = verify(staging, public_key=public_key, check_stale=False)
    if problems:
        shutil.rmtree(staging, ignore_errors=True)
        raise BuildError("bundle", f"the new bundle does not verify: {problems[0]}", details=tuple(problems))
    shutil.rmtree(target, ignore_errors=True)
    staging.replace(target)
    cache.store("bundle", cache_key, [p for p in target.rglob("*") if p.is_file()])
    return StageResult(
        "bundle",
        skipped=False,
        summary=f"{config.rel(target)} ({len(entries)} files, key {fingerprint(public_key)} from {source})",
    )


def _safe(rel: str) -> bool:
    path = PurePosixPath(rel)
    return bool(rel) and not path.is_absolute() and ".." not in path.parts and "\\" not in rel


def _stale_problem(bundle: Path) -> list[str]:
    """A bundle inside ``<output>/release/`` is stale while ``<output>/STALE.json`` exists."""
    marker_path = bundle.parent.parent / "STALE.json"
    if bundle.parent.name != "release" or not marker_path.is_file():
        return []
    try:
        marker = json.loads(marker_path.read_text(encoding="utf-8"))
    except ValueError:
        marker = {}
    state, stage, reason = marker.get("state", "failed"), marker.get("stage"), marker.get("reason")
    return [f"{marker_path.name}: this bundle is stale ({state} at {stage}: {reason})"]


def verify(bundle: Path, *, public_key: str | None = None, check_stale: bool = True) -> list[str]:
    """Every problem with a bundle, each naming the file; empty when it verifies.

    ``public_key`` (hex) pins the signer; without it the shipped public key is used.
    ``check_stale=False`` skips the stale-marker check (the build's self-check of a new bundle).
    """
    problems = _stale_problem(bundle) if check_stale else []
    manifest_path = bundle / MANIFEST
    try:
        manifest_bytes = manifest_path.read_bytes()
        manifest = json.loads(manifest_bytes)
    except FileNotFoundError:
        return [*problems, f"{MANIFEST}: missing"]
    except ValueError as exc:
        return [*problems, f"{MANIFEST}: not valid JSON ({exc})"]
    if not isinstance(manifest, dict) or manifest.get("schema") != 1 or not isinstance(manifest.get("artifacts"), list):
        return [*problems, f"{MANIFEST}: not a schema-1 publication manifest"]
    shipped = manifest.get("signature", {}).get("public_key", "")
    try:
        shipped_file = (bundle / PUBLIC_KEY).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        shipped_file = ""
        problems.append(f"{PUBLIC_KEY}: missing or unreadable")
    if shipped_file and shipped_file != shipped:
        problems.append(f"{PUBLIC_KEY}: does not match the public key named in {MANIFEST}")
    signer = (public_key or shipped).strip()
    if public_key and public_key.strip() != shipped:
        problems.append(f"{MANIFEST}: signed by key {_fp(shipped)}, expected {_fp(public_key)}")
    try:
        signature = (bundle / SIGNATURE).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        problems.append(f"{SIGNATURE}: missing or unreadable")
    else:
        if not signature_valid(signer, manifest_bytes, signature):
            problems.append(f"{SIGNATURE}: the signature of {MANIFEST} does not verify with key {_fp(signer)}")
    listed = set()
    for artifact in manifest["artifacts"]:
        rel = str(artifact.get("path", ""))
        listed.add(rel)
        if not _safe(rel):
            problems.append(f"{rel}: unsafe path in {MANIFEST}")
            continue
        file = bundle / rel
        if not file.is_file():
            problems.append(f"{rel}: missing")
        elif file.stat().st_size != artifact.get("size"):
            problems.append(f"{rel}: size {file.stat().st_size} differs from the manifest's {artifact.get('size')}")
        elif file_sha256(file) != artifact.get("sha256"):
            problems.append(f"{rel}: SHA-256 differs from the manifest")
    roles = {a.get("role") for a in manifest["artifacts"]}
    problems += [f"{MANIFEST}: no artifact with role {role}" for role in sorted(REQUIRED_ROLES - roles)]
    for file in sorted(p for p in bundle.rglob("*") if p.is_file()):
        rel = file.relative_to(bundle).as_posix()
        if rel not in listed and rel not in CONTROL_FILES:
            problems.append(f"{rel}: not listed in {MANIFEST}")
    problems += _check_sums(bundle, manifest, manifest_bytes)
    return problems


def _fp(public_key: str) -> str:
    try:
        return fingerprint(public_key.strip())
    except ValueError:
        return "<invalid key>"


def _check_sums(bundle: Path, manifest: dict[str, Any], manifest_bytes: bytes) -> list[str]:
    try:
        actual = (bundle / SUMS).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return [f"{SUMS}: missing or unreadable"]
    expected = _sums(manifest, manifest_bytes).splitlines()
    if actual == expected:
        return []
    wrong = sorted(set(actual) ^ set(expected))
    names = sorted({line.split("  ", 1)[-1] for line in wrong})
    return [f"{SUMS}: entries for {', '.join(names)} do not match the manifest"]


def _verify_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bundle.py verify", description="Verify a publication bundle.")
    parser.add_argument(
        "bundle", type=Path, nargs="?", help="bundle directory (default: this project's output/release/<name>-<version>)"
    )
    parser.add_argument("--public-key", type=Path, help="file with the trusted signer's public key (hex)")
    args = parser.parse_args(argv)
    if args.bundle is None:
        args.bundle = BuildConfig.load(Path.cwd()).bundle_dir
    pinned = args.public_key.read_text(encoding="ascii").strip() if args.public_key else None
    problems = verify(args.bundle, public_key=pinned)
    if problems:
        print(f"FAILED {args.bundle}:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    manifest = json.loads((args.bundle / MANIFEST).read_text(encoding="utf-8"))
    how = "pinned key" if pinned else "shipped key (pass --public-key to pin the signer)"
    print(
        f"OK {args.bundle}: {len(manifest['artifacts'])} files, signature by {manifest['signature']['fingerprint']} verified with the {how}"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``prepare`` (default) or ``verify DIR``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "verify":
        return _verify_main(args[1:])
    if args and args[0] == "prepare":
        args = args[1:]
    return stage_main("bundle", run, args)


if __name__ == "__main__":
    raise SystemExit(main())
