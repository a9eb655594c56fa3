from __future__ import annotations

from colony.config import default_policy
from colony.models import ResourceCost
from colony.resource_ledger import ResourceLedger


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
