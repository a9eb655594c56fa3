"""The manuscript's metadata file and the fixed names of its other inputs.

``manuscript/metadata.yaml`` holds the title, authors, keywords, licence, repository, the
abstract (a template), the ordered list of section templates of the main text, the ordered list
of appendix templates (printed after the references, lettered A, B, …), the page geometry and
the main text's page limit. Beside it live
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

__all__ = ["ABSTRACT", "Author", "Manuscript", "Page", "load_manuscript"]

ABSTRACT = "metadata.yaml#abstract"
PAPERS = {"us-letter": 8.5, "a4": 210 / 25.4}  # page width in inches of the papers the geometry accepts


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
class Page:
    """The PDF's page: paper, side margins (inches) and the most pages the main text may fill.

    >>> Page().text_width_in
    6.5
    """

    paper: str = "us-letter"
    margin_in: float = 1.0
    main_text_limit: int = 20  # pages before the references; the validate stage fails above it

    @property
    def text_width_in(self) -> float:
        """Width of the text block, which a figure's ``width`` percentage refers to."""
        return PAPERS[self.paper] - 2 * self.margin_in


@dataclass(frozen=True, slots=True)
class Venue:
    """The two-column venue version: the same sources, with some main sections moved to its appendix."""

    moved: tuple[Path, ...] = ()  # main sections the venue version prints in its appendix
    margin_in: float = 0.65
    main_text_limit: int = 10

    def figure_width_in(self, page: Page) -> float:
        """Width of the block an image figure's ``width`` refers to in the venue PDF: both columns.

        ``venue.typ`` floats image figures over the two columns (``scope: "parent"``), so the block is
        the page's paper width less the venue's margins.

        >>> round(Venue().figure_width_in(Page()), 2)
        7.2
        """
        return PAPERS[page.paper] - 2 * self.margin_in


VENUE_DEFAULT = Venue()


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
    appendix: tuple[Path, ...] = ()
    page: Page = Page()
    venue: Venue | None = None

    @property
    def venue_header(self) -> Path:
        return self.directory / "venue.typ"

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
        """Every template source by name: the abstract first, then the main sections, then the appendix."""
        sources = {ABSTRACT: self.abstract}
        for path in (*self.sections, *self.appendix):
            sources[self.name_of(path)] = path.read_text(encoding="utf-8")
        return sources

    def name_of(self, path: Path) -> str:
        """A template's name: its path relative to the manuscript directory."""
        return path.relative_to(self.directory).as_posix()

    @property
    def appendix_names(self) -> tuple[str, ...]:
        """The names of the appendix templates, in order."""
        return tuple(self.name_of(p) for p in self.appendix)


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
    sections = _templates(directory, data, "sections")
    if not sections:
        raise BuildError("manuscript", "metadata.yaml: sections must list at least one template")
    appendix = _templates(directory, data, "appendix")
    both = set(sections) & set(appendix)
    if both:
        raise BuildError("manuscript", f"metadata.yaml: {sorted(p.name for p in both)} listed in both sections and appendix")
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
        appendix=tuple(appendix),
        page=_page(data),
        venue=_venue(directory, data, sections),
    )


def _venue(directory: Path, data: dict[str, Any], sections: list[Path]) -> Venue | None:
    value = data.get("venue")
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - {"moved", "margin_in", "main_text_limit"}:
        raise BuildError("manuscript", "metadata.yaml: venue must be a mapping of moved, margin_in, main_text_limit")
    moved = _templates(directory, {"moved": value.get("moved") or []}, "moved")
    stray = [p.name for p in moved if p not in sections]
    if stray:
        raise BuildError("manuscript", f"metadata.yaml: venue.moved: {stray} are not main sections")
    limit = value.get("main_text_limit", VENUE_DEFAULT.main_text_limit)
    margin = value.get("margin_in", VENUE_DEFAULT.margin_in)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise BuildError("manuscript", f"metadata.yaml: venue.main_text_limit: {limit!r} is not a positive number of pages")
    if isinstance(margin, bool) or not isinstance(margin, int | float) or not 0 < margin < 2:
        raise BuildError("manuscript", f"metadata.yaml: venue.margin_in: {margin!r} is not a positive margin in inches")
    return Venue(tuple(moved), float(margin), limit)


def _templates(directory: Path, data: dict[str, Any], key: str) -> list[Path]:
    value = data.get(key) or []
    if not isinstance(value, list):
        raise BuildError("manuscript", f"metadata.yaml: {key} must be a list of templates")
    found = []
    for name in value:
        path = directory / str(name)
        if not path.is_file():
            raise BuildError("manuscript", f"metadata.yaml: {key} entry {name!r} does not exist")
        found.append(path)
    return found


def _page(data: dict[str, Any]) -> Page:
    value = data.get("page") or {}
    if not isinstance(value, dict):
        raise BuildError("manuscript", "metadata.yaml: page must be a mapping")
    unknown = set(value) - {"paper", "margin_in", "main_text_limit"}
    if unknown:
        raise BuildError("manuscript", f"metadata.yaml: page: unknown keys {sorted(unknown)}")
    page = Page(**value)
    if page.paper not in PAPERS:
        raise BuildError("manuscript", f"metadata.yaml: page.paper: {page.paper!r} is not one of {sorted(PAPERS)}")
    margin = page.margin_in
    if isinstance(margin, bool) or not isinstance(margin, int | float) or not 0 < margin < PAPERS[page.paper] / 4:
        raise BuildError("manuscript", f"metadata.yaml: page.margin_in: {margin!r} is not a positive margin in inches")
    limit = page.main_text_limit
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise BuildError("manuscript", f"metadata.yaml: page.main_text_limit: {limit!r} is not a positive number of pages")
    return Page(page.paper, float(margin), limit)


def _date(data: dict[str, Any]) -> str:
    value = data.get("date", "")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if not isinstance(value, str) or (value and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value)):
        raise BuildError("manuscript", f"metadata.yaml: date must be YYYY-MM-DD, got {value!r}")
    return value
