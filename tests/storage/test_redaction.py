"""Secrets never printed: every URL loses its userinfo password and its secret query parameters (issue #27).

``postgresql://u:pw@h/db?password=secret&sslpassword=s2`` through ``colony agents list``, ``mcp``, ``ledger verify``
and ``status``: on a database that cannot be reached (the error paths) and on a real one (the JSON outputs).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from colony.storage import redact_url, redact_urls

ROOT = Path(__file__).resolve().parents[2]
SECRETS = ("pw", "secret", "s2")
UNREACHABLE = "postgresql://u:pw@h.invalid/db?password=secret&sslpassword=s2"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:pw@h/db?password=secret&sslpassword=s2", "postgresql://u:***@h/db?password=***&sslpassword=***"),
        ("postgres://h/db?sslmode=require&PassWord=x", "postgres://h/db?sslmode=require&PassWord=***"),
        ("postgresql://h/db?user=u&token=t&api%5Fkey=k#frag", "postgresql://h/db?user=u&token=***&api%5Fkey=***#frag"),
        ("postgresql://u@h:5432/db", "postgresql://u@h:5432/db"),
        ("postgresql://u:p@ss@h/db", "postgresql://u:***@h/db"),
        ("/var/lib/colony/state.sqlite", "/var/lib/colony/state.sqlite"),
    ],
)
def test_redact_url_removes_the_password_and_secret_query_parameters(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_redact_urls_redacts_every_url_in_a_line() -> None:
    line = f"colony mcp --state={UNREACHABLE} --http; see 'http://x/?token=abc'"
    out = redact_urls(line)
    assert "pw" not in out and "secret" not in out and "s2" not in out and "abc" not in out
    assert out.startswith("colony mcp --state=postgresql://u:***@h.invalid/db?") and out.endswith("?token=***'")


def _colony(*args: str, stdin: str = "") -> str:
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "colony"), *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    return proc.stdout + proc.stderr


def _hmac_key(tmp_path: Path) -> str:
    key = tmp_path / "hmac.key"
    key.write_text("ab" * 32)
    return str(key)


def _commands(url: str, tmp_path: Path) -> dict[str, list[str]]:
    return {
        "agents list": ["agents", "list", "--state", url, "--json"],
        "mcp": ["mcp", "--state", url],
        "ledger verify": ["ledger", "verify", url, "--hmac-key-file", _hmac_key(tmp_path), "--json"],
        "status": ["status", "--state", url, "--format", "json", "--no-resources", "--no-workflows"],
    }


@pytest.mark.e2e
@pytest.mark.parametrize("command", ["agents list", "mcp", "ledger verify", "status"])
def test_no_command_prints_a_secret_of_an_unreachable_url(command: str, tmp_path: Path) -> None:
    out = _colony(*_commands(UNREACHABLE, tmp_path)[command])
    assert "h.invalid" in out  # the URL is named, redacted
    assert not [s for s in SECRETS if s in out.replace("sslpassword", "")], out


@pytest.mark.parametrize("command", ["agents list", "mcp", "ledger verify", "status"])
def test_no_command_prints_a_secret_of_a_working_url(command: str, pg_url: str, tmp_path: Path) -> None:
    user_end = pg_url.index("@")
    url = f"{pg_url[:user_end]}:pw{pg_url[user_end:]}?password=secret&sslpassword=s2"
    out = _colony(*_commands(url, tmp_path)[command])
    assert "error" not in out.lower() or command == "ledger verify", out
    assert not [s for s in SECRETS if s in out.replace("sslpassword", "")], out
