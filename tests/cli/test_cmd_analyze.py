"""``colony analyze``: ruff, complexity, a planted import cycle, security patterns; read-only."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from colony.cli_tools.analysis import import_cycles
from tests.cli.conftest import Runner, write

BRANCHY = "def branchy(x):\n" + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(12)) + "    return -1\n"


@pytest.fixture
def cyclic(mini: Path) -> Path:
    """minipkg with a cycle a -> b -> c -> a, a second cycle d <-> e, a complex function and risky calls."""
    pkg = mini / "minipkg"
    write(pkg / "a.py", "from minipkg import b\n")
    write(pkg / "b.py", "from . import c\n")
    write(pkg / "c.py", "import minipkg.a\n")
    write(pkg / "d.py", "from minipkg.e import thing\n\nthing2 = 1\n")
    write(
        pkg / "e.py",
        "from typing import TYPE_CHECKING\n\nthing = 1\nif TYPE_CHECKING:\n    from minipkg import c\nfrom minipkg.d import thing2\n",
    )
    write(pkg / "complex.py", BRANCHY)
    write(
        pkg / "risky.py",
        "import os\nimport subprocess\n\nAPI_KEY = 'sk-live-123'\nTOKEN_ENV = 'COLONY_TOKEN'\n\n\n"
        "def go(cmd, data):\n    subprocess.run(cmd, shell=True)\n    os.system(cmd)\n    return eval(data)\n",
    )
    return mini


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(root).as_posix(): (p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(root.rglob("*"))}


def test_analyze_reports_cycles_complexity_ruff_and_security_without_writing(colony: Runner, cyclic: Path) -> None:
    before = _snapshot(cyclic)
    result = colony("analyze", "minipkg", "--json", "--project", cyclic)
    out = result.json
    assert result.code == 0 and out["success"] is True
    assert out["import_cycles"] == [["minipkg.a", "minipkg.b", "minipkg.c", "minipkg.a"], ["minipkg.d", "minipkg.e", "minipkg.d"]]
    cycles = [i for i in out["issues"] if i["rule"] == "import-cycle"]
    assert {i["file"] for i in cycles} == {"minipkg/a.py", "minipkg/d.py"} and all(i["severity"] == "error" for i in cycles)
    c901 = [i for i in out["issues"] if i["rule"] == "C901"]
    assert [(i["file"], i["line"]) for i in c901] == [("minipkg/complex.py", 1)] and "13 > 10" in c901[0]["message"]
    assert any(i["source"] == "ruff" and i["rule"] == "F401" and i["file"] == "minipkg/d.py" for i in out["issues"])
    rules = {(f["rule"], f["line"]) for f in out["security_findings"]}
    assert {("S602", 9), ("S605", 10), ("S307", 11), ("S105", 4)} <= rules
    assert ("S105", 5) not in rules  # names an environment variable, holds no secret
    assert out["metrics"]["complexity_max"] == 13 and out["metrics"]["functions_over_threshold"] == 1
    assert out["files_analyzed"] == 9 and out["output_path"] is None
    assert _snapshot(cyclic) == before  # nothing written: no report, no ruff cache


def test_ruff_findings_carry_file_line_and_rule(colony: Runner, mini: Path) -> None:
    write(mini / "minipkg" / "unused.py", "import os\n")
    out = colony("analyze", "minipkg/unused.py", "--json", "--project", mini).json
    assert [(i["rule"], i["file"], i["line"], i["severity"]) for i in out["issues"]] == [
        ("F401", "minipkg/unused.py", 1, "warning")
    ]
    assert out["files_analyzed"] == 1 and out["tools"] == {"ruff": "ok"}


def test_analyzing_one_file_reports_only_its_cycles(colony: Runner, cyclic: Path) -> None:
    out = colony("analyze", "minipkg/e.py", "--json", "--no-security", "--project", cyclic).json
    assert out["import_cycles"] == [["minipkg.d", "minipkg.e", "minipkg.d"]] and out["security_findings"] == []
    assert colony("analyze", "README.md", "--json", "--project", cyclic).code == 2


def test_reports_are_written_only_inside_the_project_and_escaped(colony: Runner, cyclic: Path) -> None:
    write(cyclic / "minipkg" / "xss.py", 'def f():\n    return eval("<script>alert(1)</script>")\n')
    html = colony("analyze", "minipkg", "--format", "html", "--output", "reports", "--project", cyclic)
    assert html.code == 0 and "report: reports/analysis.html" in html.out
    page = (cyclic / "reports" / "analysis.html").read_text(encoding="utf-8")
    assert "<h2>Issues" in page and "minipkg.a -&gt; minipkg.b" in page and "<script>" not in page
    out = colony("analyze", "minipkg", "--format", "json", "--output", "reports", "--json", "--project", cyclic).json
    assert out["output_path"] == "reports/analysis.json"
    assert json.loads((cyclic / "reports" / "analysis.json").read_text(encoding="utf-8"))["import_cycles"] == out["import_cycles"]
    text = colony("analyze", "minipkg", "--project", cyclic)
    assert "import cycle: minipkg.a -> minipkg.b -> minipkg.c -> minipkg.a" in text.out


def test_symlinked_files_out_of_the_project_are_not_read(colony: Runner, mini: Path, outside: Path) -> None:
    os.symlink(outside / "secret.py", mini / "minipkg" / "leak.py")
    out = colony("analyze", "minipkg", "--json", "--project", mini).json
    assert out["skipped"] == [{"file": "minipkg/leak.py", "reason": "symlink out of the project; not read"}]
    assert all("leak" not in i["file"] for i in out["issues"] + out["security_findings"])


def test_import_cycles_reuses_the_falsification_graph_under_src(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    write(root / "src" / "pkg" / "__init__.py", "")
    write(root / "src" / "pkg" / "x.py", "from pkg import y\n")
    write(root / "src" / "pkg" / "y.py", "from pkg.x import name\n")
    cycles, notes = import_cycles(root, root / "src" / "pkg")
    assert cycles == [["pkg.x", "pkg.y", "pkg.x"]] and notes["modules"] == 3
