"""Opening a user's history: a repository directory or a git bundle, checked before any work.

A path that does not exist, is not a repository (or bundle), has no commits or is a shallow
clone is a :class:`~colony.errors.ValidationError` on ``REPO_OR_BUNDLE`` (the CLI's exit 2),
never a traceback. :func:`count_signatures` tallies the signature table over a history
(``colony history agents``).
"""

from __future__ import annotations

import hashlib
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from colony.errors import ValidationError
from colony.history.identity import coauthor_trailers
from colony.history.signatures import SignatureTable

__all__ = ["FIELD", "check_repository", "count_signatures", "opened"]

FIELD = "REPO_OR_BUNDLE"


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)


def check_repository(repo: Path, shown: str) -> None:
    """Raise a ValidationError naming ``shown`` unless ``repo`` is a whole, non-empty git history."""
    if _git(repo, "rev-parse", "--git-dir").returncode != 0:
        raise ValidationError(FIELD, f"{shown} is not a git repository or bundle", value=shown)
    if _git(repo, "rev-parse", "--is-bare-repository").stdout.strip() != "true":
        top = _git(repo, "rev-parse", "--show-toplevel").stdout.strip()
        if top and Path(top).resolve() != repo.resolve():
            raise ValidationError(
                FIELD, f"{shown} is inside the repository {top}; pass the repository itself: {top}", value=shown
            )
    if _git(repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}").returncode != 0:
        raise ValidationError(FIELD, f"{shown} has no commits (an empty history)", value=shown)
    if _git(repo, "rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        raise ValidationError(
            FIELD, f"{shown} is a shallow clone (its history is cut off); fetch all of it: git fetch --unshallow", value=shown
        )


@contextmanager
def opened(source: str | Path) -> Iterator[tuple[Path, str | None]]:
    """A checked repository directory for ``source`` (a bundle is cloned to a temporary one) and the bundle's sha256."""
    src = Path(source)
    if not src.exists():
        raise ValidationError(FIELD, f"{source} does not exist", value=str(source))
    if src.is_dir():
        check_repository(src, str(source))
        yield src, None
        return
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    with tempfile.TemporaryDirectory(prefix="colony-history-") as tmp:
        done = subprocess.run(
            ["git", "clone", "--quiet", "--no-checkout", str(src.resolve()), tmp], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise ValidationError(FIELD, f"{source} is not a git repository or bundle", value=str(source))
        check_repository(Path(tmp), str(source))
        yield Path(tmp), digest


def count_signatures(source: str | Path, table: SignatureTable) -> dict[str, Any]:
    """Commits per signature (and per kind and tool) over the whole history of ``source``."""
    from pydriller import Repository

    by_signature: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    tools: Counter[str] = Counter()
    total = 0
    with opened(source) as (repo, _):
        for c in Repository(str(repo), order="topo-order").traverse_commits():
            total += 1
            sig = table.author(c.author.name, c.author.email)
            if sig is None:
                sig = table.coauthor(coauthor_trailers(c.msg), c.msg)
            if sig is None:
                kinds["human"] += 1
                continue
            by_signature[sig.id] += 1
            kinds[sig.kind] += 1
            tools[sig.tool] += 1
    info = {s.id: s for s in table.signatures}
    return {
        "commits": total,
        "kinds": dict(sorted(kinds.items())),
        "tools": dict(sorted(tools.items())),
        "signatures": {
            sid: {"tool": info[sid].tool, "kind": info[sid].kind, "commits": n} for sid, n in sorted(by_signature.items())
        },
    }
