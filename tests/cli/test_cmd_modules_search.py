"""``colony modules`` and ``colony search`` over a temporary project."""

from __future__ import annotations

from pathlib import Path

from colony.cli_tools.catalog import Entry
from colony.cli_tools.search import rank
from tests.cli.conftest import Runner, write


def test_modules_lists_every_kind_with_status_and_version(colony: Runner, tiny: Path) -> None:
    write(tiny / "figures" / "broken.py", "def oops(:\n")
    out = colony("modules", "--json", "--project", tiny).json
    by_name = {(m["category"], m["name"]): m for m in out["modules"]}
    assert by_name[("subsystem", "colony.kernel")]["status"] == "available"
    assert by_name[("subsystem", "colony.kernel")]["description"].startswith("ColonyKernel")
    assert by_name[("figure", "threshold")]["status"] == "available" and len(by_name[("figure", "threshold")]["version"]) == 12
    assert by_name[("figure", "broken")]["status"] == "unavailable" and "details" in by_name[("figure", "broken")]
    assert {("workflow", w) for w in ("gates", "manuscript", "all", "benchmark")} <= set(by_name)
    tools = {name for cat, name in by_name if cat == "tool"}
    assert {"colony_propose_action", "cli_check_environment", "cli_workflow_run"} <= tools
    assert out["total_count"] == len(out["modules"]) and out["available_count"] == len(out["modules"]) - 1


def test_modules_filters_by_status_and_shows_details(colony: Runner, tiny: Path) -> None:
    write(tiny / "figures" / "broken.py", "FIGURE = None\n")
    unavailable = colony("modules", "--status", "unavailable", "--json", "--project", tiny).json
    assert [m["name"] for m in unavailable["modules"]] == ["broken"]
    assert unavailable["total_count"] > unavailable["available_count"] >= 1
    detailed = colony("modules", "--details", "--status", "available", "--json", "--project", tiny).json
    threshold = next(m for m in detailed["modules"] if m["name"] == "threshold")
    assert threshold["details"]["path"] == "figures/threshold.py" and threshold["details"]["inputs"] == ["policy.threshold"]
    assert all(m["status"] == "available" for m in detailed["modules"])
    text = colony("modules", "--project", tiny)
    assert text.code == 0 and "threshold" in text.out and "available" in text.out


def test_search_ranks_name_matches_above_description_matches(colony: Runner, tiny: Path) -> None:
    write(tiny / "docs" / "guide.md", "# Guide\n\n## Tuning\n\nThe threshold can be tuned in the policy file.\n")
    out = colony("search", "threshold", "--json", "--project", tiny).json
    names = [(r["category"], r["name"]) for r in out["results"]]
    assert names[0] == ("figure", "threshold") and out["results"][0]["match_score"] == 1.0
    assert ("doc", "docs/guide.md#Tuning") in names
    assert names.index(("figure", "threshold")) < names.index(("doc", "docs/guide.md#Tuning"))
    scores = [r["match_score"] for r in out["results"]]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)
    assert out["total_results"] == len(out["results"])


def test_search_category_limit_and_bad_input(colony: Runner, tiny: Path) -> None:
    wf = colony("search", "figures", "--category", "workflow", "--json", "--project", tiny).json
    assert {r["category"] for r in wf["results"]} == {"workflow"} and wf["results"][0]["name"] == "figures"
    limited = colony("search", "colony", "--limit", "2", "--json", "--project", tiny).json
    assert len(limited["results"]) == 2 and limited["total_results"] > 2
    bad = colony("search", "x", "--category", "nonsense", "--json", "--project", tiny)
    assert bad.code == 2 and bad.json["error"].startswith("Search failed: category")
    empty = colony("search", "!!!", "--json", "--project", tiny)
    assert empty.code == 2 and "letter or digit" in empty.json["error"]


def test_rank_scoring_rules() -> None:
    entries = [
        Entry("gate_weights", "figure", "Bar chart of the gate weights"),
        Entry("weights", "doc", "unrelated"),
        Entry("x", "notebook", "nothing", keywords=("gate",)),
    ]
    ranked = {e.name: s for e, s in rank("gate weights", entries)}
    assert ranked["gate_weights"] == 1.0  # both words name the entry, plus the phrase
    assert ranked["weights"] == 0.5  # one of two words, exactly the name
    assert ranked["x"] == 0.3  # one of two words, in the keywords
    assert rank("zzz", entries) == []


def test_notebooks_are_listed_with_their_parameters_and_searchable(colony: Runner, tiny: Path) -> None:
    assert colony("new", "sweep", "--template", "notebook", "--description", "A parameter sweep.", "--project", tiny).code == 0
    write(tiny / "notebooks" / "02_bad.ipynb", "{not json")
    out = colony("modules", "--details", "--json", "--project", tiny).json
    notebooks = {m["name"]: m for m in out["modules"] if m["category"] == "notebook"}
    assert notebooks["01_sweep"]["status"] == "available"
    assert notebooks["01_sweep"]["description"].startswith("The `sweep` experiment. A parameter sweep.")
    assert set(notebooks["01_sweep"]["details"]["parameters"]) == {"points", "scale", "output_dir"}
    assert notebooks["02_bad"]["status"] == "unavailable"
    found = colony("search", "sample", "points", "--category", "notebook", "--project", tiny)
    assert found.code == 0 and found.out.splitlines()[0].split()[2] == "01_sweep" and "matches" in found.out
