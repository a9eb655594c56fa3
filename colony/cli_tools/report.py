"""Render an analysis result as JSON, plain text or a self-contained HTML page."""

from __future__ import annotations

import html
import json
from typing import Any

__all__ = ["render_report", "render_text"]


def _finding_lines(items: list[dict[str, Any]]) -> list[str]:
    return [f"  {i['file']}:{i['line']}: {i['severity']} {i['rule']}: {i['message']}" for i in items]


def render_text(result: dict[str, Any], *, subject: str = "") -> str:
    """A plain-text report: summary, issues, security findings, metrics."""
    lines = [f"analysis of {subject or 'the project'}: {result['files_analyzed']} files"]
    lines.append(f"issues: {len(result['issues'])}")
    lines += _finding_lines(result["issues"])
    lines.append(f"security findings: {len(result['security_findings'])}")
    lines += _finding_lines(result["security_findings"])
    metrics = result.get("metrics") or {}
    if metrics:
        lines.append("metrics:")
        lines += [f"  {k}: {v}" for k, v in metrics.items() if k != "most_complex"]
        for f in metrics.get("most_complex", [])[:5]:
            lines.append(f"  complexity {f['complexity']:>3}  {f['file']}:{f['line']} {f['name']}")
    for s in result.get("skipped", []):
        lines.append(f"skipped {s['file']}: {s['reason']}")
    if result.get("tools", {}).get("ruff", "ok") != "ok":
        lines.append(f"ruff: {result['tools']['ruff']}")
    return "\n".join(lines) + "\n"


def _table(items: list[dict[str, Any]]) -> str:
    if not items:
        return "<p>None.</p>"
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(i[k]))}</td>" for k in ("severity", "file", "line", "rule", "message")) + "</tr>"
        for i in items
    )
    head = "".join(f"<th scope='col'>{h}</th>" for h in ("severity", "file", "line", "rule", "message"))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def render_html(result: dict[str, Any], *, subject: str = "") -> str:
    """A standalone HTML page (no scripts, no external resources); every value is escaped."""
    metrics = result.get("metrics") or {}
    metric_rows = "".join(
        f"<tr><th scope='row'>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
        for k, v in metrics.items()
        if k != "most_complex"
    )
    title = html.escape(f"Analysis of {subject or 'the project'}")
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{title}</title><style>body{{font-family:sans-serif;margin:2em}}"
        "table{border-collapse:collapse}td,th{border:1px solid #999;padding:.2em .5em;text-align:left}</style></head>"
        f"<body><h1>{title}</h1><p>{result['files_analyzed']} files analysed.</p>"
        f"<h2>Issues ({len(result['issues'])})</h2>{_table(result['issues'])}"
        f"<h2>Security findings ({len(result['security_findings'])})</h2>{_table(result['security_findings'])}"
        f"<h2>Metrics</h2><table><tbody>{metric_rows}</tbody></table></body></html>\n"
    )


def render_report(result: dict[str, Any], format: str, *, subject: str = "") -> str:
    """The report in ``format`` (``json``, ``text`` or ``html``)."""
    if format == "html":
        return render_html(result, subject=subject)
    if format == "text":
        return render_text(result, subject=subject)
    return json.dumps(result, indent=2, sort_keys=True) + "\n"
