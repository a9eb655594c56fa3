"""Extraction: a git repository (or bundle) → one record per commit, with SZZ blame for fixes.

PyDriller walks the history (``Repository(..., order="topo-order")``), gives each commit's
``.py`` file changes and parsed diffs; :mod:`colony.history.szz` blames the countable removed
lines of every commit that any fix rule calls a fix. Per-commit work (diffs, line counts,
blame) is cached in a SQLite file keyed on the commit id and the extractor's code hash, so a
second run only re-assembles records. Records are ordered by commit time (committer date),
ties by topological position; Kamei metrics are computed in topological order from the
commits before each one.

Record fields: see :data:`RECORD_FIELDS`.
"""

from __future__ import annotations

import bisect
import hashlib
import inspect
import json
import sqlite3
import subprocess
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colony.errors import ValidationError
from colony.history.dataset import write_dataset
from colony.history.identity import AliasIndex, classify, coauthor_trailers
from colony.history.kamei import FileChange, KameiState
from colony.history.rules import (
    FIX_RULES,
    REVERT_SUBJECT,
    is_test_path,
    module_of,
    reverted_ids,
    reverted_title,
    subject_of,
    title_key,
)
from colony.history.szz import blame_lines, countable_lines

__all__ = ["RECORD_FIELDS", "SZZ_VARIANT", "ExtractResult", "extract", "extractor_hash", "read_oidmap"]

SZZ_VARIANT = (
    "B-SZZ with cosmetic filtering: removed lines of each fixed .py file blamed at the fix's parent with "
    "git blame -w (following renames); blank, comment-only and whitespace-only changed lines excluded; "
    "merge commits never blamed"
)

RECORD_FIELDS: dict[str, str] = {
    "id": "commit id in the bundle",
    "upstream": "the upstream commit id (from the .oidmap; the bundle id when there is none)",
    "seq": "position in commit-time order",
    "topo": "position in topological order (parents first)",
    "time": "committer time, Unix seconds (when the change entered the history)",
    "author_time": "author time, Unix seconds",
    "agent_id": "the proposer: the merged author, or '<operator> (<tool>)' for agent commits",
    "operator": "the merged human (or bot) behind the commit",
    "kind": "agent | bot | human",
    "tool": "aider | openhands | null",
    "subject": "first line of the message",
    "merge": "more than one parent (no diff; not replayed)",
    "files": "[[path, old_path, change, added, deleted]] of the .py files",
    "modules": "dotted module names of the files, sorted",
    "tests": "a test file was touched",
    "fix": "{rule: matches} for every fix rule",
    "revert": "the subject starts with 'Revert'",
    "reverts": "bundle id of the reverted commit: named by id ('This reverts commit X'), else the latest earlier "
    "commit whose subject is the quoted one (squash-merged reverts); null if neither resolves",
    "kamei": "the 14 Kamei metrics from earlier history (FIX from the 'subject' rule; other rules: fix flags)",
    "blame": "for fix candidates: [[blamed id, lines, via_rename]] (merges dropped)",
    "countable": "for fix candidates: removed lines that count for SZZ (0: the fix only adds lines)",
}

_EXTRACTOR_MODULES = ("identity", "rules", "kamei", "szz", "extract", "dataset")


def extractor_hash() -> str:
    """sha256 over the extractor's source files (a cache and manifest key)."""
    h = hashlib.sha256()
    here = Path(__file__).parent
    for name in _EXTRACTOR_MODULES:
        h.update(name.encode())
        h.update((here / f"{name}.py").read_bytes())
    return h.hexdigest()


def read_oidmap(path: str | Path | None) -> dict[str, str]:
    """``bundle id -> upstream id`` from a ``<bundle id> <upstream id>`` per line file (None: empty)."""
    if path is None:
        return {}
    out: dict[str, str] = {}
    try:
        text = Path(path).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValidationError("--oidmap", f"cannot read {path}: {exc}", value=str(path)) from None
    for number, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2 or not all(len(p) == 40 for p in parts):
            raise ValidationError("--oidmap", f"line {number}: expected '<bundle id> <upstream id>', got {line!r}", value=line)
        out[parts[0]] = parts[1]
    return out


def _facts_hash() -> str:
    """What the cached per-commit facts depend on: the SZZ module and the diff step's source."""
    h = hashlib.sha256((Path(__file__).parent / "szz.py").read_bytes())
    h.update(inspect.getsource(_diff_commit).encode())
    return h.hexdigest()


class _Cache:
    """Per-commit extraction results in SQLite, invalidated by the extractor's code hash."""

    def __init__(self, path: Path | None, code: str) -> None:
        self.conn = sqlite3.connect(str(path) if path else ":memory:")
        self.conn.execute("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT)")
        self.conn.execute("CREATE TABLE IF NOT EXISTS commits (id TEXT PRIMARY KEY, v TEXT)")
        row = self.conn.execute("SELECT v FROM meta WHERE k = 'code'").fetchone()
        if row is None or row[0] != code:
            self.conn.execute("DELETE FROM commits")
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('code', ?)", (code,))
            self.conn.commit()

    def get(self, ident: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT v FROM commits WHERE id = ?", (ident,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, ident: str, value: dict[str, Any]) -> None:
        self.conn.execute("INSERT OR REPLACE INTO commits VALUES (?, ?)", (ident, json.dumps(value, sort_keys=True)))

    def close(self) -> None:
        self.conn.commit()
        self.conn.close()


@contextmanager
def _opened(source: Path) -> Iterator[tuple[Path, str | None]]:
    """A repository directory for ``source`` (a bundle is cloned to a temporary directory) and the bundle's sha256."""
    if source.is_dir():
        yield source, None
        return
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    with tempfile.TemporaryDirectory(prefix="colony-history-") as tmp:
        from git import Repo

        Repo.clone_from(str(source), tmp, no_checkout=True)
        yield Path(tmp), digest


def _count_lines(data: bytes | None) -> int:
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _diff_commit(commit: Any, repo: Any, candidate: bool) -> dict[str, Any]:
    """Per-commit facts from the diff (and blame, for fix candidates): the cacheable part."""
    files: list[list[Any]] = []
    blame: Counter[tuple[str, bool]] = Counter()
    countable = 0
    for mod in commit.modified_files:
        new, old = mod.new_path, mod.old_path
        path = new or old
        if not (path.endswith(".py") or (old or "").endswith(".py")):
            continue
        change = mod.change_type.name
        before = 0 if change == "ADD" else _count_lines(mod.content_before)
        files.append([path, old, change, mod.added_lines, mod.deleted_lines, before])
        if candidate and change in ("MODIFY", "RENAME", "DELETE") and old:
            parsed = mod.diff_parsed
            lines = countable_lines(parsed["deleted"], parsed["added"])
            countable += len(lines)
            for b in blame_lines(repo, commit.hash, old, lines):
                blame[(b.commit, b.via_rename)] += b.lines
    files.sort(key=lambda f: f[0])
    return {
        "files": files,
        "blame": [[c, n, r] for (c, r), n in sorted(blame.items())],
        "countable": countable,
        "candidate": candidate,
    }


@dataclass(frozen=True, slots=True)
class ExtractResult:
    """What :func:`extract` wrote."""

    records: list[dict[str, Any]]
    manifest: dict[str, Any]


class _Resolver:
    """Resolves (possibly abbreviated) upstream or bundle ids named in messages to bundle ids."""

    def __init__(self, ids: list[str], oidmap: dict[str, str]) -> None:
        self._to_bundle = {up: b for b, up in oidmap.items()}
        self._to_bundle.update({b: b for b in ids})
        self._keys = sorted(self._to_bundle)

    def __call__(self, prefix: str) -> str | None:
        i = bisect.bisect_left(self._keys, prefix)
        hits = []
        while i < len(self._keys) and self._keys[i].startswith(prefix):
            hits.append(self._to_bundle[self._keys[i]])
            i += 1
        unique = sorted(set(hits))
        return unique[0] if len(unique) == 1 else None


def extract(
    source: str | Path,
    *,
    name: str,
    output_dir: str | Path,
    oidmap: str | Path | None = None,
    upstream_repository: str | None = None,
    upstream_commit: str | None = None,
    cache_dir: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ExtractResult:
    """Extract ``source`` (a repository directory or a git bundle) into ``<output_dir>/<name>.jsonl.gz`` + manifest.

    ``progress(done, total)`` is called after each commit's diff/blame step.
    """
    src = Path(source)
    if not src.exists():
        raise ValidationError("REPO_OR_BUNDLE", f"{source} does not exist", value=str(source))
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        raise ValidationError("--name", "must be letters, digits, '-' or '_'", value=name)
    upstream = read_oidmap(oidmap)
    code = extractor_hash()
    cache_path = Path(cache_dir) / f"{name}.sqlite" if cache_dir else None
    if cache_path:
        cache_path.parent.mkdir(parents=True, exist_ok=True)
    with _opened(src) as (repo_dir, bundle_sha):
        records, stats = _walk(repo_dir, upstream, _Cache(cache_path, _facts_hash()), progress)
        head = records[max(range(len(records)), key=lambda i: records[i]["topo"])]["id"] if records else None
        git_version = subprocess.run(["git", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    manifest = {
        "upstream_repository": upstream_repository,
        "upstream_commit": upstream_commit or (upstream.get(head, head) if head else None),
        "head_upstream": upstream.get(head, head) if head else None,
        "bundle_sha256": bundle_sha,
        "source": src.name,
        "extractor_sha256": code,
        "szz_variant": SZZ_VARIANT,
        "fix_rules": sorted(FIX_RULES),
        "record_fields": RECORD_FIELDS,
        "git": git_version,
        "counts": stats,
    }
    written = write_dataset(output_dir, name, records, manifest)
    return ExtractResult(records, written)


def _walk(
    repo_dir: Path, upstream: dict[str, str], cache: _Cache, progress: Callable[[int, int], None] | None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from pydriller import Git, Repository

    git = Git(str(repo_dir))
    commits = list(Repository(str(repo_dir), order="topo-order").traverse_commits())
    idents: list[tuple[str, str]] = []
    for c in commits:
        idents.append((c.author.name, c.author.email))
        idents.extend(coauthor_trailers(c.msg))
    aliases = AliasIndex.build(idents)
    resolve = _Resolver([c.hash for c in commits], upstream)
    kamei = KameiState()
    latest_title: dict[str, str] = {}
    records: list[dict[str, Any]] = []
    try:
        for topo, c in enumerate(commits):
            msg = c.msg
            fix = {rule: match(msg) for rule, match in sorted(FIX_RULES.items())}
            merge = len(c.parents) > 1
            candidate = any(fix.values()) and not merge
            facts = cache.get(c.hash)
            if facts is None or (candidate and not facts["candidate"]):
                facts = (
                    {"files": [], "blame": [], "countable": 0, "candidate": False}
                    if merge
                    else _diff_commit(c, git.repo, candidate)
                )
                cache.put(c.hash, facts)
            if progress is not None:
                progress(topo + 1, len(commits))
            who = classify(c.author.name, c.author.email, aliases, msg)
            time = int(c.committer_date.timestamp())
            changes = [FileChange(p, o, ch, a, d, b) for p, o, ch, a, d, b in facts["files"]]
            metrics = kamei.metrics(changes, who.agent_id, time) if not merge else None
            if metrics is not None:
                metrics["FIX"] = int(fix["subject"])
                kamei.update(changes, who.agent_id, time, topo)
            is_revert = bool(REVERT_SUBJECT.match(subject_of(msg)))
            named = reverted_ids(msg) if is_revert else []
            reverts = next((r for r in (resolve(n) for n in named) if r is not None), None)
            if is_revert and reverts is None:
                reverts = latest_title.get(reverted_title(msg) or "")
            if not merge:
                latest_title[title_key(subject_of(msg))] = c.hash
            records.append(
                {
                    "id": c.hash,
                    "upstream": upstream.get(c.hash, c.hash),
                    "topo": topo,
                    "time": time,
                    "author_time": int(c.author_date.timestamp()),
                    "agent_id": who.agent_id,
                    "operator": who.operator,
                    "kind": who.kind,
                    "tool": who.tool,
                    "subject": subject_of(msg),
                    "merge": merge,
                    "files": [f[:5] for f in facts["files"]],
                    "modules": sorted({module_of(f[0]) for f in facts["files"] if f[0].endswith(".py")}),
                    "tests": any(is_test_path(f[0]) for f in facts["files"]),
                    "fix": fix,
                    "revert": is_revert,
                    "reverts": reverts,
                    "kamei": metrics,
                    "blame": facts["blame"] if candidate else None,
                    "countable": facts["countable"] if candidate else None,
                }
            )
    finally:
        cache.close()
        git.clear()
    merges = {r["id"] for r in records if r["merge"]}
    for r in records:
        if r["blame"]:
            r["blame"] = [b for b in r["blame"] if b[0] not in merges]
    records.sort(key=lambda r: (r["time"], r["topo"]))
    for seq, r in enumerate(records):
        r["seq"] = seq
    return records, _stats(records, aliases)


def _stats(records: list[dict[str, Any]], aliases: AliasIndex) -> dict[str, Any]:
    plain = [r for r in records if not r["merge"]]
    candidates = [r for r in plain if r["blame"] is not None]
    return {
        "commits": len(records),
        "merges": len(records) - len(plain),
        "kinds": dict(sorted(Counter(r["kind"] for r in plain).items())),
        "tools": dict(sorted(Counter(r["tool"] or "none" for r in plain).items())),
        "agents": len({r["agent_id"] for r in plain}),
        "people": aliases.people,
        "fixes": {rule: sum(1 for r in plain if r["fix"][rule]) for rule in sorted(FIX_RULES)},
        "fix_candidates": len(candidates),
        "add_only_fixes": sum(1 for r in candidates if not r["countable"]),
        "reverts": sum(1 for r in plain if r["revert"]),
        "reverts_resolved": sum(1 for r in plain if r["reverts"]),
        "blamed_pairs": sum(len(r["blame"]) for r in candidates),
        "labels": {  # inducing -> revealing links before any fix rule or cap is applied
            "szz": len({(b[0], r["id"]) for r in candidates for b in r["blame"]}),
            "revert": sum(1 for r in plain if r["reverts"]),
        },
        "blamed_via_rename": sum(1 for r in candidates for b in r["blame"] if b[2]),
        "span": [records[0]["time"], records[-1]["time"]] if records else None,
    }
