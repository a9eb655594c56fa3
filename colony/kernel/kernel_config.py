"""ColonyKernelConfig: how to build a kernel (its state, policy, repository, attestation and clock).

>>> ColonyKernelConfig(attestation_mode="sometimes")
Traceback (most recent call last):
...
colony.errors.ValidationError: attestation_mode: must be one of disabled, optional, required; got 'sometimes'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from colony.config import Policy, default_policy, load_policy
from colony.errors import ValidationError

__all__ = ["ATTESTATION_MODES", "ColonyKernelConfig"]

ATTESTATION_MODES = ("disabled", "optional", "required")


@dataclass(frozen=True)
class ColonyKernelConfig:
    """How to build a kernel.

    Parameters:
        state_path: where the whole kernel state lives: a SQLite file (owned by this kernel's process
            while it is open), a ``postgresql://`` URL (one colony shared by processes and hosts; see
            :mod:`colony.storage.postgres`), or None (in memory).
        wait_lock: seconds to wait for another process that owns the state file (0: refuse at once
            with a StateLockedError naming it).
        config_dir: directory with a ``policy.yaml`` (None: ``$COLONY_CONFIG`` or the packaged policy).
        policy: an already-loaded policy (wins over ``config_dir``).
        repo_root: the only tree repository-aware checks and pruning may read or move files in.
        repo_checks_on_propose: also run the repository-aware import-cycle check on every proposal
            (a directory walk per proposal; by default only :meth:`ColonyKernel.falsify_plan` uses it).
        attestation_mode: ``"disabled"``, ``"optional"`` or ``"required"``.
        attestation_key: HMAC key (≥ 16 bytes) or, with ``attestation_algorithm="ed25519"``, a
            32-byte private key; None reads ``COLONY_ATTESTATION_KEY`` / ``COLONY_ATTESTATION_ED25519_KEY``.
        clock: wall-clock source for timestamps and the budget period (injectable for replay).
        run_id: attestation run id (default: persisted in the state file, or a new one).
        change_prior: the cold-start prior of the learned change risk: ``"policy"`` (the one ``change.prior``
            names: the packaged prior, or none), a path to another prior file, or None (start from zero).
    """

    state_path: str | Path | None = None
    wait_lock: float = 0.0
    config_dir: str | Path | None = None
    policy: Policy | None = None
    repo_root: str | Path | None = None
    repo_checks_on_propose: bool = False
    attestation_mode: str = "disabled"
    attestation_key: bytes | str | None = field(default=None, repr=False)
    attestation_algorithm: str = "hmac"
    clock: Callable[[], float] = time.time
    run_id: str | None = None
    change_prior: str | Path | None = "policy"

    def resolve_policy(self) -> Policy:
        """The policy this configuration names: ``policy``, else ``config_dir``'s, else the one in force."""
        if self.policy is not None:
            return self.policy
        return load_policy(self.config_dir) if self.config_dir is not None else default_policy()

    def __post_init__(self) -> None:
        if self.attestation_mode not in ATTESTATION_MODES:
            raise ValidationError(
                "attestation_mode",
                f"must be one of {', '.join(ATTESTATION_MODES)}; got {self.attestation_mode!r}",
                value=self.attestation_mode,
            )
        if self.attestation_algorithm not in ("hmac", "ed25519"):
            raise ValidationError("attestation_algorithm", "must be 'hmac' or 'ed25519'", value=self.attestation_algorithm)
