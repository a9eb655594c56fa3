"""The issue's two-writer scenario on a state file: one owning kernel, a second opener refused, nothing changed.

Real kernels in real processes on a real SQLite file: the second opener (a kernel, ``colony mcp``,
``colony agents add``) gets a StateLockedError naming the owner's pid and the file is byte-for-byte
unchanged; the owner's SIGKILL releases the file; ``--wait-lock`` waits for it; read-only openers
(``colony status --state``) work while it is owned.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from colony.errors import StateLockedError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.kernel.state_summary import summary
from colony.models import ActionProposal
from colony.storage import StateDB
from tests.conftest import make_proposal

ROOT = Path(__file__).resolve().parents[2]

# an owning kernel in its own process: records outcomes, prints "owned", then holds the file until killed or told
_OWNER = textwrap.dedent(
    """
    import sys, time
    from colony.kernel import ColonyKernel, ColonyKernelConfig
    from tests.conftest import make_proposal
    kernel = ColonyKernel(ColonyKernelConfig(state_path=sys.argv[1]))
    kernel.calibrate_agent("writer", trust_score=0.3)
    for i in range(5):
        p = make_proposal(agent_id="writer", target=f"pkg.m{i}")
        kernel.propose_action(p)
        kernel.record_outcome(p, {"summary": "ok"}, tests_passed=True)
    kernel.tick()
    print("owned", flush=True)
    time.sleep(float(sys.argv[2]))
    kernel.close()
    print("closed", flush=True)
    """
)


def _owner(state: Path, hold: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", _OWNER, str(state), str(hold)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "owned"
    return proc


def _digest(state: Path) -> str:
    """The state file and its WAL, hashed: what "state unchanged" means on disk."""
    h = hashlib.sha256()
    for part in (state, Path(f"{state}-wal")):
        h.update(part.read_bytes() if part.exists() else b"")
    return h.hexdigest()


def test_a_second_kernel_is_refused_with_the_owners_pid_and_the_file_is_unchanged(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    owner = _owner(state, 60)
    try:
        before = _digest(state)
        with pytest.raises(StateLockedError) as refused:
            ColonyKernel(ColonyKernelConfig(state_path=state))
        assert refused.value.pid == owner.pid and str(state) in str(refused.value)
        assert f"process {owner.pid}" in str(refused.value) and "--wait-lock" in str(refused.value)
        assert _digest(state) == before
        # the read-only opener works while the file is owned, and sees the owner's committed state
        ro = StateDB.open_read_only(state)
        try:
            seen = summary(ro)
        finally:
            ro.close()
        assert seen["tick_count"] == 1 and seen["role_distribution"] and seen["total_signals"] > 0
        with pytest.raises(Exception, match="readonly|read-only"):
            ro2 = StateDB.open_read_only(state)
            try:
                ro2.conn.execute("DELETE FROM kernel_traces")
            finally:
                ro2.close()
        assert _digest(state) == before
    finally:
        owner.kill()
        owner.wait()


def test_sigkill_of_the_owner_releases_the_file_with_its_committed_state(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    owner = _owner(state, 60)
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait()
    with ColonyKernel(ColonyKernelConfig(state_path=state)) as kernel:
        assert kernel.tick_count == 1
        assert kernel.agent_profile("writer").total_proposals == 3 + 5
        assert kernel.consequence_memory.count() == 5


def test_wait_lock_waits_for_the_owner_to_close(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    owner = _owner(state, 1.0)
    start = time.monotonic()
    with ColonyKernel(ColonyKernelConfig(state_path=state, wait_lock=30)) as kernel:
        waited = time.monotonic() - start
        assert kernel.tick_count == 1
    assert owner.stdout is not None and owner.stdout.readline().strip() == "closed"
    owner.wait()
    assert waited > 0.2  # it did wait: the owner held the file for a second after "owned"


@pytest.mark.e2e
def test_the_cli_openers_name_the_owner_and_read_only_status_works(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mini"\n')  # a project for `colony status`
    state = tmp_path / "colony.sqlite"
    owner = _owner(state, 60)
    try:
        before = _digest(state)
        server = subprocess.run(
            [sys.executable, "-m", "colony.server", "--state", str(state)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert server.returncode == 2 and f"is in use by process {owner.pid}" in server.stderr
        waited = subprocess.run(
            [sys.executable, "-m", "colony.cli", "agents", "add", "late", "--state", str(state), "--wait-lock", "0.3"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
        assert waited.returncode == 2 and "after waiting 0.3 s" in waited.stderr
        status = subprocess.run(
            [
                sys.executable,
                "-m",
                "colony.cli",
                "status",
                "--state",
                "colony.sqlite",
                "--json",
                "--no-resources",
                "--project",
                str(tmp_path),
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
        assert status.returncode == 0, status.stderr
        kernel = next(s for s in json.loads(status.stdout)["services"] if s["name"] == "kernel")
        assert kernel["details"]["tick_count"] == 1
        assert _digest(state) == before
    finally:
        owner.kill()
        owner.wait()


def test_an_in_memory_kernel_takes_no_lock_and_a_closed_one_lets_go(tmp_path: Path, proposal_factory) -> None:  # type: ignore[no-untyped-def]
    first, second = ColonyKernel(), ColonyKernel()  # in memory: no file, nothing to own
    first.close()
    second.close()
    state = tmp_path / "colony.sqlite"
    with ColonyKernel(ColonyKernelConfig(state_path=state)) as kernel:
        p: ActionProposal = proposal_factory()
        kernel.propose_action(p)
    with ColonyKernel(ColonyKernelConfig(state_path=state)) as again:  # closed: the next opener owns it
        assert again.get_proposal(p.proposal_id) is not None


def test_ledger_verify_reads_a_state_file_its_kernel_owns(tmp_path: Path) -> None:
    state = tmp_path / "colony.sqlite"
    key = "0123456789abcdef0123456789abcdef"
    (tmp_path / "key").write_text(key)
    with ColonyKernel(ColonyKernelConfig(state_path=state, attestation_mode="optional", attestation_key=key)) as kernel:
        kernel.calibrate_agent("agent-a", trust_score=0.5)
        kernel.propose_action(make_proposal())
        verified = subprocess.run(  # another process, while this one owns the file
            [
                sys.executable,
                "-m",
                "colony.cli",
                "ledger",
                "verify",
                str(state),
                "--hmac-key-file",
                str(tmp_path / "key"),
                "--json",
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert '"valid": true' in verified.stdout


def test_the_summary_reads_a_shared_database_too(pg_url: str) -> None:
    from colony.storage import open_state

    with ColonyKernel(ColonyKernelConfig(state_path=pg_url)) as kernel:
        kernel.calibrate_agent("agent-a", trust_score=0.5)
        kernel.record_outcome(make_proposal(), {}, tests_passed=False)
        kernel.tick()
    db = open_state(pg_url)
    try:
        seen = summary(db)
    finally:
        db.close()
    assert seen["tick_count"] == 1 and seen["total_signals"] == 2 and sum(seen["role_distribution"].values()) == 1
