"""The real-history study (``output/history/study.json``) in the shape the manuscript reads.

Repositories are the datasets ``colony/config/history.yaml`` names; every key is present whether or
not the study artefact is (``present: false`` and ``None`` values then). The preregistration's
sha256 is read from the committed file itself.
"""

from __future__ import annotations

from typing import Any

from colony.history.config import load_history_config
from colony.history.jit import JIT_FEATURES
from colony.history.kamei import KAMEI_METRICS
from scripts.collectors import CollectContext, collector
from scripts.collectors.shape import dig, pick
from scripts.hashing import file_sha256

PREREGISTRATION = "data/history/PREREGISTRATION.md"
KINDS = ("agent", "human")
POINT = ("estimate", "low", "high", "p", "p_holm", "reject")
# how the prose names a repository and a condition (identifiers stay in tables and code)
REPOSITORY_NAMES = {"aider": "Aider", "openhands": "OpenHands"}
CONDITION_NAMES = {
    "always_execute": "executing everything",
    "budget_only": "the budget alone",
    "change_size": "lines added",
    "composite": "the composite gate",
    "hazard_only": "hazard alone",
    "jit_lr": "the JIT logistic regression",
    "static_trust": "static trust",
}


VARIANT_WORDS = {
    "primary": "primary rules",
    "escaped": "escaped defects only",
    "fix_rule=message": "fix word anywhere in the message",
    "fix_rule=leading": "subject starts with a fix word",
    "blame_cap=None": "no cap on blamed commits",
    "renames=not_followed": "renames not followed",
}


def variant_label(variant: str | None) -> str | None:
    """How a table names a sensitivity variant: ``blame_cap=10`` -> ``"at most 10 blamed commits per fix"``."""
    if variant is None or variant in VARIANT_WORDS:
        return VARIANT_WORDS.get(variant or "", variant)
    key, _, value = variant.partition("=")
    if key == "blame_cap":
        return f"at most {value} blamed commits per fix"
    if key == "horizon":
        return f"horizon {value.removesuffix('d')} days"
    return variant.replace("_", " ")


def _condition(repo: Any, intervals: Any, name: str) -> dict[str, Any]:
    c = dig(repo, "primary", "conditions", name, default={})
    op = c.get("operating") or {}
    return {
        "auc": c.get("auc"),
        "auc_low": dig(intervals, name, "low"),
        "auc_high": dig(intervals, name, "high"),
        "effort_recall": c.get("effort_recall"),
        "held_share": op.get("held_share"),
        "recall": op.get("recall"),
        "precision": op.get("precision"),
        "held": op.get("held"),
        "agent_auc": dig(c, "by_kind", "agent", "auc"),
        "human_auc": dig(c, "by_kind", "human", "auc"),
        "agent_held_share": dig(c, "by_kind", "agent", "operating", "held_share"),
        "human_held_share": dig(c, "by_kind", "human", "operating", "held_share"),
        "escaped_auc": dig(repo, "escaped", "conditions", name, "auc"),
    }


def _ranked(conditions: dict[str, dict[str, Any]]) -> list[str]:
    scored = [(v["auc"], k) for k, v in conditions.items() if v["auc"] is not None]
    return [k for _, k in sorted(scored, key=lambda t: (-t[0], t[1]))]


def _repository(repo: Any, intervals: Any, order: list[str]) -> dict[str, Any]:
    primary = dig(repo, "primary", default={})
    counts = dig(repo, "counts", default={})
    hygiene = dig(repo, "hygiene", default={})
    conditions = {c: _condition(repo, intervals, c) for c in order}
    ranked = _ranked(conditions)
    sensitivity = [
        {
            "variant": s.get("variant"),
            "label": variant_label(s.get("variant")),
            "inducing": s.get("inducing"),
            "inducing_share": s.get("inducing_share"),
            **{f"{c}_auc": dig(s, "auc", c) for c in order},
        }
        for s in dig(repo, "sensitivity", default=[])
    ]
    matched = dig(repo, "agent_vs_human", default={})
    return {
        "upstream": dig(repo, "manifest", "upstream_repository"),
        "upstream_commit": dig(repo, "manifest", "upstream_commit"),
        "dataset_sha256": dig(repo, "manifest", "sha256_gz"),
        "commits": counts.get("commits"),
        "merges": counts.get("merges"),
        "identities": counts.get("agents"),
        "people": counts.get("people"),
        "kind_counts": {k: dig(counts, "kinds", k, default=0) for k in ("agent", "bot", "human")},
        "fixes": {r: dig(counts, "fixes", r) for r in ("message", "subject", "leading")},
        **pick(
            hygiene,
            (
                "add_only_fixes",
                "fixes_over_cap",
                "blamed_via_rename",
                "blamed_pairs",
                "reverts",
                "reverts_resolved",
                "late_labels",
                "censored",
            ),
        ),
        **pick(primary, ("replayed", "judged", "inducing", "inducing_share", "labelled_commits")),
        "verdicts": {d: dig(primary, "kernel_verdicts", d, default=0) for d in ("execute", "hold", "refuse")},
        "kinds": {k: pick(dig(primary, "by_kind", k), ("commits", "inducing", "inducing_share")) for k in KINDS},
        "escaped": pick(dig(repo, "escaped"), ("inducing", "inducing_share")),
        "conditions": conditions,
        "ranking": ranked,
        "best": ranked[0] if ranked else None,
        "composite_rank": ranked.index("composite") + 1 if "composite" in ranked else None,
        "matched": pick(
            matched,
            ("matched_odds_ratio", "matched_log_odds", "agent_share", "human_share", "agent_median_churn", "human_median_churn"),
        ),
        "trust": pick(dig(repo, "trust"), ("agent_mean", "human_mean", "auc_for_agent")),
        "jit_cv_auc": primary.get("jit_cross_validated_auc"),
        "sensitivity": sensitivity,
    }


@collector("history", inputs=("{output}/history/study.json", PREREGISTRATION, "{package}/config/history.yaml"))
def history(ctx: CollectContext) -> dict[str, Any]:
    """Parameters, per-repository results, hypotheses (Holm) and the preregistration hash."""
    cfg = load_history_config()
    path = ctx.config.out.root / "history" / "study.json"
    present = path.is_file()
    data: Any = ctx.read_json(path) if present else {}
    prereg = ctx.config.root / PREREGISTRATION
    order = list(cfg.conditions.order)
    intervals = dig(data, "hypotheses", "auc_intervals", default={})
    repos = {name: _repository(dig(data, "repositories", name), dig(intervals, name), order) for name in cfg.datasets}
    tests = dig(data, "hypotheses", "tests", default=[])
    scopes = [*cfg.datasets, "pooled"]
    hypotheses = {
        h: {
            "statement": next((t["statement"] for t in tests if t["hypothesis"] == h), None),
            **{s: pick(next((t for t in tests if t["hypothesis"] == h and t["scope"] == s), None), POINT) for s in scopes},
        }
        for h in ("H1", "H2", "H3", "H4", "H5")
    }
    jit = [r["conditions"]["jit_lr"]["auc"] for r in repos.values() if r["conditions"]["jit_lr"]["auc"] is not None]
    return {
        "present": present,
        "file_sha256": file_sha256(path) if present else None,
        "preregistration": {"path": PREREGISTRATION, "sha256": file_sha256(prereg) if prereg.is_file() else None},
        "config_sha256": cfg.sha256,
        "datasets": list(cfg.datasets),
        "names": {n: REPOSITORY_NAMES.get(n, n) for n in cfg.datasets},
        "conditions": order,
        "condition_names": {c: CONDITION_NAMES.get(c, c.replace("_", " ")) for c in order},
        "condition_count": len(order),
        "kamei_metric_count": len(KAMEI_METRICS),
        "jit_feature_count": len(JIT_FEATURES),
        "hypothesis_count": len(hypotheses),
        "parameters": {
            "horizon_days": cfg.replay.horizon_days,
            "horizon_variants": list(cfg.replay.horizon_variants),
            "tick_hours": cfg.replay.tick_seconds / 3600,
            "fix_rule": cfg.labels.fix_rule,
            "fix_rules": list(cfg.labels.fix_rule_variants),
            "blame_cap": cfg.labels.blame_cap,
            "escape_days": cfg.labels.escape_days,
            "session_gap_hours": cfg.labels.session_gap_hours,
            "hazard_window_days": cfg.conditions.hazard_window_days,
            "change_size_lines": cfg.conditions.change_size_lines,
            "jit_threshold": cfg.conditions.jit_threshold,
            "retrain_days": cfg.conditions.jit.retrain_days,
            "min_positive": cfg.conditions.jit.min_positive,
            "effort_share": cfg.metrics.effort_share,
            "size_strata": cfg.metrics.size_strata,
            "resamples": cfg.statistics.bootstrap_resamples,
            "confidence": cfg.statistics.confidence,
            "alpha": cfg.statistics.alpha,
            "published_auc_low": cfg.sanity.published_jit_auc[0],
            "published_auc_high": cfg.sanity.published_jit_auc[1],
        },
        "repos": repos,
        "hypotheses": hypotheses,
        "family_size": dig(data, "hypotheses", "family_size"),
        "rejected": sum(1 for t in tests if t.get("reject")),
        "pooled_commits": dig(data, "hypotheses", "commits", "pooled"),
        "jit_max_auc": max(jit) if jit else None,
        "jit_in_published_range": bool(jit) and max(jit) >= cfg.sanity.published_jit_auc[0],
    }
