from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from colony.config import default_policy
from colony.kernel.resource_ledger import ResourceLedger
from colony.models import ResourceCost
from tests.examples import examples


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_first_violated_dimension_is_named() -> None:
    ledger = ResourceLedger()
    ok, reason = ledger.can_afford(ResourceCost(llm_calls=501, runtime_seconds=1e9))
    assert not ok and reason == "llm_calls budget exceeded: 501 > 500"
    ok, reason = ledger.can_afford(ResourceCost(runtime_seconds=4000.0))
    assert reason == "runtime_seconds budget exceeded: 4000.00s > 3600.00s"
    assert ledger.can_afford(ResourceCost(risk_level=0.8)) == (True, None)


def test_consumption_is_cumulative_and_resets_after_the_period() -> None:
    clock = Clock()
    ledger = ResourceLedger(clock=clock)
    ledger.consume(ResourceCost(risk_level=0.5))
    assert ledger.can_afford(ResourceCost(risk_level=0.4))[0] is False
    clock.now += default_policy().budget.period_seconds
    assert ledger.can_afford(ResourceCost(risk_level=0.4)) == (True, None)
    assert ledger.usage_summary()["risk_level"]["used"] == 0.0
    assert ledger.usage_summary()["period_start"] == clock.now


def test_usage_summary_has_seven_dimensions() -> None:
    ledger = ResourceLedger()
    ledger.consume(ResourceCost(llm_calls=3, doc_debt=1.23456))
    s = ledger.usage_summary()
    assert len([k for k in s if k != "period_start"]) == 7
    assert s["llm_calls"] == {"used": 3, "max": 500}
    assert s["doc_debt"]["used"] == 1.235


_CAPS = {
    "llm_calls": "max_llm_calls",
    "runtime_seconds": "max_runtime_seconds",
    "risk_level": "max_risk_level",
    "human_attention_minutes": "max_human_attention_minutes",
    "merge_risk": "max_merge_risk",
    "doc_debt": "max_doc_debt",
    "security_exposure": "max_security_exposure",
}
_FRACTION = {"risk_level", "merge_risk", "security_exposure"}


def _fits(used: ResourceCost, cost: ResourceCost) -> dict[str, bool]:
    """Per dimension, whether used + cost (fractions capped at 1) is within the packaged cap."""
    budget = default_policy().budget
    out = {}
    for name, cap in _CAPS.items():
        value = getattr(used, name) + getattr(cost, name)
        out[name] = (min(1.0, value) if name in _FRACTION else value) <= getattr(budget, cap)
    return out


def _cost(draw: st.DrawFn) -> ResourceCost:
    """A cost of 0-60% of each cap: two of them exceed a given cap about one time in twelve."""
    budget = default_policy().budget
    share = {name: draw(st.floats(0.0, 0.6)) * getattr(budget, cap) for name, cap in _CAPS.items()}
    share["llm_calls"] = int(share["llm_calls"])
    return ResourceCost(**share)


@given(st.data())
@settings(max_examples=examples(300), deadline=None)
def test_can_afford_agrees_with_every_dimension_and_names_the_first_violation(data: st.DataObject) -> None:
    used, cost = _cost(data.draw), _cost(data.draw)
    ledger = ResourceLedger()
    ledger.restore(used, ledger.period_start)
    fits = _fits(used, cost)
    ok, reason = ledger.can_afford(cost)
    assert ok is all(fits.values())
    if ok:
        assert reason is None
    else:
        first = next(name for name, fine in fits.items() if not fine)
        assert reason is not None and reason.startswith(f"{first} budget exceeded: ")
