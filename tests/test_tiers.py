"""The two test tiers: the build's gate runs the fast one, ``make test`` and CI run everything.

Guards what would otherwise drift silently: a ``-m`` sneaking into ``make test``, ``addopts`` or CI; the
build's marker expression letting ``e2e`` tests back in; and the process guard of ``tests/process_tier.py``
no longer catching a test that starts a server without the mark.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
import tomllib
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

from scripts.buildconfig import BuildConfig
from scripts.tier_count import describe, examples_share, marker_expression, read_tier
from tests.process_tier import heavy_reason

ROOT = Path(__file__).resolve().parents[1]
DESELECTING = ("-m", "--markexpr", "-k", "--deselect", "--ignore", "--ignore-glob")

pytest_plugins = ["pytester"]


def _make_recipe(target: str) -> list[str]:
    """The command lines of a Makefile target's recipe (its tab-indented lines)."""
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    start = lines.index(next(line for line in lines if re.match(rf"{target}:", line)))
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    return recipe


def _selects(expression: str, *marks: str) -> bool:
    return Expression.compile(expression).evaluate(lambda name, **_: name in marks)


def test_make_test_runs_every_test_and_ci_runs_make_test() -> None:
    recipe = _make_recipe("test")
    pytest_lines = [line for line in recipe if "-m pytest" in line]
    assert len(pytest_lines) == 1, recipe
    words = shlex.split(pytest_lines[0])
    after = words[words.index("pytest") + 1 :]
    assert not [w for w in after if w.split("=")[0] in DESELECTING], after
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^make test$", ci, re.M) and "PYTEST_ADDOPTS" not in ci


def test_addopts_deselect_nothing_and_the_markers_are_declared() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert not [w for w in shlex.split(options["addopts"]) if w.split("=")[0] in DESELECTING], options["addopts"]
    declared = {line.split(":")[0] for line in options["markers"]}
    assert {"e2e", "build_e2e"} <= declared and "--strict-markers" in options["addopts"]


def test_the_builds_gate_leaves_out_e2e_and_build_e2e_and_keeps_the_rest() -> None:
    expression = marker_expression(BuildConfig.load(ROOT).pytest_args)
    assert expression is not None
    assert not _selects(expression, "e2e") and not _selects(expression, "build_e2e")
    assert _selects(expression) and _selects(expression, "postgres", "slow", "anyio")


def test_marker_expressions_are_read_as_pytest_reads_them() -> None:
    assert marker_expression(["-n", "2"]) is None
    assert marker_expression(["-m", "a", "--markexpr=b"]) == "b" and marker_expression(["--markexpr", "c", "-m"]) == "c"


def test_the_tier_record_and_its_phrase(tmp_path: Path) -> None:
    path = tmp_path / "tier.json"
    assert read_tier(path, ["-m", "not e2e"]) is None
    path.write_text('{"selected": 5}')
    assert read_tier(path, ["-m", "not e2e"]) is None
    path.write_text('{"selected": 5, "deselected": 2}')
    tier = read_tier(path, ["-m", "not e2e"])
    assert tier is not None and (tier["marker"], tier["selected"], tier["deselected"]) == ("not e2e", 5, 2)
    assert "5 selected, 2 deselected" in describe(tier) and "make test and CI" in describe(tier)
    assert describe({**tier, "marker": None}) == "all 5 collected tests"
    scaled = read_tier(path, ["-m", "not e2e", "--hypothesis-scale", "0.25"])
    assert scaled is not None and scaled["examples_share"] == 0.25 and tier["examples_share"] is None
    assert "property tests at 25% of their examples" in describe(scaled) and "examples" not in describe(tier)
    assert examples_share(["--hypothesis-scale=0.5"]) == 0.5 and examples_share(["--hypothesis-scale", "x"]) is None


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        ([sys.executable, "-m", "colony.server", "--http"], "an MCP server"),
        (["/usr/lib/postgresql/16/bin/initdb", "-D", "x"], "a PostgreSQL cluster"),
        (["runuser", "-u", "postgres", "--", "pg_ctl", "start"], "a PostgreSQL cluster"),
        (["python3", "-Xfrozen_modules=off", "-m", "ipykernel_launcher", "-f", "k.json"], "a notebook kernel"),
        ([sys.executable, "-m", "colony.cli", "gateway", "--config", "g.yaml"], "an MCP gateway"),
        (["colony", "benchmark", "run"], "the research pipeline"),
        ([sys.executable, "-m", "colony.cli", "hook", "serve", "--socket", "s"], "a resident hook server"),
        (["node", "index.js"], "Node.js (an npm MCP server or a browser driver)"),
        ([sys.executable, "-m", "colony.cli", "doctor", "--json"], None),
        ([sys.executable, "-m", "colony.cli", "gateway", "--help"], None),
        ([sys.executable, "-m", "colony.cli", "hook", "--state", "s"], None),
        ([sys.executable, "-c", "print(1)"], None),
        (["git", "status"], None),
        ([], None),
    ],
)
def test_heavy_processes_are_named_and_quick_helpers_are_not(argv: list[str], reason: str | None) -> None:
    assert heavy_reason(argv) == reason


GUARDED = """
import subprocess
import pytest

NODE = {node!r}

def test_unmarked_starts_node():
    subprocess.run([NODE, "--version"], check=True, capture_output=True)

@pytest.mark.e2e
def test_marked_starts_node():
    subprocess.run([NODE, "--version"], check=True, capture_output=True)

def test_quick_helper():
    subprocess.run(["git", "--version"], check=True, capture_output=True)
"""


def test_a_test_outside_the_tier_that_starts_a_server_errors_and_the_marked_one_passes(pytester: pytest.Pytester) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: run `make setup` (scripts/setup_system.sh installs Node.js)")
    pytester.makeini("[pytest]\nmarkers =\n    e2e: starts other processes\n")
    pytester.makepyfile(test_guarded=GUARDED.format(node=node))
    result = pytester.runpytest("-p", "tests.process_tier", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*test_unmarked_starts_node is not marked e2e but started Node.js*"])
    assert "test_marked_starts_node is not marked" not in result.stdout.str()


def test_the_tier_plugin_counts_what_a_marker_expression_selects(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makeini("[pytest]\nmarkers =\n    e2e: starts other processes\n")
    pytester.makepyfile(
        test_counted="import pytest\n\ndef test_a(): pass\n\ndef test_b(): pass\n\n@pytest.mark.e2e\ndef test_c(): pass\n"
    )
    report = tmp_path / "tier.json"
    result = pytester.runpytest("-p", "scripts.tier_count", "--tier-report", str(report), "-m", "not e2e")
    result.assert_outcomes(passed=2, deselected=1)
    assert json.loads(report.read_text()) == {"selected": 2, "deselected": 1}


def test_the_process_fixtures_mark_their_tests_e2e(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nmarkers =\n    e2e: starts other processes\n    postgres: needs PostgreSQL\n")
    pytester.makepyfile(
        test_fixtures="""
import pytest

@pytest.fixture
def http_server():
    return "a server"

def test_uses_the_server(http_server): pass

def test_uses_a_database(pg_url): pass

def test_both_backends(state_spec): pass

def test_in_process(): pass
"""
    )
    plugins = ("-p", "tests.pg_fixtures", "-p", "tests.process_tier")
    result = pytester.runpytest(*plugins, "-m", "e2e", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*test_uses_the_server", "*test_uses_a_database", "*test_both_backends?postgres?"])
    assert "test_in_process" not in result.stdout.str() and "test_both_backends[sqlite]" not in result.stdout.str()
    result.stdout.fnmatch_lines(["3/5 tests collected (2 deselected)*"])


def test_the_builds_gate_draws_fewer_property_examples_and_make_test_draws_all() -> None:
    args = BuildConfig.load(ROOT).pytest_args
    share = examples_share(args)
    assert share is not None and 0 < share < 1
    make_test = next(line for line in (ROOT / "Makefile").read_text().splitlines() if "-m pytest" in line and "COLONY" in line)
    assert "--hypothesis-scale" not in make_test and "--hypothesis-scale" not in (ROOT / ".ci" / "run").read_text()
    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    assert "--hypothesis-scale" not in addopts


def test_examples_scale_each_count_with_a_floor_and_refuse_bad_shares() -> None:
    from tests import examples as ex

    try:
        ex.set_scale(0.25)
        assert [ex.examples(n) for n in (400, 200, 60, 10)] == [100, 50, 20, 10]
        for bad in (0, -0.5, 1.5, float("nan"), True, "0.5"):
            with pytest.raises(ValueError, match="--hypothesis-scale"):
                ex.set_scale(bad)  # type: ignore[arg-type]
        assert ex.examples(200) == 50  # a refused share changes nothing
    finally:
        ex.set_scale(1.0)
    assert ex.examples(200) == 200


def test_a_bad_share_on_the_command_line_is_a_usage_error() -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/test_config.py", "-q", "-p", "no:cacheprovider", "--hypothesis-scale", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "--hypothesis-scale: must be a number in (0, 1], got 2.0" in done.stderr
