"""The kernel package's docstring names each module in the layer the import contract (pyproject.toml) puts it in."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import colony.kernel

ROOT = Path(__file__).resolve().parents[2]


def _contract_layers() -> dict[str, int]:
    """``colony.kernel.<module>`` → its layer, counted from the bottom (1: the kernel core)."""
    contract = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contract if c["id"] == "layers")["layers"]
    found = {}
    for number, layer in enumerate(reversed(layers), 1):
        for name in re.split(r"[\s:|]+", layer.replace("\\", " ")):
            if name.startswith("colony.kernel."):
                found[name] = number
    return found


def test_the_docstring_layers_are_the_contracts() -> None:
    doc = colony.kernel.__doc__ or ""
    named: dict[str, int] = {}
    for number, text in re.findall(r"Layer (\d) \(.*?\):(.*?)(?=Layer \d \(|\n\n)", doc, flags=re.S):
        for module in re.findall(r":mod:`~(colony\.kernel\.\w+)`", text):
            named[module] = int(number)
    assert named == _contract_layers()  # consequence_memory and retention were once called layer 1
    on_disk = {f"colony.kernel.{p.stem}" for p in Path(colony.kernel.__file__).parent.glob("*.py") if p.stem != "__init__"}
    assert set(named) == on_disk
