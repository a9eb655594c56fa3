"""``gateway.yaml``: the upstreams, their mapping rules, the kernel, the timeouts — validated on load.

The operational defaults (timeouts, back-off, the tick interval) live in the packaged
``colony/config/gateway.yaml``; a gateway file overrides them under ``defaults:``, and each
upstream may set its own ``call_timeout_seconds``. ``${VAR}`` in an upstream's ``env``,
``headers``, ``args`` or ``url`` is read from the environment at load time (``$$`` is a
literal dollar), so tokens need not be written into the file.

The records are the one configuration style (:class:`colony.config.validation.Exact`): frozen,
slotted dataclasses that pydantic validates when a file is parsed, every problem a ConfigError
naming its dotted key. Built in code, they are not checked (as any dataclass; variants by
:func:`dataclasses.replace`).

>>> cfg = parse_gateway_config({"upstreams": {"fs": {"command": "node", "args": ["server.js", "/tmp"],
...     "tools": {"read_*": {"read_only": True}, "write_file": {"target": "{path}"}}}}})
>>> cfg.upstreams["fs"].transport, cfg.defaults.call_timeout_seconds
('stdio', 30.0)
>>> cfg.tools["write_file"].change.kind, cfg.tools["edit_file"].change.old  # the packaged rules under every upstream's
('write', 'oldText')
>>> parse_gateway_config({"upstreams": {"fs": {"url": "ftp://x"}}})
Traceback (most recent call last):
...
colony.errors.ConfigError: config gateway.upstreams.fs.url (<data>): must be an http:// or https:// URL
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import BeforeValidator, Field, NonNegativeFloat, PositiveFloat, TypeAdapter, ValidationError, model_validator

from colony.config import read_yaml
from colony.config.validation import Keyed, check, config_error
from colony.errors import ConfigError

__all__ = [
    "ChangeRule",
    "GatewayConfig",
    "KernelSection",
    "Timing",
    "ToolRule",
    "UpstreamConfig",
    "load_gateway_config",
    "packaged_defaults",
    "packaged_tools",
    "parse_gateway_config",
]

UPSTREAM_NAME = r"^[A-Za-z0-9][A-Za-z0-9-]{0,31}$"
Name = Annotated[str, Field(min_length=1)]
"""A non-empty string (pydantic's own check, so its message: ``String should have at least 1 character``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Timing(Keyed):
    """Timeouts, back-off and the tick interval (seconds); every field comes from the packaged defaults."""

    call_timeout_seconds: PositiveFloat
    connect_timeout_seconds: PositiveFloat
    startup_wait_seconds: NonNegativeFloat
    reconnect_initial_seconds: PositiveFloat
    reconnect_max_seconds: PositiveFloat
    approval_timeout_seconds: PositiveFloat
    tick_interval_seconds: NonNegativeFloat

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        ordered = self.reconnect_max_seconds >= self.reconnect_initial_seconds
        check(ordered, "", "reconnect_max_seconds must be >= reconnect_initial_seconds")
        return self


ChangeKind = Literal["write", "edit", "patch", "staged", "none"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ChangeRule(Keyed):
    """Where the change a tool call makes comes from, and which of its arguments hold it (DESIGN §7).

    The gateway derives the change from the call and the files it names, never from what the
    agent says about it (:mod:`colony.mcp.gateway.changes`). ``kind``:

    * ``write``: argument ``path`` names a file that gets argument ``content`` whole; the file's
      current text, read by the gateway, is the old content;
    * ``edit``: argument ``edits`` lists replacements (each an object with the text ``old`` and
      ``new``), applied in order to the file at ``path``; each edit's line is found in the file.
      A call whose ``dry_run`` argument is true changes nothing and carries no change;
    * ``patch``: the unified diff in argument ``diff`` (None: the first string argument that
      reads as one);
    * ``staged``: the staged diff of the repository at argument ``repo``, which the gateway runs
      itself (``git diff --cached``): what a commit of it will record;
    * ``none``: the call carries no change (a rule that turns a packaged one off).
    """

    kind: ChangeKind
    path: Name = "path"
    content: Name = "content"
    edits: Name = "edits"
    old: Name = "oldText"
    new: Name = "newText"
    dry_run: Name | None = "dryRun"
    diff: Name | None = None
    repo: Name = "repo_path"


def _kind_alone(value: Any) -> Any:
    # A dataclass keeps no record of which keys a file gave (a BaseModel's model_fields_set), so an
    # explicit `change: null` becomes `change: none`: said, and no change, as it always meant; None is unsaid.
    if value is None:
        return {"kind": "none"}
    return {"kind": value} if isinstance(value, str) else value


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolRule(Keyed):
    """How one upstream tool (or a ``fnmatch`` pattern of them) is gated.

    ``target``: a template such as ``"{path}"`` or ``"{repo_path}:{branch_name}"`` over the call's
    arguments (None: the documented default, :func:`colony.mcp.gateway.mapping.default_target`).
    ``read_only``: the tool skips the gate and deposits nothing.
    ``operator_only``: only an operator may call the tool (a registered operator's token, the
    shared token, or an ``--agent-id`` registered as an operator); other agents get a tool error.
    ``change``: where the call's change comes from (:class:`ChangeRule`; a kind alone, such as
    ``change: write``, takes the default argument names). A rule that does not say (``change`` is
    None) keeps the change rule the gateway's shared ``tools`` give the tool (``change: none``, or
    ``change: null``, turns it off).
    """

    target: Name | None = None
    read_only: bool = False
    operator_only: bool = False
    change: Annotated[ChangeRule | None, BeforeValidator(_kind_alone)] = None

    @model_validator(mode="after")
    def _gated_or_not(self) -> Self:
        check(not (self.read_only and self.target is not None), "", "a read_only tool is not gated, so it takes no target")
        judged = self.change is not None and self.change.kind != "none"
        check(not (self.read_only and judged), "", "a read_only tool is not gated, so its change is never judged")
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class UpstreamConfig(Keyed):
    """One upstream MCP server: a stdio command or a Streamable HTTP URL, and its tool rules.

    ``roots``: the directories the upstream works in; path arguments are resolved inside them
    (:mod:`colony.mcp.gateway.targets`) and a path outside them is refused. Paths of a stdio
    upstream are resolved on this host even without roots (then only absolute paths pass).
    ``protocol``: ``auto`` negotiates the newest revision both sides speak; ``legacy`` forces
    the initialize handshake (2025-11-25), for a server that stumbles on discovery.
    """

    command: Name | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    call_timeout_seconds: PositiveFloat | None = None
    protocol: Literal["auto", "legacy"] = "auto"
    roots: tuple[str, ...] = ()
    tools: dict[str, ToolRule] = field(default_factory=dict)

    @model_validator(mode="after")
    def _one_transport(self) -> Self:
        check((self.command is None) != (self.url is None), "", "give exactly one of command (stdio) and url (Streamable HTTP)")
        stdio_only = bool(self.args or self.env or self.cwd is not None)
        check(self.url is None or not stdio_only, "", "args, env and cwd belong to a stdio command, not to a url")
        check(self.command is None or not self.headers, "", "headers belong to a url, not to a stdio command")
        return self

    @property
    def path_roots(self) -> tuple[str, ...]:
        """The directories path arguments are resolved in: ``roots``, else a stdio upstream's ``cwd``, else none."""
        return self.roots or ((self.cwd,) if self.command is not None and self.cwd else ())

    @property
    def local_paths(self) -> bool:
        """Whether path arguments name this host's files (a stdio upstream, or roots given)."""
        return self.command is not None or bool(self.roots)

    @property
    def transport(self) -> Literal["stdio", "http"]:
        """``"stdio"`` or ``"http"``."""
        return "stdio" if self.command is not None else "http"


@dataclass(frozen=True, slots=True, kw_only=True)
class KernelSection(Keyed):
    """The colony the gateway gates with.

    ``state``: a SQLite file (or, where the storage layer supports it, a ``postgresql://`` URL),
    passed unchanged to ``ColonyKernelConfig(state_path=...)``; None keeps the colony in memory.
    ``calibrate``: supervised calibration trust (paper §4.1.5) for agents the state has never seen.
    """

    state: Name | None = None
    attestation: Literal["disabled", "optional", "required"] = "disabled"
    policy_dir: str | None = None
    calibrate: dict[str, float] = field(default_factory=dict)

    @model_validator(mode="after")
    def _trust_range(self) -> Self:
        for agent, trust in self.calibrate.items():
            check(0.0 <= trust <= 1.0, "", f"calibrate.{agent}: trust must lie in [0, 1], got {trust!r}")
        return self


@dataclass(frozen=True, slots=True, kw_only=True)
class GatewayConfig(Keyed):
    """A whole ``gateway.yaml``.

    ``tools``: the rules every upstream has under its own (looked up after them): the packaged
    ``tools`` of ``colony/config/gateway.yaml`` (the filesystem and git servers' change rules),
    each replaced by a rule of the same name in the file's own ``tools:``.
    """

    kernel: KernelSection = field(default_factory=KernelSection)
    defaults: Timing
    tools: dict[str, ToolRule] = field(default_factory=dict)
    upstreams: Annotated[dict[str, UpstreamConfig], Field(min_length=1)]

    @model_validator(mode="after")
    def _names(self) -> Self:
        for name in self.upstreams:
            ok = re.match(UPSTREAM_NAME, name) is not None
            check(ok, "", f"upstream name {name!r} must match {UPSTREAM_NAME} (it prefixes the tool names)")
        return self

    def call_timeout(self, upstream: str) -> float:
        """The call timeout of ``upstream`` (its own, else the default)."""
        own = self.upstreams[upstream].call_timeout_seconds
        return own if own is not None else self.defaults.call_timeout_seconds


@cache
def _adapter(kind: type[Any]) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


@lru_cache(maxsize=1)
def _packaged() -> dict[str, Any]:
    path = Path(str(resources.files("colony") / "config" / "gateway.yaml"))
    data = read_yaml(path, "gateway")
    for key in ("defaults", "tools"):
        if not isinstance(data, dict) or not isinstance(data.get(key), dict):
            raise ConfigError(f"gateway.{key}", f"the packaged gateway.yaml has no {key} mapping", path=str(path))
    return dict(data)


def packaged_defaults() -> dict[str, Any]:
    """The ``defaults`` section of the packaged ``colony/config/gateway.yaml``."""
    return dict(_packaged()["defaults"])


@lru_cache(maxsize=1)
def packaged_tools() -> dict[str, ToolRule]:
    """The ``tools`` section of the packaged ``colony/config/gateway.yaml``, validated (shared with the hook)."""
    raw = _packaged()["tools"]
    try:
        return {str(name): _adapter(ToolRule).validate_python(rule) for name, rule in raw.items()}
    except ValidationError as exc:
        raise config_error(exc, source="colony/config/gateway.yaml", prefix="gateway.tools") from None


def _expand(value: str, where: str, source: str) -> str:
    try:
        return string.Template(value).substitute(os.environ)
    except KeyError as exc:
        raise ConfigError(where, f"environment variable {exc.args[0]!r} is not set", path=source) from None
    except ValueError as exc:
        raise ConfigError(where, f"bad $ placeholder: {exc}", path=source) from None


def _expand_upstream(name: str, raw: Any, source: str) -> Any:
    """``raw`` with ``${VAR}`` expanded in url, args, env and headers (other shapes pass to validation)."""
    if not isinstance(raw, Mapping):
        return raw
    out = dict(raw)
    base = f"gateway.upstreams.{name}"
    if isinstance(out.get("url"), str):
        out["url"] = _expand(out["url"], f"{base}.url", source)
    if isinstance(out.get("args"), list):
        out["args"] = [_expand(a, f"{base}.args[{i}]", source) if isinstance(a, str) else a for i, a in enumerate(out["args"])]
    for key in ("env", "headers"):
        if isinstance(out.get(key), Mapping):
            out[key] = {k: _expand(v, f"{base}.{key}.{k}", source) if isinstance(v, str) else v for k, v in out[key].items()}
    return out


def parse_gateway_config(data: Any, *, source: str = "<data>") -> GatewayConfig:
    """Validate already-parsed YAML; the first problem is a ConfigError naming its key."""
    if not isinstance(data, Mapping):
        raise ConfigError("gateway", f"expected a mapping, got {type(data).__name__}", path=source)
    raw = dict(data)
    overrides = raw.get("defaults") or {}
    if not isinstance(overrides, Mapping):
        raise ConfigError("gateway.defaults", "expected a mapping", path=source)
    raw["defaults"] = {**packaged_defaults(), **overrides}
    tools = raw.get("tools")
    tools = {} if tools is None else tools
    if not isinstance(tools, Mapping):
        raise ConfigError("gateway.tools", "expected a mapping", path=source)
    raw["tools"] = {**packaged_tools(), **tools}
    upstreams = raw.get("upstreams")
    if isinstance(upstreams, Mapping):
        raw["upstreams"] = {name: _expand_upstream(str(name), spec, source) for name, spec in upstreams.items()}
    for name, spec in (raw.get("upstreams") or {}).items():
        url = spec.get("url") if isinstance(spec, Mapping) else None
        if isinstance(url, str) and not url.startswith(("http://", "https://")):
            raise ConfigError(f"gateway.upstreams.{name}.url", "must be an http:// or https:// URL", path=source)
    try:
        config: GatewayConfig = _adapter(GatewayConfig).validate_python(raw)
    except ValidationError as exc:
        raise config_error(exc, source=source, prefix="gateway") from None
    return config


def load_gateway_config(path: str | os.PathLike[str]) -> GatewayConfig:
    """Read and validate a ``gateway.yaml``."""
    p = Path(path)
    return parse_gateway_config(read_yaml(p, "gateway"), source=str(p))
