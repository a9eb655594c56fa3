"""A history report's data: one repository's primary evaluation as a JSON-ready dict.

:func:`build_report` evaluates a history's records under the primary labels (every condition of
the history config, in process) and gathers what ``colony history report`` shows:

* ``tools``: the inducing share of each agent tool's commits and of human commits, and a
  Mantel–Haenszel odds ratio of each tool against human commits over quantile strata of lines
  changed (:mod:`colony.history.matched_odds`), so a tool that makes bigger changes is not blamed
  for their size; ``strata`` holds each stratum's counts;
* ``conditions``: what each condition would have held (counts, share held, inducing held,
  precision) and its trade-off curve;
* ``riskiest``: the top commits by the strongest learned condition's score (highest AUC among the
  conditions that declare a cold-start fallback), with whether each later turned out inducing.

Only judged commits count (the evaluation window: the history's last horizon is censored). The
tools are those of the signature table (``colony/config/agents.yaml`` and a config's
``agents.extra``) that the history holds, in the table's order.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from colony.config import default_policy
from colony.errors import ValidationError
from colony.history.config import HistoryConfig, signature_table
from colony.history.evaluate import evaluate
from colony.history.matched_odds import mh_log_odds, size_strata

__all__ = ["FIELD", "build_report", "strongest_condition"]

FIELD = "REPO_OR_DATASET"
HUMAN = "human"
ALL_AGENTS = "all agents"


def _share(n: int, d: int) -> float | None:
    return n / d if d else None


def _agent_tools(cfg: HistoryConfig, held: Sequence[str]) -> tuple[list[str], list[str]]:
    """(tools the history holds, in the table's order; tools of the table it does not hold)."""
    named = list(dict.fromkeys(s.tool for s in signature_table(cfg).signatures if s.kind == "agent"))
    present = set(held)
    return [t for t in named if t in present] + sorted(present - set(named)), [t for t in named if t not in present]


def _group(y: np.ndarray, churn: np.ndarray, mask: np.ndarray) -> dict[str, Any]:
    n, k = int(mask.sum()), int((mask & y).sum())
    return {
        "commits": n,
        "inducing": k,
        "share": _share(k, n),
        "median_lines": float(np.median(churn[mask])) if n else None,
    }


def _tools(arrays: dict[str, Any], kinds: np.ndarray, cfg: HistoryConfig) -> dict[str, Any]:
    """Per tool and for humans: inducing shares, per size stratum, and the matched odds ratio against humans."""
    y = np.asarray(arrays["y"], dtype=bool)
    churn = np.asarray(arrays["churn"], dtype=float)
    tool = np.array([t or "" for t in arrays["tool"]], dtype=object)
    agent = kinds == "agent"
    human = kinds == "human"
    present, absent = _agent_tools(cfg, sorted({str(t) for t in tool[agent]}))
    strata = size_strata(churn, cfg.metrics.size_strata) if len(y) else np.zeros(0, dtype=int)
    groups = {HUMAN: human, **{t: agent & (tool == t) for t in present}, ALL_AGENTS: agent}
    rows = []
    for name, mask in groups.items():
        row = {"tool": name, **_group(y, churn, mask), "matched_odds_ratio": None, "strata_compared": 0}
        if name != HUMAN and mask.any() and human.any():
            both = mask | human
            log_or = mh_log_odds(y[both], mask[both], strata[both])
            row["matched_odds_ratio"] = None if np.isnan(log_or) else float(np.exp(log_or))
            row["strata_compared"] = int(
                sum(1 for s in np.unique(strata) if (mask & (strata == s)).any() and (human & (strata == s)).any())
            )
        rows.append(row)
    by_stratum = []
    for s in np.unique(strata):
        m = strata == s
        by_stratum.append(
            {
                "stratum": int(s),
                "lines_low": float(churn[m].min()),
                "lines_high": float(churn[m].max()),
                "groups": {name: _group(y, churn, m & mask) for name, mask in groups.items()},
            }
        )
    return {"present": present, "absent": absent, "rows": rows, "strata": by_stratum, "size_strata": cfg.metrics.size_strata}


def _learned(cond: dict[str, Any]) -> bool:
    return not str(cond["fallback"]).startswith("none")


def strongest_condition(conditions: dict[str, dict[str, Any]]) -> tuple[str, str]:
    """(name, why): the learned condition with the highest AUC (ties: config order), else the best of all.

    >>> strongest_condition({"a": {"fallback": "none", "auc": 0.9}, "b": {"fallback": "lines_added", "auc": 0.6}})
    ('b', 'the highest AUC among the learned conditions')
    """
    learned = [n for n, c in conditions.items() if _learned(c)]
    pool, among = (learned, "the learned conditions") if learned else (list(conditions), "all conditions")
    scored = [n for n in pool if conditions[n]["auc"] is not None]
    if not scored:
        return pool[0], f"the first of {among} (no AUC: no judged commit turned out inducing)"
    best = max(scored, key=lambda n: (conditions[n]["auc"], -pool.index(n)))
    return best, f"the highest AUC among {among}"


def _conditions(summary: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name, c in summary["conditions"].items():
        op = c["operating"]
        out.append(
            {
                "name": name,
                "description": c["description"],
                "fallback": c["fallback"],
                "learned": _learned(c),
                "auc": c["auc"],
                "effort_recall": c["effort_recall"],
                "held": op["held"],
                "held_share": op["held_share"],
                "inducing_held": op["inducing_held"],
                "recall": op["recall"],
                "precision": op["precision"],
                "curve": c["curve"],
            }
        )
    return out


def _judged_records(records: Sequence[dict[str, Any]], arrays: dict[str, Any]) -> list[dict[str, Any]]:
    """The records of the judged commits: the first ones in commit-time order (censoring cuts the end).

    Checked against the evaluation's own arrays (tool and lines changed, commit by commit).
    """
    commits = [r for r in records if not r["merge"]]
    judged = commits[: len(arrays["y"])]
    churn = [sum(f[3] + f[4] for f in r["files"]) for r in judged]
    if [r["tool"] for r in judged] != arrays["tool"] or churn != arrays["churn"]:
        raise ValidationError(FIELD, "the dataset's records are not in commit-time order (re-extract it)")
    return judged


def _riskiest(judged: list[dict[str, Any]], arrays: dict[str, Any], name: str, why: str, top: int) -> dict[str, Any]:
    scores = np.asarray(arrays["scores"][name], dtype=float)
    held = arrays["held"][name]
    order = sorted(range(len(judged)), key=lambda i: (-scores[i], i))[:top]
    rows = []
    for rank, i in enumerate(order, 1):
        r = judged[i]
        rows.append(
            {
                "rank": rank,
                "subject": r["subject"],
                "upstream": r["upstream"],
                "date": time.strftime("%Y-%m-%d", time.gmtime(r["time"])),
                "kind": r["kind"],
                "tool": r["tool"] or r["kind"],
                "lines_added": sum(f[3] for f in r["files"]),
                "lines_changed": arrays["churn"][i],
                "score": float(scores[i]),
                "held": bool(held[i]),
                "inducing": bool(arrays["y"][i]),
            }
        )
    return {"condition": name, "chosen_as": why, "top": top, "rows": rows}


def build_report(
    records: Sequence[dict[str, Any]], manifest: dict[str, Any], cfg: HistoryConfig, *, name: str, source: str, top: int = 20
) -> dict[str, Any]:
    """Evaluate ``records`` (the primary labels, every condition) and return the report's JSON-ready data."""
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ValidationError("--top", "must be a positive integer", value=top)
    if not records:
        raise ValidationError(FIELD, f"{source} holds no commits")
    ev = evaluate(records, cfg, default_policy(), rules=cfg.labels.rules(), curves=True, diagnostics=False)
    s, arrays = ev.summary, ev.arrays
    if not s["judged"]:
        raise ValidationError(
            FIELD,
            f"{source} has no judged commit: its {s['replayed']} commits span less than the "
            f"{s['horizon_days']:g}-day horizon that is censored at the history's end",
        )
    judged = _judged_records(records, arrays)
    kinds = np.array([r["kind"] for r in judged])
    best, why = strongest_condition(s["conditions"])
    return {
        "name": name,
        "source": source,
        "upstream_repository": manifest.get("upstream_repository"),
        "upstream_commit": manifest.get("upstream_commit"),
        "dataset_sha256": manifest.get("sha256_gz"),
        "include": manifest.get("include"),
        "config_sha256": cfg.sha256,
        "fix_rule": s["fix_rule"],
        "horizon_days": s["horizon_days"],
        "records": len(records),
        "replayed": s["replayed"],
        "judged": s["judged"],
        "inducing": s["inducing"],
        "inducing_share": s["inducing_share"],
        "span": [judged[0]["time"], judged[-1]["time"]],
        "by_kind": s["by_kind"],
        "kernel_verdicts": s["kernel_verdicts"],
        "tools": _tools(arrays, kinds, cfg),
        "conditions": _conditions(s),
        "riskiest": _riskiest(judged, arrays, best, why, top),
    }
