"""``colony hook serve``: one process owns the colony state and answers hook calls over a Unix socket.

A hook process that opens a state file, decides and exits pays Python's start-up and the
kernel's import on every tool call; and a SQLite state has one owning process at a time.
The resident colony opens the state once, keeps it, and answers each connection (a
``colony-hook/1 <agent id>`` line, then the hook payload: :func:`colony.hook.client.request_bytes`)
with the same :func:`colony.hook.run.answer` the direct mode uses. The socket is created with mode
0600: only its owner's hooks can reach it (and the client checks the owner and the mode before it
trusts an answer). Calls are served on threads; the kernel is thread-safe.

Every request gets an answer: :data:`NO_OPINION` (``{}``) when colony has none, so that a
connection closed without an answer (a crashed handler) is told apart and answered ``ask`` by the
client; and whatever fails in the handler is answered with the fail-safe.
"""

from __future__ import annotations

import json
import os
import socketserver
import stat
from contextlib import nullcontext
from pathlib import Path

from colony.errors import ValidationError
from colony.hook.client import HEADER, NO_OPINION, fail_safe
from colony.hook.run import answer
from colony.kernel import ColonyKernel

__all__ = ["MAX_REQUEST", "ResidentHook"]

MAX_REQUEST = 64 * 1024 * 1024  # a hook payload larger than this is answered with the fail-safe, not read on


class _Handler(socketserver.StreamRequestHandler):
    server: ResidentHook

    def handle(self) -> None:
        try:
            out = self._answer().encode("utf-8") or NO_OPINION
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:
            out = json.dumps(fail_safe(None, f"the resident colony failed: {exc or type(exc).__name__}")).encode("utf-8")
        self.wfile.write(out)

    def _answer(self) -> str:
        header = self.rfile.readline(1024)
        payload = self.rfile.read(MAX_REQUEST + 1)
        magic, _, agent = header.rstrip(b"\n").partition(b" ")
        if magic != HEADER or not header.endswith(b"\n"):
            return json.dumps(fail_safe(None, "malformed request to the resident colony (no colony-hook/1 header)"))
        if len(payload) > MAX_REQUEST:
            return json.dumps(fail_safe(None, f"the hook payload is larger than {MAX_REQUEST} bytes"))
        kernel = self.server.kernel
        text = payload.decode("utf-8", errors="replace")
        agent_id = agent.decode("utf-8", errors="replace").strip() or None
        return answer(text, agent_id=agent_id, open_kernel=lambda: nullcontext(kernel))


class ResidentHook(socketserver.ThreadingUnixStreamServer):
    """A Unix-socket server answering hook calls against one open kernel.

    Parameters:
        socket_path: where to listen (a stale socket file is replaced; any other file is refused).
        kernel: the colony; the caller closes it.
    """

    daemon_threads = True

    def __init__(self, socket_path: str | os.PathLike[str], kernel: ColonyKernel) -> None:
        self.kernel = kernel
        path = Path(socket_path)
        if path.exists() or path.is_symlink():
            if not stat.S_ISSOCK(path.lstat().st_mode):
                raise ValidationError("--socket", f"{str(path)!r} exists and is not a socket", value=str(path))
            path.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)
        old = os.umask(0o177)
        try:
            super().__init__(str(path), _Handler)
        finally:
            os.umask(old)

    def server_close(self) -> None:
        super().server_close()
        Path(str(self.server_address)).unlink(missing_ok=True)
