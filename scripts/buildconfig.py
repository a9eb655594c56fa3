"""Where a build reads and writes: one frozen record, read from ``pyproject.toml``.

The defaults describe this repository. A project can override any of them in a
``[tool.colony.build]`` table, which is how the tests point the pipeline at a tiny
fixture project instead of at colony itself.

>>> from pathlib import Path
>>> cfg = BuildConfig.load(Path(__file__).resolve().parents[1])
>>> cfg.package
'colony'
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scripts.errors import BuildError

__all__ = ["BuildConfig", "OutputPaths"]


@dataclass(frozen=True, slots=True)
class OutputPaths:
    """Every generated location, all under the output directory."""

    root: Path

    @property
    def gates(self) -> Path:
        return self.root / "gates"

    @property
    def gate_report(self) -> Path:
        return self.root / "gates" / "report.json"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def variables(self) -> Path:
        return self.root / "data" / "variables.json"

    @property
    def variable_manifest(self) -> Path:
        return self.root / "data" / "variable_manifest.json"

    @property
    def replay(self) -> Path:
        return self.root / "data" / "replay.json"

    @property
    def notebooks(self) -> Path:
        return self.root / "notebooks"

    @property
    def benchmarks(self) -> Path:
        return self.root / "benchmarks"

    @property
    def figures(self) -> Path:
        return self.root / "figures"

    @property
    def figure_registry(self) -> Path:
        return self.root / "figures" / "registry.json"

    @property
    def paper(self) -> Path:
        return self.root / "paper"

    @property
    def validation(self) -> Path:
        return self.root / "validate" / "report.json"

    @property
    def release(self) -> Path:
        return self.root / "release"

    @property
    def cache(self) -> Path:
        return self.root / ".cache"

    @property
    def stale_marker(self) -> Path:
        return self.root / "STALE.json"


@dataclass(frozen=True, slots=True)
class BuildConfig:
    """Paths and options of one build; relative paths are relative to ``root``."""

    root: Path
    name: str
    version: str
    package: str
    tests_dir: str = "tests"
    manuscript_dir: str = "manuscript"
    figures_dir: str = "figures"
    notebooks_dir: str = "notebooks"
    output_dir: str = "output"
    lint_paths: tuple[str, ...] = ()
    # the build's gate runs the fast tier; `make test` and CI run every test (README, "The two commands")
    pytest_args: tuple[str, ...] = ("-m", "not build_e2e and not e2e", "-n", "2", "--dist", "loadgroup")
    pytest_inputs: tuple[str, ...] = ()
    policy_module: str = ""
    config_glob: str = ""
    lock_files: tuple[str, ...] = ("requirements.lock", "uv.lock")
    gate_timeout: float = 1800.0

    @classmethod
    def load(cls, root: Path) -> BuildConfig:
        """Read ``root/pyproject.toml`` ([project] and [tool.colony.build]) into a config."""
        root = root.resolve()
        pyproject = root / "pyproject.toml"
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise BuildError("config", f"cannot read {pyproject.name}: {exc}") from exc
        project = data.get("project", {})
        name, version = project.get("name"), project.get("version")
        if not isinstance(name, str) or not isinstance(version, str):
            raise BuildError("config", "pyproject.toml [project] needs a name and a version")
        options = dict(data.get("tool", {}).get("colony", {}).get("build", {}))
        package = str(options.pop("package", name.replace("-", "_")))
        tests_dir = str(options.get("tests_dir", "tests"))
        defaults: dict[str, Any] = {
            "lint_paths": (package, "scripts", "figures", tests_dir, "benchmarks", "testkit"),
            "pytest_inputs": (
                package,
                tests_dir,
                "scripts",
                "figures",
                "notebooks",
                "benchmarks",
                "testkit",
                "pyproject.toml",
                "requirements.lock",
                "uv.lock",
            ),
            "policy_module": f"{package}.config",
            "config_glob": f"{package}/config/*.yaml",
        }
        known = {f for f in cls.__dataclass_fields__} - {"root", "name", "version", "package"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise BuildError("config", f"unknown [tool.colony.build] keys {unknown}")
        values = {**defaults, **options}
        for key in ("lint_paths", "pytest_args", "pytest_inputs", "lock_files"):
            if key in values:
                values[key] = tuple(str(v) for v in values[key])
        return cls(root=root, name=name, version=version, package=package, **values)

    @property
    def out(self) -> OutputPaths:
        """The generated locations."""
        return OutputPaths(self.root / self.output_dir)

    @property
    def manuscript(self) -> Path:
        return self.root / self.manuscript_dir

    @property
    def figures(self) -> Path:
        return self.root / self.figures_dir

    @property
    def bundle_dir(self) -> Path:
        """``output/release/<name>-<version>/``."""
        return self.out.release / f"{self.name}-{self.version}"

    def rel(self, path: Path) -> str:
        """Return ``path`` relative to the root, as POSIX text (for reports and snapshots)."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def existing(self, names: tuple[str, ...]) -> list[Path]:
        """Return the paths among ``names`` that exist under the root."""
        return [self.root / n for n in names if (self.root / n).exists()]

    def coverage_floor(self) -> float:
        """Return ``[tool.coverage.report] fail_under`` from pyproject (fails closed when absent)."""
        data = tomllib.loads((self.root / "pyproject.toml").read_text(encoding="utf-8"))
        floor = data.get("tool", {}).get("coverage", {}).get("report", {}).get("fail_under")
        if isinstance(floor, bool) or not isinstance(floor, int | float):
            raise BuildError("gates", "pyproject.toml has no numeric [tool.coverage.report] fail_under (the coverage floor)")
        return float(floor)
