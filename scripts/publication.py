"""Citation metadata for the bundle: ``CITATION.cff`` and ``.zenodo.json``, from the manuscript metadata."""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from scripts.manuscript import Manuscript

__all__ = ["citation_cff", "plain_text", "zenodo_json"]


def plain_text(markdown: str) -> str:
    """Markdown reduced to one line of plain text (emphasis, code marks and citations removed)."""
    text = re.sub(r"\[@[^\]]*\]", "", markdown)
    text = re.sub(r"[*_`]", "", text)
    return " ".join(text.split())


def _orcid(value: str) -> str:
    return value if not value or value.startswith("https://") else f"https://orcid.org/{value}"


def citation_cff(manuscript: Manuscript, *, version: str, abstract: str, date: str | None) -> str:
    """A CITATION.cff (1.2.0) for the software, with the report as its preferred citation."""
    authors: list[dict[str, Any]] = []
    for author in manuscript.authors:
        entry: dict[str, Any] = {"given-names": author.given, "family-names": author.family}
        if author.affiliation:
            entry["affiliation"] = author.affiliation
        if author.orcid:
            entry["orcid"] = _orcid(author.orcid)
        authors.append(entry)
    data: dict[str, Any] = {
        "cff-version": "1.2.0",
        "message": "If you use this work, please cite it using these metadata.",
        "type": "software",
        "title": manuscript.title,
        "version": version,
        "abstract": abstract,
        "authors": authors,
        "license": manuscript.license,
        "repository-code": manuscript.repository,
        "keywords": list(manuscript.keywords),
        "preferred-citation": {
            "type": "report",
            "title": manuscript.title,
            "authors": authors,
            "url": manuscript.repository,
        },
    }
    if date:
        data["date-released"] = date
        data["preferred-citation"]["year"] = int(date[:4])
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def zenodo_json(manuscript: Manuscript, *, version: str, abstract: str, date: str | None) -> str:
    """A ``.zenodo.json`` deposit description (a report supplementing the repository)."""
    creators = []
    for author in manuscript.authors:
        entry = {"name": f"{author.family}, {author.given}"}
        if author.affiliation:
            entry["affiliation"] = author.affiliation
        if author.orcid:
            entry["orcid"] = author.orcid.removeprefix("https://orcid.org/")
        creators.append(entry)
    data: dict[str, Any] = {
        "title": manuscript.title,
        "upload_type": "publication",
        "publication_type": "report",
        "description": abstract,
        "creators": creators,
        "version": version,
        "license": manuscript.license,
        "keywords": list(manuscript.keywords),
        "related_identifiers": [{"identifier": manuscript.repository, "relation": "isSupplementTo", "resource_type": "software"}],
    }
    if date:
        data["publication_date"] = date
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
