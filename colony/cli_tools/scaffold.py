"""``cli_project_create``: scaffold a new experiment inside the project, never overwriting anything.

Templates (files in ``colony/templates/``):

* ``experiment``: a parameterised notebook ``<notebooks>/NN_<slug>.ipynb``, a figure module
  ``<figures>/<slug>.py`` (discovered by the figures stage, so it enters the figure registry)
  and a manuscript section ``<manuscript>/sections/NN_<slug>.md.j2`` that includes and cites
  the figure, appended to ``metadata.yaml``'s section list;
* ``notebook``: the notebook alone;
* ``figure``: the figure module and its section.

In a project whose build runs its notebooks, the figure reads the notebook's results from
the variables snapshot; otherwise it reads the gate report's test counts, which every build
has. Every file is created exclusively; if anything fails, whatever this call created is
removed and ``metadata.yaml`` is restored.
"""

from __future__ import annotations

import os
import re
import string
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

import yaml

from colony.cli_tools.failures import tool_errors
from colony.cli_tools.paths import ProjectLayout, check_not_hidden, find_project, inside, layout, relative
from colony.errors import ConflictError, NotFoundError, ValidationError

__all__ = ["NAME_PATTERN", "TEMPLATES", "project_create"]

PREFIX = "Project creation failed"
NAME_PATTERN: Final = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")
TEMPLATES: Final[dict[str, tuple[str, ...]]] = {
    "experiment": ("notebook", "figure", "section"),
    "notebook": ("notebook",),
    "figure": ("figure", "section"),
}
DEFAULT_TEMPLATE: Final = "experiment"
MAX_DESCRIPTION: Final = 500
_NUMBERED: Final = re.compile(r"^(\d+)_")
_TEMPLATE_SYNTAX: Final = ("<<", ">>", "<%", "%>", "<#", "#>", "{#", "```")
_SECTIONS_KEY: Final = re.compile(r"^sections:\s*$")
_ITEM: Final = re.compile(r"^(\s*)-\s")


@dataclass(frozen=True, slots=True)
class _Plan:
    name: str
    slug: str
    stem: str
    section: str
    description: str


def _template(template_file: str, /, **values: str) -> str:
    text = resources.files("colony").joinpath("templates", template_file).read_text(encoding="utf-8")
    return string.Template(text).substitute(values)


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise ValidationError(
            "name", "must start with a letter and hold only letters, digits, '-' and '_' (at most 32 characters)", value=name
        )
    slug = name.lower().replace("-", "_")
    if slug.startswith("_") or "__" in slug or slug in {"style", "init"}:
        raise ValidationError("name", f"{name!r} would make the reserved module name {slug!r}", value=name)
    return slug


def _check_description(description: Any, name: str) -> str:
    if description is None or description == "":
        return f"What the `{name}` experiment asks, and how its notebook answers it."
    if not isinstance(description, str) or len(description) > MAX_DESCRIPTION:
        raise ValidationError("description", f"must be text of at most {MAX_DESCRIPTION} characters", value=description)
    text = " ".join(description.split())
    if any(mark in text for mark in _TEMPLATE_SYNTAX):
        raise ValidationError("description", "must not contain template or Markdown code syntax", value=description)
    if re.search(r"\d", text):
        raise ValidationError(
            "description", "must not type numbers: manuscript numbers come from the variables snapshot", value=description
        )
    return text


def _next_number(directory: Path, pattern: str) -> int:
    numbers = [int(m.group(1)) for p in directory.glob(pattern) if (m := _NUMBERED.match(p.name))] if directory.is_dir() else []
    return max(numbers, default=0) + 1


def _runs_notebooks(lay: ProjectLayout) -> bool:
    package = lay.root / lay.package
    return (package / "notebooks.py").is_file() or (package / "notebooks" / "__main__.py").is_file()


def _notebook(plan: _Plan, lay: ProjectLayout, with_figure: bool) -> str:
    import nbformat  # slow to import (its JSON-schema validator); only this template needs it

    note = f" The figure module `{lay.figures_dir}/{plan.slug}.py` draws them." if with_figure else ""
    values = {"name": plan.name, "slug": plan.slug, "stem": plan.stem, "description": plan.description, "figure_note": note}
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    nb.cells = [
        nbformat.v4.new_markdown_cell(_template("notebook_intro.md.tmpl", **values).rstrip("\n"), id=f"{plan.slug}-intro"[:64]),
        nbformat.v4.new_code_cell(
            _template("notebook_parameters.py.tmpl", **values).rstrip("\n"),
            id=f"{plan.slug}-parameters"[:64],
            metadata={"tags": ["parameters"]},
        ),
        nbformat.v4.new_code_cell(_template("notebook_body.py.tmpl", **values).rstrip("\n"), id=f"{plan.slug}-body"[:64]),
    ]
    nbformat.validate(nb)
    return nbformat.writes(nb) + "\n"


def _conflicts(lay: ProjectLayout, plan: _Plan, parts: tuple[str, ...], files: dict[str, Path]) -> list[str]:
    found = [relative(lay.root, p) for p in files.values() if p.exists() or p.is_symlink()]
    if "notebook" in parts and lay.notebooks.is_dir():
        found += [
            relative(lay.root, p)
            for p in lay.notebooks.glob("*.ipynb")
            if p.stem == plan.slug or p.stem.endswith(f"_{plan.slug}")
        ]
    if "figure" in parts and lay.figures.is_dir():
        found += [relative(lay.root, p) for p in lay.figures.glob("*.py") if f'id="{plan.slug}"' in p.read_text(encoding="utf-8")]
    if "section" in parts and (lay.manuscript / "sections").is_dir():
        found += [relative(lay.root, p) for p in (lay.manuscript / "sections").glob(f"*_{plan.slug}.md.j2")]
    return sorted(set(found))


def _with_section(metadata_text: str, entry: str) -> str:
    """``metadata.yaml`` with ``entry`` appended to its block-style ``sections:`` list."""
    lines = metadata_text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if _SECTIONS_KEY.match(line)), None)
    if start is None:
        raise ValidationError("metadata.yaml", "has no block-style 'sections:' list to append the new section to")
    last, indent = None, "  "
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if line.strip() and not line[0].isspace() and not line.startswith("-"):
            break
        match = _ITEM.match(line)
        if match:
            last, indent = i, match.group(1)
    if last is None:
        raise ValidationError("metadata.yaml", "its 'sections:' list is empty or not in block style")
    if not lines[last].endswith("\n"):
        lines[last] += "\n"
    lines.insert(last + 1, f"{indent}- {entry}\n")
    updated = "".join(lines)
    before = (yaml.safe_load(metadata_text) or {}).get("sections") or []
    after = (yaml.safe_load(updated) or {}).get("sections") or []
    if after != [*before, entry]:
        raise ValidationError("metadata.yaml", "could not append to the sections list without changing other entries")
    return updated


def _references_section(lay: ProjectLayout, metadata_text: str) -> str | None:
    """The listed section that holds the bibliography block (``{#refs}``), if any."""
    for entry in (yaml.safe_load(metadata_text) or {}).get("sections") or []:
        path = lay.manuscript / str(entry)
        if path.is_file() and "{#refs}" in path.read_text(encoding="utf-8"):
            return str(entry)
    return None


@tool_errors(PREFIX)
def project_create(
    name: str,
    *,
    template: str = DEFAULT_TEMPLATE,
    description: str | None = None,
    path: str | None = None,
    project: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Scaffold experiment ``name`` from ``template`` in the project (or its subdirectory ``path``)."""
    slug = _check_name(name)
    parts = TEMPLATES.get(template) if isinstance(template, str) else None
    if parts is None:
        raise NotFoundError(f"template (known: {', '.join(TEMPLATES)})", str(template))
    text = _check_description(description, name)
    root = find_project(project)
    base = inside(root, path, field="path") if path else root
    if not base.is_dir():
        raise ValidationError("path", f"{path!r} is not a directory", value=path)
    lay = layout(base) if (base / "pyproject.toml").is_file() else ProjectLayout(base, base.name, "", base.name)
    notebook_no = _next_number(lay.notebooks, "*.ipynb")
    section_no = _next_number(lay.manuscript / "sections", "*.md.j2")
    plan = _Plan(name, slug, f"{notebook_no:02d}_{slug}", f"sections/{section_no:02d}_{slug}.md.j2", text)
    files: dict[str, Path] = {}
    if "notebook" in parts:
        files["notebook"] = lay.notebooks / f"{plan.stem}.ipynb"
    if "figure" in parts:
        files["figure"] = lay.figures / f"{slug}.py"
    metadata = lay.manuscript / "metadata.yaml"
    if "section" in parts:
        if not metadata.is_file():
            raise NotFoundError("manuscript metadata (needed to add a section)", relative(root, metadata))
        # the file we rewrite goes through the same containment rule as every path (a link out is refused)
        metadata = inside(root, metadata, field="manuscript/metadata.yaml")
        files["section"] = lay.manuscript / plan.section
    for p in files.values():
        check_not_hidden(root, inside(root, p, field="path", must_exist=False), relative(root, p))
    clashes = _conflicts(lay, plan, parts, files)
    if clashes:
        raise ConflictError(f"{name!r} already exists in the project: {', '.join(clashes)} (nothing was changed)", ident=name)
    values = {"name": name, "slug": slug, "stem": plan.stem, "description": text}
    contents: dict[str, str] = {}
    if "notebook" in files:
        contents["notebook"] = _notebook(plan, lay, "figure" in parts)
    if "figure" in files:
        source = "figure_notebook.py.tmpl" if "notebook" in parts and _runs_notebooks(lay) else "figure_gates.py.tmpl"
        contents["figure"] = _template(source, **values)
    old_metadata = metadata.read_text(encoding="utf-8") if "section" in files else None
    if "section" in files:
        contents["section"] = _template("section.md.j2.tmpl", **values)
    new_metadata = _with_section(old_metadata, plan.section) if old_metadata is not None else None
    created: list[Path] = []
    try:
        for key, target in files.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("x", encoding="utf-8") as handle:
                created.append(target)
                handle.write(contents[key])
        if new_metadata is not None:
            metadata.write_text(new_metadata, encoding="utf-8")
    except BaseException:
        for target in created:
            target.unlink(missing_ok=True)
        if old_metadata is not None:
            metadata.write_text(old_metadata, encoding="utf-8")
        raise
    steps = []
    if "notebook" in files:
        steps.append(f"edit {relative(root, files['notebook'])} (parameters and computation)")
    if "figure" in files:
        steps.append(f"edit {relative(root, files['figure'])} (what the figure reads and draws)")
    if "section" in files:
        steps.append(f"write {relative(root, files['section'])} (the prose)")
        refs = _references_section(lay, old_metadata or "")
        if refs is not None:
            steps.append(
                f"the new section is listed last in {relative(root, metadata)}, after the references block in {refs}; "
                "move it to where it belongs"
            )
    steps.append("colony run all   # build: gates, notebooks, variables, figures, paper, bundle")
    return {
        "success": True,
        "project_path": str(base),
        "template_used": template,
        "files_created": [relative(root, p) for p in files.values()],
        "files_modified": [relative(root, metadata)] if new_metadata is not None else [],
        "next_steps": steps,
    }
