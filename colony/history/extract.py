"""Extraction: a git repository (or bundle) → one record per commit, with SZZ blame for fixes.

PyDriller walks the history (``Repository(..., order="topo-order")``), gives each commit's
``.py`` file changes and parsed diffs; :mod:`colony.history.szz` blames the countable removed
lines of every commit that any fix rule calls a fix. Per-commit work (diffs, line counts,
blame, the change as the kernel measures it) is cached in a SQLite file keyed on the commit id
and the extractor's code hash, so a second run only re-assembles records. Records are ordered by commit time (committer date),
ties by topological position; Kamei metrics are computed in topological order from the
commits before each one.

Record fields: see :data:`RECORD_FIELDS`.
"""

from __future__ import annotations

import bisect
import hashlib
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colony.errors import ValidationError
from colony.history.changes import change_counts, change_settings
from colony.history.dataset import write_dataset
from colony.history.diffs import DiffCache, MissingBlobError, facts_hash, gather, index_commits
from colony.history.identity import AliasIndex, classify, coauthor_trailers
from colony.history.kamei import FileChange, KameiState
from colony.history.repository import opened
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
from colony.history.signatures import SignatureTable

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
    "tool": "the agent tool whose signature matched (colony/config/agents.yaml: aider, openhands, claude_code, ...) or null",
    "subject": "first line of the message",
    "merge": "more than one parent (no diff; not replayed)",
    "files": "[[path, old_path, change, added, deleted]] of the included files, sorted by path (PyDriller's counts)",
    "modules": "dotted module names of the files, sorted",
    "tests": "a test file was touched",
    "fix": "{rule: matches} for every fix rule",
    "revert": "the subject starts with 'Revert'",
    "reverts": "bundle id of the reverted commit: named by id ('This reverts commit X'), else the latest earlier "
    "commit whose subject is the quoted one (squash-merged reverts); null if neither resolves",
    "kamei": "the 14 Kamei metrics from earlier history (FIX from the 'subject' rule; other rules: fix flags)",
    "blame": "for fix candidates: [[blamed id, lines, via_rename]] (merges dropped)",
    "blame_lines": "for fix candidates: [[blamed id, path in it, line number in it]] of every blamed line, sorted "
    "(merges dropped)",
    "change": "the included files' diff as colony.kernel.change.measure_diff measures it: ChangeRecord.to_dict() "
    "{v, la, ld, nf, nd, ns, entropy, tokens, digest}; binary files left out, a diff over change.max_bytes or "
    "max_files cut (manifest change_truncated); null for merges and when no file has a text diff",
    "lines": "the added lines of change: [[index into files, line number in the new file, [token bucket, ...]]], "
    "the first max_lines in file and line order; null for merges",
    "countable": "for fix candidates: removed lines that count for SZZ (0: the fix only adds lines)",
}

_EXTRACTOR_MODULES = (
    "history/identity",
    "history/signatures",
    "history/rules",
    "history/kamei",
    "history/szz",
    "history/diffs",
    "history/changes",
    "history/labels",
    "history/extract",
    "history/dataset",
    "kernel/change",
    "kernel/change_parse",
    "kernel/change_record",
)


def extractor_hash() -> str:
    """sha256 over the extractor's source files, the kernel's change measuring among them (a manifest key)."""
    h = hashlib.sha256()
    root = Path(__file__).parents[1]
    for name in _EXTRACTOR_MODULES:
        h.update(name.encode())
        h.update((root / f"{name}.py").read_bytes())
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
    include: Sequence[str] | None = None,
    skip_missing: bool = False,
    config: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ExtractResult:
    """Extract ``source`` (a repository directory or a git bundle) into ``<output_dir>/<name>.jsonl.gz`` + manifest.

    Only files matching ``include`` (default: the history config's ``extract.include``) are diffed
    and blamed, and only commits touching one become records. A missing blob of an included file
    is a :class:`~colony.history.diffs.MissingBlobError`, or with ``skip_missing`` leaves the
    commit out and is listed in the manifest. ``progress(done, total)`` follows each commit.
    """
    from colony.history.config import load_history_config, signature_table

    if not name or not name.replace("-", "").replace("_", "").isalnum():
        raise ValidationError("--name", "must be letters, digits, '-' or '_'", value=name)
    cfg = load_history_config(config)
    globs = list(cfg.extract.include if include is None else include)
    if not globs or not all(isinstance(g, str) and g.strip() for g in globs):
        raise ValidationError("--include", "needs at least one non-empty glob", value=globs)
    table = signature_table(cfg)
    upstream = read_oidmap(oidmap)
    code = extractor_hash()
    cache_path = Path(cache_dir) / f"{name}.sqlite" if cache_dir else None
    if cache_path:
        cache_path.parent.mkdir(parents=True, exist_ok=True)
    with opened(source) as (repo_dir, bundle_sha):
        if bundle_sha is not None:  # a temporary clone, ours to index; a user's repository is left as it is
            index_commits(repo_dir)
        walk = _Walk(repo_dir, upstream, globs, skip_missing, table)
        records, stats = walk.run(DiffCache(cache_path, facts_hash(globs)), progress)
        if not records:
            raise ValidationError("--include", f"no commit of {source} touches a file matching {globs}", value=globs)
        head = records[max(range(len(records)), key=lambda i: records[i]["topo"])]["id"]
        stats["change"], truncated = change_counts(records, walk.measures, cfg.labels.rules())
        git_version = subprocess.run(["git", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    manifest = {
        "upstream_repository": upstream_repository,
        "upstream_commit": upstream_commit or upstream.get(head, head),
        "head_upstream": upstream.get(head, head),
        "bundle_sha256": bundle_sha,
        "source": Path(source).name,
        "extractor_sha256": code,
        "szz_variant": SZZ_VARIANT,
        "include": globs,
        "signatures_sha256": hashlib.sha256(table.model_dump_json().encode()).hexdigest(),
        "fix_rules": sorted(FIX_RULES),
        "change": change_settings(),
        "change_truncated": truncated,
        "record_fields": RECORD_FIELDS,
        "git": git_version,
        "counts": stats,
        "missing_blobs": walk.missing,
    }
    written = write_dataset(output_dir, name, records, manifest)
    return ExtractResult(records, written)


class _Walk:
    """One pass over a history: per-commit facts (cached), authorship, Kamei metrics, reverts."""

    def __init__(
        self, repo_dir: Path, upstream: dict[str, str], include: list[str], skip_missing: bool, table: SignatureTable
    ) -> None:
        self.repo_dir, self.upstream, self.include, self.skip_missing, self.table = (
            repo_dir,
            upstream,
            include,
            skip_missing,
            table,
        )
        self.missing: list[list[str]] = []
        self.measures: dict[str, dict[str, Any]] = {}  # commit id -> what measuring its change left out

    def _included(self, sha: str, got: dict[str, Any] | MissingBlobError) -> dict[str, Any] | None:
        """A commit's facts if it becomes a record: it touches an included file and its content is there."""
        if isinstance(got, MissingBlobError):
            if not self.skip_missing:
                raise got
            self.missing.append([sha, got.path])
            return None
        return got if (got["files"] or got.get("touches")) else None

    def run(self, cache: DiffCache, progress: Callable[[int, int], None] | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        from pydriller import Repository

        facts = None
        try:
            commits = list(Repository(str(self.repo_dir), order="topo-order").traverse_commits())
            idents: list[tuple[str, str]] = []
            for c in commits:
                idents.append((c.author.name, c.author.email))
                idents.extend(coauthor_trailers(c.msg))
            aliases = AliasIndex.build(idents, self.table)
            fixes = [{rule: match(c.msg) for rule, match in sorted(FIX_RULES.items())} for c in commits]
            two_parents = [len(c.parents) > 1 for c in commits]
            jobs = [(c.hash, m, any(fix.values()) and not m) for c, fix, m in zip(commits, fixes, two_parents, strict=True)]
            facts = gather(self.repo_dir, jobs, self.include, cache)
            records = self._records(commits, fixes, jobs, facts, aliases, progress)
        finally:
            if facts is not None:
                facts.close()  # its threads stop before the cache closes
            cache.close()
        merges = {r["id"] for r in records if r["merge"]}
        for r in records:
            if r["blame"]:
                r["blame"] = [b for b in r["blame"] if b[0] not in merges]
            if r["blame_lines"]:
                r["blame_lines"] = [b for b in r["blame_lines"] if b[0] not in merges]
        records.sort(key=lambda r: (r["time"], r["topo"]))
        for seq, r in enumerate(records):
            r["seq"] = seq
        stats = _stats(records, aliases)
        stats["skipped_missing_blob"] = len(self.missing)
        stats["commits_not_included"] = len(commits) - len(records) - len(self.missing)
        return records, stats

    def _records(
        self,
        commits: list[Any],
        fixes: list[dict[str, bool]],
        jobs: list[tuple[str, bool, bool]],
        facts_of: Iterator[dict[str, Any] | MissingBlobError],
        aliases: AliasIndex,
        progress: Callable[[int, int], None] | None,
    ) -> list[dict[str, Any]]:
        upstream = self.upstream
        resolve = _Resolver([c.hash for c in commits], upstream)
        kamei = KameiState()
        latest_title: dict[str, str] = {}
        records: list[dict[str, Any]] = []
        for n, (c, fix, (_, merge, candidate), got) in enumerate(zip(commits, fixes, jobs, facts_of, strict=True)):
            msg = c.msg
            facts = self._included(c.hash, got)
            if progress is not None:
                progress(n + 1, len(commits))
            if facts is None:
                continue
            if not merge:
                self.measures[c.hash] = facts["measure"]
            topo = len(records)
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
                    "modules": sorted({module_of(f[0]) for f in facts["files"]}),
                    "tests": any(is_test_path(f[0]) for f in facts["files"]),
                    "fix": fix,
                    "revert": is_revert,
                    "reverts": reverts,
                    "kamei": metrics,
                    "blame": facts["blame"] if candidate else None,
                    "blame_lines": facts["blame_lines"] if candidate else None,
                    "countable": facts["countable"] if candidate else None,
                    "change": facts["change"],
                    "lines": facts["lines"],
                }
            )
        return records


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
