"""ColonyKernel and the subsystems it orchestrates: the Colony kernel.

Layer 1 (the kernel core, no storage): :mod:`~colony.kernel.actuation_gate` (the gate) with
:mod:`~colony.kernel.gate_inputs`, :mod:`~colony.kernel.pheromone_store` (the decaying field, its traces
and their arithmetic) with :mod:`~colony.kernel.pheromone_index` (where they are kept),
:mod:`~colony.kernel.trust`, :mod:`~colony.kernel.role_adapter`, :mod:`~colony.kernel.resource_ledger`
(budget), :mod:`~colony.kernel.pruning_daemon`, :mod:`~colony.kernel.outcomes`, :mod:`~colony.kernel.limits`,
:mod:`~colony.kernel.memory_rows`, and the change measured as evidence: :mod:`~colony.kernel.change`,
:mod:`~colony.kernel.change_parse`, :mod:`~colony.kernel.change_risk`, :mod:`~colony.kernel.change_prior` and
:mod:`~colony.kernel.risk_window`.
Layer 3 (above storage and attestation): :mod:`~colony.kernel.kernel`, the one orchestrator, and the parts
of it that keep their state in a store: :mod:`~colony.kernel.kernel_config` (how to build one),
:mod:`~colony.kernel.state_sync` (the subsystems kept in line with the store),
:mod:`~colony.kernel.state_summary`, :mod:`~colony.kernel.recording` (outcomes and deposits),
:mod:`~colony.kernel.attested` (the attested lifecycle), :mod:`~colony.kernel.consequence_memory` (what
outcomes did), :mod:`~colony.kernel.change_memory` (what each change did) and :mod:`~colony.kernel.retention`
(what the kernel forgets, and when).

The package re-exports what the API spec imports from ``colony.kernel``, lazily, so importing a core module
(``colony.kernel.trust``) never loads the orchestrator and its storage.

>>> from colony.kernel import ColonyKernel
>>> ColonyKernel().tick_count
0
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from colony.kernel.kernel import ColonyKernel
    from colony.kernel.kernel_config import ATTESTATION_MODES, ColonyKernelConfig

__all__ = ["ATTESTATION_MODES", "ColonyKernel", "ColonyKernelConfig"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("colony.kernel.kernel"), name)
    raise AttributeError(f"module 'colony.kernel' has no attribute {name!r}")
