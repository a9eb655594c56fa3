"""Figures: one module per figure, each exposing ``FIGURE = FigureSpec(...)``.

A figure module declares what it reads (snapshot paths such as ``"policy.gate.weights"`` and
artefact files such as ``"file:data/replay.json"`` under the output directory) and a ``plot``
function that draws only from those. The build's figures stage (``scripts/render_figures.py``)
renders each figure to ``output/figures/<id>.png`` and reruns a figure only when its module,
this framework or one of its declared inputs changed.

Caption, alt text and long description are manuscript templates (``<< policy.x | num >>``), so
numbers in them come from the snapshot too.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colony.errors import ValidationError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["EVIDENCE_CLASSES", "FigureContext", "FigureSpec", "UndeclaredInputError", "with_sources"]

EVIDENCE_CLASSES = frozenset(
    {"analytic", "configuration", "quality-gate", "deterministic-fixture", "measurement", "offline-synthetic", "schematic"}
)
FIGURE_ID = re.compile(r"^[a-z][a-z0-9_]*$")
WIDTH = re.compile(r"^(?P<percent>[1-9][0-9]?|100)%$")
FILE_PREFIX = "file:"


def with_sources(caption: str, module: str, *data: str) -> str:
    """``caption`` followed by links to the figure's module and to what produced its data.

    ``module`` is the figure module's ``__file__``; ``data`` are repository paths (a notebook,
    a benchmark script, the policy file). The links point into the repository at the built
    commit (``links.source`` in the snapshot), as reproducible-paper tools link each figure to
    the code behind it. They are written as HTML anchors, which keep the Markdown image syntax
    free of nested brackets; the manuscript's Lua filter turns them into links for every format.

    >>> with_sources("Cap.", "/x/figures/demo.py")
    'Cap. Source: <a href="<< links.source >>figures/demo.py">figures/demo.py</a>.'
    """

    def link(path: str) -> str:
        return f'<a href="<< links.source >>{path}">{path}</a>'

    parts = [f"Source: {link(f'figures/{Path(module).name}')}"]
    if data:
        parts.append("data: " + ", ".join(link(d) for d in data))
    return f"{caption.rstrip()} {'; '.join(parts)}."


class UndeclaredInputError(ValidationError):
    """A plot function read a value its FigureSpec does not declare."""


@dataclass(frozen=True, slots=True)
class FigureSpec:
    """A figure: identity, texts, evidence class, declared inputs and the plot function.

    ``alt`` is a concise structural alternative; ``description`` the longer text equivalent
    (it must say more than the alt text); ``caption`` the reading and the permitted inference.
    ``size`` is the drawing's size in inches and ``width`` the share of the text block it is
    printed at, so a font of ``s`` points prints at ``s * printed_scale(text width)``.
    """

    id: str
    caption: str
    alt: str
    description: str
    evidence_class: str
    inputs: Sequence[str]
    plot: Callable[[FigureContext], Figure]
    width: str = "85%"
    size: tuple[float, float] = (5.5, 2.9)  # drawn at the size it prints at 85% of a 6.5-inch text block

    def __post_init__(self) -> None:
        if not FIGURE_ID.match(self.id):
            raise ValidationError("id", f"must match {FIGURE_ID.pattern}, got {self.id!r}")
        for name in ("caption", "alt", "description"):
            if not str(getattr(self, name)).strip():
                raise ValidationError(name, f"figure {self.id}: must not be empty")
        if self.alt.strip() == self.caption.strip():
            raise ValidationError("alt", f"figure {self.id}: alt text must not repeat the caption")
        if len(self.description) <= len(self.alt):
            raise ValidationError("description", f"figure {self.id}: the long description must be longer than the alt text")
        if self.evidence_class not in EVIDENCE_CLASSES:
            raise ValidationError(
                "evidence_class", f"figure {self.id}: {self.evidence_class!r} is not one of {sorted(EVIDENCE_CLASSES)}"
            )
        if isinstance(self.inputs, str) or not all(isinstance(i, str) and i for i in self.inputs):
            raise ValidationError("inputs", f"figure {self.id}: must be a list of snapshot paths or 'file:' artefacts")
        if not callable(self.plot):
            raise ValidationError("plot", f"figure {self.id}: must be callable")
        if not isinstance(self.width, str) or not WIDTH.match(self.width):
            raise ValidationError(
                "width", f"figure {self.id}: must be a percentage of the text width such as '85%', got {self.width!r}"
            )
        object.__setattr__(self, "inputs", tuple(self.inputs))  # a list from the module becomes immutable

    @property
    def width_fraction(self) -> float:
        """The printed width as a share of the text block (``"85%"`` -> 0.85)."""
        match = WIDTH.match(self.width)
        assert match is not None  # checked in __post_init__
        return int(match["percent"]) / 100

    def printed_scale(self, text_width_in: float) -> float:
        """How much the drawing shrinks (< 1) or grows on the page whose text block is ``text_width_in`` wide.

        >>> spec = FigureSpec("x", "c", "a", "a longer text", "schematic", [], plot=print, width="50%", size=(3.25, 2))
        >>> spec.printed_scale(6.5)
        1.0
        """
        return self.width_fraction * text_width_in / self.size[0]

    @property
    def variable_inputs(self) -> tuple[str, ...]:
        """Declared snapshot paths."""
        return tuple(i for i in self.inputs if not i.startswith(FILE_PREFIX))

    @property
    def file_inputs(self) -> tuple[str, ...]:
        """Declared artefact files, relative to the output directory."""
        return tuple(i[len(FILE_PREFIX) :] for i in self.inputs if i.startswith(FILE_PREFIX))


class FigureContext:
    """What a plot function may read: declared snapshot paths and declared artefact files."""

    def __init__(self, spec: FigureSpec, snapshot: Mapping[str, Any], output_dir: Path) -> None:
        self.spec = spec
        self._snapshot = snapshot
        self._output_dir = output_dir

    def var(self, path: str) -> Any:
        """The snapshot value at dotted ``path`` (a copy); it must lie under a declared input."""
        if not any(path == p or path.startswith(p + ".") for p in self.spec.variable_inputs):
            raise UndeclaredInputError("inputs", f"figure {self.spec.id} reads {path!r} without declaring it")
        value: Any = self._snapshot
        for part in path.split("."):
            if not isinstance(value, Mapping) or part not in value:
                raise ValidationError("inputs", f"figure {self.spec.id}: the snapshot has no {path!r}")
            value = value[part]
        return copy.deepcopy(value)

    def artifact(self, relative: str) -> Any:
        """The parsed JSON artefact at ``output/<relative>``; it must be declared as ``file:<relative>``."""
        if relative not in self.spec.file_inputs:
            raise UndeclaredInputError("inputs", f"figure {self.spec.id} reads {relative!r} without declaring 'file:{relative}'")
        path = self._output_dir / relative
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValidationError("inputs", f"figure {self.spec.id}: cannot read {relative}: {exc}") from exc
