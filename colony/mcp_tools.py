"""The eight colony MCP tools as plain functions: JSON in, JSON out (the seed's module name).

A thin shim over the one table, :data:`colony.mcp.tools.TOOLS`: each function is that row's
tool, checked by its annotations. All of them route through one module-level :class:`~colony.mcp.toolset.ColonyTools`
(``_tools``), created lazily on first call around a full :class:`~colony.kernel.ColonyKernel`;
calls are serialised on its lock. :func:`configure` chooses the kernel configuration
(state file, policy directory, repository root, attestation) before first use.

Errors come back as ``{"error": message}`` and change nothing; HOLD and REFUSE are
normal results.

>>> from colony.mcp_tools import colony_agent_profile, colony_pheromone_query
>>> colony_agent_profile("engineer-1")["trust_score"]
0.1
>>> colony_pheromone_query("pkg.mod", "failure")
{'signals': []}
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.mcp.spec import ToolSpec
from colony.mcp.tools import TOOL_NAMES, TOOLS
from colony.mcp.toolset import ColonyTools

__all__ = ["TOOL_NAMES", "ColonyTools", "configure", "get_kernel", "get_tools", "reset", *TOOL_NAMES]

_tools: ColonyTools | None = None
_config: ColonyKernelConfig | None = None
_init_lock = threading.Lock()


def configure(config: ColonyKernelConfig | None = None) -> ColonyTools:
    """Set the configuration of the singleton (closing a previous one) and return it, not yet started."""
    global _tools, _config
    with _init_lock:
        if _tools is not None:
            _tools.close()
        _config = config
        _tools = ColonyTools(config)
        return _tools


def get_tools() -> ColonyTools:
    """The singleton toolset, created on first use."""
    global _tools
    if _tools is None:
        with _init_lock:
            if _tools is None:
                _tools = ColonyTools(_config)
    return _tools


def get_kernel() -> ColonyKernel:
    """The singleton's kernel, created on first use."""
    return get_tools().kernel


def reset() -> None:
    """Close and forget the singleton and its configuration (the next call starts a default kernel)."""
    global _tools, _config
    with _init_lock:
        if _tools is not None:
            _tools.close()
        _tools = None
        _config = None


def _shim(spec: ToolSpec) -> Callable[..., dict[str, Any]]:
    def tool(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return get_tools().call(spec, *args, **kwargs)

    tool.__name__ = tool.__qualname__ = spec.name
    tool.__doc__ = spec.fn.__doc__
    tool.__signature__ = spec.signature  # type: ignore[attr-defined]
    return tool


_FUNCTIONS = {spec.name: _shim(spec) for spec in TOOLS if not spec.attested}


def __getattr__(name: str) -> Callable[..., dict[str, Any]]:
    """The eight tools as functions over the singleton (``colony_propose_action(agent_id, ...)`` and so on)."""
    try:
        return _FUNCTIONS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
