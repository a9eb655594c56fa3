"""Every policy constant, read from the live configuration (never retyped)."""

from __future__ import annotations

import json
import sys
from typing import Any

from scripts.collectors import CollectContext, collector

PROBE = """
import importlib, json, sys
try:
    module = importlib.import_module(sys.argv[1])
except ModuleNotFoundError as exc:
    if exc.name != sys.argv[1]:
        raise
    print("null")
else:
    print(json.dumps(module.default_policy().to_dict(), sort_keys=True))
"""


def _leaves(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_leaves(v) for v in value.values())
    return 1  # a scalar, or a list (one constant)


@collector("policy", inputs=("{package}", "env:COLONY_CONFIG"))
def policy(ctx: CollectContext) -> dict[str, Any]:
    """``<policy_module>.default_policy().to_dict()`` in a fresh interpreter (``{}`` without a policy module)."""
    module = ctx.config.policy_module
    if not module:
        return {}
    data = json.loads(ctx.run([sys.executable, "-c", PROBE, module]))
    return data if isinstance(data, dict) else {}


def policy_constant_count(tree: dict[str, Any]) -> int:
    """Count the leaves of a policy tree (a list counts as one constant)."""
    return _leaves(tree) if tree else 0
