"""Cold start: no learned condition scores a constant before it has learned anything; its fallback is named."""

from __future__ import annotations

import numpy as np

from colony.config import default_policy
from colony.history.config import load_history_config
from colony.history.evaluate import evaluate
from colony.history.jit import lines_added_prior


def test_learned_conditions_start_from_their_declared_fallback(extracted):
    cfg = load_history_config()  # min_positive 10: the fixture's 8 commits never train a JIT model
    ev = evaluate(extracted.records, cfg, default_policy(), rules=cfg.labels.rules(), curves=False)
    conditions = ev.summary["conditions"]
    assert conditions["jit_lr"]["fallback"] == (
        "lines_added: added/(added+100) until the first model (0.5 at the change-size threshold)"
    )
    assert conditions["hazard_only"]["fallback"].startswith("lines_added: a commit whose modules had no discovered failure")
    assert conditions["composite"]["fallback"].startswith("none:")
    jit = np.array(ev.arrays["scores"]["jit_lr"])
    size = np.array(ev.arrays["scores"]["change_size"])
    assert len(set(jit.tolist())) > 1 and np.allclose(jit, lines_added_prior(size, 100))
    assert ev.arrays["held"]["jit_lr"] == ev.arrays["held"]["change_size"]  # 0.5 at the change-size threshold
    hazard = np.array(ev.arrays["scores"]["hazard_only"])
    assert len(set(hazard.tolist())) > 1
