"""Stage 4, figures: render every figure module to ``output/figures/<id>.png`` plus a registry.

A figure reruns only when its module, the figure framework (``figures/__init__.py``,
``figures/style.py``), matplotlib, or one of its *declared* inputs changed; the registry
``output/figures/registry.json`` lists each figure's texts, evidence class, size, SHA-256 and
the size its smallest text prints at (``min_font_pt``: matplotlib's font size scaled by the
printed width over the drawn width; the validate stage requires at least
:data:`figures.style.MIN_PRINTED_PT`), and with a venue version the same at the width the venue PDF
prints it (``venue_min_font_pt``: both columns, :meth:`scripts.manuscript.Venue.figure_width_in`).

Run alone: ``python scripts/render_figures.py [--root DIR] [--force]``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import jinja2

import figures as framework
from colony.errors import ValidationError
from figures import FigureContext, FigureSpec
from figures.style import MIN_PRINTED_PT, figure_style, overlapping_texts, png_bytes, smallest_text
from scripts.buildconfig import BuildConfig
from scripts.cache import StageCache, code_digest, write_if_changed
from scripts.errors import BuildError
from scripts.hashing import digest_files, digest_mapping, file_sha256
from scripts.manuscript import load_manuscript
from scripts.stage import StageResult, stage_main
from scripts.templating import make_environment, resolve_path, template_variables
from scripts.variables import load_snapshot

__all__ = ["MIN_PRINTED_PT", "LoadedFigure", "discover", "draw_measured", "load_registry", "run"]

SKIP_MODULES = frozenset({"__init__.py", "style.py"})
FRAMEWORK_DIR = Path(framework.__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class LoadedFigure:
    """A figure module and its spec."""

    path: Path
    spec: FigureSpec


def _load_module(path: Path) -> Any:
    name = f"_colony_figure_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BuildError("figures", f"cannot load {path.name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except ValidationError as exc:
        raise BuildError("figures", f"{path.name}: invalid FigureSpec: {exc}") from exc
    except Exception as exc:  # a broken figure module must stop the build with its name
        raise BuildError("figures", f"{path.name}: import failed: {type(exc).__name__}: {exc}") from exc
    return module


def discover(config: BuildConfig) -> list[LoadedFigure]:
    """Every ``FIGURE`` defined by a module in the figures directory, in file-name order."""
    found: list[LoadedFigure] = []
    seen: dict[str, Path] = {}
    for path in sorted(config.figures.glob("*.py")):
        if path.name in SKIP_MODULES or path.name.startswith("_"):
            continue
        spec = getattr(_load_module(path), "FIGURE", None)
        if spec is None:
            continue
        if not isinstance(spec, FigureSpec):
            raise BuildError("figures", f"{path.name}: FIGURE is a {type(spec).__name__}, not a FigureSpec")
        if spec.id in seen:
            raise BuildError("figures", f"figure id {spec.id!r} is defined by both {seen[spec.id].name} and {path.name}")
        seen[spec.id] = path
        found.append(LoadedFigure(path, spec))
    return found


def _shared_key_parts() -> dict[str, str]:
    """What every figure's key includes: the framework, this stage's code and matplotlib's version."""
    return {
        "framework": digest_files(FRAMEWORK_DIR, [FRAMEWORK_DIR / "__init__.py", FRAMEWORK_DIR / "style.py"]),
        "tool": code_digest("render_figures.py"),
        "matplotlib": metadata.version("matplotlib"),
    }


def _figure_key(config: BuildConfig, figure: LoadedFigure, snapshot: dict[str, Any], shared: dict[str, str]) -> str:
    spec = figure.spec
    values: dict[str, Any] = {}
    for path in spec.variable_inputs:
        try:
            values[path] = resolve_path(snapshot, path)
        except KeyError as exc:
            raise BuildError(
                "figures", f"{figure.path.name}: declared input {path!r} is not in the snapshot (no {exc.args[0]})"
            ) from exc
    files = {}
    for rel in spec.file_inputs:
        artefact = config.out.root / rel
        if not artefact.is_file():
            raise BuildError(
                "figures", f"{figure.path.name}: declared artefact {rel!r} does not exist under {config.output_dir}/"
            )
        files[rel] = file_sha256(artefact)
    return digest_mapping(
        {
            **shared,
            "module": file_sha256(figure.path),
            "values": values,
            "files": files,
            "size": list(spec.size),
        }
    )


def _render_text(env: jinja2.Environment, figure: LoadedFigure, name: str, snapshot: dict[str, Any]) -> str:
    try:
        return env.from_string(getattr(figure.spec, name)).render(snapshot).strip()
    except (jinja2.TemplateError, TypeError) as exc:
        raise BuildError("figures", f"{figure.path.name}: {name}: {type(exc).__name__}: {exc}") from exc


def _draw(config: BuildConfig, figure: LoadedFigure, snapshot: dict[str, Any]) -> bytes:
    """The figure's PNG bytes (what the stage writes), without its cache."""
    return draw_measured(config, figure, snapshot)[0]


def draw_measured(config: BuildConfig, figure: LoadedFigure, snapshot: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    """The PNG bytes and the smallest drawn text: ``{"smallest_drawn_pt", "smallest_text"}`` at the drawing's size."""
    ctx = FigureContext(figure.spec, snapshot, config.out.root)
    with figure_style():
        try:
            drawn = figure.spec.plot(ctx)
        except ValidationError as exc:
            raise BuildError("figures", f"{figure.path.name}: {exc}") from exc
        except Exception as exc:  # a failing plot must stop the build with the figure's name
            raise BuildError("figures", f"{figure.path.name}: plot failed: {type(exc).__name__}: {exc}") from exc
        if drawn is None or not hasattr(drawn, "savefig"):
            raise BuildError("figures", f"{figure.path.name}: plot must return a matplotlib Figure")
        drawn.set_size_inches(*figure.spec.size)
        png = png_bytes(drawn)  # draws: tick labels exist from here on
        size, text = smallest_text(drawn)
        return png, {
            "smallest_drawn_pt": size if size != float("inf") else None,
            "smallest_text": text,
            "overlapping_texts": [list(pair) for pair in overlapping_texts(drawn)],
        }


def run(config: BuildConfig, *, force: bool = False) -> StageResult:
    """Render changed figures, drop PNGs of removed figures, rewrite the registry if it changed."""
    snapshot = load_snapshot(config)
    figures = discover(config)
    cache = StageCache(config)
    env = make_environment()
    out_dir = config.out.figures
    out_dir.mkdir(parents=True, exist_ok=True)
    shared = _shared_key_parts()  # the same for every figure: hashed once per run
    manuscript = load_manuscript(config)
    text_width = manuscript.page.text_width_in
    venue_width = manuscript.venue.figure_width_in(manuscript.page) if manuscript.venue is not None else None
    rendered: list[str] = []
    entries: list[dict[str, Any]] = []
    for figure in figures:
        spec = figure.spec
        png = out_dir / f"{spec.id}.png"
        fonts_file = out_dir / f"{spec.id}.fonts.json"
        key = _figure_key(config, figure, snapshot, shared)
        texts = {name: _render_text(env, figure, name, snapshot) for name in ("caption", "alt", "description")}
        measured = fonts_file.is_file() and "overlapping_texts" in json.loads(fonts_file.read_text(encoding="utf-8"))
        if force or cache.lookup(f"figure-{spec.id}", key) is None or not measured:
            image, fonts = draw_measured(config, figure, snapshot)
            png.write_bytes(image)
            fonts_file.write_text(json.dumps(fonts, sort_keys=True) + "\n", encoding="utf-8")
            cache.store(f"figure-{spec.id}", key, [png, fonts_file])
            rendered.append(spec.id)
        fonts = json.loads(fonts_file.read_text(encoding="utf-8"))
        drawn_pt = fonts.get("smallest_drawn_pt")
        entries.append(
            {
                "id": spec.id,
                "label": f"fig:{spec.id}",
                "file": f"figures/{png.name}",
                "module": config.rel(figure.path),
                **texts,
                "evidence_class": spec.evidence_class,
                "inputs": list(spec.inputs),
                "text_variables": sorted(set().union(*(template_variables(env, getattr(spec, n)) for n in texts))),
                "width": spec.width,
                "bytes": png.stat().st_size,
                "sha256": file_sha256(png),
                "min_font_pt": None if drawn_pt is None else round(drawn_pt * spec.printed_scale(text_width), 2),
                # the venue PDF prints the figure at its own width (None: no venue version, or nothing drawn)
                "venue_min_font_pt": None
                if drawn_pt is None or venue_width is None
                else round(drawn_pt * spec.printed_scale(venue_width), 2),
                "min_font_text": fonts.get("smallest_text", ""),
                "overlapping_texts": fonts.get("overlapping_texts", []),
            }
        )
    keep = {f"{e['id']}{suffix}" for e in entries for suffix in (".png", ".fonts.json")}
    removed = [p for p in [*out_dir.glob("*.png"), *out_dir.glob("*.fonts.json")] if p.name not in keep]
    for stale in removed:
        stale.unlink()
    registry = {"schema": 1, "count": len(entries), "figures": entries}
    changed = write_if_changed(
        config.out.figure_registry, json.dumps(registry, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    )
    skipped = not rendered and not removed and not changed
    summary = f"{len(entries)} figures, {len(rendered)} rendered" + (f" ({', '.join(rendered)})" if rendered else "")
    return StageResult("figures", skipped=skipped, summary=summary)


def load_registry(config: BuildConfig) -> dict[str, Any]:
    """Read the figure registry (fails closed when absent)."""
    path = config.out.figure_registry
    if not path.is_file():
        raise BuildError("figures", f"no figure registry at {config.rel(path)}: run the figures stage first")
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("figures"), list):
        raise BuildError("figures", f"{config.rel(path)} is malformed")
    return data


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run the figures stage alone."""
    return stage_main("figures", run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
