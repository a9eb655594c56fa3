"""The state options ``colony mcp`` and ``colony gateway`` share: ``--wait-lock`` and ``--tick-every``.

``--state`` itself stays with each command (its help differs); both accept a file path or a
``postgresql://`` URL, and default to ``$COLONY_STATE``.

>>> import argparse
>>> p = argparse.ArgumentParser()
>>> add_state_arguments(p)
>>> args = p.parse_args(["--wait-lock", "2.5"])
>>> args.wait_lock, args.tick_every
(2.5, None)
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import threading
from collections.abc import Callable

from colony.errors import ValidationError

__all__ = ["Ticker", "add_state_arguments", "default_state", "seconds"]

log = logging.getLogger("colony.ticker")


def default_state() -> str | None:
    """``$COLONY_STATE`` (a file path or a ``postgresql://`` URL), or None when unset or empty."""
    return os.environ.get("COLONY_STATE") or None


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds ≥ 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds ≥ 0, got {text!r}")
    return value


def add_state_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--wait-lock SECONDS`` and ``--tick-every SECONDS`` to ``p``."""
    p.add_argument(
        "--wait-lock",
        type=seconds,
        default=0.0,
        metavar="S",
        help="a state file has one owning process: wait up to S seconds for another owner to close it (default: refuse)",
    )
    p.add_argument(
        "--tick-every",
        type=seconds,
        default=None,
        metavar="S",
        help="this server advances the colony's tick every S seconds (the one tick owner of a shared colony); "
        "without it, ticks come only from callers of the tick tool",
    )


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
