"""What a history report reads: a dataset (its manifest, or a directory holding one), or a repository to extract.

:func:`report_name` names the report before any work (the dataset's name, or the repository
directory's or bundle's), :func:`read_input` returns the records: a dataset is checked against its
manifest (:func:`~colony.history.dataset.verify_dataset`) and copied into ``data_dir``; a repository
directory or git bundle is extracted (:func:`~colony.history.extract.extract`, per-commit cache under
``cache_dir``, so an interrupted extraction resumes) into ``data_dir``. Either way the report keeps the
dataset it was made from. Bad input is a
:class:`~colony.errors.ValidationError` on ``REPO_OR_DATASET`` (exit 2), never a traceback.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colony.errors import ValidationError
from colony.history.dataset import read_records, verify_dataset
from colony.history.report import FIELD
from colony.history.repository import FIELD as REPOSITORY_FIELD

__all__ = ["ReportInput", "read_input", "report_name"]

MANIFEST = ".manifest.json"


@dataclass(frozen=True, slots=True)
class ReportInput:
    """The records a report evaluates, their manifest and the dataset's name."""

    name: str
    records: list[dict[str, Any]]
    manifest: dict[str, Any]


def _manifest_of(source: Path) -> Path | None:
    """The dataset manifest ``source`` names (the file, or the one a directory holds); None for a repository."""
    if source.is_file() and source.name.endswith(MANIFEST):
        return source
    if not source.is_dir():
        return None
    held = sorted(source.glob(f"*{MANIFEST}"))
    if len(held) > 1:
        names = [p.name for p in held]
        raise ValidationError(FIELD, f"{source} holds {len(held)} datasets {names}: name one manifest", value=str(source))
    return held[0] if held else None


def _clean(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") or "repository"


def report_name(source: str | Path) -> str:
    """The report's name: the dataset's (its manifest's file name), or the repository directory's or bundle's.

    >>> report_name("path/to/my.repo.bundle"), report_name("data/history/aider.manifest.json")
    ('my-repo', 'aider')
    """
    src = Path(source)
    if src.name.endswith(MANIFEST):
        return src.name[: -len(MANIFEST)]
    if src.exists():
        manifest = _manifest_of(src)
        if manifest is not None:
            return manifest.name[: -len(MANIFEST)]
    stem = src.resolve().name if src.is_dir() else src.name.removesuffix(".bundle")
    return _clean(stem)


def read_input(
    source: str | Path,
    *,
    data_dir: str | Path,
    cache_dir: str | Path | None,
    config: str | Path | None = None,
    include: Sequence[str] | None = None,
    skip_missing: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ReportInput:
    """The records of ``source``: a checked dataset (copied into ``data_dir``), or a repository or bundle extracted there."""
    src = Path(source)
    if not src.exists():
        raise ValidationError(FIELD, f"{source} does not exist", value=str(source))
    manifest_path = _manifest_of(src)
    if manifest_path is not None:
        manifest = verify_dataset(manifest_path)
        if not manifest.get("records"):
            raise ValidationError(FIELD, f"{manifest_path} holds no commits (an empty dataset)", value=str(source))
        data_file = manifest_path.parent / str(manifest["file"])
        records = list(read_records(data_file))
        Path(data_dir).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(data_file, Path(data_dir) / data_file.name)
        shutil.copyfile(manifest_path, Path(data_dir) / manifest_path.name)
        return ReportInput(manifest_path.name[: -len(MANIFEST)], records, manifest)
    from colony.history.extract import extract

    name = report_name(src)
    try:
        result = extract(
            src,
            name=name,
            output_dir=data_dir,
            upstream_repository=str(src.resolve()) if src.is_dir() else None,
            cache_dir=cache_dir,
            include=include,
            skip_missing=skip_missing,
            config=config,
            progress=progress,
        )
    except ValidationError as exc:
        if exc.field != REPOSITORY_FIELD:
            raise
        message = str(exc).removeprefix(f"{exc.field}: ")
        if message.endswith("is not a git repository or bundle"):
            message = (
                f"{source} is neither a dataset (<name>{MANIFEST}, or a directory holding one) nor a git repository or bundle"
            )
        raise ValidationError(FIELD, message, value=str(source)) from None
    return ReportInput(name, result.records, result.manifest)
