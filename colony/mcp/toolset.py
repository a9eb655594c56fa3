"""ColonyTools: the MCP tools as plain methods over one lazily created, serialised kernel.

JSON in, JSON out: every method takes JSON-shaped arguments and returns a JSON object.
Bad input and refused operations come back as ``{"error": message}`` with nothing
changed; a verdict of HOLD or REFUSE is a normal result. Exceptions are translated to
results in exactly one place (:meth:`ColonyTools.invoke`); an unexpected one is logged with
its traceback here and reaches the caller only as ``"internal error (logged)"``.

The methods are the tools of :data:`colony.mcp.tools.TOOLS`, one per row, each checked by its
function's annotations (:meth:`colony.mcp.spec.ToolSpec.check`) before it runs.

>>> tools = ColonyTools()
>>> tools.colony_agent_profile("new-agent")["role"]
'sandbox'
>>> tools.colony_pheromone_query("pkg.mod", "smell")["error"]
"signal_type: unknown signal type 'smell'; expected one of ['failure', 'success', 'risk', 'need', 'dependency', 'human_priority']"
>>> tools.colony_record_outcome("a", "patch_file", "pkg.mod", "ok", 1)["error"]
'tests_passed: must be a boolean (true or false), got int'
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import logging
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from colony.config import Policy
from colony.errors import ColonyError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.mcp.spec import ToolSpec
from colony.mcp.tools import TOOLS

__all__ = ["INTERNAL_ERROR", "ColonyTools"]

log = logging.getLogger("colony.mcp")

INTERNAL_ERROR = "internal error (logged)"


class ColonyTools:
    """The colony MCP tools bound to one kernel.

    Parameters:
        config: how to build the kernel on first use (default: in-memory, attestation off).
        kernel: an existing kernel to use instead (``config`` is then ignored).

    Calls are serialised on one lock, so a proposal and its bookkeeping are one step.
    """

    def __init__(self, config: ColonyKernelConfig | None = None, *, kernel: ColonyKernel | None = None) -> None:
        if kernel is not None:
            config, policy = kernel.config, kernel.policy
        else:
            config = config or ColonyKernelConfig()
            policy = config.resolve_policy()
            config = dataclasses.replace(config, policy=policy)  # loaded once, here: a bad policy fails now
        self._config = config
        self._policy = policy
        self._kernel = kernel
        self._lock = threading.RLock()

    @property
    def config(self) -> ColonyKernelConfig:
        """The kernel configuration (known before the kernel exists)."""
        return self._config

    @property
    def policy(self) -> Policy:
        """The policy in force (known before the kernel exists)."""
        return self._policy

    @property
    def attestation_enabled(self) -> bool:
        """Whether the attested lifecycle tools apply."""
        return self._config.attestation_mode != "disabled"

    @property
    def kernel(self) -> ColonyKernel:
        """The kernel, created on first use."""
        with self._lock:
            if self._kernel is None:
                self._kernel = ColonyKernel(self._config)
            return self._kernel

    def close(self) -> None:
        """Close the kernel if it was created."""
        with self._lock:
            if self._kernel is not None:
                self._kernel.close()
                self._kernel = None

    # ------------------------------------------------------------- calling
    def invoke(self, spec: ToolSpec, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Run ``spec``'s tool with already checked ``arguments`` (an MCP call: the SDK checked them)."""
        return self._guarded(spec, lambda: spec.fn(self.kernel, **arguments))

    def call(self, spec: ToolSpec, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """Run ``spec``'s tool as a plain call: its annotations check the arguments first."""
        return self._guarded(spec, lambda: spec.fn(self.kernel, **spec.check(args, kwargs)))

    def _guarded(self, spec: ToolSpec, run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Serialise the call on the lock (unless the tool reads no kernel state); any exception becomes ``{"error": ...}``."""
        try:
            with self._lock if spec.serialised else contextlib.nullcontext():
                return run()
        except ColonyError as exc:
            return {"error": str(exc)}
        except Exception:
            log.exception("MCP tool %s failed", spec.name)
            return {"error": INTERNAL_ERROR}

    if TYPE_CHECKING:  # the tool methods are attached below, one per row of the table

        def __getattr__(self, name: str) -> Callable[..., dict[str, Any]]: ...


def _plain_method(spec: ToolSpec) -> Callable[..., dict[str, Any]]:
    def method(self: ColonyTools, /, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return self.call(spec, *args, **kwargs)

    method.__name__ = spec.name
    method.__qualname__ = f"ColonyTools.{spec.name}"
    method.__doc__ = spec.fn.__doc__
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    method.__signature__ = spec.signature.replace(parameters=[self_param, *spec.signature.parameters.values()])  # type: ignore[attr-defined]
    return method


for _spec in TOOLS:
    setattr(ColonyTools, _spec.name, _plain_method(_spec))
