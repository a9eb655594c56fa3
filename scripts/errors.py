"""The one error a build stage raises when it stops the build."""

from __future__ import annotations

from colony.errors import ColonyError

__all__ = ["BuildError"]


class BuildError(ColonyError):
    """A build stage failed closed; ``stage`` says which and ``reason`` says why."""

    def __init__(self, stage: str, reason: str, *, details: tuple[str, ...] = ()) -> None:
        self.stage = stage
        self.reason = reason
        self.details = details
        super().__init__(f"{stage}: {reason}")
