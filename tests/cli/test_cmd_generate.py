"""``colony generate`` against a real OpenAI-compatible HTTP server on 127.0.0.1 (a thread)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from colony.cli_tools.generate import ai_generate, extract_code
from colony.cli_tools.providers import OpenAICompatibleProvider, ProviderNotConfigured
from tests.cli.conftest import Runner


class FakeEndpoint:
    """A chat-completions endpoint that records requests and answers with a canned reply."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.status = 200
        self.reply = ""
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                payload = json.dumps(
                    {
                        "model": "tiny-coder-1",
                        "choices": [{"message": {"role": "assistant", "content": endpoint.reply}}],
                        "usage": {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42},
                    }
                    if endpoint.status == 200
                    else {"error": {"message": "nope"}}
                ).encode()
                self.send_response(endpoint.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeEndpoint]:
    ep = FakeEndpoint()
    # shutdown() waits for the serving loop's next poll: the default 0.5 s interval cost every test half a second
    thread = threading.Thread(target=ep.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    monkeypatch.setenv("COLONY_AI_BASE_URL", ep.url)
    monkeypatch.setenv("COLONY_AI_MODEL", "tiny-coder")
    monkeypatch.setenv("COLONY_AI_API_KEY", "test-key")
    try:
        yield ep
    finally:
        ep.server.shutdown()
        ep.server.server_close()
        thread.join(5)


def _dangerous_code(marker: Path) -> str:
    return f"```python\nfrom pathlib import Path\nPath({str(marker)!r}).write_text('executed')\n```\nThis writes a file."


def test_generated_code_comes_back_and_is_never_executed(colony: Runner, endpoint: FakeEndpoint, mini: Path) -> None:
    marker = mini / "EXECUTED"
    endpoint.reply = _dangerous_code(marker)
    result = colony("generate", "write a file", "--json", "--project", mini)
    out = result.json
    assert result.code == 0 and out["success"] is True
    assert out["code"] == f"from pathlib import Path\nPath({str(marker)!r}).write_text('executed')\n"
    assert (out["language"], out["provider"], out["model"], out["tokens_used"], out["output_path"]) == (
        "python",
        "openai",
        "tiny-coder-1",
        42,
        None,
    )
    assert not marker.exists()
    sent = endpoint.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["auth"] == "Bearer test-key"
    assert sent["body"]["model"] == "tiny-coder" and sent["body"]["max_tokens"] == 2048
    assert sent["body"]["messages"][1] == {"role": "user", "content": "write a file"}


def test_output_path_saves_inside_the_project_without_running(colony: Runner, endpoint: FakeEndpoint, mini: Path) -> None:
    marker = mini / "EXECUTED"
    endpoint.reply = _dangerous_code(marker)
    result = colony("generate", "x", "--output", "gen/tool.py", "--language", "Python", "--project", mini)
    assert result.code == 0 and result.out.startswith("wrote gen/tool.py (tiny-coder-1, 42 tokens)")
    assert (mini / "gen" / "tool.py").read_text(encoding="utf-8").startswith("from pathlib import Path")
    assert not marker.exists()


@pytest.mark.parametrize(("status", "message"), [(401, "authentication failed"), (429, "rate limit"), (500, "HTTP 500")])
def test_provider_errors_are_reported(colony: Runner, endpoint: FakeEndpoint, mini: Path, status: int, message: str) -> None:
    endpoint.status = status
    result = colony("generate", "x", "--json", "--project", mini)
    assert result.code == 2 and result.json["error"].startswith("Generation failed: ") and message in result.json["error"]


def test_without_a_provider_the_error_is_clean(colony: Runner, mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("COLONY_AI_BASE_URL", "COLONY_AI_MODEL", "COLONY_AI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    result = colony("generate", "x", "--json", "--project", mini)
    assert result.code == 2
    assert result.json == {
        "success": False,
        "error": "Generation failed: no AI provider configured (set COLONY_AI_BASE_URL and COLONY_AI_MODEL, "
        "and COLONY_AI_API_KEY if the endpoint needs one)",
    }
    with pytest.raises(ProviderNotConfigured):
        OpenAICompatibleProvider.from_env({"COLONY_AI_BASE_URL": "http://x"})


def test_bad_input_is_refused_before_any_request(endpoint: FakeEndpoint, mini: Path) -> None:
    from colony.cli_tools.failures import ToolFailure

    for kwargs, field in (
        ({"prompt": "  \x00 "}, "prompt"),
        ({"prompt": "x", "language": "cobol"}, "language"),
        ({"prompt": "x", "max_tokens": 0}, "max_tokens"),
        ({"prompt": "x", "provider": "nobody"}, "provider"),
        ({"prompt": "x", "output_path": "minipkg"}, "output_path"),
    ):
        with pytest.raises(ToolFailure, match=f"Generation failed: {field}"):
            ai_generate(project=mini, **kwargs)
    assert endpoint.requests == []


def test_extract_code_takes_the_first_fence_or_the_text() -> None:
    assert extract_code("```ts\nlet a = 1;\n```\n```py\nb\n```") == "let a = 1;\n"
    assert extract_code("  plain code  ") == "plain code\n"


@pytest.mark.parametrize(
    "output",
    [".git/config", ".git/hooks/pre-commit", ".venv/bin/activate", "sub/.hidden/tool.py", ".envrc", "gen/.pth"],
)
def test_output_never_goes_into_a_hidden_path(colony: Runner, endpoint: FakeEndpoint, mini: Path, output: str) -> None:
    # regression (issue 18, item 5): a generated .git/config with core.fsmonitor ran a command at the next git status
    (mini / ".git").mkdir()
    (mini / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    result = colony("generate", "x", "--output", output, "--force", "--json", "--project", mini)
    assert result.code == 2 and "is in or is a hidden path" in result.json["error"]
    assert (mini / ".git" / "config").read_text(encoding="utf-8") == "[core]\n"
    assert not (mini / output).exists() or output == ".git/config"
    assert endpoint.requests == []  # refused before anything was sent


def test_output_refuses_links_to_hidden_directories_and_virtual_environments(
    colony: Runner, endpoint: FakeEndpoint, mini: Path
) -> None:
    (mini / ".git").mkdir()
    (mini / "innocent").symlink_to(mini / ".git")
    linked = colony("generate", "x", "--output", "innocent/config", "--json", "--project", mini)
    assert linked.code == 2 and "hidden path ('.git')" in linked.json["error"]
    (mini / "env" / "bin").mkdir(parents=True)
    (mini / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    venv = colony("generate", "x", "--output", "env/bin/activate", "--json", "--project", mini)
    assert venv.code == 2 and "inside a virtual environment" in venv.json["error"]
    assert not (mini / ".git" / "config").exists() and not (mini / "env" / "bin" / "activate").exists()
    assert endpoint.requests == []


def test_an_existing_file_is_overwritten_only_with_force(colony: Runner, endpoint: FakeEndpoint, mini: Path) -> None:
    # regression (issue 18, item 5): --output silently overwrote whatever was there
    target = mini / "minipkg" / "core.py"
    before = target.read_text(encoding="utf-8")
    refused = colony("generate", "x", "--output", "minipkg/core.py", "--json", "--project", mini)
    assert refused.code == 2
    assert (
        refused.json["error"] == "Generation failed: output_path: 'minipkg/core.py' already exists (pass --force to overwrite it)"
    )
    assert target.read_text(encoding="utf-8") == before and endpoint.requests == []
    endpoint.reply = "```python\nprint('new')\n```"
    forced = colony("generate", "x", "--output", "minipkg/core.py", "--force", "--project", mini)
    assert forced.code == 0 and target.read_text(encoding="utf-8") == "print('new')\n"
