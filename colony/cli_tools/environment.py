"""``cli_check_environment``: is this environment ready to run the project and build its paper?

Checks, each ``{name, passed, message, required}``: the Python version against
``requires-python``; every required dependency of the project (installed, version in
range); every optional dependency (a warning when missing); the Jupyter kernel papermill
uses; pandoc and typst (the manuscript renderers); Chromium (browser checks); the colony
policy configuration; and that the output directory is writable. ``success`` is false
when a *required* check failed.

>>> result = check_environment()
>>> sorted(result)[:3]
['checks', 'missing_dependencies', 'success']
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any, Final

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from colony.cli_tools.failures import tool_errors
from colony.cli_tools.paths import find_project, layout, read_pyproject

__all__ = ["CHROMIUM_CANDIDATES", "check_environment"]

PREFIX = "Environment check failed"
CHROMIUM_CANDIDATES: Final = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_PROBE_TIMEOUT_S: Final = 20.0


def _check(name: str, passed: bool, message: str, *, required: bool, **details: Any) -> dict[str, Any]:
    return {"name": name, "passed": passed, "message": message, "required": required, "details": details}


def _python(pyproject: dict[str, Any]) -> dict[str, Any]:
    spec_text = str(pyproject.get("project", {}).get("requires-python", "") or "")
    current = platform.python_version()
    if not spec_text:
        return _check("python_version", True, f"Python {current} detected (no requires-python)", required=True)
    ok = Version(current) in SpecifierSet(spec_text)
    verdict = "satisfies" if ok else "does not satisfy"
    return _check(
        "python_version", ok, f"Python {current} detected; {verdict} {spec_text}", required=True, executable=sys.executable
    )


def _dependency(text: str, *, required: bool, group: str = "") -> dict[str, Any]:
    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        return _check(f"dependency:{text}", False, f"invalid requirement {text!r}: {exc}", required=required)
    name = f"{'optional' if group else 'dependency'}:{req.name}"
    where = f" (extra '{group}')" if group else ""
    if req.marker is not None and not req.marker.evaluate({"extra": group}):
        return _check(name, True, f"{req.name}{where} not needed on this platform", required=required)
    try:
        installed = metadata.version(req.name)
    except metadata.PackageNotFoundError:
        return _check(name, False, f"{req.name}{where} is not installed (needs {req})", required=required, requirement=str(req))
    try:
        ok = not req.specifier or req.specifier.contains(Version(installed), prereleases=True)
    except InvalidVersion:
        ok = False
    message = f"{req.name} {installed}{where}" + ("" if ok else f" does not satisfy {req.specifier}")
    return _check(name, ok, message, required=required, requirement=str(req), installed=installed)


def _kernel() -> dict[str, Any]:
    from colony.notebooks.runner import KERNEL_NAME

    try:
        from jupyter_client.kernelspec import KernelSpecManager
    except ModuleNotFoundError:
        return _check("papermill_kernel", False, "Jupyter is not installed (the 'notebooks' extra)", required=False)
    try:
        specs = KernelSpecManager().find_kernel_specs()
    except Exception as exc:  # a broken jupyter installation is exactly what this check reports
        return _check("papermill_kernel", False, f"cannot list Jupyter kernels: {type(exc).__name__}: {exc}", required=True)
    if KERNEL_NAME not in specs:
        return _check(
            "papermill_kernel", False, f"Jupyter kernel {KERNEL_NAME!r} not found (have {sorted(specs)})", required=True
        )
    return _check("papermill_kernel", True, f"Jupyter kernel {KERNEL_NAME!r} at {specs[KERNEL_NAME]}", required=True)


def _version_line(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=_PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unusable: {exc}"
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr).strip() else f"exit {out.returncode}"


def _pandoc() -> dict[str, Any]:
    path: str | None = None
    try:
        import pypandoc

        path = pypandoc.get_pandoc_path()
    except (ImportError, OSError):
        path = shutil.which("pandoc")
    if not path:
        return _check("pandoc", False, "pandoc not found (install the 'paper' extra: pypandoc-binary)", required=False)
    return _check("pandoc", True, f"{_version_line([path, '--version'])} at {path}", required=False, path=path)


def _typst() -> dict[str, Any]:
    try:
        import typst  # noqa: F401
    except ImportError:
        return _check("typst", False, "the typst package is not installed (install the 'paper' extra)", required=False)
    return _check("typst", True, f"typst {metadata.version('typst')} (Python package)", required=False)


def _chromium() -> dict[str, Any]:
    for name in CHROMIUM_CANDIDATES:
        path = shutil.which(name)
        if path:
            return _check("chromium", True, f"{name} at {path}", required=False, path=path)
    return _check("chromium", False, "no Chromium found; browser checks of the paper and widgets are skipped", required=False)


def _config() -> dict[str, Any]:
    from colony.config import load_policy, policy_path
    from colony.errors import ColonyError

    try:
        path = policy_path()
        load_policy()
    except ColonyError as exc:
        return _check("config_valid", False, f"policy configuration invalid: {exc}", required=True)
    return _check("config_valid", True, f"policy {path} is valid", required=True, path=str(path))


def _writable(directory: Path) -> dict[str, Any]:
    """Create and remove a temporary file in ``directory`` (or in its nearest existing parent)."""
    probe = directory
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        return _check("output_writable", False, f"{directory} is not a directory ({probe} is a file)", required=True)
    try:
        with tempfile.NamedTemporaryFile(dir=probe, prefix=".colony-doctor-"):
            pass
    except OSError as exc:
        return _check("output_writable", False, f"cannot write in {probe}: {exc.strerror or exc}", required=True)
    state = "exists" if probe == directory else f"will be created under {probe}"
    return _check("output_writable", True, f"{directory} is writable ({state})", required=True)


def _project(root: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    pyproject = read_pyproject(root)
    project = pyproject.get("project", {})
    ok = isinstance(project.get("name"), str) and isinstance(project.get("version"), str)
    message = (
        f"{project.get('name')} {project.get('version')} at {root}"
        if ok
        else "pyproject.toml [project] needs a name and a version"
    )
    return pyproject, _check("project", ok, message, required=True, root=str(root))


@tool_errors(PREFIX)
def check_environment(*, verbose: bool = False, project: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Run every check; ``verbose`` keeps each check's details (versions, paths, requirements)."""
    root = find_project(project)
    pyproject, project_check = _project(root)
    checks = [project_check, _python(pyproject)]
    deps = pyproject.get("project", {}).get("dependencies", []) or []
    checks += [_dependency(str(d), required=True) for d in deps]
    for group, items in sorted((pyproject.get("project", {}).get("optional-dependencies", {}) or {}).items()):
        checks += [_dependency(str(d), required=False, group=group) for d in items]
    checks += [_kernel(), _pandoc(), _typst(), _chromium(), _config(), _writable(layout(root).output)]
    missing = [
        c["details"].get("requirement", c["name"].partition(":")[2])
        for c in checks
        if c["required"] and not c["passed"] and c["name"].startswith("dependency:")
    ]
    warnings = [c["message"] for c in checks if not c["required"] and not c["passed"]]
    failed = [c for c in checks if c["required"] and not c["passed"]]
    if not verbose:
        for c in checks:
            c.pop("details")
    result: dict[str, Any] = {"success": not failed, "checks": checks, "missing_dependencies": missing, "warnings": warnings}
    if failed:
        result["error"] = f"{PREFIX}: " + "; ".join(f"{c['name']}: {c['message']}" for c in failed)
    return result
