"""Fixture results in the shape the manuscript reads: paired locality, decay, trust path, gate landscape.

Each collector reads an artefact the notebooks stage wrote (the replay record, the notebooks'
JSON results) and returns the same keys whether or not it exists; ``present`` says which.
Nothing is computed here that the artefact does not contain, except counts and orderings of
its own entries.
"""

from __future__ import annotations

import json
from typing import Any

from scripts.collectors import CollectContext, collector
from scripts.collectors.shape import dig, pick
from scripts.manuscript import load_manuscript

STATES = ("before_failure", "after_failure_same_target", "after_failure_unrelated_target", "after_recovery")
DECAY_CLASSES = ("fast", "normal", "slow")
NOTEBOOKS = {"paired": "01_paired_locality", "decay": "02_decay", "trust": "03_trust", "landscape": "04_gate_landscape"}


def _notebook(ctx: CollectContext, key: str) -> tuple[bool, Any, Any]:
    """(present, parameters, results) of one notebook's JSON, from the snapshot built so far."""
    entry = dig(ctx.snapshot, "notebooks", "results", NOTEBOOKS[key])
    if not isinstance(entry, dict):
        return False, {}, {}
    return True, entry.get("parameters", {}), entry.get("results", {})


@collector("paired", inputs=("{output}/data/replay.json",))
def paired(ctx: CollectContext) -> dict[str, Any]:
    """The paired-locality replay through ``ColonyKernel.propose_action``: four states, decay, digests."""
    replay = ctx.snapshot.get("replay", {})
    record = replay.get("record") or {}
    first = dig(record, "runs", "first", default={})
    states = {}
    for state in STATES:
        result = dig(first, "results", state, default={})
        states[state] = {
            **pick(result, ("decision", "gate_score", "budget_approved", "falsification_severity")),
            "failure": dig(first, "pressure", state, "failure"),
            "risk": dig(first, "pressure", state, "risk"),
        }
    assertions = record.get("assertions") or {}
    return {
        "hold": _hold(record.get("hold") or {}),
        "present": bool(replay.get("present")),
        "file_sha256": replay.get("file_sha256"),
        "record_sha256": record.get("record_sha256"),
        "semantic_digest": record.get("semantic_digest"),
        "agent_trust": dig(record, "inputs", "agent_trust"),
        "recovery_ticks": dig(record, "inputs", "recovery_ticks"),
        "recovery_tick": record.get("recovery_tick"),
        "profile": pick(first.get("profile"), ("role", "trust_score", "total_proposals")),
        "reporter": pick(first.get("reporter_after"), ("role", "trust_score", "total_proposals")),
        "reported_outcome": pick(first.get("reported_outcome"), ("path", "attested", "attestation_mode")),
        "states": states,
        "failure_trajectory": list(first.get("failure_trajectory") or []),
        "repeat_identical": bool(record) and dig(record, "runs", "first") == dig(record, "runs", "repeat"),
        "assertions": assertions,
        "assertion_count": len(assertions),
        "assertions_passed": sum(1 for ok in assertions.values() if ok is True),
    }


def _hold(hold: dict[str, Any]) -> dict[str, Any]:
    """How long the HOLD lasts after 1, 2, … reports, and the trust range over which one report flips the verdict."""
    by_failures = [
        pick(b, ("failures", "tightened_ticks", "restored_at_tick", "trace_gone_at_tick"))
        | {"before": dig(b, "before", "decision"), "ticks": list(b.get("ticks") or [])}
        for b in hold.get("by_failures") or []
    ]
    by_trust = hold.get("by_trust") or {}
    one = by_failures[0] if by_failures else dict.fromkeys(("tightened_ticks", "restored_at_tick", "trace_gone_at_tick"))
    return {
        "present": bool(by_failures),
        "by_failures": by_failures,
        "one": one,
        "trust_steps": by_trust.get("steps"),
        "trust_grid": list(by_trust.get("grid") or []),
        "flip": by_trust.get("flip") or dict.fromkeys(("low", "high_exclusive", "points", "contiguous")),
        "trust_outcomes": by_trust.get("outcomes") or {},
    }


@collector("decay", inputs=("{output}/notebooks/*.json",))
def decay(ctx: CollectContext) -> dict[str, Any]:
    """The decay notebook: the store's own reading after every tick, per class and deposited strength."""
    present, params, results = _notebook(ctx, "decay")
    traces = [
        pick(
            t,
            (
                "decay_class",
                "deposited",
                "per_tick",
                "extinct_at",
                "predicted_extinct_at",
                "retained_fraction",
                "max_closed_form_error",
            ),
        )
        | {"readings": list(t.get("values") or [])}  # not "values": in a template that names the dict method
        for t in results.get("traces") or []
    ]
    unit = {c: next((t for t in traces if t["decay_class"] == c and t["deposited"] == 1.0), None) for c in DECAY_CLASSES}
    errors = [t["max_closed_form_error"] for t in traces if isinstance(t["max_closed_form_error"], int | float)]
    return {
        "present": present,
        "ticks": results.get("ticks"),
        "strengths": list(params.get("strengths") or []),
        "epsilon": results.get("extinction_epsilon"),
        "traces": traces,
        "trace_count": len(traces),
        "unit": {
            c: unit[c] or dict.fromkeys(("extinct_at", "predicted_extinct_at", "retained_fraction", "per_tick"))
            for c in DECAY_CLASSES
        },
        "max_closed_form_error": max(errors) if errors else None,
    }


@collector("trust", inputs=("{output}/notebooks/*.json",))
def trust(ctx: CollectContext) -> dict[str, Any]:
    """The trust notebook: a new agent's trust, role and verdict after each reported outcome."""
    present, params, results = _notebook(ctx, "trust")
    path = [
        pick(s, ("step", "outcome", "trust", "trust_delta", "role", "gate_decision", "gate_score", "above_trust_floor"))
        for s in results.get("path") or []
    ]
    promotions = [pick(p, ("step", "from", "to", "trust")) for p in results.get("promotions") or []]
    return {
        "present": present,
        "outcomes": list(params.get("outcomes") or []),
        "steps": max(len(path) - 1, 0),
        "path": path,
        "start": path[0] if path else dict.fromkeys(("trust", "role", "gate_decision")),
        "final": path[-1] if path else dict.fromkeys(("trust", "role", "gate_decision", "gate_score", "step")),
        "promotions": promotions,
        "first_promotion": promotions[0] if promotions else dict.fromkeys(("step", "from", "to", "trust")),
        "first_step_above_trust_floor": results.get("first_step_above_trust_floor"),
        "first_above_floor": next(
            (s for s in path if s["above_trust_floor"]), dict.fromkeys(("step", "trust", "gate_decision", "gate_score"))
        ),
    }


def _distinct(pairs: list[tuple[float, int]], codes: dict[int, str]) -> list[dict[str, Any]]:
    seen = sorted(set(pairs))
    return [{"score": s, "decision": codes.get(c, str(c))} for s, c in seen]


@collector("landscape", inputs=("{output}/notebooks/*.json",))
def landscape(ctx: CollectContext) -> dict[str, Any]:
    """The gate-landscape notebook: decision shares over trust × hazard and the attainable scores."""
    present, params, results = _notebook(ctx, "landscape")
    codes = {int(v): k for k, v in (results.get("decision_codes") or {}).items()}
    surfaces = results.get("surfaces") or {}
    per_missing: list[dict[str, Any]] = []
    every: list[tuple[float, int]] = []
    for key in sorted(surfaces, key=int):
        surface = surfaces[key]
        cells = [
            (s, c)
            for srow, crow in zip(surface["score"], surface["decision_code"], strict=True)
            for s, c in zip(srow, crow, strict=True)
        ]
        every += cells
        counts = {name: sum(1 for _, c in cells if c == code) for code, name in codes.items()}
        per_missing.append(
            {
                "missing": int(key),
                "fields": list(surface.get("missing") or []),
                "cells": len(cells),
                "counts": counts,
                "shares": {name: (n / len(cells) if cells else None) for name, n in counts.items()},
                "attainable": _distinct(cells, codes),
            }
        )
    cases = [
        pick(c, ("trust", "role", "hazard", "missing", "recent_failures", "gate_score", "decision"))
        for c in results.get("cases") or []
    ]
    attainable = _distinct(every, codes)
    scored = [a for a in attainable if a["score"] > 0]
    return {
        "present": present,
        "channel": results.get("channel"),
        "trust_steps": params.get("trust_steps"),
        "hazard_steps": params.get("hazard_steps"),
        "hazard_max": params.get("hazard_max"),
        "grid_points": len(every),
        "missing_max": max((m["missing"] for m in per_missing), default=None),
        "per_missing": per_missing,
        "attainable": attainable,
        "attainable_count": len(scored),
        "lowest_ordinary": scored[0]["score"] if scored else None,
        "highest": scored[-1]["score"] if scored else None,
        "cases": cases,
        "case_count": len(cases),
        "case_trusts": sorted({c["trust"] for c in cases if c["trust"] is not None}),
    }


@collector("links", inputs=("git", "{manuscript}"))
def links(ctx: CollectContext) -> dict[str, Any]:
    """Where a reader finds the sources: the repository at the built commit (figure-to-source links)."""
    repository = load_manuscript(ctx.config).repository.rstrip("/")
    commit = dig(ctx.snapshot, "git", "commit")
    ref = commit if isinstance(commit, str) and commit else "main"
    return {"repository": repository, "ref": ref, "source": f"{repository}/blob/{ref}/"}


@collector("hazard_holds", inputs=("{output}/research/traces.jsonl",))
def hazard_holds(ctx: CollectContext) -> dict[str, Any]:
    """The study's first-attempt HOLDs for hazard in the composite runs, split by the channel that was in the band.

    Read from the per-attempt traces: a HOLD whose needs include ``decay`` (older traces without
    ``hold_needs``: an affordable budget and hazard in the band). A record gives the larger of RISK and FAILURE as ``hazard``;
    the split needs ``risk`` and ``failure`` too, and is None when the traces do not carry them.
    """
    path = ctx.config.out.root / "research" / "traces.jsonl"
    medium = dig(ctx.snapshot, "policy", "gate", "hazard_medium")
    empty = {"present": False, "holds": None, "split_recorded": False, "from_risk": None, "from_failure": None, "from_both": None}
    if not path.is_file() or not isinstance(medium, int | float):
        return empty
    holds = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if '"hold"' not in line:  # no HOLD anywhere in the record: skip the parse (most of the ~23k lines)
                continue
            rec = json.loads(line)
            if rec.get("record") != "attempt" or rec.get("condition") != "composite" or rec.get("phase") != "measured":
                continue
            if rec.get("attempt") != 0 or rec.get("decision") != "hold":
                continue
            # a HOLD that waits for pressure to decay; traces without hold_needs: budget affordable, hazard in the band
            if ("decay" in rec["hold_needs"]) if "hold_needs" in rec else (rec.get("budget_ok") and rec["hazard"] >= medium):
                holds.append(rec)
    split = all("risk" in r and "failure" in r for r in holds)
    risk = [r["risk"] >= medium for r in holds] if split else []
    failure = [r["failure"] >= medium for r in holds] if split else []
    return {
        "present": True,
        "holds": len(holds),
        "split_recorded": split,
        "from_risk": sum(1 for a, b in zip(risk, failure, strict=True) if a and not b) if split else None,
        "from_failure": sum(1 for a, b in zip(risk, failure, strict=True) if b and not a) if split else None,
        "from_both": sum(1 for a, b in zip(risk, failure, strict=True) if a and b) if split else None,
    }
