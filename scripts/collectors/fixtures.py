"""Values read from the code by probes in a fresh interpreter: inventory, MCP paired locality, tamper tests, threats.

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

import yaml

from scripts.collectors import CollectContext, collector
from scripts.errors import BuildError
from scripts.guarantees import claim_guarantees

TOOLS_ROOT = Path(__file__).resolve().parents[2]  # where ``scripts`` lives (also for a project elsewhere)
PROBE_TIMEOUT = 300
ROW_FIELDS = {  # the texts a claim's row carries in claims.yaml, by kind of row
    "threat": ("name", "measure", "prevents", "not_prevented"),
    "departure": ("what", "reference", "colony"),
}


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


@collector("threats", inputs=("{package}", "environment", "{manuscript}/claims.yaml"))
def threats(ctx: CollectContext) -> dict[str, Any]:
    """The threat model: each threat's row from the claim ledger, and what each lie buys against this code."""
    measured = _probe(ctx, "threats")
    rows = ledger_rows(ctx.config.manuscript / "claims.yaml", "threat")
    available = bool(measured.get("available"))
    return {
        "available": available,
        "reason": None if available else str(measured.get("reason", "")),
        "measured": measured,
        "rows": rows,
        "count": len(rows),
    }


@collector("departures", inputs=("{manuscript}/claims.yaml",))
def departures(ctx: CollectContext) -> dict[str, Any]:
    """Where colony departs from its reference design: one row per claim with a ``departure`` entry."""
    rows = ledger_rows(ctx.config.manuscript / "claims.yaml", "departure")
    return {"rows": rows, "count": len(rows)}


@collector("guarantees", inputs=("{manuscript}/claims.yaml",))
def guarantees(ctx: CollectContext) -> dict[str, Any]:
    """The claims that state a guarantee (prevents, detects, guarantees, ensures, never, cannot), with their tests.

    The list validate holds the prose's guarantees to (:mod:`scripts.guarantees`), in ledger order, for an
    appendix to print: ``<% for row in guarantees.rows %>`` with ``row.claim``, ``row.statement``, ``row.tests``.
    """
    claims = _ledger(ctx.config.manuscript / "claims.yaml").get("claims") or []
    rows = [
        {
            "claim": claim["id"],
            "status": claim.get("status"),
            "statement": " ".join(str(claim["statement"]).split()),
            "tests": list(claim.get("tests") or []),
        }
        for claim in claim_guarantees(claims)
    ]
    return {"rows": rows, "count": len(rows), "untested": [r["claim"] for r in rows if not r["tests"]]}


def _ledger(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise BuildError("variables", f"cannot read {path.name}: {exc}") from exc
    return data if isinstance(data, dict) else {}


def ledger_rows(path: Path, kind: str) -> list[dict[str, Any]]:
    """The claims that carry a ``kind`` entry (``threat`` or ``departure``), in their declared order, with their tests.

    Each row has the claim's id, status and tests and the entry's fields (:data:`ROW_FIELDS`), whitespace folded.
    """
    data = _ledger(path)
    fields = ROW_FIELDS[kind]
    rows = []
    for claim in data.get("claims") or []:
        entry = claim.get(kind) if isinstance(claim, dict) else None
        if not isinstance(entry, dict):
            continue
        missing = [k for k in fields if not str(entry.get(k, "")).strip()]
        if missing:
            raise BuildError("variables", f"{path.name}: {claim.get('id')}: {kind} needs {', '.join(missing)}")
        rows.append(
            {
                "claim": claim["id"],
                "status": claim.get("status"),
                "tests": list(claim.get("tests") or []),
                **{k: " ".join(str(entry[k]).split()) for k in fields},
                "order": int(entry.get("order", 0)),
            }
        )
    return sorted(rows, key=lambda r: (r["order"], r["claim"]))
