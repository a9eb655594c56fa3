"""Formal obligations on the gate arithmetic, checked with z3 when it is installed (optional).

Each obligation is a statement over *free* real and integer variables ranging over their
domains — trust t ∈ [0, 1], risk r ≥ 0, failure f ≥ 0, missing fields m ∈ {0, …, 3},
recent failures n ≥ 0 — about the ordinary-path score

    g(t, r, f, m, n) = w_b + w_r·ρ(max(r, f)) + w_t·τ(t, n) + w_c·max(0, 1 − p·m)

(no clamp) and the routing bands, with the policy's numbers as exact decimals. A universal
obligation is *proved* when its negation is unsatisfiable and *refuted* with a counterexample
otherwise; an existential one (a band is reachable) is proved by a witness. Without z3 every
obligation is reported ``unavailable``; the runtime invariants in
:mod:`colony.research.invariants` still run. These are statements about real arithmetic on
the specification; the floating-point implementation is held to the same specification by
the differential test (:mod:`colony.research.differential`).

>>> results = check_obligations()
>>> sorted({r.status for r in results}) in (["proved"], ["unavailable"])
True
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from colony.config import default_policy

if TYPE_CHECKING:
    from colony.config import Policy

__all__ = ["OBLIGATIONS", "FormalResult", "check_obligations", "encoded_points", "z3_available"]

PROVED, REFUTED, UNKNOWN, UNAVAILABLE = "proved", "refuted", "unknown", "unavailable"

OBLIGATIONS: dict[str, str] = {
    "score_in_unit_interval": "for all t in [floor, 1], r, f >= 0, m in 0..3, n >= 0: 0 <= g <= 1 (before any clamp)",
    "monotone_in_hazard": "r1 <= r2 and f1 <= f2 imply g(r2, f2) <= g(r1, f1), everything else equal",
    "monotone_in_trust": "floor <= t1 <= t2 implies g(t1) <= g(t2), everything else equal",
    "monotone_in_missing": "m1 <= m2 implies g(m2) <= g(m1), everything else equal",
    "recent_failures_never_help": "n1 <= n2 implies g(n2) <= g(n1), everything else equal",
    "routing_monotone": "for all scores s1 <= s2 in [0, 1]: rank(route(s1)) <= rank(route(s2)) (refuse < hold < execute)",
    "hold_band_reachable": "there exist ordinary-path inputs routed HOLD (the thresholds leave a HOLD band)",
    "execute_band_reachable": "there exist ordinary-path inputs routed EXECUTE",
    "clear_target_complete_executes": "t >= floor, max(r, f) < hazard_medium, m = 0, n < threshold imply g >= execute",
    "single_failure_holds_below_full_credit": "floor <= t < full credit, max(r, f) = one failed outcome's FAILURE "
    "(failure_strength x test multiplier), m = 0, n < threshold imply hold <= g < execute",
    "proposal_cap_below_hold_band": "0 <= h <= proposal_deposit_cap implies rho(h) = rho(0): one agent's capped "
    "proposal-time pressure never changes the risk component",
}


@dataclass(frozen=True, slots=True)
class FormalResult:
    """The outcome of one obligation."""

    name: str
    statement: str
    status: str
    detail: str = ""
    model: dict[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "statement": self.statement, "status": self.status, "detail": self.detail, "model": self.model}


def z3_available() -> bool:
    """Whether ``z3-solver`` can be imported."""
    return importlib.util.find_spec("z3") is not None


def _symbols(policy: Policy, ctx: Any) -> tuple[Any, Any, Any, Any]:
    """The encoding's building blocks in ``ctx``: (q, rho, score, rank) — shared by the obligations and the point check."""
    import z3

    g = policy.gate
    w, rc = g.weights, g.risk_component

    def q(x: float) -> Any:
        return z3.RealVal(str(x), ctx)

    zero, one = z3.RealVal(0, ctx), z3.RealVal(1, ctx)
    full, partial = q(g.trust_full_credit), q(g.trust_partial_credit)
    medium, high = q(g.hazard_medium), q(g.hazard_high)
    execute, hold = q(g.execute_threshold), q(g.hold_threshold)

    def rho(h: Any) -> Any:
        return z3.If(h >= high, q(rc.high), z3.If(h >= medium, q(rc.medium), q(rc.clear)))

    def tau(t: Any, n: Any) -> Any:
        base = z3.If(t >= full, one, partial)
        cut = base - q(g.recent_failure_penalty)
        return z3.If(n >= g.recent_failure_threshold, z3.If(cut > 0, cut, zero), base)

    def score(t: Any, r: Any, f: Any, m: Any, n: Any) -> Any:
        hazard = z3.If(r >= f, r, f)
        c = 1 - z3.ToReal(m) * q(g.missing_field_penalty)
        completeness = z3.If(c > 0, c, zero)
        return q(w.budget) + q(w.risk) * rho(hazard) + q(w.trust) * tau(t, n) + q(w.completeness) * completeness

    def rank(s: Any) -> Any:
        return z3.If(s >= execute, 2, z3.If(s >= hold, 1, 0))

    return q, rho, score, rank


def encoded_points(policy: Policy, points: list[tuple[float, float, float, int, int]]) -> list[tuple[float, str]]:
    """The encoding evaluated at concrete ordinary-path points (trust, risk, failure, missing, recent failures).

    Returns (score as a float, decision) per point, from the *same* expressions the
    obligations are proved on, so comparing them with the gate at the same points catches an
    encoding that drifted from the code.
    """
    import z3

    ctx = z3.Context()
    q, _rho, score, rank = _symbols(policy, ctx)
    out = []
    for t, r, f, m, n in points:
        s = score(q(t), q(r), q(f), z3.IntVal(m, ctx), z3.IntVal(n, ctx))
        s = z3.If(s < 0, z3.RealVal(0, ctx), z3.If(s > 1, z3.RealVal(1, ctx), s))
        value = z3.simplify(s)
        decision = ("refuse", "hold", "execute")[z3.simplify(rank(s)).as_long()]
        out.append((float(value.as_fraction()), decision))
    return out


def _encode(policy: Policy, ctx: Any) -> dict[str, tuple[Any, list[Any], str]]:
    """Each obligation as (claim, domain constraints, "forall" | "exists"), built in the z3 context ``ctx``."""
    import z3

    g = policy.gate
    q, rho, score, rank = _symbols(policy, ctx)
    zero = z3.RealVal(0, ctx)
    floor, full = q(g.trust_hard_floor), q(g.trust_full_credit)
    medium = q(g.hazard_medium)
    execute, hold = q(g.execute_threshold), q(g.hold_threshold)

    def vars_(suffix: str = "") -> tuple[Any, Any, Any, Any, Any]:
        return (
            z3.Real(f"t{suffix}", ctx),
            z3.Real(f"r{suffix}", ctx),
            z3.Real(f"f{suffix}", ctx),
            z3.Int(f"m{suffix}", ctx),
            z3.Int(f"n{suffix}", ctx),
        )

    def domain(t: Any, r: Any, f: Any, m: Any, n: Any) -> list[Any]:
        return [t >= floor, t <= 1, r >= 0, f >= 0, m >= 0, m <= 3, n >= 0]

    t, r, f, m, n = vars_()
    base_dom = domain(t, r, f, m, n)
    s = score(t, r, f, m, n)

    def pair(name: str) -> tuple[Any, list[Any]]:
        """A second copy of the variables equal to the first except ``name``'s."""
        t2, r2, f2, m2, n2 = vars_("2")
        same = {"t": t2 == t, "r": r2 == r, "f": f2 == f, "m": m2 == m, "n": n2 == n}
        eq = [c for k, c in same.items() if k not in name]
        return score(t2, r2, f2, m2, n2), [*domain(t2, r2, f2, m2, n2), *eq, *base_dom]

    obligations: dict[str, tuple[Any, list[Any], str]] = {}

    def forall(name: str, claim: Any, dom: list[Any]) -> None:
        obligations[name] = (claim, dom, "forall")

    def exists(name: str, claim: Any, dom: list[Any]) -> None:
        obligations[name] = (claim, dom, "exists")

    forall("score_in_unit_interval", z3.And(s >= 0, s <= 1), base_dom)
    s2, dom2 = pair("rf")
    r2, f2 = z3.Real("r2", ctx), z3.Real("f2", ctx)
    forall("monotone_in_hazard", z3.Implies(z3.And(r <= r2, f <= f2), s2 <= s), dom2)
    s2, dom2 = pair("t")
    forall("monotone_in_trust", z3.Implies(t <= z3.Real("t2", ctx), s <= s2), dom2)
    s2, dom2 = pair("m")
    forall("monotone_in_missing", z3.Implies(m <= z3.Int("m2", ctx), s2 <= s), dom2)
    s2, dom2 = pair("n")
    forall("recent_failures_never_help", z3.Implies(n <= z3.Int("n2", ctx), s2 <= s), dom2)
    a, b = z3.Real("s1", ctx), z3.Real("s2", ctx)
    forall("routing_monotone", z3.Implies(a <= b, rank(a) <= rank(b)), [a >= 0, b <= 1])
    exists("hold_band_reachable", z3.And(s >= hold, s < execute), base_dom)
    exists("execute_band_reachable", s >= execute, base_dom)
    hazard = z3.If(r >= f, r, f)
    clear = [hazard < medium, m == 0, n < g.recent_failure_threshold]
    forall("clear_target_complete_executes", s >= execute, [*base_dom, *clear])
    one_failure = q(policy.outcome.failure_strength) * q(policy.pheromone.source_multipliers.test)
    forall(
        "single_failure_holds_below_full_credit",
        z3.And(s >= hold, s < execute),
        [*base_dom, t < full, hazard == one_failure, m == 0, n < g.recent_failure_threshold],
    )
    h = z3.Real("h", ctx)
    cap = q(policy.proposal.proposal_deposit_cap)
    forall("proposal_cap_below_hold_band", rho(h) == rho(zero), [h >= 0, h <= cap])
    return obligations


def _model(model: Any) -> dict[str, str]:
    return {str(d): str(model[d]) for d in sorted(model.decls(), key=str)}


def check_obligations(policy: Policy | None = None, *, timeout_ms: int = 2000) -> list[FormalResult]:
    """Check every obligation in :data:`OBLIGATIONS` against ``policy`` (default: the policy in force)."""
    policy = policy if policy is not None else default_policy()
    if not z3_available():
        return [FormalResult(n, s, UNAVAILABLE, "z3-solver is not installed") for n, s in OBLIGATIONS.items()]
    import z3

    # a fresh context per call: models (witnesses, counterexamples) do not depend on earlier calls
    ctx = z3.Context()
    encoded = _encode(policy, ctx)
    results = []
    for name, statement in OBLIGATIONS.items():
        claim, domain, kind = encoded[name]
        solver = z3.Solver(ctx=ctx)
        solver.set("timeout", timeout_ms)
        solver.add(*domain)
        solver.add(z3.Not(claim) if kind == "forall" else claim)
        verdict = solver.check()
        if verdict == z3.unknown:
            results.append(FormalResult(name, statement, UNKNOWN, str(solver.reason_unknown())))
        elif kind == "forall":
            if verdict == z3.unsat:
                results.append(FormalResult(name, statement, PROVED, "negation unsatisfiable"))
            else:
                results.append(FormalResult(name, statement, REFUTED, "counterexample", _model(solver.model())))
        elif verdict == z3.sat:
            results.append(FormalResult(name, statement, PROVED, "witness", _model(solver.model())))
        else:
            results.append(FormalResult(name, statement, REFUTED, "no input reaches it"))
    return results
