"""The manuscript's metadata file and the fixed names of its other inputs.

``manuscript/metadata.yaml`` holds the title, authors, keywords, licence, repository, the
abstract (a template) and the ordered list of section templates. Beside it live
``references.bib``, ``claims.yaml``, ``numbers_allowlist.yaml``, ``crossref.lua``,
``header.typ`` and ``paper.css``.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from scripts.buildconfig import BuildConfig
from scripts.errors import BuildError

__all__ = ["ABSTRACT", "Author", "Manuscript", "load_manuscript"]

ABSTRACT = "metadata.yaml#abstract"


@dataclass(frozen=True, slots=True)
class Author:
    """One author as the citation metadata needs them."""

    given: str
    family: str
    affiliation: str = ""
    orcid: str = ""

    @property
    def name(self) -> str:
        return f"{self.given} {self.family}"


@dataclass(frozen=True, slots=True)
class Manuscript:
    """The parsed metadata plus the paths of the fixed inputs."""

    directory: Path
    title: str
    subtitle: str
    authors: tuple[Author, ...]
    keywords: tuple[str, ...]
    license: str
    repository: str
    abstract: str
    sections: tuple[Path, ...]
    version: str = ""  # optional label; default: [project] version in pyproject.toml
    date: str = ""  # optional YYYY-MM-DD; default: the built commit's date

    @property
    def bibliography(self) -> Path:
        return self.directory / "references.bib"

    @property
    def claims(self) -> Path:
        return self.directory / "claims.yaml"

    @property
    def allowlist(self) -> Path:
        return self.directory / "numbers_allowlist.yaml"

    @property
    def lua_filter(self) -> Path:
        return self.directory / "crossref.lua"

    @property
    def typst_header(self) -> Path:
        return self.directory / "header.typ"

    @property
    def css(self) -> Path:
        return self.directory / "paper.css"

    def templates(self) -> dict[str, str]:
        """Every template source by name: the abstract first, then the sections in order."""
        sources = {ABSTRACT: self.abstract}
        for path in self.sections:
            sources[path.relative_to(self.directory).as_posix()] = path.read_text(encoding="utf-8")
        return sources


def _text(data: dict[str, Any], key: str, *, required: bool = True) -> str:
    value = data.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise BuildError("manuscript", f"metadata.yaml: {key} must be a non-empty string")
    return value


def load_manuscript(config: BuildConfig) -> Manuscript:
    """Read and check ``manuscript/metadata.yaml``."""
    directory = config.manuscript
    path = directory / "metadata.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise BuildError("manuscript", f"cannot read {config.rel(path)}: {exc}") from exc
    if not isinstance(data, dict):
        raise BuildError("manuscript", "metadata.yaml must be a mapping")
    authors = []
    for i, entry in enumerate(data.get("authors") or []):
        if not isinstance(entry, dict) or not entry.get("given") or not entry.get("family"):
            raise BuildError("manuscript", f"metadata.yaml: authors[{i}] needs given and family names")
        authors.append(
            Author(str(entry["given"]), str(entry["family"]), str(entry.get("affiliation", "")), str(entry.get("orcid", "")))
        )
    if not authors:
        raise BuildError("manuscript", "metadata.yaml: at least one author is required")
    sections = []
    for name in data.get("sections") or []:
        section = directory / str(name)
        if not section.is_file():
            raise BuildError("manuscript", f"metadata.yaml: section {name!r} does not exist")
        sections.append(section)
    if not sections:
        raise BuildError("manuscript", "metadata.yaml: sections must list at least one template")
    keywords = data.get("keywords") or []
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        raise BuildError("manuscript", "metadata.yaml: keywords must be a list of strings")
    return Manuscript(
        directory=directory,
        title=_text(data, "title"),
        subtitle=_text(data, "subtitle", required=False),
        authors=tuple(authors),
        keywords=tuple(keywords),
        license=_text(data, "license"),
        repository=_text(data, "repository"),
        abstract=_text(data, "abstract"),
        sections=tuple(sections),
        version=_text(data, "version", required=False),
        date=_date(data),
    )


def _date(data: dict[str, Any]) -> str:
    value = data.get("date", "")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if not isinstance(value, str) or (value and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value)):
        raise BuildError("manuscript", f"metadata.yaml: date must be YYYY-MM-DD, got {value!r}")
    return value
