"""Git repositories for the history report's tests: one with several agent tools, and the bad inputs.

:func:`build_tools_repo` writes one commit a day for :data:`DAYS` days, cycling through
:data:`CYCLE` (two people and five agent tools, each signed the way the tool signs its commits),
then a last commit :data:`TAIL_DAYS` later so that every earlier commit is judged (the replay
censors the history's last horizon, 30 days). Commit ``d`` adds a function of ``size(d)`` lines to
``pkg/m<d % 3>.py``; when ``buggy(d)`` its return line is wrong, and half a day later Bob's
``fix: ...`` commit repairs exactly that line, so SZZ labels commit ``d`` (and only it) inducing.
A dependabot commit (a bot: in neither group) lands on day 10.5. The expected numbers are
computed from this table, not from colony: :func:`expected_by_tool`.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

DAY = 86400
T0 = 1704067200  # 2024-01-01T00:00:00Z
DAYS = 48
TAIL_DAYS = 40
HTML_SUBJECT = "feat: add <b>bold</b> & <i>parser</i> for the <script>report</script>"

# who -> (tool or None, author name, author e-mail, message trailer)
AUTHORS = {
    "ann": (None, "Ann", "ann@x.org", ""),
    "bob": (None, "Bob", "bob@y.org", ""),
    "aider": ("aider", "Ann (aider)", "ann@x.org", ""),
    "claude": ("claude_code", "Bob", "bob@y.org", "\n\nCo-Authored-By: Claude <noreply@anthropic.com>"),
    "copilot": ("copilot", "Copilot", "198982749+Copilot@users.noreply.github.com", "\n\nCo-authored-by: Ann <ann@x.org>"),
    "cursor": ("cursor", "Cursor Agent", "cursoragent@cursor.com", ""),
    "devin": ("devin", "devin-ai-integration[bot]", "158243242+devin-ai-integration[bot]@users.noreply.github.com", ""),
}
CYCLE = ("ann", "aider", "bob", "claude", "copilot", "ann", "cursor", "devin")
TOOLS = ("aider", "claude_code", "copilot", "cursor", "devin")  # agents.yaml's order


def size(d: int) -> int:
    """Lines of the function commit ``d`` adds (besides its ``def`` and ``return`` lines)."""
    return 2 + (d * 5) % 17 + (60 if d == BIGGEST else 0)


def buggy(d: int) -> bool:
    """Whether commit ``d``'s return line is wrong (and repaired half a day later)."""
    return (d * 7) % 5 < 2


BIGGEST = 21  # its commit is the largest by far, and carries HTML_SUBJECT


@dataclass(frozen=True)
class ToolsRepo:
    path: Path
    ids: dict[int, str]  # day -> the commit of that day's function


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env)
    return done.stdout.strip()


def _commit(repo: Path, day: float, name: str, email: str, message: str) -> str:
    stamp = f"{T0 + int(day * DAY)} +0000"
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
    }
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-q", "--allow-empty", "-m", message, env=env)
    return _git(repo, "rev-parse", "HEAD")


def init_repo(repo: Path) -> Path:
    """An empty repository (no commits) at ``repo``."""
    repo.mkdir(parents=True, exist_ok=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "commit.gpgsign", "false")
    return repo


def _function(d: int) -> str:
    body = "".join(f"    x = x * {i + 2} + {d}\n" for i in range(size(d)))
    ret = f"    return x - {d}\n" if buggy(d) else f"    return x + {d}\n"
    return f"\n\ndef f{d}(x):\n{body}{ret}"


def build_tools_repo(repo: Path) -> ToolsRepo:
    """The table's history in ``repo`` (created)."""
    init_repo(repo)
    (repo / "pkg").mkdir()
    (repo / "pkg" / "__init__.py").write_text('VERSION = "1.0"\n')
    for m in range(3):
        (repo / "pkg" / f"m{m}.py").write_text(f'"""Module {m}."""\n')
    _commit(repo, -1, "Ann", "ann@x.org", "start the package")
    ids: dict[int, str] = {}
    for d in range(DAYS):
        who = CYCLE[d % len(CYCLE)]
        _, name, email, trailer = AUTHORS[who]
        path = repo / "pkg" / f"m{d % 3}.py"
        path.write_text(path.read_text() + _function(d))
        subject = HTML_SUBJECT if d == BIGGEST else f"feat: add f{d}"
        ids[d] = _commit(repo, d, name, email, subject + trailer)
        if buggy(d):
            path.write_text(path.read_text().replace(f"    return x - {d}\n", f"    return x + {d}\n"))
            _commit(repo, d + 0.5, "Bob", "bob@y.org", f"fix: f{d} returns the wrong value")
        if d == 10:
            (repo / "pkg" / "__init__.py").write_text('VERSION = "1.1"\n')
            _commit(repo, d + 0.6, "dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com", "Bump version")
    (repo / "pkg" / "m0.py").write_text((repo / "pkg" / "m0.py").read_text() + "\n\nDONE = True\n")
    _commit(repo, DAYS + TAIL_DAYS, "Ann", "ann@x.org", "mark done")
    return ToolsRepo(repo, ids)


def expected_by_tool() -> dict[str, tuple[int, int]]:
    """(judged commits, inducing) per tool and for humans (the fix commits and the first one are Ann's or Bob's)."""
    out: dict[str, list[int]] = {t: [0, 0] for t in (*TOOLS, "human")}
    out["human"][0] += 1  # "start the package"
    for d in range(DAYS):
        tool = AUTHORS[CYCLE[d % len(CYCLE)]][0] or "human"
        out[tool][0] += 1
        out[tool][1] += int(buggy(d))
        out["human"][0] += int(buggy(d))  # Bob's fix
    return {k: (v[0], v[1]) for k, v in out.items()}


def build_no_python_repo(repo: Path) -> Path:
    """A history whose commits touch no ``.py`` file."""
    init_repo(repo)
    (repo / "README.md").write_text("hello\n")
    _commit(repo, 0, "Ann", "ann@x.org", "readme")
    return repo


def build_short_repo(repo: Path) -> Path:
    """A history of ``.py`` commits spanning two days: shorter than the horizon, so nothing is judged."""
    init_repo(repo)
    for d in range(3):
        (repo / "a.py").write_text(f"X = {d}\n")
        _commit(repo, d, "Ann", "ann@x.org", f"set X to {d}")
    return repo
