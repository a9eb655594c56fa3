"""One owner per state file, not per spelling: symlinks, hardlinks and ``..`` spellings meet the same lock.

Issue #27: with the lock keyed on the path string, a hardlink let a second kernel write the same file through a
second WAL and 30 of 60 acknowledged outcomes were lost. Real kernels in real processes on a real SQLite file.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from colony.errors import StateLockedError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.storage.lock import StateFileLock
from tests.conftest import make_proposal

ROOT = Path(__file__).resolve().parents[2]

# an owning kernel in its own process: records N acknowledged outcomes, prints "owned", then waits for a line
_OWNER = textwrap.dedent(
    """
    import sys
    from colony.kernel import ColonyKernel, ColonyKernelConfig
    from tests.conftest import make_proposal
    kernel = ColonyKernel(ColonyKernelConfig(state_path=sys.argv[1]))
    kernel.calibrate_agent("writer", trust_score=0.3)
    for i in range(int(sys.argv[2])):
        p = make_proposal(agent_id="writer", target=f"pkg.m{i}", proposal_id=f"first-{i}")
        kernel.propose_action(p)
        kernel.record_outcome(p, {"summary": "ok"}, tests_passed=True)
    print("owned", flush=True)
    sys.stdin.readline()
    kernel.close()
    """
)


def _spellings(tmp_path: Path, state: Path) -> dict[str, Path]:
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "sym.sqlite").symlink_to(state)
    os.link(state, tmp_path / "links" / "hard.sqlite")
    return {
        "symlink": tmp_path / "links" / "sym.sqlite",
        "hardlink": tmp_path / "links" / "hard.sqlite",
        "dotdot": tmp_path / "links" / ".." / state.name,
    }


@pytest.mark.parametrize("kind", ["symlink", "hardlink", "dotdot"])
def test_every_spelling_of_one_file_meets_the_same_lock(tmp_path: Path, kind: str) -> None:
    state = tmp_path / "state.sqlite"
    held = StateFileLock.acquire(state)
    try:
        with pytest.raises(StateLockedError) as refused:
            StateFileLock.acquire(_spellings(tmp_path, state)[kind])
        assert refused.value.pid == os.getpid()
        assert f"process {os.getpid()}" in str(refused.value)
    finally:
        held.release()
    StateFileLock.acquire(state).release()


def test_a_kernel_on_a_hardlink_is_refused_and_no_acknowledged_outcome_is_lost(tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    owner = subprocess.Popen(
        [sys.executable, "-c", _OWNER, str(state), "30"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert owner.stdin is not None and owner.stdout is not None
    acknowledged = 0
    try:
        assert owner.stdout.readline().strip() == "owned"
        acknowledged += 30
        hard = tmp_path / "hard.sqlite"
        os.link(state, hard)
        with pytest.raises(StateLockedError) as refused:
            ColonyKernel(ColonyKernelConfig(state_path=hard))
        assert refused.value.pid == owner.pid
        assert not Path(f"{hard}-wal").exists()  # the refused kernel never opened a second WAL
    finally:
        owner.stdin.write("\n")
        owner.stdin.flush()
        assert owner.wait(timeout=60) == 0
    # the refused opener's would-be outcomes, written through the owner's file once it let go, on the hardlink
    kernel = ColonyKernel(ColonyKernelConfig(state_path=tmp_path / "hard.sqlite"))
    try:
        for i in range(30):
            p = make_proposal(agent_id="writer", target=f"pkg.n{i}", proposal_id=f"second-{i}")
            kernel.propose_action(p)
            kernel.record_outcome(p, {"summary": "ok"}, tests_passed=True)
        acknowledged += 30
    finally:
        kernel.close()
    reopened = ColonyKernel(ColonyKernelConfig(state_path=state))
    try:
        stored = reopened.consequence_memory.count()
    finally:
        reopened.close()
    lost = acknowledged - stored
    assert acknowledged == 60 and lost == 0
