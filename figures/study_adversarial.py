"""Figure: what each adversarial workload changes, as paired differences with intervals (offline-synthetic)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import MARKERS, OKABE_ITO, SERIES, interval, new_figure, not_measured

CONDITIONS = ("composite", "static_trust")


def rows(adv: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(label, {condition: comparison}) for every plotted comparison, top to bottom."""
    out = [
        ("misreport: honest agents' harm per item", {c: adv["misreport"][c]["others"]["harm_per_item"] for c in CONDITIONS}),
        ("misreport: the liar's executed share", {c: adv["misreport"][c]["adversary"]["executed_share"] for c in CONDITIONS}),
    ]
    for s in adv["sybil"]:
        out.append((f"{s['identities']} Sybil id(s): flooded target, not EXECUTE first",
                    {c: s[c]["victim"]["not_executed_first"] for c in CONDITIONS}))  # fmt: skip
    out += [
        ("boilerplate: padded items' executed share", {c: adv["boilerplate"][c]["padded"]["executed_share"] for c in CONDITIONS}),
        ("trust farming: attacks executed (vs. no farming)",
         {c: adv["trust_farming"][c]["attacks_vs_attack"]["executed_share"] for c in CONDITIONS}),
    ]  # fmt: skip
    return out


def plot(ctx: FigureContext) -> Figure:
    """A forest plot: one row per comparison, one marker per condition, the zero line."""
    adv: dict[str, Any] = ctx.var("adversarial")
    figure = new_figure(ctx.spec.size)
    if not adv["present"]:
        return not_measured(figure, "no adversarial result (colony study run --adversarial)")
    axes = figure.add_subplot()
    table = rows(adv)
    for k, condition in enumerate(CONDITIONS):
        offset = -0.15 + 0.3 * k
        for y, (_label, by) in enumerate(table):
            c = by[condition]
            if c["estimate"] is None:
                continue
            interval(axes, c["estimate"], y + offset, c["ci_low"], c["ci_high"], fmt=MARKERS[k], color=OKABE_ITO[SERIES[k]],
                     markersize=5, capsize=2.5, elinewidth=1.0, label=condition.replace("_", " ") if y == 0 else None)  # fmt: skip
    axes.axvline(0, color="black", linewidth=0.8)
    axes.set_yticks(range(len(table)))
    axes.set_yticklabels([label for label, _ in table], fontsize=7)
    axes.set_ylim(len(table) - 0.5, -0.5)
    axes.set_xlabel("adversarial minus clean workload\n(same items, paired over runs)")
    axes.grid(axis="y", visible=False)
    axes.legend(fontsize=7, loc="lower right", frameon=False)
    return figure


FIGURE = FigureSpec(
    id="study_adversarial",
    caption=with_sources(
        "<% if adversarial.present %>"
        "Adversarial workloads on the study's first << adversarial.runs >> runs, each against the clean workload on the "
        "same items and oracle draws: the difference in a share, with its paired bootstrap interval over runs, under the "
        "composite gate and under static trust. Rows: what one misreporting agent does to the others' harm and to its own "
        "executions; how often honest first proposals at the flooded target were not executed, for each number of Sybil "
        "identities; how often padded proposals were executed; how many more attacks were executed after trust farming "
        "than without it. Offline-synthetic."
        "<% else %>Not measured in this build: no adversarial result.<% endif %>",
        __file__,
        "colony/research/adversarial_study.py",
        "colony/research/adversarial.py",
    ),
    alt="Forest plot of adversarial effects, one row per comparison, with composite and static-trust markers.",
    description=(
        "Rows, top to bottom: a misreporting agent's effect on the honest agents' failures per item and on its own share "
        "of executed items; for each number of Sybil identities, the change in the share of honest first "
        "proposals at the flooded target that were not executed; the change in the executed share of proposals padded "
        "with boilerplate; and the change in the share of attacks executed when the attacker farmed trust first. Each row "
        "has two markers with horizontal intervals, circles for the composite gate and squares for static trust, offset "
        "slightly; a vertical line marks zero (no effect)."
    ),
    evidence_class="offline-synthetic",
    inputs=["adversarial"],
    plot=plot,
    size=(6.4, 3.6),
    width="100%",
)
