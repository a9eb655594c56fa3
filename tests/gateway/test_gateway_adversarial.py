"""The gateway under attack: one test per bypass of issue #26, against the real upstream servers.

The agent is the attacker. Each test names the bypass it pins; each failed on the gateway
before the fix (the file respelled, the call forwarded, the outcome lost) and passes after.
"""

from __future__ import annotations

import os
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import anyio
import hypothesis.strategies as st
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from colony.cli import main as cli_main
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.mcp.gateway.config import parse_gateway_config
from colony.mcp.gateway.core import Gateway
from colony.models import SignalType
from tests.gateway.conftest import ROOT, Scratch, gate, gateway_config, running, upstream_process, upstreams
from tests.gateway.test_approval import User

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

NAME = unicodedata.normalize("NFC", "café.txt")


def _rooted(scratch: Scratch) -> Any:
    """The test gateway with the filesystem server started in its directory (its root: relative paths are pinned there)."""
    ups = upstreams(scratch)
    ups["fs"]["cwd"] = str(scratch.files)
    return parse_gateway_config(
        {"kernel": {"calibrate": {"alice": 0.5}}, "defaults": {"tick_interval_seconds": 0}, "upstreams": ups}
    )


async def _hold_file(c: Client, held: Path) -> None:
    """A failed edit of ``held`` (its text is not there): the file is now under failure pressure, and a write is held."""
    failed = await c.call_tool("fs__edit_file", {"path": str(held), "edits": [{"oldText": "absent", "newText": "x"}]})
    assert failed.is_error and gate(failed)["outcome"] == "failure", failed.content
    again = await c.call_tool("fs__write_file", {"path": str(held), "content": "overwritten"})
    assert gate(again)["decision"] == "hold"


async def test_bypass_1_a_respelled_path_of_a_held_file_is_held(scratch: Scratch) -> None:
    src = scratch.files / "src"
    src.mkdir()
    held = src / NAME
    held.write_text("original\n")
    (scratch.files / "alias").symlink_to(src)
    nfd = unicodedata.normalize("NFD", NAME)
    spellings = [
        f"src/{NAME}",  # relative, inside the filesystem server's root
        f"{scratch.files}/src/../src/{NAME}",
        f"/{scratch.files}/src/{NAME}",  # a // prefix
        f"{scratch.files}/./src/{NAME}",
        f"{scratch.files}/alias/{NAME}",  # a symlink alias
        f"{scratch.files}/src/{nfd}",  # the NFD spelling of the name
    ]
    async with running(_rooted(scratch)) as (_, c):
        await _hold_file(c, held)
        for spelling in spellings:
            result = await c.call_tool("fs__write_file", {"path": spelling, "content": "overwritten"})
            assert result.is_error and gate(result)["decision"] == "hold", spelling
            assert gate(result)["target"] == f"src/{NAME}", spelling  # one file, one target
            assert held.read_text() == "original\n", spelling
        outside = await c.call_tool("fs__write_file", {"path": "../repo/README.md", "content": "x"})
        assert outside.is_error and "outside the upstream's roots" in gate(outside)["error"]
    assert (scratch.repo / "README.md").read_text() == "scratch\n"


async def test_bypass_1_an_extra_path_argument_does_not_move_a_git_target(scratch: Scratch) -> None:
    (scratch.repo / "a.txt").write_text("a\n")
    async with running(gateway_config(scratch)) as (gw, c):
        bad = await c.call_tool(
            "git__git_create_branch", {"repo_path": str(scratch.repo), "branch_name": "b", "base_branch": "nope"}
        )
        assert bad.is_error and gate(bad)["outcome"] == "failure"  # the repository is under pressure
        held = await c.call_tool("git__git_add", {"repo_path": str(scratch.repo), "files": ["a.txt"]})
        assert gate(held)["decision"] == "hold"
        before = gw.kernel.agent_profile("alice").total_proposals
        for tool, args in (
            ("git__git_add", {"repo_path": str(scratch.repo), "files": ["a.txt"], "path": "x"}),
            ("git__git_commit", {"repo_path": str(scratch.repo), "message": "sneak", "path": "x"}),
        ):
            moved = await c.call_tool(tool, args)
            assert moved.is_error and "takes no argument 'path'" in gate(moved)["error"], tool
        assert gw.kernel.agent_profile("alice").total_proposals == before  # refused before any proposal
        status = await c.call_tool("git__git_status", {"repo_path": str(scratch.repo)})
        assert "Changes to be committed" not in status.content[0].text  # type: ignore[union-attr]


async def test_bypass_1_a_template_rule_still_judges_every_path_argument(scratch: Scratch) -> None:
    held = scratch.files / "out" / "held.txt"
    evil = scratch.files / "evil.txt"
    evil.write_text("the attacker's text\n")
    async with running(gateway_config(scratch)) as (_, c):  # move_file's rule: {target: "{source}"}
        failed = await c.call_tool("fs__write_file", {"path": str(held), "content": "v0"})  # out/ does not exist yet
        assert failed.is_error and gate(failed)["outcome"] == "failure"  # held.txt is under failure pressure
        held.parent.mkdir()
        moved = await c.call_tool("fs__move_file", {"source": str(evil), "destination": str(held)})
        assert moved.is_error and gate(moved)["decision"] == "hold", moved.content
        assert gate(moved)["target"] == str(held)  # the worst target is named: the destination
        clean = await c.call_tool("fs__move_file", {"source": str(evil), "destination": str(scratch.files / "elsewhere.txt")})
        assert gate(clean)["decision"] == "execute" and gate(clean)["targets"] == [
            str(evil),
            str(scratch.files / "elsewhere.txt"),
        ]
    assert not held.exists() and (scratch.files / "elsewhere.txt").read_text() == "the attacker's text\n"


async def test_bypass_4_a_malformed_call_charges_nobody_and_is_not_forwarded(scratch: Scratch) -> None:
    victim = scratch.files / "shared.txt"
    async with running(gateway_config(scratch, calibrate={"alice": 0.5, "bob": 0.5})) as (gw, c):
        before = gw.kernel.agent_profile("alice").total_proposals
        for args in ({"path": str(victim)}, {"path": str(victim), "content": 7}):
            bad = await c.call_tool("fs__write_file", args)
            assert bad.is_error and "colony gateway: arguments: fs__write_file" in gate(bad)["error"], args
        assert gw.kernel.agent_profile("alice").total_proposals == before
        assert gw.kernel.query(str(victim)) == [] and gw.kernel.colony_status()["recent_consequences"] == []
        async with Client(gw.server("bob")) as bob:  # another agent's write to the untouched file is not held
            ok = await bob.call_tool("fs__write_file", {"path": str(victim), "content": "bob"})
            assert gate(ok)["decision"] == "execute" and not ok.is_error
    assert victim.read_text() == "bob"


def _attested(tmp_path: Path) -> tuple[ColonyKernel, Path, str]:
    from colony.attestation import Ed25519Signer

    signer = Ed25519Signer.generate()
    state = tmp_path / "attested.sqlite"
    kernel = ColonyKernel(
        ColonyKernelConfig(
            state_path=state,
            attestation_mode="required",
            attestation_key=signer.private_key_bytes().hex(),
            attestation_algorithm="ed25519",
        )
    )
    kernel.calibrate_agent("alice", trust_score=0.5)
    return kernel, state, signer.public_key_bytes().hex()


@pytest.mark.parametrize("how", ["cancel", "disconnect"])
async def test_bypass_2_a_cancelled_or_disconnected_call_still_leaves_its_outcome(
    scratch: Scratch, tmp_path: Path, how: str
) -> None:
    kernel, state, public = _attested(tmp_path)
    async with Gateway(gateway_config(scratch, dynamic=True, calibrate={}), kernel=kernel) as gw:
        if how == "cancel":
            async with Client(gw.server("alice")) as c, anyio.create_task_group() as tg:
                tg.start_soon(c.call_tool, "dyn__slow", {"seconds": 0.6})
                await anyio.sleep(0.2)
                tg.cancel_scope.cancel()  # the client gives up on the call (notifications/cancelled)
        else:
            with anyio.move_on_after(0.2):  # the client goes away mid-call
                try:
                    async with Client(gw.server("alice")) as c:
                        await c.call_tool("dyn__slow", {"seconds": 0.6})
                except* MCPError:  # the in-process client reports its own closing as a closed connection
                    pass
        with anyio.fail_after(10):
            while not kernel.agent_profile("alice").consequence_history:
                await anyio.sleep(0.05)
        rows = kernel.db.conn.execute("SELECT tests_passed, actual_outcome FROM consequences").fetchall()
        assert len(rows) == 1 and rows[0][0] == 1, rows  # the upstream's own result, recorded
        assert kernel.attestation_status().valid  # type: ignore[union-attr]
    kernel.close()
    assert cli_main(["ledger", "verify", str(state), "--public-key", public]) == 0


@pytest.mark.parametrize("attested", [False, True])
async def test_bypass_2_a_cancelled_call_whose_result_cannot_be_read_is_unknown_and_charges_nothing(
    scratch: Scratch, tmp_path: Path, attested: bool
) -> None:
    kernel = _attested(tmp_path)[0] if attested else None
    async with Gateway(gateway_config(scratch, dynamic=True, calibrate={} if attested else None), kernel=kernel) as gw:
        trust = gw.kernel.agent_profile("alice").trust_score
        async with Client(gw.server("alice")) as c, anyio.create_task_group() as tg:
            tg.start_soon(c.call_tool, "dyn__unreadable", {"seconds": 0.6})  # runs, then answers in a shape nobody can read
            await anyio.sleep(0.2)
            tg.cancel_scope.cancel()  # the client gives up on the call
        with anyio.fail_after(10):
            while not gw.kernel.agent_profile("alice").consequence_history:
                await anyio.sleep(0.05)
        (summary, passed, trust_delta), *others = gw.kernel.db.conn.execute(
            "SELECT actual_outcome, tests_passed, trust_delta FROM consequences"
        ).fetchall()
        assert others == [] and summary.startswith("the outcome is unknown: RuntimeError: Tool unreadable has an output schema")
        assert "recorded as unknown" in summary and passed == 1 and trust_delta == 0.0
        assert gw.kernel.agent_profile("alice").trust_score == trust  # an unknown is no failure of the agent's
        assert gw.kernel.query("dyn", SignalType.FAILURE) == []  # and leaves no failure pressure at the target
        if attested:
            assert gw.kernel.attestation_status().valid  # type: ignore[union-attr]
    if kernel is not None:
        kernel.close()


async def test_bypass_2_verify_reports_an_authorization_without_a_receipt(tmp_path: Path, capsys: Any) -> None:
    from colony.models import ActionProposal

    kernel, state, public = _attested(tmp_path)
    proposal = ActionProposal(
        agent_id="alice",
        agent_type="t",
        action_type="fs__write_file",
        target="/x",
        rationale="r",
        expected_outcome="e",
        rollback_plan="git revert",
        evidence={"tests": ["t"]},
    )
    assert kernel.propose_action(proposal).decision.value == "execute"
    kernel.authorize_execution(proposal.proposal_id, "colony-gateway")  # ... and the executor vanished
    kernel.close()
    assert cli_main(["ledger", "verify", str(state), "--public-key", public]) != 0
    assert "no receipt (dangling)" in capsys.readouterr().out


@pytest.mark.parametrize("attested", [False, True])
async def test_bypass_3_a_client_never_approves_its_own_hold(scratch: Scratch, tmp_path: Path, attested: bool) -> None:
    target = scratch.files / "out" / "held.txt"
    kernel = _attested(tmp_path)[0] if attested else None
    yes_man = User()  # an elicitation callback that approves everything
    async with running(gateway_config(scratch, calibrate={} if attested else None), kernel=kernel) as (gw, setup):
        failed = await setup.call_tool("fs__write_file", {"path": str(target), "content": "v0"})
        assert gate(failed)["outcome"] == "failure"
        target.parent.mkdir()
        for mode in ("auto", "legacy"):
            async with Client(gw.server("alice"), mode=mode, elicitation_callback=yes_man) as c:
                result = await c.call_tool("fs__write_file", {"path": str(target), "content": "self-approved"})
                assert result.is_error and gate(result)["decision"] == "hold", mode
    assert yes_man.questions == [] and not target.exists()
    if kernel is not None:
        kernel.close()


async def test_defect_the_first_call_after_an_upstream_dies_is_not_proposed(scratch: Scratch) -> None:
    async with running(gateway_config(scratch, reconnect_initial_seconds=5.0, reconnect_max_seconds=5.0)) as (gw, c):
        git = upstream_process("mcp_server_git")
        git.kill()
        git.wait(10)  # dead, but the gateway has not been told yet
        before = gw.kernel.agent_profile("alice").total_proposals
        result = await c.call_tool("git__git_commit", {"repo_path": str(scratch.repo), "message": "m"})
        assert result.is_error and "upstream 'git' is unavailable" in gate(result)["error"]
        assert gw.kernel.agent_profile("alice").total_proposals == before
        assert gw.kernel.query(str(scratch.repo), SignalType.FAILURE) == []


async def test_defect_an_unknown_prompt_is_a_clear_error(scratch: Scratch) -> None:
    async with running(gateway_config(scratch)) as (_, c):
        with pytest.raises(MCPError, match="Unknown prompt: nope") as caught:
            await c.get_prompt("nope")
    assert caught.value.error.code == types.INVALID_PARAMS


def test_defect_a_lean_install_names_the_notebooks_extra() -> None:
    code = (
        "import sys; sys.modules['papermill'] = None\n"  # as in an install without the notebooks extra
        "from colony.cli import main; sys.exit(main(['notebooks', 'run', '--notebook-dir', '/no/notebooks/here']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and "needs the 'notebooks' extra" in done.stderr, done.stderr
    assert "is not a directory" not in done.stderr


def test_defect_the_first_forwarded_call_does_not_load_rfc3987_syntax(scratch: Scratch) -> None:
    code = f"""
import sys, anyio
from mcp import Client
from colony.mcp.gateway.core import Gateway
from tests.gateway.conftest import Scratch, gateway_config
from pathlib import Path

async def main():
    scratch = Scratch(Path({str(scratch.repo)!r}), Path({str(scratch.files)!r}))
    async with Gateway(gateway_config(scratch)) as gw, Client(gw.server("alice")) as c:
        result = await c.call_tool("fs__write_file", {{"path": {str(scratch.files / "a.txt")!r}, "content": "a"}})
        assert not result.is_error, result
        listed = await c.call_tool("fs__list_directory", {{"path": {str(scratch.files)!r}}})
        assert not listed.is_error
    print("jsonschema" in sys.modules, "rfc3987_syntax" in sys.modules)

anyio.run(main)
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]  # schemas were checked, without the slow optional module


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """root/sub/café.txt (NFC), root/alias -> sub, root/deep/: one file, many spellings."""
    root = tmp_path_factory.mktemp("spellings").resolve()
    (root / "sub").mkdir()
    (root / "deep").mkdir()
    (root / "sub" / NAME).write_text("one file\n")
    (root / "alias").symlink_to(root / "sub")
    return root


_STEP = st.sampled_from(["", ".", "deep/..", "sub/..", "./."])  # "" doubles a slash


@st.composite
def _spelling(draw: st.DrawFn, root: str) -> str:
    parts = [*draw(st.lists(_STEP, max_size=3)), draw(st.sampled_from(["sub", "alias"])), *draw(st.lists(_STEP, max_size=3))]
    parts.append(unicodedata.normalize(draw(st.sampled_from(["NFC", "NFD"])), NAME))
    relative = "/".join(parts)
    prefix = draw(st.sampled_from(["", root + "/", "/" + root + "/", root + "//"]))
    return prefix + relative if prefix else relative.lstrip("/")  # "" prefix: relative to the root


THROUGH_UPSTREAM = 8  # spellings sent through the real filesystem server; the others are checked against realpath


def _entries(root: Path) -> list[str]:
    """Every name under ``root`` (symlinks not followed): a write under a second spelling would add one."""
    return sorted(os.path.relpath(os.path.join(d, n), root) for d, dirs, files in os.walk(root) for n in [*dirs, *files])


@pytest.mark.parametrize("tool", ["write_file"])
def test_property_every_spelling_of_one_file_is_judged_at_the_upstreams_real_path(tree: Path, tool: str) -> None:
    from functools import partial

    from hypothesis import HealthCheck, given, settings

    from colony.mcp.gateway.mapping import ToolRules
    from colony.mcp.gateway.targets import PathResolver
    from tests.gateway.conftest import FS_SERVER, npm_tool

    real = os.path.realpath(tree / "sub" / NAME)  # what the filesystem server touches (its validatePath: realpath)
    rooted, bare = PathResolver([str(tree)]), PathResolver([])
    rules = ToolRules({})
    fs = {"command": "node", "args": [str(npm_tool(FS_SERVER)), str(tree)], "cwd": str(tree)}
    config = parse_gateway_config(
        {"kernel": {"calibrate": {"alice": 0.5}}, "defaults": {"tick_interval_seconds": 0}, "upstreams": {"fs": fs}}
    )
    before, sent = _entries(tree), list[str]()

    with anyio.from_thread.start_blocking_portal() as portal, portal.wrap_async_context_manager(running(config)) as (_, c):

        @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
        @given(_spelling(str(tree)))
        def check(spelling: str) -> None:
            forwarded, targets = rules.targets("fs", tool, {"path": spelling, "content": "x"}, rooted)
            assert forwarded["path"] == real and targets == [f"sub/{NAME}"], spelling
            if os.path.isabs(spelling):  # without roots, an absolute spelling is judged at the absolute real path
                assert bare.resolve(spelling, "path") == real and bare.name(real) == real
            if len(sent) < THROUGH_UPSTREAM and spelling not in sent:  # the upstream's own answer: which file it wrote
                sent.append(spelling)
                content = f"written as {spelling!r}"
                result = portal.call(partial(c.call_tool, f"fs__{tool}", {"path": spelling, "content": content}))
                assert not result.is_error and gate(result)["target"] == f"sub/{NAME}", (spelling, result.content)
                assert Path(real).read_text() == content and _entries(tree) == before, spelling

        check()
    assert len(sent) == THROUGH_UPSTREAM
