"""gateway.yaml validation, mapping rules and templates, and what a tool call's proposal holds."""

from __future__ import annotations

import dataclasses
import doctest
import importlib
from pathlib import Path
from typing import Any

import pytest

from colony.config import default_policy
from colony.config.validation import Exact, plain
from colony.errors import ConfigError, ValidationError
from colony.mcp.gateway import approval
from colony.mcp.gateway.config import ToolRule, load_gateway_config, packaged_defaults, parse_gateway_config
from colony.mcp.gateway.mapping import ToolRules, default_target, render_target
from colony.mcp.gateway.proposal import NOT_STATED, intent_from_meta, tool_call_proposal
from colony.models import GateDecision, GateResult

STDIO = {"command": "node", "args": ["server.js"]}


@pytest.mark.parametrize(
    "module",
    [
        "colony.mcp.gateway.config",
        "colony.mcp.gateway.mapping",
        "colony.mcp.gateway.proposal",
        "colony.mcp.gateway.identity",
        "colony.mcp.gateway.targets",
        "colony.mcp.gateway.schema",
        "colony.mcp.gateway.changes",
    ],
)
def test_docstring_examples_run(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_path_roots_are_the_declared_roots_else_a_stdio_upstreams_cwd() -> None:
    cfg = parse_gateway_config(
        {
            "upstreams": {
                "a": {**STDIO, "roots": ["/srv/a", "/srv/b"], "cwd": "/srv"},
                "b": {**STDIO, "cwd": "/srv"},
                "c": STDIO,
                "d": {"url": "https://x.example/mcp"},
            }
        }
    )
    assert [cfg.upstreams[n].path_roots for n in "abcd"] == [("/srv/a", "/srv/b"), ("/srv",), (), ()]
    assert [cfg.upstreams[n].local_paths for n in "abcd"] == [True, True, True, False]


def test_defaults_come_from_the_packaged_file_and_can_be_overridden() -> None:
    cfg = parse_gateway_config({"upstreams": {"fs": STDIO}})
    assert plain(cfg.defaults) == packaged_defaults()
    tuned = parse_gateway_config(
        {"defaults": {"call_timeout_seconds": 2.5}, "upstreams": {"fs": {**STDIO, "call_timeout_seconds": 1}}}
    )
    assert tuned.defaults.call_timeout_seconds == 2.5 and tuned.call_timeout("fs") == 1.0
    assert tuned.defaults.connect_timeout_seconds == packaged_defaults()["connect_timeout_seconds"]


def test_the_gateway_config_is_an_exact_dataclass_like_the_policy_and_names_the_dotted_field() -> None:
    """gateway.yaml is read into the one configuration style: frozen, slotted Exact dataclasses, as policy.yaml is."""
    cfg = parse_gateway_config({"upstreams": {"fs": {**STDIO, "tools": {"x": {"change": None}}}}})
    upstream, rule = cfg.upstreams["fs"], cfg.upstreams["fs"].tools["x"]
    for record in (cfg, cfg.kernel, cfg.defaults, upstream, rule, cfg.tools["write_file"].change, default_policy()):
        assert isinstance(record, Exact) and dataclasses.is_dataclass(record) and not hasattr(record, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        upstream.command = "python"  # type: ignore[misc]
    assert ToolRules(upstream.tools, cfg.tools).change("x") is None  # change: null said no change, as change: none does
    data = {"upstreams": {"fs": {**STDIO, "tools": {"x": {"change": {"kind": "edit", "dry_run": ""}}}}}}
    with pytest.raises(ConfigError, match="at least 1 character") as info:
        parse_gateway_config(data, source="g.yaml")
    assert (info.value.key, info.value.path) == ("gateway.upstreams.fs.tools.x.change.dry_run", "g.yaml")


@pytest.mark.parametrize(
    ("data", "key", "message"),
    [
        ({}, "gateway.upstreams", "Field required"),
        ({"upstreams": {}}, "gateway.upstreams", "at least 1 item"),
        ({"upstreams": {"fs": {}}}, "gateway.upstreams.fs", "exactly one of command (stdio) and url"),
        ({"upstreams": {"fs": {**STDIO, "url": "http://x/mcp"}}}, "gateway.upstreams.fs", "exactly one of command"),
        ({"upstreams": {"fs": {"url": "http://x/mcp", "args": ["a"]}}}, "gateway.upstreams.fs", "args, env and cwd belong"),
        ({"upstreams": {"fs": {**STDIO, "headers": {"a": "b"}}}}, "gateway.upstreams.fs", "headers belong to a url"),
        ({"upstreams": {"f_s": STDIO}}, "gateway", "upstream name 'f_s' must match"),
        (
            {"upstreams": {"fs": {**STDIO, "tools": {"x": {"read_only": True, "target": "{p}"}}}}},
            "gateway.upstreams.fs.tools.x",
            "takes no target",
        ),
        (
            {"upstreams": {"fs": {**STDIO, "tools": {"x": {"tagret": "{p}"}}}}},
            "gateway.upstreams.fs.tools.x.tagret",
            "Extra inputs",
        ),
        (
            {"defaults": {"call_timeout_seconds": -1}, "upstreams": {"fs": STDIO}},
            "gateway.defaults.call_timeout_seconds",
            "greater than 0",
        ),
        (
            {"defaults": {"reconnect_max_seconds": 0.1}, "upstreams": {"fs": STDIO}},
            "gateway.defaults",
            "reconnect_max_seconds must be",
        ),
        (
            {"kernel": {"calibrate": {"a": 1.5}}, "upstreams": {"fs": STDIO}},
            "gateway.kernel",
            "calibrate.a: trust must lie in [0, 1]",
        ),
        ({"kernel": {"attestation": "sometimes"}, "upstreams": {"fs": STDIO}}, "gateway.kernel.attestation", "Input should be"),
        (
            {"upstreams": {"fs": {"url": "${COLONY_TEST_UNSET_VAR}/mcp"}}},
            "gateway.upstreams.fs.url",
            "'COLONY_TEST_UNSET_VAR' is not set",
        ),
        ([], "gateway", "expected a mapping"),
        (
            {"upstreams": {"fs": {**STDIO, "tools": {"x": {"read_only": True, "change": "write"}}}}},
            "gateway.upstreams.fs.tools.x",
            "its change is never judged",
        ),
        (
            {"upstreams": {"fs": {**STDIO, "tools": {"x": {"change": "rewrite"}}}}},
            "gateway.upstreams.fs.tools.x.change.kind",
            "Input should be",
        ),
        (
            {"upstreams": {"fs": {**STDIO, "tools": {"x": {"change": {"kind": "patch", "dif": "p"}}}}}},
            "gateway.upstreams.fs.tools.x.change.dif",
            "Extra inputs",
        ),
        ({"tools": [], "upstreams": {"fs": STDIO}}, "gateway.tools", "expected a mapping"),
    ],
)
def test_a_bad_file_is_an_error_naming_the_key(data: Any, key: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_gateway_config(data)
    assert info.value.key == key and message in str(info.value)


def test_environment_variables_fill_urls_headers_and_args(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GW_TOKEN", "s3cret")
    monkeypatch.setenv("GW_DIR", "/srv/data")
    cfg = parse_gateway_config(
        {
            "upstreams": {
                "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${GW_TOKEN}", "X-Cost": "$$5"}},
                "fs": {"command": "node", "args": ["s.js", "${GW_DIR}"], "env": {"ROOT": "$GW_DIR"}},
            }
        }
    )
    assert cfg.upstreams["remote"].headers == {"Authorization": "Bearer s3cret", "X-Cost": "$5"}
    assert cfg.upstreams["fs"].args == ("s.js", "/srv/data") and cfg.upstreams["fs"].env == {"ROOT": "/srv/data"}
    assert (cfg.upstreams["remote"].transport, cfg.upstreams["fs"].transport) == ("http", "stdio")


def test_loading_a_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "gateway.yaml"
    path.write_text("upstreams:\n  fs:\n    command: node\n    tools:\n      write_file: {target: '{path}'}\n")
    assert load_gateway_config(path).upstreams["fs"].tools["write_file"].target == "{path}"
    path.write_text("upstreams: [unclosed\n")
    with pytest.raises(ConfigError, match="invalid YAML") as info:
        load_gateway_config(path)
    assert info.value.path == str(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_gateway_config(tmp_path / "missing.yaml")


def test_rules_exact_names_first_then_patterns_in_order() -> None:
    rules = ToolRules(
        {
            "read_*": ToolRule(read_only=True),
            "read_secret": ToolRule(target="secret:{path}"),
            "*": ToolRule(target="{path}"),
            "write_?": ToolRule(target="never"),
        }
    )
    assert rules.rule("read_secret").target == "secret:{path}"
    assert rules.rule("read_text_file").read_only
    assert rules.rule("write_a").target == "{path}"  # '*' comes first in the file
    assert ToolRules({}).rule("anything") == ToolRule()


def test_change_rules_come_from_the_upstream_rule_else_the_shared_packaged_ones() -> None:
    cfg = parse_gateway_config(
        {
            "tools": {"edit_file": {"change": {"kind": "edit", "old": "from", "new": "to"}}},
            "upstreams": {
                "fs": {
                    **STDIO,
                    "tools": {
                        "write_file": {"target": "{path}"},  # says nothing of its change: keeps the packaged one
                        "git_commit": {"change": "none"},  # turns the packaged one off
                        "apply_*": {"change": {"kind": "patch", "diff": "patch"}},
                        "read_*": {"read_only": True},
                    },
                }
            },
        }
    )
    rules = ToolRules(cfg.upstreams["fs"].tools, cfg.tools)
    assert rules.rule("write_file").target == "{path}" and rules.change("write_file").kind == "write"  # type: ignore[union-attr]
    assert rules.change("git_commit") is None and rules.change("read_text_file") is None
    assert rules.change("apply_patch").diff == "patch"  # type: ignore[union-attr]
    edit = rules.change("edit_file")  # the file's own shared rule replaced the packaged one
    assert edit is not None and (edit.kind, edit.old, edit.new, edit.path) == ("edit", "from", "to", "path")
    assert rules.rule("edit_file").change == edit and not rules.rule("edit_file").read_only
    packaged = ToolRules({}, parse_gateway_config({"upstreams": {"fs": STDIO}}).tools)
    assert [getattr(packaged.change(t), "kind", None) for t in ("write_file", "edit_file", "git_commit", "move_file")] == [
        "write",
        "edit",
        "staged",
        None,
    ]


def test_default_target_and_templates() -> None:
    assert default_target({"url": "http://a", "repo_path": "/r"}, "up") == "/r"
    assert default_target({"path": "  ", "uri": "file:///x"}, "up") == "file:///x"
    assert default_target({"path": 3}, "up") == "up"
    assert render_target("{{literal}}:{n}", {"n": 7}, "t") == "{literal}:7"
    for template, args, message in [
        ("{path!r}", {"path": "x"}, "may only name arguments"),
        ("{path:>5}", {"path": "x"}, "may only name arguments"),
        ("{0}", {"0": "x"}, "may only name arguments"),
        ("{path", {"path": "x"}, "is not a valid template"),
        ("{paths}", {"paths": ["a", "b"]}, "to be a string or a number, got list"),
        ("{flag}", {"flag": True}, "to be a string or a number, got bool"),
        ("{path}", {"path": None}, "needs the argument 'path'"),
        ("{path}", {"path": " "}, "gives an empty target"),
    ]:
        with pytest.raises(ValidationError, match="target: ") as info:
            render_target(template, args, "t")
        assert message in str(info.value), template
    with pytest.raises(ValidationError, match="not a valid template"):
        ToolRules({"x": ToolRule(target="{oops")})  # fails when the rules are built, not on the first call


def test_intent_keeps_what_was_said_and_nothing_else() -> None:
    intent = intent_from_meta(
        {
            "colony/rationale": "why",
            "colony/rollback_plan": "  ",
            "colony/evidence": {"tests": ["t"]},
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        }
    )
    assert (intent.rationale, intent.rollback_plan, intent.expected_outcome, intent.evidence) == (
        "why",
        None,
        None,
        {"tests": ["t"]},
    )
    assert intent.missing == ("rollback_plan", "expected_outcome")
    assert intent_from_meta(None).missing == ("rationale", "rollback_plan", "expected_outcome", "evidence")
    with pytest.raises(ValidationError, match=r"_meta.colony/rationale: must be a string"):
        intent_from_meta({"colony/rationale": 5})
    with pytest.raises(ValidationError, match=r"_meta.colony/evidence.x: contains a non-finite number"):
        intent_from_meta({"colony/evidence": {"x": float("nan")}})
    p = tool_call_proposal(
        agent_id="a",
        agent_type="t",
        action_type="fs__write_file",
        target="/x",
        intent=intent,
        expected_default="it works",
        created_at=1.0,
    )
    assert (p.rationale, p.rollback_plan, p.expected_outcome, p.evidence) == ("why", "", "it works", {"tests": ["t"]})
    assert (
        tool_call_proposal(
            agent_id="a",
            agent_type="t",
            action_type="x",
            target="/x",
            intent=intent_from_meta({}),
            expected_default="e",
            created_at=1.0,
        ).rationale
        == NOT_STATED
    )


def test_a_held_call_is_released_once_by_an_operator_who_is_not_its_agent() -> None:
    verdict = GateResult(GateDecision.HOLD, 0.62, "held")
    p = tool_call_proposal(
        agent_id="a",
        agent_type="t",
        action_type="fs__w",
        target="/x",
        intent=intent_from_meta({}),
        expected_default="e",
        created_at=1.0,
    )
    holds = approval.Holds()
    holds.hold(approval.Held("a", "fs__w", "d" * 64, (p,), verdict))
    meta = {approval.APPROVED_KEY: p.proposal_id}
    with pytest.raises(ValidationError, match="not approved yet"):
        holds.claim(meta, "a", "fs__w", "d" * 64)
    with pytest.raises(ValidationError, match="cannot approve its own"):
        holds.approve(p.proposal_id, "a")
    with pytest.raises(ValidationError, match="no held call"):
        holds.approve("nope", "ops")
    assert holds.approve(p.proposal_id, "ops").approved_by == "ops"
    with pytest.raises(ValidationError, match="no held call of this caller"):
        holds.claim(meta, "b", "fs__w", "d" * 64)
    with pytest.raises(ValidationError, match=r"arguments \(or the change they make\) differ"):
        holds.claim(meta, "a", "fs__w", "e" * 64)
    assert holds.claim({}, "a", "fs__w", "d" * 64) is None
    claimed = holds.claim(meta, "a", "fs__w", "d" * 64)
    assert claimed is not None and claimed.proposals == (p,)
    with pytest.raises(ValidationError, match="already used"):
        holds.claim(meta, "a", "fs__w", "d" * 64)


def test_staged_paths_are_judged_inside_the_repository_and_forwarded_relative_to_it(tmp_path: Path) -> None:
    from colony.mcp.gateway.targets import PathResolver

    repo = (tmp_path / "repo").resolve()
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "a.py").write_text("a\n")
    rules, resolver = ToolRules({}), PathResolver([])
    sent, targets = rules.targets("git", "git_add", {"repo_path": f"{repo}/src/..", "files": [".", "src/../src/a.py"]}, resolver)
    assert sent == {"repo_path": str(repo), "files": [".", "src/a.py"]}
    assert targets == [str(repo), f"{repo}/src/a.py"]  # the repository first, then what is staged; "." is the repository
    with pytest.raises(ValidationError, match=r"files\[0\]: .* lies outside"):
        rules.targets("git", "git_add", {"repo_path": str(repo), "files": ["../elsewhere.txt"]}, resolver)
