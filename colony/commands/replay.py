"""``colony replay``: run the paired-locality replay and write its artefact.

Prints ``{path, sha256, semantic_digest, recovery_tick, assertions}`` as JSON; exits 1
if any record assertion is false. ``--change`` adds the record's separate ``change`` section
(the reviewer at the paired target with a risky and a safe change, after the colony has learned
from example outcomes) and its summary: each verdict with its learned risk, the hold threshold and
the riskiest lines; its assertions count too.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from colony.research.replay import DEFAULT_AGENT_TRUST, DEFAULT_RECOVERY_TICKS

DEFAULT_OUTPUT = "output/data/replay.json"


def register(subparsers: Any) -> None:
    """Add the ``replay`` subcommand."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "replay",
        help="run the paired-locality replay and write its JSON artefact",
        description="Run the paired-locality fixture twice through the kernel; exit 1 if any assertion fails.",
    )
    parser.add_argument("--agent-trust", type=float, default=DEFAULT_AGENT_TRUST, help="calibrated trust of the proposer")
    parser.add_argument("--recovery-ticks", type=int, default=DEFAULT_RECOVERY_TICKS, help="ticks of passive decay")
    parser.add_argument("--seed", type=int, default=0, help="reserved; nothing is random")
    parser.add_argument("--output", default=DEFAULT_OUTPUT, help=f"artefact path (default {DEFAULT_OUTPUT})")
    parser.add_argument(
        "--change",
        action="store_true",
        help="also show the change term: the reviewer at the paired target with a risky and a safe change, "
        "after the colony has learned from example outcomes (the record's separate 'change' section)",
    )
    parser.set_defaults(func=run)


def _change_summary(change: dict[str, Any]) -> dict[str, Any]:
    """Each verdict of the change section with its risk, threshold and riskiest lines, and its assertions."""
    out: dict[str, Any] = {"learned_outcomes": change["learned"]["outcomes"], "assertions": change["assertions"]}
    for key, v in change["proposals"].items():
        c = v.get("change")
        out[key] = {"decision": v["decision"], "gate_score": v["gate_score"]}
        if c is not None:
            lines = [f"{x['path']}:{x['line']} ({'+' if x['added'] else '-'}{x['score']:.2f})" for x in c["lines"]]
            out[key] |= {"risk": c["risk"], "threshold": c["threshold"], "held": c["held"], "riskiest_lines": lines}
    return out


def run(args: argparse.Namespace) -> int:
    """Run the replay, write the artefact, print a summary; 1 if an assertion failed."""
    from colony.research.replay import run_paired_locality_replay, write_replay_artifact

    record = run_paired_locality_replay(
        agent_trust=args.agent_trust, recovery_ticks=args.recovery_ticks, seed=args.seed, change=args.change
    )
    sha = write_replay_artifact(args.output, record)
    summary = {
        "path": str(args.output),
        "sha256": sha,
        "semantic_digest": record["semantic_digest"],
        "recovery_tick": record["recovery_tick"],
        "assertions": record["assertions"],
    }
    ok = all(record["assertions"].values())
    if "change" in record:
        summary["change"] = _change_summary(record["change"])
        ok = ok and all(record["change"]["assertions"].values())
    print(json.dumps(summary, indent=2, sort_keys=True))
    return 0 if ok else 1
