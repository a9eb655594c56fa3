"""Falsification: eleven deterministic checks that argue against executing a plan.

>>> from colony.falsification import falsify_plan
>>> falsify_plan({"target": "pkg.mod", "rollback_plan": "TBD"})["verdict"]
'FAIL'
"""

from __future__ import annotations

from colony.falsification.checks import CheckContext
from colony.falsification.plan import PlanView, plan_from_proposal
from colony.falsification.registry import CHECKS, run_checks
from colony.falsification.report import FalsificationReport
from colony.falsification.worker import FalsificationWorker, falsify_plan

__all__ = [
    "CHECKS",
    "CheckContext",
    "FalsificationReport",
    "FalsificationWorker",
    "PlanView",
    "falsify_plan",
    "plan_from_proposal",
    "run_checks",
]
