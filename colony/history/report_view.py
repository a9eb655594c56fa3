"""How the history report shows its data: HTML tables and matplotlib figures (PNG) from the report's dict.

The report notebook (``report_notebook/01_history_report.ipynb``) calls these on the JSON that
:func:`colony.history.report.build_report` wrote, so the page is the same whoever runs it. Every
piece of text from the history (commit subjects, tool names) is HTML-escaped.

>>> cell(None), cell(0.12345), cell(3), cell("<b>")
('n/a', '0.123', '3', '&lt;b&gt;')
"""

from __future__ import annotations

import html
import io
import time
from typing import Any

__all__ = [
    "STYLE",
    "cell",
    "conditions_table",
    "rates_figure",
    "riskiest_table",
    "strata_table",
    "summary_html",
    "tools_table",
    "tradeoff_figure",
]

STYLE = """<style>
table.colony-report { margin: 0.5em 0 1em 0; }
table.colony-report-summary th, table.colony-report-summary td,
table.colony-report td:first-child, table.colony-report th:first-child,
table.colony-report-riskiest td:nth-child(2), table.colony-report-riskiest th:nth-child(2),
table.colony-report-conditions td:last-child, table.colony-report-conditions th:last-child { text-align: left !important; }
table.colony-report-riskiest td:nth-child(4) { white-space: nowrap; }
</style>"""
"""The report's table styles (text columns left-aligned), shown once at the top of the page."""


def cell(value: Any, digits: int = 3) -> str:
    """One table cell's text: n/a for a missing value, floats to ``digits`` places, all escaped."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return html.escape(str(value))


def _table(css: str, header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="colony-report {css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _day(t: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(t))


def summary_html(report: dict[str, Any]) -> str:
    """The report's heading facts: where the history came from and what was judged."""
    kinds = ", ".join(f"{k} {v['commits']} ({cell(v['inducing_share'])} inducing)" for k, v in report["by_kind"].items())
    facts = [
        ("source", cell(report["source"])),
        ("upstream", cell(report["upstream_repository"])),
        ("commit", cell(report["upstream_commit"])),
        ("files judged", cell(", ".join(report["include"] or []))),
        (
            "judged commits",
            f"{report['judged']} of {report['replayed']} (the last {cell(report['horizon_days'], 0)} days censored)",
        ),
        ("span judged", f"{_day(report['span'][0])} to {_day(report['span'][1])}"),
        ("inducing", f"{report['inducing']} ({cell(report['inducing_share'])}; fix rule: {cell(report['fix_rule'])})"),
        ("by kind", cell(kinds)),
    ]
    rows = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in facts)
    return f'<table class="colony-report colony-report-summary"><tbody>{rows}</tbody></table>'


def tools_table(report: dict[str, Any]) -> str:
    """Each agent tool against human commits: inducing share, median size, matched odds ratio."""
    t = report["tools"]
    rows = [
        [
            cell(r["tool"]),
            cell(r["commits"]),
            cell(r["inducing"]),
            cell(r["share"]),
            cell(r["median_lines"], 0),
            "" if r["tool"] == "human" else cell(r["matched_odds_ratio"], 2),
            "" if r["tool"] == "human" else cell(r["strata_compared"]),
        ]
        for r in t["rows"]
    ]
    header = ["tool", "commits", "inducing", "inducing share", "median lines changed", "odds ratio vs human", "strata"]
    return _table("colony-report-tools", header, rows)


def strata_table(report: dict[str, Any]) -> str:
    """Inducing share (and commits) of each group in each size stratum."""
    t = report["tools"]
    names = [r["tool"] for r in t["rows"]]
    rows = []
    for s in t["strata"]:
        lines = f"{s['lines_low']:.0f}–{s['lines_high']:.0f}"
        groups = s["groups"]
        rows.append([lines] + [f"{cell(groups[n]['share'])} ({groups[n]['commits']})" for n in names])
    return _table("colony-report-strata", ["lines changed", *names], rows)


def conditions_table(report: dict[str, Any]) -> str:
    """What each condition would have held, at its configured threshold."""
    rows = [
        [
            cell(c["name"]),
            cell(c["held"]),
            cell(c["held_share"]),
            cell(c["inducing_held"]),
            cell(c["recall"]),
            cell(c["precision"]),
            cell(c["auc"]),
            cell(c["description"]),
        ]
        for c in report["conditions"]
    ]
    header = ["condition", "held", "share held", "inducing held", "of all inducing", "precision", "AUC", "what it does"]
    return _table("colony-report-conditions", header, rows)


def riskiest_table(report: dict[str, Any]) -> str:
    """The top commits by the strongest learned condition's score."""
    rows = [
        [
            cell(r["rank"]),
            cell(r["subject"]),
            f"<code>{cell(r['upstream'][:12])}</code>",
            cell(r["date"]),
            cell(r["tool"]),
            cell(r["lines_added"]),
            cell(r["score"]),
            cell(r["held"]),
            cell(r["inducing"]),
        ]
        for r in report["riskiest"]["rows"]
    ]
    header = ["#", "subject", "commit", "date", "tool", "lines added", "score", "held", "later inducing"]
    return _table("colony-report-riskiest", header, rows)


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
    return buf.getvalue()


def tradeoff_figure(report: dict[str, Any]) -> bytes:
    """Each condition's trade-off curve: share of commits held against share of inducing commits held (PNG)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.6), layout="constrained")
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], ":", color="grey", linewidth=0.8, label="chance")
    for c in report["conditions"]:
        auc = "n/a" if c["auc"] is None else f"{c['auc']:.2f}"
        ax.plot(c["curve"]["held_share"], c["curve"]["recall"], label=f"{c['name']} (AUC {auc})")
        if c["held_share"] is not None and c["recall"] is not None:
            ax.plot([c["held_share"]], [c["recall"]], "o", color=ax.lines[-1].get_color(), markersize=4)
    ax.set_xlabel("share of judged commits held")
    ax.set_ylabel("share of inducing commits held")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_title(f"{report['name']}: trade-off over each condition's threshold (dot: its setting)", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    return _png(fig)


def rates_figure(report: dict[str, Any]) -> bytes:
    """Inducing share by size stratum for humans and each agent tool (PNG)."""
    from matplotlib.figure import Figure

    t = report["tools"]
    labels = [f"{s['lines_low']:.0f}–{s['lines_high']:.0f}" for s in t["strata"]]
    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    ax = fig.add_subplot()
    for r in t["rows"]:
        if r["tool"] == "all agents":
            continue
        xs = [i for i, s in enumerate(t["strata"]) if s["groups"][r["tool"]]["commits"]]
        ys = [t["strata"][i]["groups"][r["tool"]]["share"] for i in xs]
        human = r["tool"] == "human"
        ax.plot(
            xs,
            ys,
            "o-",
            label=f"{r['tool']} ({r['commits']})",
            color="black" if human else None,
            linewidth=2.0 if human else None,
        )
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlabel("lines changed (size stratum)")
    ax.set_ylabel("share later inducing")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"{report['name']}: inducing share at matched change size", fontsize=9)
    ax.legend(fontsize=7)
    return _png(fig)
