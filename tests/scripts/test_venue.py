"""The venue version's settings in metadata.yaml: moved sections must be main sections, limits positive."""

from __future__ import annotations

from pathlib import Path

import pytest
from build_fixtures import ROOT

from scripts.compile import page_counts
from scripts.errors import BuildError
from scripts.manuscript import _venue

SECTIONS = ROOT / "manuscript"


def test_the_repository_venue_moves_only_main_sections_and_keeps_ten_pages() -> None:
    import yaml

    data = yaml.safe_load((SECTIONS / "metadata.yaml").read_text(encoding="utf-8"))
    sections = [SECTIONS / p for p in data["sections"]]
    venue = _venue(SECTIONS, data, sections)
    assert venue is not None and venue.main_text_limit == 10 and set(venue.moved) <= set(sections)


def test_a_moved_appendix_section_or_a_bad_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "sections").mkdir()
    for name in ("a.md.j2", "b.md.j2"):
        (tmp_path / "sections" / name).write_text("# x\n", encoding="utf-8")
    main = [tmp_path / "sections" / "a.md.j2"]
    with pytest.raises(BuildError, match="not main sections"):
        _venue(tmp_path, {"venue": {"moved": ["sections/b.md.j2"]}}, main)
    with pytest.raises(BuildError, match="main_text_limit"):
        _venue(tmp_path, {"venue": {"main_text_limit": 0}}, main)
    assert _venue(tmp_path, {}, main) is None


def test_two_column_pages_are_counted_up_to_the_references() -> None:
    assert page_counts(["Intro", "left column\nReferences\n[1] x", "A"])["main_text"] == 2
