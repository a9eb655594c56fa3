"""Committed history datasets: deterministic ``<name>.jsonl.gz`` files and their manifests.

A dataset is one JSON object per commit (sorted keys, compact separators, UTF-8), gzip-compressed
with a zero timestamp and no file name, so the same records always give the same bytes. Its
manifest names where it came from and what it holds, and carries the sha256 of the compressed
file and of the JSON lines; :func:`verify_dataset` fails closed on any difference.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> m = write_dataset(d, "demo", [{"id": "a"}, {"id": "b"}], {"records": 2})
>>> verify_dataset(d / "demo.manifest.json")["records"]
2
>>> [r["id"] for r in read_records(d / "demo.jsonl.gz")]
['a', 'b']
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from colony.canonical import canonical_text, sha256_hex
from colony.errors import ColonyError

__all__ = [
    "DatasetMismatchError",
    "dataset_paths",
    "encode_records",
    "read_manifest",
    "read_records",
    "verify_dataset",
    "write_dataset",
]

SCHEMA_VERSION = 1


class DatasetMismatchError(ColonyError):
    """A committed dataset does not match its manifest (a changed, missing or corrupt file)."""

    def __init__(self, path: str, what: str, expected: Any, actual: Any) -> None:
        self.path = path
        self.what = what
        self.expected = expected
        self.actual = actual
        super().__init__(f"{path}: {what} is {actual!r}, manifest says {expected!r}")


def dataset_paths(directory: str | Path, name: str) -> tuple[Path, Path]:
    """``(<dir>/<name>.jsonl.gz, <dir>/<name>.manifest.json)``."""
    d = Path(directory)
    return d / f"{name}.jsonl.gz", d / f"{name}.manifest.json"


def _line(record: dict[str, Any]) -> bytes:
    return (canonical_text(record, allow_nan=True) + "\n").encode("utf-8")


def encode_records(records: Iterable[dict[str, Any]]) -> tuple[bytes, bytes]:
    """``(json_lines, gzip_bytes)`` of the records, byte-identical for equal input."""
    raw = b"".join(_line(r) for r in records)
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(raw)
    return raw, buf.getvalue()


def write_dataset(directory: str | Path, name: str, records: list[dict[str, Any]], manifest: dict[str, Any]) -> dict[str, Any]:
    """Write the dataset and its manifest (the manifest gains file hashes and counts); return the manifest."""
    data_path, manifest_path = dataset_paths(directory, name)
    data_path.parent.mkdir(parents=True, exist_ok=True)
    raw, packed = encode_records(records)
    full = {
        **manifest,
        "name": name,
        "schema_version": SCHEMA_VERSION,
        "file": data_path.name,
        "records": len(records),
        "sha256_gz": sha256_hex(packed),
        "sha256_jsonl": sha256_hex(raw),
    }
    data_path.write_bytes(packed)
    manifest_path.write_text(canonical_text(full, indent=2, allow_nan=True) + "\n", encoding="utf-8")
    return full


def read_manifest(manifest_path: str | Path) -> dict[str, Any]:
    """A manifest's JSON (a missing or unreadable one is a :class:`DatasetMismatchError`)."""
    p = Path(manifest_path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DatasetMismatchError(str(p), "manifest", "a readable JSON manifest", f"{type(exc).__name__}: {exc}") from None
    if not isinstance(data, dict):
        raise DatasetMismatchError(str(p), "manifest", "a JSON object", type(data).__name__)
    return data


def read_records(data_path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of a ``.jsonl.gz`` dataset, in file order."""
    with gzip.open(data_path, "rt", encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


def verify_dataset(manifest_path: str | Path) -> dict[str, Any]:
    """Check the dataset beside ``manifest_path`` against it; return the manifest or raise."""
    manifest = read_manifest(manifest_path)
    data_path = Path(manifest_path).parent / str(manifest.get("file", ""))
    where = str(data_path)
    try:
        packed = data_path.read_bytes()
    except OSError as exc:
        raise DatasetMismatchError(where, "file", manifest.get("sha256_gz"), f"unreadable ({exc.strerror})") from None
    got = sha256_hex(packed)
    if got != manifest.get("sha256_gz"):
        raise DatasetMismatchError(where, "sha256 of the file", manifest.get("sha256_gz"), got)
    try:
        raw = gzip.decompress(packed)
    except (OSError, EOFError) as exc:
        raise DatasetMismatchError(where, "gzip stream", "valid", str(exc)) from None
    got = sha256_hex(raw)
    if got != manifest.get("sha256_jsonl"):
        raise DatasetMismatchError(where, "sha256 of the JSON lines", manifest.get("sha256_jsonl"), got)
    lines = raw.count(b"\n")
    if lines != manifest.get("records"):
        raise DatasetMismatchError(where, "record count", manifest.get("records"), lines)
    return manifest
