"""A small fitted change prior in which one line is risky, and a policy directory that pins it.

One change in twenty of the prior's history adds :data:`RISKY_LINE` and failed; the others are
ordinary assignments (new files and edits) that passed. The hold budget's threshold (10% of
changes) then lies among the safe ones: a change adding the risky line is held, a change in the
safe vocabulary (:data:`SAFE_TEXT`) is not. Shared by the gateway's and the hook's tests.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from colony.config import policy_path
from colony.kernel.change import ChangeRecord, measure_edits
from colony.kernel.change_prior import ChangePrior, fit_prior, write_prior

RISKY_LINE = "subprocess.call(request.args['cmd'], shell=True)"
SAFE_TEXT = "total = count + 1\n"
_WORDS = ["alpha", "beta", "gamma", "delta", "total", "count", "value", "item", "name", "text", "note", "line"]


def _safe(i: int) -> ChangeRecord:
    a, b = _WORDS[i % len(_WORDS)], _WORDS[(i * 7 + 3) % len(_WORDS)]
    edit: dict[str, object] = {"path": f"pkg/m{i % 5}.py", "content": f"{a} = {b} + {i}\n"}
    if i % 2:
        edit["old_content"] = f"{b} = {a}\n"
    return measure_edits([edit]).record


def fit_risky_prior(directory: Path) -> tuple[Path, ChangePrior]:
    """Write the prior to ``directory/prior.json.gz``; its path and the prior (whose ``sha256`` pins it)."""
    risky = [measure_edits([{"path": f"pkg/m{i}.py", "content": f"{RISKY_LINE}\n"}]).record for i in range(3)]
    learned = [(risky[i % 3], True) if i % 20 == 0 else (_safe(i), False) for i in range(400)]
    prior = fit_prior(learned, provenance={"fitted_on": "colony's gateway and hook tests"})
    return write_prior(prior, directory / "prior.json.gz"), prior


def risky_policy_dir(directory: Path) -> Path:
    """A ``$COLONY_CONFIG`` directory: the packaged policy with ``change.prior`` naming the risky prior, pinned."""
    path, prior = fit_risky_prior(directory)
    policy = yaml.safe_load(policy_path().read_text())
    policy["change"]["prior"] = str(path)
    policy["change"]["prior_sha256"] = prior.sha256
    out = directory / "config"
    out.mkdir(exist_ok=True)
    (out / "policy.yaml").write_text(yaml.safe_dump(policy, sort_keys=False))
    return out
