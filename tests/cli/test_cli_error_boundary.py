"""The CLI's error boundary never prints a secret (issue #27, item 7): an error quoting a URL is redacted there.

``colony status --state /nonexistent/postgresql://u:PASSWORD@h/db?password=…`` quoted the path, password and all,
in its error (exit 2), in text and in ``--json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from colony.cli import main

URL = "postgresql://colony:s3cret-pw@db.example:5432/colony?password=hunter2&sslmode=require"


@pytest.mark.parametrize("as_json", [False, True])
def test_an_error_carrying_a_postgresql_url_is_printed_redacted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    argv = ["status", "--project", str(tmp_path), "--no-resources", "--no-workflows", "--state", f"/nonexistent/{URL}"]
    assert main([*argv, "--json"] if as_json else argv) == 2
    out, err = capsys.readouterr()
    printed = out + err
    assert "s3cret-pw" not in printed and "hunter2" not in printed
    shown = json.loads(out)["error"] if as_json else err
    assert "postgresql://colony:***@db.example:5432/colony?password=***&sslmode=require" in shown
