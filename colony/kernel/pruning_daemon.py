"""PruningDaemon: nominate unused modules for archiving, and archive them safely.

``scan`` classifies a module registry into confidence tiers (policy ``pruning``):
a duplicate, a module never used since registration, one with no calls for longer
than the staleness window, one with few calls and stale. A HUMAN_PRIORITY trace
at a module protects it; a DEPENDENCY trace at or above the veto protects it too.
``archive`` is a dry run unless asked otherwise; a real run only moves an existing
path strictly inside the root configured at start-up into the archive folder.

>>> daemon = PruningDaemon(clock=lambda: 100 * 86400.0)
>>> [c.reason for c in daemon.scan({"pkg.old": {"last_used": 0.0, "call_count": 0}})]
['never used since registration']
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from colony.config import default_policy
from colony.errors import ConflictError, NotFoundError, PathSafetyError, ValidationError
from colony.falsification.containment import configured_root, is_strictly_inside
from colony.models import PruningCandidate, SignalType, check_finite

if TYPE_CHECKING:
    from colony.config import Policy
    from colony.kernel.pheromone_store import PheromoneStore

__all__ = ["PruningDaemon"]

log = logging.getLogger(__name__)

_SECONDS_PER_DAY: Final = 86400.0
_NO_ROOT: Final = "(no repository root configured)"


class PruningDaemon:
    """Advisory pruning over a module registry, with contained archiving.

    Parameters:
        policy: the policy in force (default: :func:`colony.config.default_policy`).
        pheromone_store: read for HUMAN_PRIORITY protection, the DEPENDENCY veto and the derived registry.
        repo_root: the only directory ``archive`` may move files within (fixed at start-up).
        clock: wall-clock source in seconds, comparable with registry ``last_used`` values.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        pheromone_store: PheromoneStore | None = None,
        repo_root: str | os.PathLike[str] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._policy = policy if policy is not None else default_policy()
        self._store = pheromone_store
        self._root = configured_root(repo_root) if repo_root is not None else None
        self._clock = clock
        self._last_scan_count = 0

    @property
    def last_scan_count(self) -> int:
        """Number of candidates the latest :meth:`scan` returned (0 before any scan)."""
        return self._last_scan_count

    @property
    def repo_root(self) -> Path | None:
        """The resolved root ``archive`` works within, or None."""
        return self._root

    # ------------------------------------------------------------------ scanning
    def _sense(self, location: str, signal_type: SignalType) -> float:
        return self._store.sense(location, signal_type) if self._store is not None else 0.0

    def scan(self, module_registry: Mapping[str, Mapping[str, Any]], *, now: float | None = None) -> list[PruningCandidate]:
        """Return the registry's pruning candidates, most confident first (stable for ties).

        ``module_registry`` maps a module path to ``{last_used: seconds (default 0.0),
        call_count: int (default 0), duplicate_of: str | None}``. Every entry is
        validated before any is classified; a bad one raises ValidationError naming it.
        ``now`` defaults to the clock's reading.
        """
        entries = _validated(module_registry)
        pruning = self._policy.pruning
        conf = pruning.confidence
        stale_after = pruning.stale_days * _SECONDS_PER_DAY
        now = self._clock() if now is None else now
        candidates: list[PruningCandidate] = []
        for path, last_used, calls, duplicate_of in entries:
            if self._sense(path, SignalType.HUMAN_PRIORITY) > 0.0:
                continue
            if self._sense(path, SignalType.DEPENDENCY) >= pruning.dependency_veto:
                continue
            idle = now - last_used
            days = idle / _SECONDS_PER_DAY
            if duplicate_of:
                confidence, reason = conf.duplicate, f"duplicate of {duplicate_of}"
            elif calls == 0 and last_used == 0.0:
                confidence, reason = conf.never_used, "never used since registration"
            elif calls == 0 and idle > stale_after:
                confidence, reason = conf.no_calls_stale, f"no calls; last used {days:.1f} days ago"
            elif idle > stale_after and calls < pruning.low_usage_calls:
                confidence, reason = conf.low_usage_stale, f"low usage ({calls} calls); last used {days:.1f} days ago"
            else:
                continue
            if confidence >= pruning.min_confidence:
                candidates.append(PruningCandidate(path, last_used, calls, duplicate_of, reason, confidence))
        candidates.sort(key=lambda c: -c.confidence)
        self._last_scan_count = len(candidates)
        return candidates

    def registry_from_store(self) -> dict[str, dict[str, Any]]:
        """A registry with one entry per DEPENDENCY trace in the field (all of them, in field order)."""
        if self._store is None:
            return {}
        return {
            signal.location: {"last_used": signal.last_reinforced, "call_count": 1, "duplicate_of": None}
            for signal in self._store.iter_signals(SignalType.DEPENDENCY)
        }

    def stale_registry(self, now: float) -> dict[str, dict[str, Any]]:
        """The part of :meth:`registry_from_store` that can hold candidates, in the same order.

        A derived entry has one call and no duplicate, so only the low-usage rule can name
        it, and only once it is idle for longer than the staleness window; the store hands
        out exactly those traces, oldest first, at a cost that follows their number.
        """
        if self._store is None:
            return {}
        idle = self._store.idle_traces(SignalType.DEPENDENCY, now, self._policy.pruning.stale_days * _SECONDS_PER_DAY)
        return {
            t.location: {"last_used": t.last_reinforced, "call_count": 1, "duplicate_of": None}
            for t in sorted(idle, key=lambda t: t.location)
        }

    def report(self, module_registry: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
        """``{candidates, total_candidates, generated_at}`` for ``module_registry`` (default: derived from the field).

        The derived registry's candidates are found from its stale entries alone
        (:meth:`stale_registry`), with the same result as scanning all of it.
        """
        now = self._clock()
        registry = self.stale_registry(now) if module_registry is None else module_registry
        candidates = self.scan(registry, now=now)
        return {
            "candidates": [c.to_dict() for c in candidates],
            "total_candidates": len(candidates),
            "generated_at": self._clock(),
        }

    # ------------------------------------------------------------------ archiving
    def archive(self, candidate: PruningCandidate, dry_run: bool = True) -> str:
        """Describe (dry run, the default) or perform moving ``candidate`` into the archive folder.

        A real run requires a configured root; the path must exist, lie strictly inside
        the root, and be neither the archive folder nor one of its ancestors; an existing
        destination raises ConflictError. A dry run checks containment but touches nothing.
        """
        if not isinstance(candidate, PruningCandidate):
            raise ValidationError("candidate", f"must be a PruningCandidate, got {type(candidate).__name__}")
        archive_rel = Path(self._policy.pruning.archive_dir)
        if self._root is None:
            if not dry_run:
                raise PathSafetyError(candidate.module_path, _NO_ROOT, "cannot be archived without a configured root:")
            name = Path(candidate.module_path).name or candidate.module_path
            refused = "no repository root is configured; a real run is refused"
            return "[DRY RUN] " + _describe(candidate, candidate.module_path, str(archive_rel / name), refused)
        root = self._root
        source = _source(root, candidate.module_path)
        archive_dir = _archive_dir(root, archive_rel)
        if archive_dir.is_relative_to(source):
            raise PathSafetyError(
                str(source), str(archive_dir), "is the archive folder or one of its ancestors; it cannot move into"
            )
        dest = archive_dir / source.name
        exists = os.path.lexists(source)
        if dry_run:
            note = None if exists else "the path does not exist; a real run would fail"
            return "[DRY RUN] " + _describe(candidate, str(source), str(dest), note)
        if not exists:
            raise NotFoundError("module path", candidate.module_path)
        if os.path.lexists(dest):
            raise ConflictError(f"archive destination {str(dest)!r} already exists", ident=str(dest))
        archive_dir.mkdir(parents=True, exist_ok=True)
        _archive_dir(root, archive_rel)  # re-check: creating it must not have led outside the root
        shutil.move(str(source), str(dest))
        log.info("archived %s to %s (%s)", source, dest, candidate.reason)
        return _describe(candidate, str(source), str(dest), None)


def _source(root: Path, module_path: str) -> Path:
    """The location to move: resolved parent plus the final name (a symlink moves as a link)."""
    path = Path(module_path)
    if not path.is_absolute():
        path = root / path
        if not os.path.lexists(path) and _looks_dotted(module_path):
            path = _dotted_candidate(root, module_path) or path
    if path.name in ("", ".", ".."):
        raise PathSafetyError(module_path, str(root), "does not name a file or directory strictly inside")
    location = path.parent.resolve() / path.name
    if not is_strictly_inside(root, location) or not is_strictly_inside(root, path.resolve()):
        raise PathSafetyError(module_path, str(root), "does not lie strictly inside the configured root")
    return location


def _archive_dir(root: Path, archive_rel: Path) -> Path:
    archive_dir = (root / archive_rel).resolve()
    if not is_strictly_inside(root, archive_dir):
        raise PathSafetyError(str(root / archive_rel), str(root), "(the archive folder) leads outside")
    return archive_dir


def _looks_dotted(module_path: str) -> bool:
    return "." in module_path and "/" not in module_path and os.sep not in module_path


def _dotted_candidate(root: Path, module_path: str) -> Path | None:
    """The package directory or module file a dotted name refers to, under root or root/src."""
    parts = module_path.split(".")
    if not all(parts):
        return None
    for base in (root, root / "src"):
        package = base.joinpath(*parts)
        module = package.with_name(parts[-1] + ".py")
        for option in (package, module):
            if os.path.lexists(option):
                return option
    return None


def _describe(candidate: PruningCandidate, path: str, dest: str, note: str | None) -> str:
    lines = [
        "PruningDaemon archive plan:",
        f"  path:       {path}",
        f"  reason:     {candidate.reason}",
        f"  confidence: {candidate.confidence * 100:.0f}%",
        f"  action:     move to {dest}",
    ]
    if note:
        lines.append(f"  note:       {note}")
    return "\n".join(lines) + "\n"


def _validated(module_registry: Any) -> list[tuple[str, float, int, str | None]]:
    if not isinstance(module_registry, Mapping):
        raise ValidationError(
            "module_registry", f"must be a mapping of module path to entry, got {type(module_registry).__name__}"
        )
    out: list[tuple[str, float, int, str | None]] = []
    for path, entry in module_registry.items():
        name = f"module_registry[{path!r}]"
        if not isinstance(path, str) or not path.strip():
            raise ValidationError("module_registry", f"keys must be non-empty strings, got {path!r}", value=path)
        if not isinstance(entry, Mapping):
            raise ValidationError(name, f"must be a mapping, got {type(entry).__name__}", value=entry)
        last_used = check_finite(f"{name}.last_used", entry.get("last_used", 0.0), minimum=0.0)
        calls = entry.get("call_count", 0)
        if isinstance(calls, bool) or not isinstance(calls, int) or calls < 0:
            raise ValidationError(f"{name}.call_count", f"must be a non-negative integer, got {calls!r}", value=calls)
        duplicate_of = entry.get("duplicate_of")
        if duplicate_of is not None and not isinstance(duplicate_of, str):
            raise ValidationError(f"{name}.duplicate_of", f"must be a string or null, got {duplicate_of!r}", value=duplicate_of)
        out.append((path, last_used, calls, duplicate_of))
    return out
