"""A mixed logistic model of failure among executed items, with run and agent random effects (statsmodels).

The risk differences of the study pool items within runs and resample runs. This model asks
the same question on the items themselves: for executed measured items of two conditions,

    logit P(failed) = β0 + β1·[condition = first] + u_run + v_(run, agent)

with u_run ~ N(0, σ²_run) and v_(run, agent) ~ N(0, σ²_agent) (agents are distinct per run),
fitted by variational Bayes (``BinomialBayesMixedGLM.fit_vb``). β1 is the log odds ratio of
failure for the first condition against the second, adjusted for which run and which agent
an item came from; its interval is the posterior mean ± z·sd. It is reported beside the risk
differences as a check that they are not an artefact of pooling.

>>> import random
>>> rng = random.Random(1)
>>> rows = [{"condition": c, "run": r, "agent_id": f"a{k}", "failed": rng.random() < (0.2 if c == "x" else 0.4)}
...         for c in ("x", "y") for r in range(6) for k in range(3) for _ in range(8)]
>>> fit = mixed_logit(rows, "x", "y", confidence=0.95)
>>> fit["odds_ratio"] < 1.0, fit["n_items"]
(True, 288)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

from colony.errors import ValidationError

__all__ = ["mixed_logit"]


def mixed_logit(rows: Sequence[dict[str, Any]], first: str, second: str, *, confidence: float, seed: int = 0) -> dict[str, Any]:
    """Fit the model on ``rows`` (``condition``, ``run``, ``agent_id``, ``failed``) of the two conditions.

    ``seed`` fixes the random start of the variational fit, so the result is reproducible.
    """
    import numpy as np
    import pandas as pd
    from scipy.stats import norm
    from statsmodels.genmod.bayes_mixed_glm import BinomialBayesMixedGLM

    data = pd.DataFrame(
        [
            {
                "failed": int(r["failed"]),
                "first": int(r["condition"] == first),
                "run": f"r{r['run']}",
                "agent": f"r{r['run']}:{r['agent_id']}",
            }
            for r in rows
            if r["condition"] in (first, second)
        ]  # fmt: skip
    )
    if data.empty or data["first"].nunique() < 2 or data["failed"].nunique() < 2:
        raise ValidationError("rows", f"need executed items of both {first!r} and {second!r} with both outcomes")
    model = BinomialBayesMixedGLM.from_formula(
        "failed ~ first", {"run": "0 + C(run)", "agent": "0 + C(agent)"}, data.sort_values(["run", "agent", "first"])
    )
    from threadpoolctl import threadpool_limits

    # one BLAS thread: a multi-threaded BLAS sums in a schedule-dependent order, which moves the fit in its last digits
    with warnings.catch_warnings(), np.errstate(over="ignore"), threadpool_limits(1):
        warnings.simplefilter("ignore")
        fit = model.fit_vb(rng=seed)
    names = list(model.exog_names)
    k = names.index("first")
    beta, sd = float(fit.fe_mean[k]), float(fit.fe_sd[k])
    z = float(norm.ppf(0.5 + confidence / 2))
    vcp = {name: float(math.exp(v)) for name, v in zip(model.vcp_names, fit.vcp_mean, strict=True)}
    return {
        "model": "logit P(failed) = b0 + b1*[first condition] + u_run + v_agent (variational Bayes, statsmodels)",
        "first": first,
        "second": second,
        "log_odds_ratio": beta,
        "sd": sd,
        "ci_low": beta - z * sd,
        "ci_high": beta + z * sd,
        "odds_ratio": math.exp(beta),
        "odds_ratio_ci": [math.exp(beta - z * sd), math.exp(beta + z * sd)],
        "confidence": confidence,
        "random_effect_sd": vcp,
        "n_items": len(data),
        "n_runs": int(data["run"].nunique()),
        "n_agents": int(data["agent"].nunique()),
    }
