"""Values read from the code by probes in a fresh interpreter: inventory, MCP paired locality, tamper tests.

Each probe (:mod:`scripts.collectors.probes`) imports the project's package and prints JSON;
a package without the parts a probe needs yields ``available: false`` rather than a value.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from scripts.collectors import CollectContext, collector
from scripts.errors import BuildError

TOOLS_ROOT = Path(__file__).resolve().parents[2]  # where ``scripts`` lives (also for a project elsewhere)
PROBE_TIMEOUT = 300


def _probe(ctx: CollectContext, name: str) -> dict[str, Any]:
    """Run ``scripts.collectors.probes.<name>`` on the project's package; parse its JSON."""
    path = os.pathsep.join([str(TOOLS_ROOT), str(ctx.config.root), os.environ.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-m", f"scripts.collectors.probes.{name}", ctx.config.package],
        cwd=ctx.config.root,
        env=dict(os.environ, PYTHONPATH=path),
        capture_output=True,
        text=True,
        check=False,
        timeout=PROBE_TIMEOUT,
    )
    if proc.returncode != 0:
        raise BuildError("variables", f"probe {name} failed with exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
    output = proc.stdout.strip()
    try:
        data = json.loads(output)
    except ValueError as exc:
        raise BuildError("variables", f"probe {name} printed no JSON: {output[-300:]!r}") from exc
    if not isinstance(data, dict):
        raise BuildError("variables", f"probe {name} printed {type(data).__name__}, not an object")
    return data


@collector("code", inputs=("{package}", "environment"))
def code(ctx: CollectContext) -> dict[str, Any]:
    """Subsystems and their size, MCP tools and annotations, ledger vocabulary, the falsification taxonomy."""
    return _probe(ctx, "inventory")


@collector("mcp_paired", inputs=("{package}", "environment"))
def mcp_paired(ctx: CollectContext) -> dict[str, Any]:
    """The paired-locality sequence through MCP tool calls on an in-memory server."""
    return _probe(ctx, "mcp_paired")


@collector("attestation", inputs=("{package}", "environment"))
def attestation(ctx: CollectContext) -> dict[str, Any]:
    """An intact attested chain, the statuses of tampered copies, and refused misuse."""
    return _probe(ctx, "tamper")
