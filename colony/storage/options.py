"""What ``colony mcp`` and ``colony gateway`` share about their state: ``$COLONY_STATE`` and the ticker.

Their flags (``--wait-lock``, ``--tick-every``) are parsed in :mod:`colony.commands._state_options`.
``--state`` accepts a file path or a ``postgresql://`` URL and defaults to ``$COLONY_STATE``.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable

from colony.errors import ValidationError

__all__ = ["Ticker", "default_state"]

log = logging.getLogger("colony.ticker")


def default_state() -> str | None:
    """``$COLONY_STATE`` (a file path or a ``postgresql://`` URL), or None when unset or empty."""
    return os.environ.get("COLONY_STATE") or None


class Ticker:
    """Call ``tick()`` every ``every`` seconds on a daemon thread until :meth:`stop` (``--tick-every``).

    A failed tick (e.g. the database is restarting) is logged and tried again at the next
    period; ticks are never made up, so the colony's tick counts the ticks that happened.
    """

    def __init__(self, tick: Callable[[], object], every: float) -> None:
        if not every > 0:
            raise ValidationError("--tick-every", "must be > 0 seconds", value=every)
        self._tick, self._every = tick, every
        self._stop = threading.Event()
        self.ticks = 0
        self._thread = threading.Thread(target=self._run, name="colony-ticker", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            try:
                self._tick()
                self.ticks += 1
            except Exception as exc:  # keep ticking once the store is back
                log.warning("tick failed: %s", exc)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5 * self._every + 5)
