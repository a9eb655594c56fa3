"""The state options ``colony mcp`` and ``colony gateway`` share: ``--wait-lock`` and ``--tick-every``.

``--state`` itself stays with each command (its help differs); both accept a file path or a
``postgresql://`` URL, and default to ``$COLONY_STATE`` (:func:`colony.storage.options.default_state`).

>>> import argparse
>>> p = argparse.ArgumentParser()
>>> add_state_arguments(p)
>>> args = p.parse_args(["--wait-lock", "2.5"])
>>> args.wait_lock, args.tick_every
(2.5, None)
"""

from __future__ import annotations

import argparse
import math

__all__ = ["add_state_arguments", "seconds"]


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
