"""The stage cache: keyed records, intact outputs, history, changed-only writes."""

from __future__ import annotations

from pathlib import Path

from build_fixtures import FIXTURE_SOURCE

from scripts.buildconfig import BuildConfig
from scripts.cache import HISTORY, StageCache, write_if_changed


def config_for(tmp_path: Path) -> BuildConfig:
    (tmp_path / "pyproject.toml").write_text((FIXTURE_SOURCE / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    return BuildConfig.load(tmp_path)


def test_lookup_needs_the_same_key_and_intact_outputs(tmp_path: Path) -> None:
    config = config_for(tmp_path)
    cache = StageCache(config)
    output = tmp_path / "output" / "x.txt"
    output.parent.mkdir(parents=True)
    output.write_text("one", encoding="utf-8")
    cache.store("stage", "k1", [output], {"n": 1})
    record = cache.lookup("stage", "k1")
    assert record is not None and record.result == {"n": 1} and record.outputs == {"output/x.txt": record.outputs["output/x.txt"]}
    assert cache.lookup("stage", "k2") is None
    output.write_text("two", encoding="utf-8")
    assert cache.lookup("stage", "k1") is None
    output.unlink()
    assert cache.lookup("stage", "k1") is None


def test_earlier_runs_are_remembered_up_to_the_history_limit(tmp_path: Path) -> None:
    cache = StageCache(config_for(tmp_path))
    for i in range(HISTORY + 2):
        cache.store("gate", f"k{i}", [])
    assert cache.lookup("gate", f"k{HISTORY + 1}") is not None
    assert cache.lookup("gate", "k2") is not None
    assert cache.lookup("gate", "k1") is None and cache.lookup("gate", "k0") is None


def test_write_if_changed_leaves_equal_files_alone(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b.json"
    assert write_if_changed(path, "x") is True
    before = path.stat().st_mtime_ns
    assert write_if_changed(path, "x") is False and path.stat().st_mtime_ns == before
    assert write_if_changed(path, "y") is True and path.read_text(encoding="utf-8") == "y"


def test_digest_files_keeps_its_form_so_recorded_stage_keys_stay_found(tmp_path: Path) -> None:
    """digest_files goes through colony.canonical.sha256_files: a line per file, an empty or missing path absent."""
    import hashlib

    from scripts.hashing import digest_files

    (tmp_path / "d" / "__pycache__").mkdir(parents=True)
    (tmp_path / "d" / "b.py").write_bytes(b"b\n")
    (tmp_path / "d" / "a.py").write_bytes(b"a\n")
    (tmp_path / "d" / "__pycache__" / "a.pyc").write_bytes(b"\0")
    (tmp_path / "empty").mkdir()
    (tmp_path / "f.txt").write_bytes(b"f\n")
    lines = [("d/a.py", b"a\n"), ("d/b.py", b"b\n"), ("empty", None), ("f.txt", b"f\n"), ("gone", None)]
    old_form = "".join(f"{n}\0{hashlib.sha256(b).hexdigest() if b is not None else 'absent'}\n" for n, b in lines)
    paths = [tmp_path / n for n in ("d", "empty", "f.txt", "gone")]
    assert digest_files(tmp_path, paths) == hashlib.sha256(old_form.encode()).hexdigest()
