"""One owning process per state file: an OS lock (``flock``) on the state file itself, keyed on its identity.

The lock sits on the database file's inode, not on a spelling of its path: a symlink, a hardlink or a ``..``
spelling of the same file all meet the same lock, so two kernels can never write one file through two names (with
two WAL files, which loses acknowledged writes). The lock belongs to the open file description, so the kernel drops
it when it closes the state and the operating system drops it when the process dies, SIGKILL included: nothing can
go stale. ``flock`` and SQLite's own ``fcntl`` byte-range locks are independent on Linux and macOS, so the lock does
not disturb SQLite's locking (on NFS, Linux emulates ``flock`` with ``fcntl``: keep a state file on a local disk).

The owner also writes its pid to a ``<state>.lock`` file beside the file's real path; a refused opener names the
owner's pid from the kernel's lock table (``/proc/locks``, matched by device and inode), or from that pid file.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "state.sqlite")
>>> lock = StateFileLock.acquire(path)
>>> os.link(path, path + ".alias")
>>> try:
...     StateFileLock.acquire(path + ".alias")
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
    """The pid file beside ``state_path``'s real path (symlinks and ``..`` resolved)."""
    return Path(f"{Path(state_path).resolve()}.lock")


class StateFileLock:
    """An exclusive, process-owned lock on a state file (see the module docstring)."""

    __slots__ = ("_fd", "identity", "path", "state_path")

    def __init__(self, state_path: Path, fd: int) -> None:
        self.state_path = state_path
        self.path = lock_path_for(state_path)
        st = os.fstat(fd)
        self.identity = (st.st_dev, st.st_ino)
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, state_path: str | Path, *, wait: float = 0.0) -> StateFileLock:
        """Own ``state_path`` (creating it empty if missing), waiting up to ``wait`` seconds for another owner.

        Raises :class:`StateLockedError` (naming the file and the owner's pid) when it stays owned,
        and :class:`ValidationError` for a negative or non-finite ``wait`` or a file that cannot be opened.
        """
        if isinstance(wait, bool) or not isinstance(wait, int | float) or not wait >= 0 or wait == float("inf"):
            raise ValidationError("wait_lock", "must be a finite number of seconds ≥ 0", value=wait)
        state = Path(state_path)
        try:
            fd = os.open(state.resolve(), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise ValidationError("state_path", f"cannot open the state file ({exc})", value=str(state)) from exc
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    owner = _owner_pid(fd, state)
                    os.close(fd)
                    raise StateLockedError(str(state), owner, waited=wait) from None
                time.sleep(_POLL)
            except OSError as exc:
                os.close(fd)
                raise ValidationError("state_path", f"cannot lock the state file ({exc})", value=str(state)) from exc
        _write_pid(lock_path_for(state))
        return cls(state, fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Let go of the state file (idempotent). The pid file stays; an unheld lock means nothing."""
        fd, self._fd = self._fd, None
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def _write_pid(pid_file: Path) -> None:
    """Note the owner's pid for readers on systems without ``/proc/locks`` (best effort: the lock is the flock)."""
    try:
        fd = os.open(pid_file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError:
        return
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    finally:
        os.close(fd)


def _owner_pid(fd: int, state: Path) -> int | None:
    """The pid holding the flock on ``fd``'s file, or None if no source names it."""
    st = os.fstat(fd)
    pid = _pid_from_proc_locks(st.st_dev, st.st_ino)
    if pid is not None:
        return pid
    for _ in range(20):  # the owner writes its pid right after it takes the lock
        try:
            raw = lock_path_for(state).read_text("ascii", "replace").strip()
        except OSError:
            return None
        if raw.isdigit():
            return int(raw)
        time.sleep(0.005)
    return None


def _pid_from_proc_locks(dev: int, ino: int) -> int | None:
    """The pid of the ``FLOCK`` write lock on (dev, ino) in Linux's ``/proc/locks``, if visible."""
    key = f"{os.major(dev):02x}:{os.minor(dev):02x}:{ino}"
    try:
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if "->" in fields:  # a waiter, not the holder
            continue
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[3] == "WRITE" and fields[5] == key:
            return int(fields[4]) if fields[4].isdigit() and int(fields[4]) > 0 else None
    return None
