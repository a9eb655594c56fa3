"""The state-file lock: one owner, a clear error naming the owner's pid, release on close and on SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from colony.errors import StateLockedError, ValidationError
from colony.storage.lock import StateFileLock, lock_path_for

_HOLDER = textwrap.dedent(
    """
    import sys, time
    from colony.storage.lock import StateFileLock
    lock = StateFileLock.acquire(sys.argv[1])
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
    lock.release()
    """
)


def _holder(state: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(state), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_owner_in_the_same_process_is_refused_with_the_pid(tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    first = StateFileLock.acquire(state)
    with pytest.raises(StateLockedError) as caught:
        StateFileLock.acquire(state)
    assert caught.value.pid == os.getpid()
    assert str(state) in str(caught.value) and str(os.getpid()) in str(caught.value)
    first.release()
    assert not first.held
    first.release()  # idempotent
    StateFileLock.acquire(state).release()


def test_another_process_owner_is_named_and_sigkill_releases_the_lock(tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    proc = _holder(state, 60)
    try:
        with pytest.raises(StateLockedError) as caught:
            StateFileLock.acquire(state)
        assert caught.value.pid == proc.pid
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        # the lock file (with the dead pid in it) is still there, and it does not matter
        assert lock_path_for(state).read_text().strip() == str(proc.pid)
        StateFileLock.acquire(state).release()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_wait_takes_the_lock_once_the_owner_lets_go(tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    proc = _holder(state, 0.5)
    try:
        started = time.monotonic()
        lock = StateFileLock.acquire(state, wait=30)
        assert lock.held
        assert proc.wait(timeout=10) == 0
        assert time.monotonic() - started < 30
        lock.release()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_wait_that_runs_out_says_how_long_it_waited(tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    held = StateFileLock.acquire(state)
    try:
        with pytest.raises(StateLockedError, match="after waiting 0.2 s"):
            StateFileLock.acquire(state, wait=0.2)
    finally:
        held.release()


@pytest.mark.parametrize("wait", [-1, float("nan"), float("inf"), True, "5"])
def test_a_bad_wait_is_a_validation_error(tmp_path: Path, wait: object) -> None:
    with pytest.raises(ValidationError, match="wait_lock"):
        StateFileLock.acquire(tmp_path / "state.sqlite", wait=wait)  # type: ignore[arg-type]
    assert not lock_path_for(tmp_path / "state.sqlite").exists()


def test_an_unopenable_lock_file_is_a_validation_error(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="state_path"):
        StateFileLock.acquire(tmp_path / "missing-dir" / "state.sqlite")
