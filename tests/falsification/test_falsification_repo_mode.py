"""Repository-aware circular check: real packages in tmp_path, import resolution, containment."""

from __future__ import annotations

import ast
import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest

from colony.config import default_policy
from colony.errors import PathSafetyError, ValidationError
from colony.falsification import FalsificationWorker, falsify_plan
from colony.falsification.import_graph import extract_imports, find_cycle
from colony.models import AttackVector, FalsificationFinding, FalsificationSeverity

HIGH, MEDIUM, LOW = FalsificationSeverity.HIGH, FalsificationSeverity.MEDIUM, FalsificationSeverity.LOW


def write_tree(base: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return base


def circular(worker: FalsificationWorker, target: str, **plan: Any) -> FalsificationFinding | None:
    report = worker.evaluate_plan({"target": target, **plan})
    found = [f for f in report.findings if f.attack_vector is AttackVector.CIRCULAR_ARCHITECTURE]
    assert len(found) <= 1
    return found[0] if found else None


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    return project


def test_absolute_three_module_cycle(root: Path) -> None:
    write_tree(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import os\nimport pkg.b\n",
            "pkg/b.py": "from pkg import c\n",
            "pkg/c.py": "from pkg.a import thing\n",
            "pkg/d.py": "import pkg.a\n",
        },
    )
    finding = circular(FalsificationWorker(repo_root=root), "pkg")
    assert finding is not None and finding.severity is HIGH
    assert finding.evidence["cycle"] == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]
    assert finding.evidence["files_scanned"] == 5
    assert finding.remediation.startswith("Circular import detected: pkg.a -> pkg.b -> pkg.c -> pkg.a.")


def test_relative_three_module_cycle(root: Path) -> None:
    write_tree(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/x.py": "from . import y\n",
            "pkg/sub/y.py": "from .z import helper\n",
            "pkg/sub/z.py": "def f():\n    from ..sub.x import g\n    return g\n",
        },
    )
    finding = circular(FalsificationWorker(repo_root=root), "pkg.sub")
    assert finding is not None and finding.evidence["cycle"] == ["pkg.sub.x", "pkg.sub.y", "pkg.sub.z", "pkg.sub.x"]


def test_relative_import_in_init_resolves_inside_its_own_package(root: Path) -> None:
    write_tree(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/m.py": "",  # the reference resolved `.m` in pkg/sub/__init__ to this file
            "pkg/sub/__init__.py": "from .m import CONSTANT\n",
            "pkg/sub/m.py": "from pkg.sub import other\n",
        },
    )
    finding = circular(FalsificationWorker(repo_root=root), "pkg.sub")
    assert finding is not None and finding.evidence["cycle"] == ["pkg.sub", "pkg.sub.m", "pkg.sub"]


def test_fully_qualified_and_short_absolute_imports_under_a_subpackage(root: Path) -> None:
    write_tree(
        root,
        {
            "pkg/sub/__init__.py": "",
            "pkg/sub/one.py": "import pkg.sub.two as two\n",
            "pkg/sub/two.py": "from sub import one\n",  # the subpackage itself on sys.path
        },
    )
    finding = circular(FalsificationWorker(repo_root=root), "pkg.sub")
    assert finding is not None and finding.evidence["cycle"] == ["pkg.sub.one", "pkg.sub.two", "pkg.sub.one"]


def test_src_layout_and_path_targets(root: Path) -> None:
    write_tree(root, {"src/app/__init__.py": "", "src/app/p.py": "from app import q\n", "src/app/q.py": "from app.p import z\n"})
    worker = FalsificationWorker(repo_root=root)
    for target in ("app", "src/app"):
        finding = circular(worker, target)
        assert finding is not None and finding.evidence["cycle"] == ["app.p", "app.q", "app.p"], target


def test_acyclic_graphs_and_look_alikes_are_clean(root: Path) -> None:
    write_tree(
        root,
        {
            "pkg/__init__.py": "from pkg.a import A\n",
            "pkg/a.py": "import pkg2.b\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import B\n",
            "pkg/b.py": "from pkg.a import A\nimport pkg\n",
            "pkg2/__init__.py": "",
            "pkg2/b.py": "import pkg.a\n",
        },
    )
    worker = FalsificationWorker(repo_root=root)
    assert circular(worker, "pkg") is None
    assert circular(worker, "does.not.exist") is None
    assert circular(worker, "pkg/a.py") is None  # a file, not a package directory


def test_parent_child_pair_keeps_the_graph_notes_and_cycle_wins(root: Path) -> None:
    write_tree(root, {"pkg/a.py": "import pkg.b\n", "pkg/b.py": "import pkg.a\n"})
    worker = FalsificationWorker(repo_root=root)
    finding = circular(worker, "pkg", dependencies=["x.y", "x.y.z"])
    assert finding is not None and finding.severity is HIGH and "cycle" in finding.evidence


def test_unparsable_and_unreadable_files_are_reported(root: Path) -> None:
    write_tree(root, {"pkg/__init__.py": "", "pkg/ok.py": "x = 1\n", "pkg/broken.py": "def (:\n"})
    (root / "pkg" / "nul.py").write_bytes(b"x = 1\x00\n")
    finding = circular(FalsificationWorker(repo_root=root), "pkg")
    assert finding is not None and finding.severity is LOW
    reasons = {item["file"]: item["reason"] for item in finding.evidence["not_analysed"]}
    assert set(reasons) == {"broken.py", "nul.py"}
    assert reasons["broken.py"].startswith("unparsable: line 1")
    finding = circular(FalsificationWorker(repo_root=root), "pkg", dependencies=["a.b", "a.b.c"])
    assert finding is not None and finding.severity is MEDIUM and finding.evidence["not_analysed_count"] == 2


def test_file_limit_is_reported(root: Path) -> None:
    write_tree(root, {f"pkg/m{i}.py": "" for i in range(5)})
    policy = default_policy()
    small = dataclasses.replace(policy, falsification=dataclasses.replace(policy.falsification, import_graph_max_files=2))
    finding = circular(FalsificationWorker(small, repo_root=root), "pkg")
    assert finding is not None and finding.severity is LOW
    assert finding.evidence["truncated_at_files"] == 2 and finding.evidence["files_scanned"] == 2


def test_changed_files_are_reparsed(root: Path) -> None:
    write_tree(root, {"pkg/a.py": "import pkg.b\n", "pkg/b.py": "import pkg.a\n"})
    worker = FalsificationWorker(repo_root=root)
    assert circular(worker, "pkg") is not None
    (root / "pkg" / "b.py").write_text("import os  # no cycle any more\n", encoding="utf-8")
    assert circular(worker, "pkg") is None


def test_falsify_plan_takes_the_root_as_configuration(root: Path) -> None:
    write_tree(root, {"pkg/a.py": "import pkg.b\n", "pkg/b.py": "import pkg.a\n"})
    result = falsify_plan({"target": "pkg"}, repo_root=root)
    cycles = [f["evidence"]["cycle"] for f in result["findings"] if f["attack_vector"] == "circular_architecture"]
    assert cycles == [["pkg.a", "pkg.b", "pkg.a"]]
    assert not [f for f in falsify_plan({"target": "pkg"})["findings"] if f["attack_vector"] == "circular_architecture"]


# ---------------------------------------------------------------------------------------------- containment


def test_filesystem_root_is_refused_as_a_root() -> None:
    with pytest.raises(PathSafetyError):
        FalsificationWorker(repo_root="/")
    with pytest.raises(PathSafetyError):
        FalsificationWorker(repo_root="/tmp/../")


def test_missing_or_blank_root_is_a_validation_error(tmp_path: Path) -> None:
    with pytest.raises(ValidationError) as info:
        FalsificationWorker(repo_root=tmp_path / "missing")
    assert info.value.field == "repo_root"
    with pytest.raises(ValidationError):
        FalsificationWorker(repo_root="  ")


@pytest.mark.parametrize("target", ["..", ".", "../outside", "/etc", "/", "pkg/../..", "..\\outside"])
def test_targets_outside_the_root_are_refused(root: Path, target: str) -> None:
    (root.parent / "outside").mkdir()
    write_tree(root.parent, {"outside/a.py": "import outside.b\n", "outside/b.py": "import outside.a\n"})
    write_tree(root, {"pkg/__init__.py": ""})
    with pytest.raises(PathSafetyError):
        FalsificationWorker(repo_root=root).evaluate_plan({"target": target})


def test_symlink_out_of_the_root_is_refused(root: Path) -> None:
    outside = write_tree(root.parent / "elsewhere", {"a.py": "import elsewhere.b\n", "b.py": "import elsewhere.a\n"})
    os.symlink(outside, root / "linked", target_is_directory=True)
    with pytest.raises(PathSafetyError):
        FalsificationWorker(repo_root=root).evaluate_plan({"target": "linked"})


def test_symlinks_inside_a_package_do_not_lead_out(root: Path) -> None:
    outside = write_tree(root.parent / "elsewhere", {"evil.py": "import pkg.a\n", "deep/x.py": "import pkg.a\n"})
    write_tree(root, {"pkg/__init__.py": "", "pkg/a.py": "import pkg.evil\nimport pkg.deep.x\n"})
    os.symlink(outside / "evil.py", root / "pkg" / "evil.py")
    os.symlink(outside / "deep", root / "pkg" / "deep", target_is_directory=True)
    finding = circular(FalsificationWorker(repo_root=root), "pkg")
    assert finding is not None and finding.severity is LOW
    assert finding.evidence["not_analysed"] == [
        {"file": "evil.py", "reason": "symlink to a file outside the configured root; not read"}
    ]


def test_root_given_through_a_symlink_is_resolved(root: Path) -> None:
    write_tree(root, {"pkg/a.py": "import pkg.b\n", "pkg/b.py": "import pkg.a\n"})
    alias = root.parent / "alias"
    os.symlink(root, alias, target_is_directory=True)
    worker = FalsificationWorker(repo_root=alias)
    assert worker.repo_root == root.resolve()
    assert circular(worker, "pkg") is not None


# ---------------------------------------------------------------------------------------------- cycle search


def test_find_cycle_is_deterministic_and_rotated() -> None:
    assert find_cycle({"c": ("a",), "a": ("b",), "b": ("c",)}) == ["a", "b", "c", "a"]
    assert find_cycle({"z": ("y",), "y": ("x",), "x": ("z",), "a": ("z",)}) == ["x", "z", "y", "x"]
    assert find_cycle({"a": ("b",), "b": ()}) is None
    assert find_cycle({}) is None


def test_find_cycle_is_iterative_on_long_chains() -> None:
    n = 200_000
    chain = {f"m{i:06d}": (f"m{i + 1:06d}",) for i in range(n)}
    chain[f"m{n:06d}"] = ()
    assert find_cycle(chain) is None
    chain[f"m{n:06d}"] = ("m000000",)
    cycle = find_cycle(chain)
    assert cycle is not None and len(cycle) == n + 2 and cycle[0] == cycle[-1] == "m000000"


def test_find_cycle_is_not_exponential_on_layered_graphs() -> None:
    # 2**40 paths from top to bottom; a path-copying walk would never finish
    layers = 40
    edges = {f"l{i:02d}{s}": (f"l{i + 1:02d}a", f"l{i + 1:02d}b") for i in range(layers) for s in "ab"}
    edges.update({f"l{layers:02d}a": (), f"l{layers:02d}b": ()})
    assert find_cycle(edges) is None


def test_extract_imports_reaches_every_block_but_type_checking() -> None:
    source = """
import a
try:
    import b
except ImportError:
    import c
else:
    import d
finally:
    import e
class K:
    def m(self):
        from . import f
async def g():
    async with x:
        import h
    async for i in y:
        import i2
while True:
    import j
with z:
    from ..k import name
match v:
    case 1:
        import m1
if TYPE_CHECKING:
    import hidden
else:
    import n
if typing.TYPE_CHECKING:
    import hidden2
try:
    pass
except* ValueError:
    import o
"""
    found = extract_imports(ast.parse(source))
    names = sorted(module or str(level) for level, module, _ in found)
    assert names == ["1", "a", "b", "c", "d", "e", "h", "i2", "j", "k", "m1", "n", "o"]
    assert (2, "k", ("name",)) in found and (1, "", ("f",)) in found
