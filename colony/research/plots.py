"""Figures of a study result: each function draws one figure from ``study.json`` data and returns it.

Rates are drawn with their bootstrap intervals and labelled with their denominators;
the functions read only the results dict, so a notebook, a figure module or a test can
call them on any study.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from colony.research.tables import HEADLINE

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_calibration", "plot_dispositions", "plot_hypotheses", "plot_paired", "plot_rates", "plot_tradeoff"]

_RATES = ("failure_rate", "harm_per_item", "execution_volume", "hold_rate", "refusal_rate")


def _figure(width: float, height: float, ncols: int = 1) -> tuple[Figure, Any]:
    # a bare Figure (no pyplot): no backend state, safe in workers, displayable in notebooks
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, ncols)
    return fig, axes


def _err(m: dict[str, Any]) -> tuple[float, float]:
    v = m.get("value", m.get("estimate")) or 0.0
    low = m["ci_low"] if m["ci_low"] is not None else v
    high = m["ci_high"] if m["ci_high"] is not None else v
    return v - low, high - v


def plot_rates(results: dict[str, Any]) -> Figure:
    """Per condition: the headline rates with intervals; each bar labelled numerator/denominator."""
    a = results["analysis"]
    conditions = a["conditions"]
    fig, axes = _figure(11, 4.2, len(_RATES))
    for ax, name in zip(axes, _RATES, strict=True):
        ms = [a["per_condition"][c]["metrics"][name] for c in conditions]
        values = [m["value"] or 0.0 for m in ms]
        errs = list(zip(*(_err(m) for m in ms), strict=True))
        ax.bar(range(len(conditions)), values, yerr=errs, capsize=3, color="#6a8caf")
        for i, m in enumerate(ms):
            ax.text(i, 0.01, f"{m['numerator']:g}/{m['denominator']:g}", ha="center", va="bottom", fontsize=6, rotation=90)
        ax.set_xticks(range(len(conditions)), [c.replace("_", " ") for c in conditions], fontsize=6, rotation=90)
        ax.set_title(name.replace("_", " "), fontsize=9)
        ax.set_ylim(0, 1)
    return fig


def plot_paired(results: dict[str, Any]) -> Figure:
    """Forest plot: composite minus each baseline, per metric, with paired bootstrap intervals."""
    raw = results["analysis"]["paired_differences"]["by_baseline"]
    by = {c: raw[c] for c in results["analysis"]["conditions"] if c in raw}
    metrics = [m for m in HEADLINE if any(m in v for v in by.values())]
    fig, axes = _figure(11, 3.2, len(metrics))
    colors = ("#b5523b", "#3b7bb5", "#5a9e4b", "#8a5ab5")
    for ax, name in zip(axes, metrics, strict=True):
        for j, values in enumerate(by.values()):
            d = values[name]
            if d["estimate"] is None:
                continue
            ax.errorbar(d["estimate"], j, xerr=[[_err(d)[0]], [_err(d)[1]]], fmt="o", color=colors[j % len(colors)], capsize=3)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_yticks(range(len(by)), list(by) if ax is axes[0] else [""] * len(by), fontsize=7)
        ax.set_title(name.replace("_", " "), fontsize=9)
        ax.tick_params(axis="x", labelsize=7)
    fig.suptitle("composite minus baseline (paired over runs)", fontsize=10)
    return fig


def plot_hypotheses(results: dict[str, Any]) -> Figure:
    """H1–H4 estimates with intervals and verdicts (each on its own scale)."""
    hyp = results["analysis"]["hypotheses"]
    panels: list[tuple[str, dict[str, Any], str]] = []
    for h, v in hyp.items():
        r = v["result"]
        if "estimate" in r:
            panels.append((h, r, v["verdict"]))
        else:
            panels.extend((f"{h} {k}", d, v["verdicts"][k]) for k, d in sorted(r.items()))
    fig, axes = _figure(11, 2.6, len(panels))
    for ax, (label, d, verdict) in zip(axes, panels, strict=True):
        if d.get("estimate") is not None:
            ax.errorbar([0], [d["estimate"]], yerr=[[_err(d)[0]], [_err(d)[1]]], fmt="o", capsize=4, color="#333333")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xticks([])
        ax.set_title(f"{label}\n{verdict}", fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
    return fig


def plot_calibration(results: dict[str, Any]) -> Figure:
    """Reliability of the kernel score and the probe against would-succeed, and selective-risk curves."""
    cal = results["analysis"]["calibration"]
    fig, (rel, sel) = _figure(9, 3.6, 2)
    rel.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
    for name, f in cal.get("forecasts", {}).items():
        bins = f["reliability"]
        rel.plot([b["mean_forecast"] for b in bins], [b["observed_frequency"] for b in bins], marker="o", ms=3,
                 label=f"{name} (ECE {f['ece']:.2f})")  # fmt: skip
    rel.set_xlabel("mean forecast in bin", fontsize=8)
    rel.set_ylabel("observed success frequency", fontsize=8)
    rel.set_title(f"reliability (n={cal['n']}, descriptive)", fontsize=9)
    rel.legend(fontsize=7)
    sr = cal.get("selective_risk")
    if sr:
        for name, curve in sr["curves"].items():
            sel.plot(sr["coverage"], curve, marker="o", ms=3, label=name)
    sel.set_xlabel("coverage (share executed, best-ranked first)", fontsize=8)
    sel.set_ylabel("failure rate among covered", fontsize=8)
    sel.set_title("selective risk", fontsize=9)
    sel.legend(fontsize=7)
    return fig


def plot_dispositions(results: dict[str, Any]) -> Figure:
    """Per condition, final dispositions split by the oracle's would-fail / would-succeed."""
    table = results["analysis"]["paired_items"]["disposition_by_ground_truth"]
    conditions = [c for c in results["analysis"]["conditions"] if c in table]
    keys = sorted(next(iter(table.values()))) if table else []
    fig, ax = _figure(9, 3.6)
    bottom = [0.0] * len(conditions)
    for k in keys:
        values = [table[c][k] for c in conditions]
        ax.bar(range(len(conditions)), values, bottom=bottom, label=k.replace("|", ", "))
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    ax.set_xticks(range(len(conditions)), [c.replace("_", " ") for c in conditions], fontsize=7, rotation=90)
    ax.set_ylabel("measured items", fontsize=8)
    ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.set_title("final disposition by ground truth (paired items)", fontsize=9)
    return fig


def plot_tradeoff(tradeoff: dict[str, Any]) -> Figure:
    """``tradeoff.json``: harm against executed volume, one line per condition, the composite's volume dashed."""
    fig, ax = _figure(8, 4.6)
    for name, curve in tradeoff["curves"].items():
        points = sorted(curve["points"], key=lambda p: (p["volume"], p["harm_per_item"]))
        ax.plot([p["volume"] for p in points], [p["harm_per_item"] for p in points], marker="o", ms=3,
                ls=":" if name.startswith("composite_no_") else "-", label=name)  # fmt: skip
    ax.axvline(tradeoff["matched_volume"]["volume"], color="grey", lw=0.8, ls="--")
    ax.set_xlabel("executed volume (executed / items)", fontsize=8)
    ax.set_ylabel("harm (failures / items)", fontsize=8)
    ax.legend(fontsize=6, ncols=2)
    return fig
