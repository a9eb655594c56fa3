"""Line-level SZZ labels: a fix names the very lines of the inducing commit it repairs."""

from __future__ import annotations

import doctest

import pytest

import colony.history.changes
import colony.history.labels
from colony.errors import ValidationError
from colony.history.changes import line_keys
from colony.history.config import load_history_config
from colony.history.extract import extract
from colony.history.labels import defective_lines, derive_labels
from colony.kernel.change import measure_diff
from tests.history.history_repo import commit, git

RULES = load_history_config().labels.rules
HEAD = "import os\n\n\ndef main():\n"
GOOD = "    total = 0\n    for name in os.listdir('.'):\n        total += len(name)\n    return total\n"


@pytest.fixture(scope="module")
def fixed(tmp_path_factory):
    """a adds four lines to main() (lines 5-8); b (someone else) adds a file; c fixes a's second added line
    ('for name in ...' -> 'for name in sorted(...)'); d renames the file; e fixes a's last line after the rename."""
    root = tmp_path_factory.mktemp("fixed")
    repo = root / "repo"
    git(root, "init", "-q", "-b", "main", str(repo))
    ids = {"base": commit(repo, 0, "start", {"tool.py": HEAD + "    pass\n"})}
    ids["a"] = commit(repo, 1, "feat: count names", {"tool.py": HEAD + GOOD})
    ids["b"] = commit(repo, 2, "docs helper", {"other.py": "X = 1\n"}, name="Bob")
    fixed_text = HEAD + GOOD.replace("os.listdir('.')", "sorted(os.listdir('.'))")
    ids["c"] = commit(repo, 5, "fix: names in a stable order", {"tool.py": fixed_text}, name="Bob")
    git(repo, "mv", "tool.py", "cli.py")
    ids["d"] = commit(repo, 6, "rename tool to cli", {})
    ids["e"] = commit(repo, 9, "fix: return the count", {"cli.py": fixed_text.replace("return total", "return int(total)")})
    result = extract(repo, name="fixed", output_dir=root / "out")
    return ids, result


def test_a_fix_that_changes_one_added_line_names_exactly_that_line(fixed):
    ids, result = fixed
    records = {r["id"]: r for r in result.records}
    a = records[ids["a"]]
    assert line_keys(a) == [("tool.py", n) for n in (5, 6, 7, 8)]
    assert records[ids["c"]]["blame_lines"] == [[ids["a"], "tool.py", 6]]
    assert records[ids["e"]]["blame_lines"] == [[ids["a"], "tool.py", 8]]  # reached through the rename
    lines = defective_lines(result.records, RULES())
    assert lines == {ids["a"]: frozenset({("tool.py", 6), ("tool.py", 8)})}
    stored = dict(zip(line_keys(a), (x[2] for x in a["lines"]), strict=True))
    own = measure_diff("--- a/tool.py\n+++ b/tool.py\n@@ -6 +6 @@\n-x\n" + "+" + GOOD.splitlines()[1] + "\n")
    assert stored[("tool.py", 6)] == list(own.lines[1].tokens)  # the defective line's tokens are its own
    counts = result.manifest["counts"]["change"]
    assert (counts["defective_commits"], counts["defective_lines"], counts["defective_lines_stored"]) == (1, 2, 2)


def test_the_label_rules_decide_which_lines_count(fixed):
    ids, result = fixed
    records = result.records
    assert defective_lines(records, RULES(follow_renames=False)) == {ids["a"]: frozenset({("tool.py", 6)})}
    assert defective_lines(records, RULES(fix_rule="leading")) == defective_lines(records, RULES())
    sweeping = [dict(r) for r in records]
    fix = next(r for r in sweeping if r["id"] == ids["c"])
    fix["blame"] = [[ids["a"], 1, False], [ids["base"], 1, False]]
    assert defective_lines(sweeping, RULES(blame_cap=1)) == {ids["a"]: frozenset({("tool.py", 8)})}  # c labels nothing
    labels = derive_labels(records, RULES())
    early = {k: [x for x in v if x.fixing == ids["c"]] for k, v in labels.items()}
    assert defective_lines(records, RULES(), labels=early) == {ids["a"]: frozenset({("tool.py", 6)})}
    assert defective_lines(records, RULES(), view="escaped") == defective_lines(records, RULES())  # Bob, days later
    same_session = RULES(escape_days=30.0, session_gap_hours=1000.0)
    assert defective_lines([{**r, "operator": "Ann"} for r in records], same_session, view="escaped") == {}


def test_a_revert_names_no_lines_and_old_datasets_are_refused(fixed):
    ids, result = fixed
    revert = {**result.records[-1], "id": "r", "fix": {k: False for k in result.records[-1]["fix"]},
              "reverts": ids["a"], "blame": None, "blame_lines": None, "seq": 99}  # fmt: skip
    assert defective_lines([*result.records, revert], RULES()) == defective_lines(result.records, RULES())
    old = [{k: v for k, v in r.items() if k != "blame_lines"} for r in result.records]
    with pytest.raises(ValidationError) as err:
        defective_lines(old, RULES())
    assert str(err.value) == f"record {ids['c']}.blame_lines: a fix must list its blamed lines: re-extract the dataset"
    with pytest.raises(ValidationError, match="view"):
        defective_lines(result.records, RULES(), view="some")


@pytest.mark.parametrize("module", [colony.history.changes, colony.history.labels])
def test_docstring_examples_run(module):
    outcome = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert outcome.attempted > 0 and outcome.failed == 0


def test_without_renames_a_fix_keeps_only_the_lines_it_reached_directly(tmp_path):
    """f blames a twice: a line of x.py directly, and a line of y.py through y.py's rename to z.py."""
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    a = commit(repo, 0, "start", {"x.py": "x = 1\nx2 = x\n", "y.py": "y = 1\ny2 = y\n"})
    git(repo, "mv", "y.py", "z.py")
    commit(repo, 1, "rename y to z", {})
    f = commit(repo, 3, "fix: both", {"x.py": "x = 1\nx2 = -x\n", "z.py": "y = 1\ny2 = -y\n"}, name="Bob")
    records = extract(repo, name="r", output_dir=tmp_path / "out").records
    assert next(r for r in records if r["id"] == f)["blame_lines"] == [[a, "x.py", 2], [a, "y.py", 2]]
    assert defective_lines(records, RULES()) == {a: frozenset({("x.py", 2), ("y.py", 2)})}
    assert defective_lines(records, RULES(follow_renames=False)) == {a: frozenset({("x.py", 2)})}
