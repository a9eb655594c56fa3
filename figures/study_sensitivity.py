"""Figure: H1–H4 verdicts across the sensitivity grid and seeds (offline-synthetic)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import new_figure, not_measured

HYPOTHESES = ("H1", "H2", "H3", "H4")


def plot(ctx: FigureContext) -> Figure:
    """One row per setting, one column per hypothesis: the share of seeds whose verdict is 'supported'."""
    sweep: dict[str, Any] = ctx.var("study.sweep")
    figure = new_figure(ctx.spec.size)
    if not sweep["present"]:
        return not_measured(figure, "no sweep result (colony study sweep)")
    settings = sweep["settings"]
    axes = figure.add_subplot()
    grid = []
    for name in settings:
        row = []
        for h in HYPOTHESES:
            entry = sweep["by_setting"][name]["hypotheses"][h]
            seeds = sum(entry["verdicts"].values()) or 1
            row.append(entry["verdicts"]["supported"] / seeds)
        grid.append(row)
    image = axes.imshow(grid, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
    for i, name in enumerate(settings):
        for j, h in enumerate(HYPOTHESES):
            v = sweep["by_setting"][name]["hypotheses"][h]["verdicts"]
            text = f"{v['supported']}/{v['inconclusive']}/{v['not supported']}"
            axes.text(j, i, text, ha="center", va="center", fontsize=7.5, color="white" if grid[i][j] < 0.6 else "black")
    axes.set_xticks(range(len(HYPOTHESES)), HYPOTHESES)
    axes.set_yticks(range(len(settings)), settings, fontsize=7.5)
    axes.set_xlabel("hypothesis (cells: supported / inconclusive / not supported seeds)")
    axes.grid(visible=False)
    figure.colorbar(image, ax=axes, label="share of seeds supported")
    return figure


FIGURE = FigureSpec(
    id="study_sensitivity",
    caption=with_sources(
        "<% if study.sweep.present %>"
        "Sensitivity of the verdicts: for each setting of the << study.sweep.grid >> grid (rows: one generator or policy "
        "parameter changed from the defaults) and each hypothesis (columns), the share of the << study.sweep.seeds >> "
        "seeds whose verdict was supported, with the counts supported / inconclusive / not supported in each cell. "
        "Offline-synthetic."
        "<% else %>Not measured in this build: no sweep result.<% endif %>",
        __file__,
        "colony/research/sweep.py",
        "colony/config/research.yaml",
    ),
    alt="Heatmap of settings by hypotheses H1 to H4, coloured by the share of seeds with a supported verdict.",
    description=(
        "A grid with one row per sweep setting (the default first, then one generator parameter, utility weight, gate "
        "weight, hazard band or threshold changed at a time) and four columns for H1 to H4. Each cell's colour is the "
        "share of seeds for which the hypothesis was supported, from dark (none) to light (all), and its text gives the "
        "number of seeds supported, inconclusive and not supported. Rows whose colour differs from the default row's show "
        "where a verdict depends on a parameter, such as setting the fragile-target effect to zero."
    ),
    evidence_class="offline-synthetic",
    inputs=["study.sweep"],
    plot=plot,
    size=(6.4, 5.2),
    width="95%",
)
