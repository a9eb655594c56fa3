"""Reading the packaged YAML files, the ``$COLONY_CONFIG`` override, and dotted-key replacement.

``$COLONY_CONFIG`` names a directory whose YAML files override the packaged ones, file by file: a
directory holding only ``history.yaml`` changes the history study and leaves the policy packaged.

>>> config_file("policy.yaml", "/etc/colony").as_posix()
'/etc/colony/policy.yaml'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from colony.config.policy import Policy, parse_policy
from colony.config.validation import key_problem
from colony.errors import ConfigError

__all__ = [
    "ENV_VAR",
    "POLICY_FILE",
    "config_dir",
    "config_file",
    "default_policy",
    "load_policy",
    "policy_path",
    "read_yaml",
    "replace_dotted",
    "require_keys",
]

POLICY_FILE = "policy.yaml"
ENV_VAR = "COLONY_CONFIG"


def config_dir() -> Path | None:
    """Return the override directory from ``$COLONY_CONFIG``, or None for the packaged files."""
    value = os.environ.get(ENV_VAR, "").strip()
    return Path(value) if value else None


def config_file(name: str, directory: str | os.PathLike[str] | None = None) -> Path:
    """The file ``name`` in ``directory``; else ``$COLONY_CONFIG``'s when it holds one; else the packaged file."""
    if directory is not None:
        return Path(directory) / name
    override = config_dir()
    if override is not None and (override / name).is_file():
        return override / name
    return Path(str(resources.files("colony") / "config" / name))


def policy_path(directory: str | os.PathLike[str] | None = None) -> Path:
    """Return the policy file that :func:`load_policy` would read."""
    return config_file(POLICY_FILE, directory)


def read_yaml(path: Path, key: str) -> Any:
    """Parse a YAML file; an unreadable file or invalid YAML is a ConfigError naming ``key`` and the path."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(key, f"cannot read: {exc.strerror or exc}", path=str(path)) from exc
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(key, f"invalid YAML: {exc}", path=str(path)) from exc


def load_policy(directory: str | os.PathLike[str] | None = None) -> Policy:
    """Load and validate the policy from ``directory`` (or ``$COLONY_CONFIG``, or the package)."""
    path = policy_path(directory)
    return parse_policy(read_yaml(path, "policy"), source=str(path))


@lru_cache(maxsize=8)
def _cached(override: str) -> Policy:
    return load_policy()


def default_policy() -> Policy:
    """Return the policy in force: ``$COLONY_CONFIG``'s or the packaged one (cached per directory)."""
    return _cached(os.environ.get(ENV_VAR, "").strip())


def replace_dotted(
    data: dict[str, Any], values: dict[str, Any], *, source: str, what: str, key_prefix: str = ""
) -> dict[str, Any]:
    """Set each dotted key of ``values`` (``{"gate.execute_threshold": 0.8}``) in the nested mapping ``data``.

    ``data`` is changed in place and returned (give it a fresh copy, such as a record's ``to_dict()``,
    then validate the result). A key that does not already exist is a :class:`ConfigError` naming
    ``key_prefix + key`` ("no such <what>"), raised before the next key is set.

    >>> replace_dotted({"a": {"b": 1}}, {"a.b": 2}, source="x", what="key")
    {'a': {'b': 2}}
    """
    for dotted, value in values.items():
        node: Any = data
        *path, last = dotted.split(".")
        for part in path:
            if not isinstance(node, dict) or part not in node:
                raise ConfigError(key_prefix + dotted, f"no such {what}", path=source)
            node = node[part]
        if not isinstance(node, dict) or last not in node:
            raise ConfigError(key_prefix + dotted, f"no such {what}", path=source)
        node[last] = value
    return data


def require_keys(data: Any, key: str, names: Sequence[str], path: str) -> dict[str, Any]:
    """Return ``data`` if it is a mapping with exactly the keys ``names``, else raise ConfigError naming ``key``."""
    problem = key_problem(data, names)
    if problem:
        raise ConfigError(key, problem, path=path)
    return data  # type: ignore[no-any-return]
