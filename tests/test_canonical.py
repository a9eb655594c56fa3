"""colony.canonical: the one digest of a set of source files, and the code digests built on it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import colony
from colony.canonical import sha256_files


def _line(name: str, data: bytes | None) -> bytes:
    return f"{name}\0{hashlib.sha256(data).hexdigest() if data is not None else 'absent'}\n".encode()


def test_sha256_files_is_one_line_per_path_in_the_order_given(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_bytes(b"a = 1\n")
    (tmp_path / "b.py").write_bytes(b"b = 2\n")
    paths = [tmp_path / "pkg" / "a.py", tmp_path / "b.py", tmp_path / "gone.py"]
    expected = hashlib.sha256(_line("pkg/a.py", b"a = 1\n") + _line("b.py", b"b = 2\n") + _line("gone.py", None))
    assert sha256_files(paths, tmp_path) == expected.hexdigest()
    assert sha256_files([str(p) for p in paths], str(tmp_path)) == expected.hexdigest()
    assert sha256_files(reversed(paths), tmp_path) != expected.hexdigest()


def test_sha256_files_counts_names_and_bytes(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"x = 1\n")
    before = sha256_files([tmp_path / "a.py"], tmp_path)
    (tmp_path / "a.py").rename(tmp_path / "c.py")
    assert sha256_files([tmp_path / "c.py"], tmp_path) != before  # same bytes, another name
    (tmp_path / "c.py").write_bytes(b"x = 2\n")
    assert sha256_files([tmp_path / "c.py"], tmp_path) != sha256_files([tmp_path / "a.py"], tmp_path)
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (moved / "a.py").write_bytes(b"x = 1\n")
    assert sha256_files([moved / "a.py"], moved) == before  # the tree's place does not count
    outside = tmp_path / "c.py"
    assert sha256_files([outside], moved) == hashlib.sha256(_line(outside.as_posix(), b"x = 2\n")).hexdigest()


def test_the_code_digests_are_sha256_files_of_their_sources() -> None:
    from colony.history import study as history_study
    from colony.research import study as research_study

    root = Path(colony.__file__).parent
    assert research_study.code_digest() == sha256_files(sorted(root.rglob("*.py")), root)
    history_sources = [p for pattern in history_study._CODE for p in sorted(root.glob(pattern))]
    assert any(p.suffix == ".yaml" for p in history_sources) and any(p.parent.name == "kernel" for p in history_sources)
    assert history_study.code_digest() == sha256_files(history_sources, root)
