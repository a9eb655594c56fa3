"""The signature table: one fixture commit per shipped signature, user extensions, bad tables."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from colony.cli import main
from colony.errors import ConfigError
from colony.history.config import load_history_config, signature_table
from colony.history.identity import AliasIndex, classify, coauthor_trailers
from colony.history.repository import count_signatures
from colony.history.signatures import load_signatures

# (author name, author e-mail, message, signature id, kind, tool)
CASES = [
    ("Paul (aider)", "paul@aider.chat", "feat: x", "aider.author_suffix", "agent", "aider"),
    ("Paul", "paul@aider.chat", "feat: x\n\nCo-authored-by: aider (gpt-5) <aider@aider.chat>", "aider.coauthor", "agent", "aider"),
    ("openhands", "openhands@all-hands.dev", "x\n\nCo-authored-by: Ann <ann@x.org>", "openhands.account", "agent", "openhands"),
    ("Ann", "ann@x.org", "x\n\nCo-authored-by: openhands <openhands@all-hands.dev>", "openhands.coauthor", "agent", "openhands"),
    ("Ann", "ann@x.org", "x\n\nCo-authored-by: OpenHands-Claude <openhands@all-hands.dev>", "openhands.coauthor", "agent", "openhands"),
    ("Ann", "ann@x.org", "x\n\nCo-authored-by: OpenDevinBot <bot@opendevin.com>", "openhands.coauthor", "agent", "openhands"),
    ("Ann", "ann@x.org", "x\n\nCo-authored-by: OH <openhands@example.com>", "openhands.coauthor_email", "agent", "openhands"),
    ("claude[bot]", "209825114+claude[bot]@users.noreply.github.com", "x", "claude_code.account", "agent", "claude_code"),
    ("Ann", "ann@x.org", "x\n\nCo-authored-by: claude[bot] <2+claude[bot]@users.noreply.github.com>",
     "claude_code.coauthor_bot", "agent", "claude_code"),
    ("Ann", "ann@x.org", "x\n\nCo-Authored-By: Claude Opus 4.6 <noreply@anthropic.com>", "claude_code.coauthor", "agent", "claude_code"),
    ("Ann", "ann@x.org", "x\n\n🤖 Generated with [Claude Code](https://claude.com/claude-code)", "claude_code.message", "agent",
     "claude_code"),
    ("copilot-swe-agent[bot]", "198982749+Copilot@users.noreply.github.com", "x", "copilot.account", "agent", "copilot"),
    ("Ann", "ann@x.org", "x\n\nCo-authored-by: Copilot <175728472+Copilot@users.noreply.github.com>", "copilot.coauthor", "agent",
     "copilot"),
    ("Cursor Agent", "agent@example.org", "x", "cursor.account", "agent", "cursor"),
    ("Someone", "cursoragent@cursor.com", "x", "cursor.account_email", "agent", "cursor"),
    ("Ann", "ann@x.org", "x\n\nCo-authored-by: Cursor <cursoragent@cursor.com>", "cursor.coauthor", "agent", "cursor"),
    ("devin-ai-integration[bot]", "158243242+devin-ai-integration[bot]@users.noreply.github.com", "x", "devin.account", "agent",
     "devin"),
    ("Ann", "ann@x.org", "x\n\nCo-authored-by: devin-ai-integration[bot] <1+devin@users.noreply.github.com>", "devin.coauthor",
     "agent", "devin"),
    ("chatgpt-codex-connector[bot]", "1+chatgpt-codex-connector[bot]@users.noreply.github.com", "x", "codex.account", "agent", "codex"),
    ("Ann", "ann@x.org", "x\n\nCo-authored-by: chatgpt-codex-connector[bot] <1+c@users.noreply.github.com>", "codex.coauthor",
     "agent", "codex"),
    ("google-labs-jules[bot]", "1+google-labs-jules[bot]@users.noreply.github.com", "x", "jules.account", "agent", "jules"),
    ("Ann", "ann@x.org", "x\n\nCo-authored-by: google-labs-jules[bot] <1+j@users.noreply.github.com>", "jules.coauthor", "agent",
     "jules"),
    ("gemini-code-assist[bot]", "1+gemini-code-assist[bot]@users.noreply.github.com", "x", "gemini.account", "agent", "gemini"),
    ("Ann", "ann@x.org", "x\n\nCo-authored-by: Gemini CLI <gemini-cli@google.com>", "gemini.coauthor", "agent", "gemini"),
    ("github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com", "x", "github_actions.account", "bot",
     "github-actions"),
    ("GitHub Actions", "actions@github.com", "x", "github_actions.account", "bot", "github-actions"),
    ("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com", "x", "dependabot.account", "bot", "dependabot"),
    ("renovate[bot]", "29139614+renovate[bot]@users.noreply.github.com", "x", "renovate.account", "bot", "renovate"),
    ("pre-commit-ci[bot]", "66853113+pre-commit-ci[bot]@users.noreply.github.com", "x", "pre_commit_ci.account", "bot",
     "pre-commit-ci"),
    ("some-app[bot]", "1+some-app[bot]@users.noreply.github.com", "x", "bot.account", "bot", "bot"),
    ("Ann", "ann@x.org", "x\n\nCo-authored-by: Bob <bob@y.org>", None, "human", None),
    ("Ann", "ann@x.org", "x\n\nCo-authored-by: Gemini Smith <gsmith@y.org>", None, "human", None),  # a person named Gemini
]  # fmt: skip


def _signature_of(table, name, email, message):
    sig = table.author(name, email) or table.coauthor(coauthor_trailers(message), message)
    return sig.id if sig else None


def test_every_shipped_signature_has_a_case_and_each_case_classifies():
    table = load_signatures()
    assert {c[3] for c in CASES} - {None} == {s.id for s in table.signatures}
    ids = AliasIndex.build([(c[0], c[1]) for c in CASES], table)
    for name, email, message, sid, kind, tool in CASES:
        who = classify(name, email, ids, message)
        assert (who.signature, who.kind) == (sid, kind), (name, message)
        assert who.tool == (tool if kind == "agent" else None)


def test_agent_account_works_for_its_human_coauthor():
    ids = AliasIndex.build([("Ann", "ann@x.org")])
    who = classify("openhands", "openhands@all-hands.dev", ids, "x\n\nCo-authored-by: Ann <ann@x.org>")
    assert (who.agent_id, who.operator) == ("Ann (openhands)", "Ann")
    alone = classify("claude[bot]", "1+claude[bot]@users.noreply.github.com", ids, "x")
    assert (alone.agent_id, alone.kind) == ("claude[bot] (claude_code)", "agent")


def _history(repo: Path) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for i, (name, email, message, *_rest) in enumerate(CASES):
        (repo / "a.py").write_text(f"x = {i}\n")
        stamp = f"{1704067200 + i * 3600} +0000"
        env = {**os.environ, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": "c",
               "GIT_COMMITTER_EMAIL": "c@x.org", "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}  # fmt: skip
        subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
        subprocess.run(["git", "-C", str(repo), "commit", "-q", "--no-gpg-sign", "-m", message], check=True, env=env)
    return repo


def test_agents_command_counts_each_signature(tmp_path, capsys):
    repo = _history(tmp_path / "repo")
    counts = count_signatures(repo, load_signatures())
    assert counts["commits"] == len(CASES)
    assert counts["kinds"] == {"agent": 24, "bot": 6, "human": 2}
    assert counts["signatures"]["openhands.coauthor"] == {"tool": "openhands", "kind": "agent", "commits": 3}
    assert main(["history", "agents", str(repo), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"success": True, **counts}
    assert main(["history", "agents", str(repo)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"{repo}: 32 commits; agent 24, bot 6, human 2"
    assert "      3  openhands.coauthor           agent  openhands" in out


def test_user_signatures_come_first(tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text("schema_version: 1\nsignatures:\n  - {id: house.bot, tool: house-agent, kind: agent, author_name: 'ann'}\n")
    cfg_file = tmp_path / "history.yaml"
    cfg_file.write_text("history:\n  agents:\n    extra: [mine.yaml]\n")
    table = signature_table(load_history_config(cfg_file))
    sig = table.author("Ann", "ann@x.org")
    assert sig is not None and sig.tool == "house-agent"
    assert table.signatures[0].id == "house.bot" and len(table.signatures) == len(load_signatures().signatures) + 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("schema_version: 1\nsignatures:\n  - {id: a, tool: t, kind: agent}\n",
         "config agents.signatures.0 ({path}): needs at least one matcher: author_suffix, author_name, "
         "author_email, coauthor_name, coauthor_email, message"),
        ("schema_version: 1\nsignatures:\n  - {id: a, tool: t, kind: agent, author_name: '('}\n",
         "config agents.signatures.0.author_name ({path}): not a regular expression: "
         "missing ), unterminated subpattern at position 0"),
        ("schema_version: 1\nsignatures:\n  - {id: a, tool: t, kind: robot, author_name: x}\n",
         "config agents.signatures.0.kind ({path}): Input should be 'agent' or 'bot'"),
        ("schema_version: 1\nsignatures:\n  - {id: a, tool: t, kind: bot, author_name: x, message: y}\n",
         "config agents.signatures.0 ({path}): matches the author (author_name) or the message (message), not both"),
        ("schema_version: 1\nsignatures: {}\n", "config agents.signatures ({path}): must be a list of signatures"),
    ],
)  # fmt: skip
def test_bad_signature_files_name_the_field(tmp_path, text, message):
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_signatures([bad])
    assert str(err.value) == message.format(path=bad)


def test_duplicate_ids_across_files_are_refused(tmp_path):
    dup = tmp_path / "dup.yaml"
    dup.write_text("schema_version: 1\nsignatures:\n  - {id: aider.coauthor, tool: t, kind: agent, author_name: x}\n")
    with pytest.raises(ConfigError) as err:
        load_signatures([dup])
    assert str(err.value) == f"config agents.signatures ({dup}): duplicate signature ids ['aider.coauthor']"
