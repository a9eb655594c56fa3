"""Which datasets a history study reads from a data directory: the configured ones, else every one it holds.

>>> from colony.history.config import load_history_config
>>> studied_datasets(load_history_config(), "data/history")
['aider', 'openhands']
"""

from __future__ import annotations

from pathlib import Path

from colony.errors import ValidationError
from colony.history.config import HistoryConfig

__all__ = ["studied_datasets"]


def studied_datasets(cfg: HistoryConfig, data_dir: str | Path) -> list[str]:
    """The configured datasets, when ``data_dir`` holds them; else every dataset it holds (a user's own)."""
    held = sorted(p.name[: -len(".manifest.json")] for p in Path(data_dir).glob("*.manifest.json"))
    if not held:
        raise ValidationError("--data", f"{data_dir} holds no dataset (<name>.manifest.json; see colony history extract)")
    present = [n for n in cfg.datasets if n in held]
    if not present:
        return held
    missing = [n for n in cfg.datasets if n not in held]
    if missing:
        files = ", ".join(f"{n}.manifest.json" for n in missing)
        raise ValidationError("--data", f"{data_dir} lacks the configured datasets {missing} (no {files}; it holds {held})")
    return present
