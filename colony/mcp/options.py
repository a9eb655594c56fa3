"""How an MCP server is served: :class:`ServeOptions` and the defaults ``colony mcp`` and ``colony gateway`` share.

Nothing here loads the MCP SDK, so the commands can declare their options from these
defaults without it (``colony --help`` stays fast); :mod:`colony.mcp.serving` acts on them.

>>> ServeOptions.from_mapping({"http": True, "port": 0, "allowed_host": ["h.example"], "unrelated": 1})
ServeOptions(http=True, host='127.0.0.1', port=0, allow_remote=False, allowed_origin=(), allowed_host=('h.example',), trusted_proxy=(), auth='auto', session_idle_timeout=300.0, max_sessions=512, agent_id=None, registry_only=False, state=None, wait_lock=0.0, tick_every=None)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = ["AUTH_MODES", "DEFAULT_PORT", "MAX_SESSIONS", "SESSION_IDLE_TIMEOUT_S", "ServeOptions"]

#: ``colony mcp``'s HTTP port.
DEFAULT_PORT: Final = 8765
#: Seconds without a request after which a (handshake-era) session is closed; the SDK's default is 30 minutes.
SESSION_IDLE_TIMEOUT_S: Final = 300.0
#: Open sessions at most (about 37 KB each); a client that would open one more gets 503 until one ends.
MAX_SESSIONS: Final = 512
#: ``--auth``: each registered agent's own token, one shared token, or agents when the state has any.
AUTH_MODES: Final = ("auto", "shared", "agents")


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """Where and for whom a server serves (the command-line options, by their ``--name``).

    ``http`` False serves stdio; the HTTP fields then do not apply. ``agent_id`` binds a
    stdio server (``colony gateway``: names whom it acts for); ``state`` is the colony state
    (a path or a ``postgresql://`` URL) holding the agent registry; ``wait_lock`` and
    ``tick_every`` are seconds (None: no ticker). ``trusted_proxy``: the addresses (or networks) whose
    ``X-Forwarded-For`` names the client; from anyone else forwarded headers are ignored.
    """

    http: bool = False
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    allow_remote: bool = False
    allowed_origin: tuple[str, ...] = ()
    allowed_host: tuple[str, ...] = ()
    trusted_proxy: tuple[str, ...] = ()
    auth: str = "auto"
    session_idle_timeout: float = SESSION_IDLE_TIMEOUT_S
    max_sessions: int = MAX_SESSIONS
    agent_id: str | None = None
    registry_only: bool = False
    state: str | Path | None = None
    wait_lock: float = 0.0
    tick_every: float | None = None

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> ServeOptions:
        """The options among ``values`` (e.g. a parsed command line's ``vars``); other keys are ignored."""
        names = {f.name for f in dataclasses.fields(cls)}
        given = {k: v for k, v in values.items() if k in names}
        for key in ("allowed_origin", "allowed_host", "trusted_proxy"):
            if key in given:
                given[key] = tuple(given[key])
        return cls(**given)
