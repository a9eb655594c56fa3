"""Path safety: every command that takes a path refuses '..', absolute paths outside and symlinks out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from colony.cli_tools.paths import find_project, inside
from colony.errors import NotFoundError, PathSafetyError
from tests.cli.conftest import Runner

# (command line with {bad} where the path goes, what a refusal must leave untouched)
COMMANDS = {
    "analyze PATH": ["analyze", "{bad}"],
    "analyze --output": ["analyze", "minipkg", "--output", "{bad}"],
    "run-quick TARGET": ["run-quick", "{bad}"],
    "new --path": ["new", "probe", "--path", "{bad}"],
    "generate --output": ["generate", "write a function", "--output", "{bad}"],
    "status --state": ["status", "--state", "{bad}"],
}


def _bad_paths(root: Path, outside: Path) -> dict[str, str]:
    os.symlink(outside, root / "link_out")
    os.symlink(outside / "secret.py", root / "secret_link.py")
    return {
        "dotdot": "../outside/secret.py",
        "dotdot-dir": "../outside",
        "absolute": str(outside / "secret.py"),
        "absolute-dir": str(outside),
        "symlink-dir": "link_out",
        "symlink-file": "secret_link.py",
        "through-symlink": "link_out/secret.py",
    }


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_path_argument_refuses_escapes(
    colony: Runner, mini: Path, outside: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLONY_AI_BASE_URL", "http://127.0.0.1:9/v1")  # a refused path must fail before any request
    monkeypatch.setenv("COLONY_AI_MODEL", "m")
    before = sorted(p.name for p in outside.rglob("*"))
    for label, bad in _bad_paths(mini, outside).items():
        argv = [a.replace("{bad}", bad) for a in COMMANDS[command]]
        result = colony(*argv, "--json", "--project", mini)
        assert result.code == 2, (label, result)
        error = result.json["error"]
        assert result.json["success"] is False
        assert "outside the project" in error or "symlink" in error, (label, error)
        assert sorted(p.name for p in outside.rglob("*")) == before, label
    assert "outside ran" not in colony("run-quick", "scripts/hello.py", "--project", mini).out


def test_glob_matching_a_symlink_out_refuses_the_whole_call(colony: Runner, mini: Path, outside: Path) -> None:
    os.symlink(outside / "secret.py", mini / "scripts" / "zz_link.py")
    result = colony("run-quick", "scripts/*.py", "--json", "--project", mini)
    assert result.code == 2 and "leads out of the project" in result.json["error"]
    assert "hello" not in result.out  # nothing ran, not even the harmless script


def test_glob_patterns_cannot_climb_or_be_absolute(colony: Runner, mini: Path, outside: Path) -> None:
    for pattern in ("../outside/*.py", f"{outside}/*.py"):
        result = colony("run-quick", pattern, "--json", "--project", mini)
        assert result.code == 2 and "glob patterns must be relative" in result.json["error"]


def test_inside_allows_dotdot_that_stays_inside_and_absolute_paths_inside(mini: Path) -> None:
    root = find_project(mini)
    assert inside(root, "scripts/../minipkg/core.py") == root / "minipkg" / "core.py"
    assert inside(root, str(root / "minipkg")) == root / "minipkg"
    with pytest.raises(NotFoundError):
        inside(root, "missing.py")
    with pytest.raises(PathSafetyError):
        inside(root, ".", allow_root=False)


def test_project_is_found_upward_or_refused(mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLONY_PROJECT", raising=False)
    assert find_project(start=mini / "minipkg") == mini.resolve()
    with pytest.raises(NotFoundError, match="pyproject"):
        find_project(tmp_path)
    monkeypatch.setenv("COLONY_PROJECT", str(mini))
    assert find_project() == mini.resolve()
