"""Figure: trade-off curves of every condition on the two real histories (real-data measurement)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures._history import NOT_MEASURED, repository_axes
from figures.style import LINESTYLES, MARKERS, OKABE_ITO, SERIES, new_figure, not_measured


def plot(ctx: FigureContext) -> Figure:
    """One panel per repository: share of inducing commits held against share of all commits held, per condition."""
    history: dict[str, Any] = ctx.var("history")
    figure = new_figure(ctx.spec.size)
    found = repository_axes(ctx, figure, sharey=True)
    if found is None:
        return not_measured(figure, NOT_MEASURED)
    study, repositories = found
    for axes, name in repositories:
        conditions = study["repositories"][name]["primary"]["conditions"]
        repo = history["repos"][name]
        to_fpr = _false_positive_rate(repo["judged"], repo["inducing"])
        # chance on top of the curves, so the conditions that hold nothing (a constant score) cannot hide it
        axes.plot([0, 1], [0, 1], color="#555555", linewidth=0.9, linestyle=":", zorder=5, label="chance")
        for i, cond in enumerate(history["conditions"]):
            c = conditions[cond]
            if c["auc"] is not None and abs(c["auc"] - 0.5) < 1e-9:
                continue  # a constant score is the diagonal itself; the caption names these conditions
            colour = OKABE_ITO[SERIES[i % len(SERIES)]]
            label = f"{history['condition_names'].get(cond, cond)} ({c['auc']:.2f})"
            xs = [to_fpr(h, r) for h, r in zip(c["curve"]["held_share"], c["curve"]["recall"], strict=True)]
            axes.plot(xs, c["curve"]["recall"], color=colour, linestyle=LINESTYLES[i % len(LINESTYLES)],
                      linewidth=1.1, label=label)  # fmt: skip
            op = c["operating"]
            if op["recall"] is not None:
                axes.plot([to_fpr(op["held_share"], op["recall"])], [op["recall"]], marker=MARKERS[i % len(MARKERS)],
                          color=colour, markersize=4.5)  # fmt: skip
        axes.set_title(history["names"].get(name, name), fontsize=8.5)
        axes.set_xlabel("share of non-inducing commits held", fontsize=7.5)
        axes.set_xlim(0, 1)
        axes.set_ylim(0, 1)
        axes.legend(
            fontsize=7,
            loc="lower right",
            title="condition (ROC AUC)",
            title_fontsize=7,
            labelspacing=0.15,
            handlelength=1.6,
            borderpad=0.3,
        )
    repositories[0][0].set_ylabel("share of inducing commits held", fontsize=7.5)
    return figure


def _false_positive_rate(judged: int, inducing: int) -> Any:
    """Map (share of all commits held, share of inducing ones held) to the share of the other commits held."""

    def fpr(held: float, recall: float) -> float:
        clean = judged - inducing
        return min(1.0, max(0.0, (held * judged - recall * inducing) / clean)) if clean else 0.0

    return fpr


FIGURE = FigureSpec(
    id="history_tradeoff",
    caption=with_sources(
        "<% if history.present %>"
        "ROC curves of the first study's conditions on the two real histories (all labels, horizon "
        "<< history.parameters.horizon_days | num >> days): share of inducing commits held against share of the other "
        "judged commits held, so the area under each curve is the AUC in the legend; the preregistered operating point "
        "as a marker, chance as the dotted diagonal, on which executing everything and the budget alone lie (they hold "
        "nothing). A straight stretch is a run of tied scores, held together. Before its first fit, which waits for "
        "<< history.parameters.min_positive >> known inducing commits and enough clean ones, the JIT baseline scores a "
        "commit by the lines it adds."
        "<% else %>Not measured in this build: no history study artefact.<% endif %>",
        __file__,
        "notebooks/06_real_histories.ipynb",
        "colony/history/study.py",
    ),
    alt="Two panels of ROC curves, one per repository, one line per condition with its operating point marked.",
    description=(
        "Each panel is one repository. The horizontal axis is the share of the judged commits not found to induce a "
        "defect that a condition would hold at some threshold of its score, the vertical axis the share of the commits later found to induce a defect that it "
        "would hold. A line above the dotted diagonal ranks inducing commits better than chance; the legend gives each "
        "condition's area under the curve, and a marker shows where its preregistered threshold puts it."
    ),
    evidence_class="measurement",
    inputs=["history", "file:history/study.json"],
    plot=plot,
    size=(6.5, 3.0),
    width="100%",
)
