"""``cli_run_quick``: run scripts, modules or notebooks of the project, alone or in parallel.

A target is a path (a ``.py`` script, an ``.ipynb`` notebook, or a directory whose
scripts and notebooks run in name order), a glob relative to the project, or a dotted
module name found in the project (run with ``python -m``). Every match is resolved and
must lie inside the project — one match leading out refuses the whole call before
anything runs. Scripts run with the project as working directory and on ``PYTHONPATH``;
notebooks run with papermill (their ``args`` go to papermill, e.g. ``-p name value``)
and the executed copy lands in ``<output>/run-quick/``. Each target gets its own
timeout and process group, and an allow-listed environment (:func:`child_environment`):
``COLONY_*`` settings, tokens and keys never reach it. This is not a sandbox: a target runs
with the caller's user, files and network.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, Final

from colony.cli_tools.failures import tool_errors
from colony.cli_tools.paths import find_project, inside, is_inside, layout, relative
from colony.cli_tools.processes import run_process
from colony.errors import NotFoundError, PathSafetyError, ValidationError

__all__ = [
    "ALLOWED_ENV",
    "ALLOWED_PREFIXES",
    "DEFAULT_TIMEOUT_S",
    "MAX_TARGETS",
    "child_environment",
    "resolve_targets",
    "run_quick",
]

PREFIX = "Execution failed"
DEFAULT_TIMEOUT_S: Final = 60
MAX_TARGETS: Final = 64
RUNNABLE: Final = (".py", ".ipynb")
_GLOB: Final = re.compile(r"[*?\[]")
_MODULE: Final = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_SKIP_PARTS: Final = frozenset({"__pycache__", "node_modules"})
#: Environment variables a target inherits (see :func:`child_environment`).
ALLOWED_ENV: Final = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR", "TEMP", "TMP",
        "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONDONTWRITEBYTECODE",
        "PYTHONUTF8", "MPLBACKEND", "MPLCONFIGDIR", "NO_COLOR", "COLUMNS",
    }
)  # fmt: skip
ALLOWED_PREFIXES: Final = ("LC_", "XDG_", "JUPYTER_")
#: Names that look like a credential: a target never sees them, even under an allowed prefix.
_SECRET_NAME: Final = re.compile(
    r"TOKEN|KEY|SECRET|PASS|PWD|CREDENTIAL|CRED|AUTH|BEARER|COOKIE|SESSION|PRIVATE|SIGN|CERT", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class Target:
    """One thing to run: its display name and the command line."""

    name: str
    argv: tuple[str, ...]


def _checked(root: Path, path: Path, shown: str) -> Path:
    resolved = path.resolve()
    if not is_inside(root, resolved):
        raise PathSafetyError(shown, str(root), "leads out of the project; root is")
    return resolved


def _runnable(path: Path) -> bool:
    return path.is_file() and path.suffix in RUNNABLE and not path.name.startswith(("_", "."))


def _glob(root: Path, pattern: str) -> list[Path]:
    pure = PurePath(pattern)
    if pure.is_absolute() or ".." in pure.parts:
        raise PathSafetyError(pattern, str(root), "glob patterns must be relative and stay inside; root is")
    found = []
    for path in sorted(root.glob(pattern)):
        rel_parts = path.relative_to(root).parts
        if any(p.startswith(".") or p in _SKIP_PARTS for p in rel_parts):
            continue
        _checked(root, path, relative(root, path))
        if _runnable(path):
            found.append(path)
    return found


def _module_file(root: Path, name: str) -> Path | None:
    parts = name.split(".")
    for base in (root, root / "src"):
        for candidate in (base.joinpath(*parts).with_suffix(".py"), base.joinpath(*parts, "__main__.py")):
            if candidate.is_file():
                return _checked(root, candidate, name)
    return None


def resolve_targets(root: Path, target: str, args: Sequence[str], output: Path) -> list[Target]:
    """The command lines for ``target``; refuses paths or matches outside the project."""
    if not isinstance(target, str) or not target.strip():
        raise ValidationError("target", "must be a non-empty path, glob or module name", value=target)
    paths: list[Path]
    if _GLOB.search(target):
        paths = _glob(root, target)
    elif (root / target).exists() or Path(target).is_absolute() or "/" in target or target.endswith(RUNNABLE):
        path = inside(root, target, field="target")
        if path.is_dir():
            paths = [_checked(root, p, relative(root, p)) for p in sorted(path.iterdir()) if _runnable(p)]
        elif path.suffix not in RUNNABLE:
            raise ValidationError("target", f"{target!r} is neither a Python script nor a notebook", value=target)
        else:
            paths = [path]
    elif _MODULE.match(target):
        module = _module_file(root, target)
        if module is None:
            raise NotFoundError("target (no such path or module in the project)", target)
        return [Target(target, (sys.executable, "-m", target, *args))]
    else:
        raise NotFoundError("target", target)
    if not paths:
        raise NotFoundError("target (nothing runnable matches)", target)
    if len(paths) > MAX_TARGETS:
        raise ValidationError("target", f"matches {len(paths)} files; at most {MAX_TARGETS} run in one call", value=target)
    targets = []
    for path in paths:
        name = relative(root, path)
        if path.suffix == ".ipynb":
            executed = output / "run-quick" / name.replace("/", "__")
            argv = (sys.executable, "-m", "papermill", "--cwd", str(root), str(path), str(executed), *args)
        else:
            argv = (sys.executable, str(path), *args)
        targets.append(Target(name, argv))
    return targets


def child_environment(root: Path, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a run-quick target gets: an allow-list, never colony's or anyone's secrets.

    Kept: the names in :data:`ALLOWED_ENV` and those starting with :data:`ALLOWED_PREFIXES`,
    except any ``COLONY_*`` name and any name that looks like a credential (``TOKEN``, ``KEY``,
    ``SECRET``, ``PASS`` (``PASSWORD``, ``PASSPHRASE``), ``PWD``, ``CREDENTIAL``, ``AUTH``, ``BEARER``,
    ``COOKIE``, ``SESSION``, ``PRIVATE``, ``SIGN``, ``CERT``). The project goes first on ``PYTHONPATH``.

    >>> sorted(child_environment(Path("/p"), {"PATH": "/bin", "COLONY_MCP_TOKEN": "t", "GITHUB_TOKEN": "g", "LC_ALL": "C"}))
    ['LC_ALL', 'PATH', 'PYTHONPATH', 'PYTHONUNBUFFERED']
    """
    source = os.environ if environ is None else environ
    env = {
        name: value
        for name, value in source.items()
        if (name in ALLOWED_ENV or name.startswith(ALLOWED_PREFIXES))
        and not name.startswith("COLONY_")
        and not _SECRET_NAME.search(name)
    }
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), source.get("PYTHONPATH", "")]))
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _check_args(args: Sequence[str] | None) -> list[str]:
    if args is None:
        return []
    if isinstance(args, str) or not all(isinstance(a, str) and "\x00" not in a for a in args):
        raise ValidationError("args", "must be a list of strings without NUL bytes", value=args)
    return list(args)


def _why(result: dict[str, Any], timeout: float) -> str:
    if result["timed_out"]:
        return f"{result['target']} timed out after {timeout:g} s"
    return f"{result['target']} exited {result['exit_code']}"


@tool_errors(PREFIX)
def run_quick(
    target: str,
    args: Sequence[str] | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    parallel: bool = False,
    jobs: int | None = None,
    project: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Run every target matching ``target``; ``success`` only when each exited 0 within its timeout."""
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        raise ValidationError("timeout", "must be a positive number of seconds", value=timeout)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValidationError("jobs", "must be a positive integer", value=jobs)
    root = find_project(project)
    out_dir = layout(root).output
    targets = resolve_targets(root, target, _check_args(args), out_dir)
    if any(t.argv[1:3] == ("-m", "papermill") for t in targets):
        (out_dir / "run-quick").mkdir(parents=True, exist_ok=True)
    env = child_environment(root)

    def one(t: Target) -> dict[str, Any]:
        outcome = run_process(t.argv, timeout=float(timeout), cwd=root, env=env)
        return {
            "target": t.name,
            "exit_code": outcome.exit_code,
            "stdout": outcome.stdout,
            "stderr": outcome.stderr,
            "duration_ms": round(outcome.duration_s * 1000.0, 1),
            "timed_out": outcome.timed_out,
        }

    started = time.perf_counter()
    workers = min(len(targets), jobs or os.cpu_count() or 1) if parallel else 1
    with ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
        results = list(pool.map(one, targets))
    total = round((time.perf_counter() - started) * 1000.0, 1)
    out: dict[str, Any] = {"success": True, "targets_run": len(results), "results": results, "total_duration_ms": total}
    failed = [r for r in results if r["exit_code"] != 0 or r["timed_out"]]
    if failed:
        reasons = "; ".join(_why(r, timeout) for r in failed)
        out.update(
            success=False,
            error=f"{PREFIX}: {len(failed)} of {len(results)} targets failed ({reasons})",
            failed_targets=[r["target"] for r in failed],
        )
    return out
