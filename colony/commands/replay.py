"""``colony replay``: run the paired-locality replay and write its artefact.

Prints ``{path, sha256, semantic_digest, recovery_tick, assertions}`` as JSON; exits 1
if any record assertion is false.
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
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the replay, write the artefact, print a summary; 1 if an assertion failed."""
    from colony.research.replay import run_paired_locality_replay, write_replay_artifact

    record = run_paired_locality_replay(agent_trust=args.agent_trust, recovery_ticks=args.recovery_ticks, seed=args.seed)
    sha = write_replay_artifact(args.output, record)
    summary = {
        "path": str(args.output),
        "sha256": sha,
        "semantic_digest": record["semantic_digest"],
        "recovery_tick": record["recovery_tick"],
        "assertions": record["assertions"],
    }
    print(json.dumps(summary, indent=2, sort_keys=True))
    return 0 if all(record["assertions"].values()) else 1
