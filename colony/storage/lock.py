"""One owning process per state file: an OS lock (``flock``) on a ``<state>.lock`` file beside it.

The lock belongs to the open file description, so the kernel drops it when it closes the state and the operating
system drops it when the process dies, SIGKILL included: nothing can go stale. The lock file holds the owner's
pid, for the error a second opener gets; the pid is only read while the lock is held, so it names the live owner.
``flock`` and SQLite's own ``fcntl`` byte-range locks do not interact, which is why the lock sits on a separate
file rather than on the database.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "state.sqlite")
>>> lock = StateFileLock.acquire(path)
>>> try:
...     StateFileLock.acquire(path)
... except StateLockedError as exc:
...     exc.pid == os.getpid()
True
>>> lock.release()
>>> StateFileLock.acquire(path).release()
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from colony.errors import StateLockedError, ValidationError

__all__ = ["StateFileLock", "lock_path_for"]

_POLL = 0.05


def lock_path_for(state_path: str | Path) -> Path:
    """The lock file that guards ``state_path``."""
    return Path(f"{state_path}.lock")


class StateFileLock:
    """An exclusive, process-owned lock on a state file (see the module docstring)."""

    __slots__ = ("_fd", "path", "state_path")

    def __init__(self, state_path: Path, fd: int) -> None:
        self.state_path = state_path
        self.path = lock_path_for(state_path)
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, state_path: str | Path, *, wait: float = 0.0) -> StateFileLock:
        """Own ``state_path``, waiting up to ``wait`` seconds for another owner to let go.

        Raises :class:`StateLockedError` (naming the file and the owner's pid) when it stays owned,
        and :class:`ValidationError` for a negative or non-finite ``wait`` or a lock file that cannot be opened.
        """
        if isinstance(wait, bool) or not isinstance(wait, int | float) or not wait >= 0 or wait == float("inf"):
            raise ValidationError("wait_lock", "must be a finite number of seconds ≥ 0", value=wait)
        state = Path(state_path)
        lock_file = lock_path_for(state)
        try:
            fd = os.open(lock_file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise ValidationError(
                "state_path", f"cannot open the lock file {str(lock_file)!r} ({exc})", value=str(state)
            ) from exc
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    owner = _read_pid(fd)
                    os.close(fd)
                    raise StateLockedError(str(state), owner, waited=wait) from None
                time.sleep(_POLL)
            except OSError as exc:
                os.close(fd)
                raise ValidationError("state_path", f"cannot lock {str(lock_file)!r} ({exc})", value=str(state)) from exc
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(state, fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Let go of the state file (idempotent). The lock file stays; an unheld lock file means nothing."""
        fd, self._fd = self._fd, None
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def _read_pid(fd: int) -> int | None:
    """The pid the current owner wrote, or None if it has not written it yet."""
    for _ in range(20):  # the owner writes its pid right after it takes the lock
        raw = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        if raw.isdigit():
            return int(raw)
        time.sleep(0.005)
    return None
