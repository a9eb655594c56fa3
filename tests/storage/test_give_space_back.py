"""A state file that gives space back (issue #27, item 11): pruning shrinks it, and colony_status says so.

After 200k one-shot agents were pruned the file stayed at 138 MB: SQLite keeps freed pages in the file unless it
vacuums. A state file is now created with ``auto_vacuum = INCREMENTAL``, and each tick's retention step cuts the
freed pages off (a bounded slice per tick); ``colony_status()["retention"]`` reports the pages freed and the size.
"""

from __future__ import annotations

import dataclasses
import os
import sqlite3
from pathlib import Path

from colony.config import default_policy
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.storage import StateDB
from colony.storage.sqlite import VACUUM_PAGES
from tests.conftest import make_proposal

POLICY = default_policy()
RATIONALE = "Fix the off-by-one in the tick counter, as the failing test shows. " * 40  # about 2.7 KB a proposal


def _kernel(state: Path) -> ColonyKernel:
    retention = dataclasses.replace(POLICY.retention, proposal_ticks=2, profile_idle_ticks=10_000, sweep_rows=5_000)
    return ColonyKernel(ColonyKernelConfig(policy=dataclasses.replace(POLICY, retention=retention), state_path=state))


def _on_disk(state: Path) -> int:
    """The file's size once its write-ahead log is checkpointed (what a closed state file measures)."""
    conn = sqlite3.connect(state)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return os.path.getsize(state)


def test_pruning_many_proposals_shrinks_the_state_file(tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    kernel = _kernel(state)
    for i in range(3_000):
        kernel.propose_action(make_proposal(agent_id="agent-a", proposal_id=f"p-{i}", rationale=RATIONALE))
    full = kernel.colony_status()["retention"]
    assert full["incremental_vacuum"] == 1 and full["pages_freed"] == 0
    full_on_disk = _on_disk(state)
    for _ in range(3 + full["file_bytes"] // (VACUUM_PAGES * 4096) + 2):  # the prune, then the bounded slices
        kernel.tick()
    after = kernel.colony_status()["retention"]
    kernel.close()
    assert after["proposals_pruned"] >= 2_998
    assert after["pages_freed"] > 1_500 and after["free_pages"] == 0  # given back, not only kept for reuse
    assert after["file_bytes"] < full["file_bytes"] / 4
    assert _on_disk(state) < full_on_disk / 4
    reopened = StateDB(state)
    try:
        assert reopened.space()["pages_freed"] == after["pages_freed"]  # counted in the file, across restarts
    finally:
        reopened.close()


def test_a_file_made_without_incremental_vacuum_keeps_its_size_and_says_so(tmp_path: Path) -> None:
    state = tmp_path / "old.sqlite"
    StateDB(state).close()
    conn = sqlite3.connect(state)  # what an earlier colony made: auto_vacuum off (setting it needs a full VACUUM)
    conn.execute("PRAGMA auto_vacuum = NONE")
    conn.execute("VACUUM")
    conn.close()
    kernel = _kernel(state)
    try:
        for i in range(200):
            kernel.propose_action(make_proposal(agent_id="agent-a", proposal_id=f"p-{i}", rationale=RATIONALE))
        for _ in range(4):
            kernel.tick()
        status = kernel.colony_status()["retention"]
        assert status["proposals_pruned"] >= 198
        assert status["incremental_vacuum"] == 0 and status["pages_freed"] == 0 and status["free_pages"] > 0
    finally:
        kernel.close()


def test_an_in_memory_state_reports_no_file(tmp_path: Path) -> None:
    kernel = ColonyKernel(ColonyKernelConfig())
    kernel.tick()
    status = kernel.colony_status()["retention"]
    assert {k: status[k] for k in ("incremental_vacuum", "pages_freed", "free_pages", "file_bytes")} == dict.fromkeys(
        ("incremental_vacuum", "pages_freed", "free_pages", "file_bytes"), 0
    )
