"""``colony history report``'s data and its refusals: per-tool rates, conditions, riskiest changes, bad input.

The numbers are checked against the fixture's own table (tests/history/report_repos.py), not against
colony's; bad input is refused with its exact message, exit 2 and nothing written. Nothing here
starts a notebook kernel (tests/history/test_history_report_notebook.py does).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from colony.cli import main
from colony.errors import ValidationError
from colony.history.config import load_history_config
from colony.history.dataset import write_dataset
from colony.history.extract import extract
from colony.history.matched_odds import size_strata
from colony.history.report import build_report, strongest_condition
from colony.history.report_input import report_name
from tests.history.report_repos import (
    AUTHORS,
    BIGGEST,
    CYCLE,
    DAYS,
    HTML_SUBJECT,
    TOOLS,
    ToolsRepo,
    buggy,
    build_no_python_repo,
    build_short_repo,
    build_tools_repo,
    expected_by_tool,
    init_repo,
    size,
)

SMALL_CHANGE = 20  # the config's change_size_lines in these tests: change_size then holds some commits


@pytest.fixture(scope="module")
def tools_repo(tmp_path_factory: pytest.TempPathFactory) -> ToolsRepo:
    return build_tools_repo(tmp_path_factory.mktemp("report") / "tools")


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report-config") / "mine.yaml"
    path.write_text(f"history:\n  conditions:\n    change_size_lines: {SMALL_CHANGE}\n")
    return path


@pytest.fixture(scope="module")
def report(tools_repo: ToolsRepo, config: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("report-data")
    result = extract(tools_repo.path, name="tools", output_dir=out)
    cfg = load_history_config(config)
    return build_report(result.records, result.manifest, cfg, name="tools", source=str(tools_repo.path), top=DAYS)


def _added(d: int) -> int:
    return size(d) + 4  # two blank lines, the def, the body, the return


def test_each_agent_tool_is_compared_with_human_commits(report: dict[str, Any]) -> None:
    rows = {r["tool"]: r for r in report["tools"]["rows"]}
    assert list(rows) == ["human", *TOOLS, "all agents"]
    expected = expected_by_tool()
    for tool, (commits, inducing) in expected.items():
        assert (rows[tool]["commits"], rows[tool]["inducing"]) == (commits, inducing), tool
    agents = [expected[t] for t in TOOLS]
    assert rows["all agents"]["commits"] == sum(c for c, _ in agents) and rows["all agents"]["inducing"] == sum(
        i for _, i in agents
    )
    # the dependabot commit is judged but in neither group
    assert report["judged"] == rows["human"]["commits"] + rows["all agents"]["commits"] + 1
    assert report["tools"]["present"] == list(TOOLS)
    assert report["tools"]["absent"] == ["openhands", "codex", "jules", "gemini"]
    assert rows["human"]["matched_odds_ratio"] is None


def _hand_mh(y: np.ndarray, exposed: np.ndarray, strata: np.ndarray) -> float:
    """The Mantel–Haenszel pooled odds ratio written out: sum(a·d/n) / sum(b·c/n) over strata holding both groups."""
    num = den = 0.0
    for s in np.unique(strata):
        m = strata == s
        a, b = np.sum(m & exposed & y), np.sum(m & exposed & ~y)
        c, d = np.sum(m & ~exposed & y), np.sum(m & ~exposed & ~y)
        if a + b and c + d:
            num, den = num + a * d / m.sum(), den + b * c / m.sum()
    return num / den


def test_the_odds_ratio_is_matched_on_change_size(report: dict[str, Any]) -> None:
    # rebuild the judged commits from the fixture's table: the first commit, each day's commit and its fix
    commits: list[tuple[str, int, bool]] = [("human", 4, False)]  # (tool, lines changed, inducing)
    for d in range(DAYS):
        commits.append((AUTHORS[CYCLE[d % len(CYCLE)]][0] or "human", _added(d), buggy(d)))
        if buggy(d):
            commits.append(("human", 2, False))  # the fix: one line out, one in
        if d == 10:
            commits.append(("bot", 2, False))
    tool = np.array([c[0] for c in commits])
    churn = np.array([c[1] for c in commits], dtype=float)
    y = np.array([c[2] for c in commits])
    strata = size_strata(churn, load_history_config().metrics.size_strata)
    rows = {r["tool"]: r for r in report["tools"]["rows"]}
    for name in TOOLS:
        both = (tool == name) | (tool == "human")
        assert rows[name]["matched_odds_ratio"] == pytest.approx(_hand_mh(y[both], tool[both] == name, strata[both])), name
    for stratum in report["tools"]["strata"]:
        m = strata == stratum["stratum"]
        assert stratum["groups"]["human"]["commits"] == int((m & (tool == "human")).sum())
        assert stratum["groups"]["all agents"]["inducing"] == int((m & ~np.isin(tool, ["human", "bot"]) & y).sum())


def test_each_condition_says_what_it_would_have_held(report: dict[str, Any]) -> None:
    conditions = {c["name"]: c for c in report["conditions"]}
    assert list(conditions) == list(load_history_config().conditions.order)
    big = [d for d in range(DAYS) if _added(d) >= SMALL_CHANGE]
    size_cond = conditions["change_size"]
    assert size_cond["held"] == len(big) and size_cond["inducing_held"] == sum(buggy(d) for d in big)
    assert size_cond["precision"] == pytest.approx(size_cond["inducing_held"] / size_cond["held"])
    assert size_cond["held_share"] == pytest.approx(len(big) / report["judged"])
    assert conditions["always_execute"]["held"] == 0 and conditions["always_execute"]["precision"] is None
    assert [c["name"] for c in report["conditions"] if c["learned"]] == ["hazard_only", "jit_lr"]
    for c in report["conditions"]:
        assert c["curve"]["held_share"][0] == 0.0 and c["curve"]["held_share"][-1] == 1.0


def test_the_riskiest_changes_are_ranked_by_the_strongest_learned_condition(
    report: dict[str, Any], tools_repo: ToolsRepo
) -> None:
    risky = report["riskiest"]
    learned = [c for c in report["conditions"] if c["learned"]]
    assert risky["condition"] == max(learned, key=lambda c: c["auc"])["name"]
    assert risky["chosen_as"] == "the highest AUC among the learned conditions"
    rows = risky["rows"]
    assert len(rows) == DAYS and [r["rank"] for r in rows] == list(range(1, DAYS + 1))
    scores = [r["score"] for r in rows]
    assert scores == sorted(scores, reverse=True)
    day_of = {commit: d for d, commit in tools_repo.ids.items()}
    for r in rows:
        if r["upstream"] in day_of:
            d = day_of[r["upstream"]]
            assert r["tool"] == (AUTHORS[CYCLE[d % len(CYCLE)]][0] or "human")
            assert (r["lines_added"], r["inducing"]) == (_added(d), buggy(d))
    assert HTML_SUBJECT in [r["subject"] for r in rows if r["upstream"] == tools_repo.ids[BIGGEST]]


def test_the_strongest_condition_falls_back_when_nothing_is_learned_or_scored() -> None:
    conditions = {"a": {"fallback": "none: kernel", "auc": 0.7}, "b": {"fallback": "none: kernel", "auc": 0.8}}
    assert strongest_condition(conditions) == ("b", "the highest AUC among all conditions")
    unscored = {"a": {"fallback": "none", "auc": None}, "j": {"fallback": "lines_added", "auc": None}}
    assert strongest_condition(unscored) == (
        "j",
        "the first of the learned conditions (no AUC: no judged commit turned out inducing)",
    )


def test_the_report_is_named_after_its_input(tmp_path: Path) -> None:
    data = tmp_path / "d"
    data.mkdir()
    (data / "mine.manifest.json").write_text("{}")
    assert report_name(data) == "mine"
    assert report_name(tmp_path / "my repo.bundle") == "my-repo"
    assert report_name(tmp_path / "aider.manifest.json") == "aider"


# --- bad input: exit 2, the exact message, nothing written ----------------------------------------------------------


def _refused(capsys: pytest.CaptureFixture[str], out: Path, *args: str) -> str:
    code = main(["history", "report", *args, "--output", str(out / "report"), "--cache", str(out / "cache"), "--quiet"])
    assert code == 2
    assert not (out / "report").exists() and [p.name for p in out.iterdir() if p.name != "cache"] == []
    err = capsys.readouterr().err
    assert err.startswith("colony history: error: ")
    return err.removeprefix("colony history: error: ").strip()


@pytest.fixture
def out(tmp_path: Path) -> Path:
    path = tmp_path / "out"
    path.mkdir()
    return path


def test_a_path_that_does_not_exist(capsys, out, tmp_path) -> None:
    missing = tmp_path / "nowhere"
    assert _refused(capsys, out, str(missing)) == f"REPO_OR_DATASET: {missing} does not exist"


def test_a_directory_that_is_neither_a_dataset_nor_a_repository(capsys, out, tmp_path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "notes.txt").write_text("hi\n")
    assert _refused(capsys, out, str(plain)) == (
        f"REPO_OR_DATASET: {plain} is neither a dataset (<name>.manifest.json, or a directory holding one) "
        "nor a git repository or bundle"
    )


def test_an_empty_repository(capsys, out, tmp_path) -> None:
    repo = init_repo(tmp_path / "empty")
    assert _refused(capsys, out, str(repo)) == f"REPO_OR_DATASET: {repo} has no commits (an empty history)"


def test_a_history_touching_no_included_file(capsys, out, tmp_path) -> None:
    repo = build_no_python_repo(tmp_path / "docs")
    assert _refused(capsys, out, str(repo)) == f"--include: no commit of {repo} touches a file matching ['*.py']"


def test_a_history_shorter_than_the_horizon_judges_nothing(capsys, out, tmp_path) -> None:
    repo = build_short_repo(tmp_path / "short")
    assert _refused(capsys, out, str(repo)) == (
        f"REPO_OR_DATASET: {repo} has no judged commit: its 3 commits span less than the 30-day horizon "
        "that is censored at the history's end"
    )


def test_an_empty_dataset(capsys, out, tmp_path) -> None:
    write_dataset(tmp_path / "data", "empty", [], {"counts": {}})
    manifest = tmp_path / "data" / "empty.manifest.json"
    assert _refused(capsys, out, str(manifest)) == f"REPO_OR_DATASET: {manifest} holds no commits (an empty dataset)"


def test_a_dataset_that_does_not_match_its_manifest(capsys, out, tmp_path) -> None:
    write_dataset(tmp_path / "data", "mine", [{"id": "a"}], {"counts": {}})
    (tmp_path / "data" / "mine.jsonl.gz").write_bytes(b"changed")
    assert _refused(capsys, out, str(tmp_path / "data")).startswith(
        f"{tmp_path / 'data' / 'mine.jsonl.gz'}: sha256 of the file is "
    )


def test_a_directory_holding_several_datasets(capsys, out, tmp_path) -> None:
    for name in ("a", "b"):
        write_dataset(tmp_path / "data", name, [{"id": name}], {"counts": {}})
    assert _refused(capsys, out, str(tmp_path / "data")) == (
        f"REPO_OR_DATASET: {tmp_path / 'data'} holds 2 datasets ['a.manifest.json', 'b.manifest.json']: name one manifest"
    )


def test_a_top_that_is_not_positive(capsys, out, tools_repo) -> None:
    assert _refused(capsys, out, str(tools_repo.path), "--top", "0") == "--top: must be a positive integer"


def test_an_output_directory_that_is_not_a_report(capsys, tmp_path, tools_repo) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "mine.txt").write_text("keep me\n")
    code = main(["history", "report", str(tools_repo.path), "--output", str(taken), "--quiet"])
    assert code == 2 and [p.name for p in taken.iterdir()] == ["mine.txt"]
    assert capsys.readouterr().err.strip() == (
        f"colony history: error: --output: {taken} exists and is not a history report; choose another directory"
    )


def test_bad_input_raises_a_validation_error_in_the_library(tmp_path) -> None:
    from colony.history.report_write import write_report

    with pytest.raises(ValidationError) as err:
        write_report(tmp_path / "nowhere", output=tmp_path / "out")
    assert err.value.field == "REPO_OR_DATASET" and not (tmp_path / "out").exists()


def test_the_report_json_is_json_ready(report: dict[str, Any]) -> None:
    assert json.loads(json.dumps(report, allow_nan=False)) == report


@pytest.mark.parametrize("module", ["colony.history.report", "colony.history.report_input", "colony.history.report_view"])
def test_the_report_modules_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
