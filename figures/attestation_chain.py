"""Figure: an attested lifecycle chain and what validation reports for each tampered copy or misuse (fixture)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from figures import FigureContext, FigureSpec, with_sources
from figures.style import OKABE_ITO, new_figure, not_measured


def _chain(axes: Any, events: list[str]) -> None:
    axes.set_xlim(0, len(events))
    axes.set_ylim(0, 1)
    axes.set_axis_off()
    for i, event in enumerate(events):
        axes.add_patch(FancyBboxPatch((i + 0.08, 0.05), 0.84, 0.7, boxstyle="round,pad=0.02", fc="#d7ecf7", ec="black", lw=0.7))
        axes.text(i + 0.5, 0.4, f"{i + 1}\n{event.replace('_', chr(10))}", ha="center", va="center", fontsize=6.5)
        if i:
            axes.add_patch(
                FancyArrowPatch((i - 0.06, 0.4), (i + 0.1, 0.4), arrowstyle="-|>", mutation_scale=7, lw=0.8, color="black")
            )
    axes.text(
        len(events) / 2,
        0.97,
        "hash-chained, signed events of one attested run (each consumes the one before)",
        ha="center",
        va="top",
        fontsize=7.5,
    )


def plot(ctx: FigureContext) -> Figure:
    """Top: the chain; bottom: tamper cases and misuse (rows) against the statuses reported (columns)."""
    data: dict[str, Any] = ctx.var("attestation")
    figure = new_figure(ctx.spec.size)
    if not data.get("available"):
        return not_measured(figure, "the attestation probe could not run")
    subfigures: Any = figure.subfigures(2, 1, height_ratios=[1.0, 4.6])
    upper, lower = subfigures
    _chain(upper.add_subplot(), data["events"])
    bottom = lower.add_subplot()
    tamper, misuse = data["tamper"], data["misuse"]
    statuses = sorted({i["status"] for c in tamper for i in c["issues"]} | {m["status"] for m in misuse if m["status"]})
    columns = [*statuses, "chain valid"]
    rows = [(c["description"], c) for c in tamper] + [(m["description"], m) for m in misuse]
    for y, (_, case) in enumerate(rows):
        if "issues" in case:
            for status in statuses:
                count = sum(1 for i in case["issues"] if i["status"] == status)
                if count:
                    bottom.scatter(
                        [statuses.index(status)],
                        [y],
                        s=40 + 14 * count,
                        color=OKABE_ITO["vermillion"],
                        edgecolor="black",
                        linewidth=0.5,
                        zorder=3,
                    )
                    if count > 1:
                        bottom.text(statuses.index(status) + 0.22, y, f"×{count}", va="center", fontsize=6)
            valid = case["valid"]
        else:
            if case["status"]:
                bottom.scatter(
                    [statuses.index(case["status"])],
                    [y],
                    s=44,
                    marker="s",
                    color=OKABE_ITO["sky_blue"],
                    edgecolor="black",
                    linewidth=0.5,
                    zorder=3,
                )
            valid = case["chain_valid_after"]
        bottom.text(
            len(statuses), y, "yes" if valid else "no", ha="center", va="center", fontsize=7, weight="bold" if valid else "normal"
        )
    bottom.axhline(len(tamper) - 0.5, color="black", linewidth=0.8)
    bottom.set_yticks(range(len(rows)))
    bottom.set_yticklabels([d for d, _ in rows], fontsize=6.5)
    bottom.set_xticks(range(len(columns)))
    bottom.set_xticklabels([c.replace("_", " ") for c in columns], fontsize=6.5, rotation=30, ha="right")
    bottom.set_xlim(-0.6, len(columns) - 0.4)
    bottom.set_ylim(len(rows) - 0.5, -0.5)
    bottom.text(
        len(columns) - 0.45,
        len(tamper) / 2 - 0.5,
        "edited copies:\nvalidate()",
        rotation=270,
        va="center",
        ha="left",
        fontsize=6.5,
    )
    bottom.text(
        len(columns) - 0.45,
        len(tamper) + len(misuse) / 2 - 0.5,
        "API misuse:\nrefused",
        rotation=270,
        va="center",
        ha="left",
        fontsize=6.5,
    )
    return figure


FIGURE = FigureSpec(
    id="attestation_chain",
    caption=with_sources(
        "Attestation under tampering. Top: the << attestation.event_count >> events of one attested proposal in "
        "<< attestation.mode >> mode. Bottom: for each of << attestation.tamper_count >> copies of the ledger file edited "
        "with plain SQL (upper rows), the statuses validate() reports (circles; larger with more events affected); for "
        "each of << attestation.misuse_count >> out-of-order or repeated API calls (lower rows), the status of the refusal "
        "(squares). The last column says whether the chain validates afterwards. Deterministic fixture.",
        __file__,
        "scripts/collectors/probes/tamper.py",
    ),
    alt=(
        "A row of << attestation.event_count >> linked event boxes above a matrix of tamper and misuse cases against "
        "the validation statuses they raise."
    ),
    description=(
        "The top strip shows the lifecycle as linked boxes: calibration, proposal, gate verdict, execution authorization, "
        "execution receipt and outcome. Below, each row is one case. In the upper block every edited copy of the ledger "
        "file (a changed payload character, a replaced event hash, a rewritten actor, a deleted event, forged second "
        "authorization or outcome, an event under another key, an event chained to an older hash, and checking with the "
        "wrong key) has at least one circle under the statuses validation reported, such as bad hash, bad signature, "
        "sequence gap, missing parent, unauthorized link or duplicate, and reads no in the last column. In the lower block "
        "each misuse of the API (authorizing twice, a second outcome, the ordinary outcome path in required mode, "
        "authorizing a non-EXECUTE verdict, a receipt without authorization) has a square under the status it was refused "
        "with, and reads yes: the refused call left the chain valid."
    ),
    evidence_class="deterministic-fixture",
    inputs=["attestation"],
    plot=plot,
    size=(6.6, 4.8),
    width="100%",
)
