"""The figure framework: spec validation, declared inputs only, reproducible PNGs.

The repository's own figures render through the stage in tests/manuscript/test_manuscript_figures.py, on the
complete output the manuscript tests build once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from colony.errors import ValidationError
from figures import FigureContext, FigureSpec, UndeclaredInputError
from figures.style import LINESTYLES, MARKERS, OKABE_ITO, SERIES, contrast_ratio, figure_style, new_figure, png_bytes

GOOD = {
    "id": "demo",
    "caption": "A caption.",
    "alt": "Short alt.",
    "description": "A longer description of the demo figure.",
    "evidence_class": "analytic",
    "inputs": ["policy.gate", "file:data/replay.json"],
    "plot": lambda ctx: new_figure((2, 2)),
}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"id": "Bad-Id"}, "id"),
        ({"alt": "A caption."}, "alt"),
        ({"description": "tiny"}, "description"),
        ({"evidence_class": "vibes"}, "evidence_class"),
        ({"inputs": "policy.gate"}, "inputs"),
        ({"caption": "  "}, "caption"),
    ],
)
def test_invalid_specs_name_the_field(change: dict, field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        FigureSpec(**(GOOD | change))
    assert caught.value.field == field


def test_context_serves_only_declared_inputs(tmp_path: Path) -> None:
    spec = FigureSpec(**GOOD)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "replay.json").write_text('{"score": 0.875}', encoding="utf-8")
    ctx = FigureContext(spec, {"policy": {"gate": {"hold": 0.5}, "trust": {"x": 1}}}, tmp_path)
    assert ctx.var("policy.gate.hold") == 0.5
    assert ctx.artifact("data/replay.json") == {"score": 0.875}
    with pytest.raises(UndeclaredInputError):
        ctx.var("policy.trust.x")
    with pytest.raises(UndeclaredInputError):
        ctx.artifact("data/other.json")
    with pytest.raises(ValidationError, match="no 'policy.gate.missing'"):
        ctx.var("policy.gate.missing")


def test_png_bytes_are_reproducible_and_carry_no_metadata() -> None:
    def draw() -> bytes:
        with figure_style():
            figure = new_figure((3, 2))
            figure.add_subplot().plot([0, 1, 2], [2, 1, 0], label="x")
            return png_bytes(figure)

    first = draw()
    assert first == draw() and first.startswith(b"\x89PNG") and b"Software" not in first and b"Creation" not in first


def test_series_never_rely_on_colour_alone() -> None:
    assert len(set(SERIES)) == len(SERIES) <= min(len(LINESTYLES), len(MARKERS))
    assert "yellow" not in SERIES and contrast_ratio(OKABE_ITO["blue"]) >= 4.5
    assert contrast_ratio("#000000") == pytest.approx(21.0) and contrast_ratio("#FFFFFF") == pytest.approx(1.0)
