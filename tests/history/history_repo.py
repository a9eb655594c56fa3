"""Small git repositories for the history tests: commits with chosen files, authors and days."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def commit(repo: Path, day: int, message: str, files: dict[str, str | None], name: str = "Ann") -> str:
    for path, text in files.items():
        target = repo / path
        if text is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
    stamp = f"{1704067200 + day * 86400} +0000"
    env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": f"{name}@x.org", "GIT_COMMITTER_NAME": name,
           "GIT_COMMITTER_EMAIL": f"{name}@x.org", "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}  # fmt: skip
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "--no-gpg-sign", "-m", message], check=True, env=env)
    return git(repo, "rev-parse", "HEAD").strip()
