"""The tiny policy, read from ``config/policy.yaml`` inside the package."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


@dataclass(frozen=True)
class TinyPolicy:
    """A frozen view of the policy file."""

    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """Return the policy as plain data."""
        return dict(self.data)


def default_policy() -> TinyPolicy:
    """Load the packaged policy."""
    text = (Path(__file__).parent / "config" / "policy.yaml").read_text(encoding="utf-8")
    return TinyPolicy(yaml.safe_load(text))
