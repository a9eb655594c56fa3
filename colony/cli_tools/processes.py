"""Run one child process with a deadline: its own process group, killed whole on timeout.

Output is read by threads while the child runs, so a chatty child never blocks on a
full pipe; what is kept is the tail (the end of a log says why it failed), and an
optional log file receives everything.

>>> import sys
>>> out = run_process([sys.executable, "-c", "print('hi')"], timeout=30)
>>> (out.exit_code, out.stdout.strip(), out.timed_out)
(0, 'hi', False)
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

__all__ = ["KILL_GRACE_S", "OUTPUT_TAIL_CHARS", "ProcessOutcome", "run_process", "tail"]

OUTPUT_TAIL_CHARS: Final = 4000
# how long a timed-out process group gets between SIGTERM and SIGKILL
KILL_GRACE_S: Final = 2.0
_JOIN_S: Final = 5.0


@dataclass(frozen=True, slots=True)
class ProcessOutcome:
    """How a child process ended: exit code (negative: killed by that signal), output tails, duration."""

    exit_code: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool
    pid: int


def tail(text: str, limit: int = OUTPUT_TAIL_CHARS) -> str:
    """The last ``limit`` characters of ``text``, marked when something was cut."""
    if len(text) <= limit:
        return text
    return f"[... {len(text) - limit} characters truncated ...]\n" + text[-limit:]


class _Reader(threading.Thread):
    """Drain one pipe, keep its tail, copy everything to a log."""

    def __init__(self, pipe: IO[bytes], log: IO[str] | None, lock: threading.Lock, limit: int) -> None:
        super().__init__(daemon=True)
        self.pipe, self.log, self.lock, self.limit = pipe, log, lock, limit
        self.chunks: list[str] = []
        self.size = 0
        self.dropped = 0

    def run(self) -> None:
        for raw in iter(lambda: self.pipe.readline(), b""):
            text = raw.decode("utf-8", errors="replace")
            if self.log is not None:
                with self.lock:
                    self.log.write(text)
                    self.log.flush()
            self.chunks.append(text)
            self.size += len(text)
            while self.size - len(self.chunks[0]) >= self.limit and len(self.chunks) > 1:
                first = self.chunks.pop(0)
                self.size -= len(first)
                self.dropped += len(first)

    def text(self) -> str:
        kept = "".join(self.chunks)
        if not self.dropped:
            return tail(kept, self.limit)
        shown = kept[-self.limit :]
        return f"[... {self.dropped + len(kept) - len(shown)} characters truncated ...]\n" + shown


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, _JOIN_S)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def run_process(
    argv: Sequence[str],
    *,
    timeout: float,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    log: IO[str] | None = None,
    merge_stderr: bool = False,
    limit: int = OUTPUT_TAIL_CHARS,
    on_start: Callable[[int], None] | None = None,
) -> ProcessOutcome:
    """Run ``argv`` to completion or until ``timeout`` seconds pass, then kill its whole process group."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
        start_new_session=True,
    )
    if on_start is not None:
        on_start(proc.pid)
    lock = threading.Lock()
    assert proc.stdout is not None
    readers = [_Reader(proc.stdout, log, lock, limit)]
    if proc.stderr is not None:
        readers.append(_Reader(proc.stderr, log, lock, limit))
    for reader in readers:
        reader.start()
    timed_out = False
    try:
        proc.wait(timeout=max(timeout, 0.0))
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
    except BaseException:  # an interrupted caller must not leave the group running
        _kill_group(proc)
        raise
    else:
        # the leader is gone; anything it left in its group goes with it
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    for reader in readers:
        reader.join(_JOIN_S)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    return ProcessOutcome(
        exit_code=proc.returncode if proc.returncode is not None else -signal.SIGKILL,
        stdout=readers[0].text(),
        stderr=readers[1].text() if len(readers) > 1 else "",
        duration_s=time.perf_counter() - started,
        timed_out=timed_out,
        pid=proc.pid,
    )
