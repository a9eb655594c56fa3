"""The kernel package's docstring and ARCHITECTURE.md name each kernel module in the layer the import contract puts it in."""

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
    contract = _contract_layers()
    assert len(named) >= 20 and {m: contract.get(m) for m in named} == named  # consequence_memory was once "layer 1"


def test_the_contributors_map_lists_the_kernel_modules_in_the_contracts_layers() -> None:
    """ARCHITECTURE.md's table of layers names each kernel module where pyproject.toml's contract puts it."""
    rows = {
        int(m[1]): m[2]
        for m in re.finditer(r"^\| (\d)\. [^|]+\| (.+) \|$", (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8"), re.M)
    }
    core = re.search(r"colony\.kernel\.\{([^}]+)\}", rows[1])
    assert core is not None
    listed = {f"colony.kernel.{n.strip()}": 1 for n in core[1].split(",")}
    names = re.findall(r"`([a-z_]+)`", rows[3].split("store:", 1)[1])
    listed |= {f"colony.kernel.{n}": 3 for n in ["kernel", *names]}
    contract = _contract_layers()
    assert len(listed) >= 20 and {m: contract.get(m) for m in listed} == listed
