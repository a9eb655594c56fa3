"""A throw-away PostgreSQL cluster for tests and benchmarks: ``initdb`` + ``pg_ctl`` in a temporary directory.

The server binaries come from the OS packages (Debian: ``postgresql``, installed by ``scripts/setup_system.sh``).
``initdb`` and ``postgres`` refuse to run as root, so as root every server command runs as the ``postgres`` user
(``runuser``), in a directory that user owns. The cluster listens on 127.0.0.1 at a free port and on a Unix
socket in its own directory, trusts local connections (it exists for one test session), and is stopped with
``pg_ctl stop -m fast``.

>>> cluster = PgCluster.start()          # doctest: +SKIP
>>> cluster.url                          # doctest: +SKIP
'postgresql://colony@127.0.0.1:54321/postgres'
>>> cluster.stop()                       # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["REQUIRE_ENV", "PgCluster", "PgUnavailable", "find_bin_dir"]

# set (by `.ci/run` and `make test`) when a missing server must fail the run instead of skipping postgres tests
REQUIRE_ENV = "COLONY_REQUIRE_POSTGRES"
_USER = "colony"


class PgUnavailable(RuntimeError):
    """The PostgreSQL server binaries are not installed here (or cannot be run)."""


def find_bin_dir() -> Path | None:
    """The directory holding ``initdb``, ``pg_ctl`` and ``postgres``; the newest installed version wins."""
    override = os.environ.get("COLONY_PG_BIN")
    candidates = [Path(override)] if override else []
    root = Path("/usr/lib/postgresql")
    if root.is_dir():
        versions = sorted((p for p in root.iterdir() if p.name.isdigit()), key=lambda p: int(p.name), reverse=True)
        candidates += [v / "bin" for v in versions]
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    for cand in candidates:
        if all((cand / exe).is_file() for exe in ("initdb", "pg_ctl", "postgres")):
            return cand
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgCluster:
    """A running throw-away cluster; ``url`` connects as the superuser ``colony`` to database ``postgres``."""

    directory: Path
    port: int
    bin_dir: Path
    as_postgres: bool

    @property
    def data_dir(self) -> Path:
        return self.directory / "data"

    @property
    def url(self) -> str:
        return f"postgresql://{_USER}@127.0.0.1:{self.port}/postgres"

    def database_url(self, name: str) -> str:
        """The URL of database ``name`` on this cluster."""
        return f"postgresql://{_USER}@127.0.0.1:{self.port}/{name}"

    @classmethod
    def start(cls, *, timeout: float = 60.0) -> PgCluster:
        """initdb + start a cluster in a new temporary directory; raise :class:`PgUnavailable` without binaries."""
        bin_dir = find_bin_dir()
        if bin_dir is None:
            raise PgUnavailable("PostgreSQL server binaries (initdb, pg_ctl, postgres) are not installed")
        as_postgres = os.geteuid() == 0
        if as_postgres and shutil.which("runuser") is None:
            raise PgUnavailable("running as root, but runuser is missing (initdb refuses to run as root)")
        directory = Path(tempfile.mkdtemp(prefix="colony-pg-"))
        cluster = cls(directory=directory, port=_free_port(), bin_dir=bin_dir, as_postgres=as_postgres)
        try:
            if as_postgres:
                shutil.chown(directory, user="postgres")
            cluster._run("initdb", "-D", str(cluster.data_dir), "-A", "trust", "-U", _USER, "--no-sync", "-E", "UTF8")
            cluster.start_server(timeout)
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def _run(self, exe: str, *args: str) -> None:
        cmd = [str(self.bin_dir / exe), *args]
        if self.as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=self.directory)
        if done.returncode != 0:
            raise PgUnavailable(f"{exe} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise PgUnavailable(f"the cluster in {self.directory} did not accept connections within {timeout:.0f} s")

    def start_server(self, timeout: float = 60.0) -> None:
        """Start the server on this cluster's port and data (also after :meth:`stop_server`)."""
        options = (
            f"-k {self.directory} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run("pg_ctl", "-D", str(self.data_dir), "-o", options, "-l", str(self.directory / "log"), "-w", "start")
        self._wait_ready(timeout)

    def stop_server(self) -> None:
        """Stop the server (fast shutdown) but keep its data, for tests that take the database away."""
        self._run("pg_ctl", "-D", str(self.data_dir), "-m", "fast", "-w", "stop")

    def restart(self) -> None:
        """Stop (fast) and start the server again on the same port and data."""
        self.stop_server()
        self.start_server()

    def stop(self) -> None:
        """Stop the server (if running) and delete the directory."""
        if (self.data_dir / "postmaster.pid").exists():
            with contextlib.suppress(PgUnavailable, subprocess.TimeoutExpired):
                self._run("pg_ctl", "-D", str(self.data_dir), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.directory, ignore_errors=True)
