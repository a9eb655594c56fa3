"""Kernel v2's consequence memory on both backends: the same outcomes give the same model and verdicts.

On PostgreSQL two kernels share the database and the calls alternate between them, as two servers'
would; on SQLite one kernel owns the file and is reopened halfway. Either way the verdicts and the
learned model must be those of one uninterrupted in-memory kernel.
"""

from __future__ import annotations

import dataclasses
import random

from colony.canonical import canonical_bytes
from colony.config import default_policy
from colony.kernel import ColonyKernel, ColonyKernelConfig
from tests.conftest import make_proposal

POISON = "os.system(user_input)"
POLICY = dataclasses.replace(default_policy(), change=dataclasses.replace(default_policy().change, snapshot_every=9, window=30))


def _stream(n: int) -> list[tuple[str, bool]]:
    rng = random.Random(11)
    out = []
    for i in range(n):
        lines = [f"value_{rng.randrange(30)} = call_{rng.randrange(30)}(x)" for _ in range(rng.randrange(1, 5))]
        poisoned = rng.random() < 0.3
        if poisoned:
            lines.append(POISON)
        body = "".join(f"+{line}\n" for line in lines)
        out.append((f"--- a/pkg/m{i % 4}.py\n+++ b/pkg/m{i % 4}.py\n@@ -0,0 +1,{len(lines)} @@\n{body}", poisoned))
    return out


def _kernel(state: str | None) -> ColonyKernel:
    return ColonyKernel(ColonyKernelConfig(state_path=state, policy=POLICY, change_prior=None))


def _step(propose: ColonyKernel, report: ColonyKernel, i: int, diff: str, fails: bool) -> dict:
    proposal = make_proposal(target=f"pkg.t{i}", proposal_id=f"bk-{i}")
    verdict = propose.propose_action(proposal, change=diff).to_dict()
    report.record_outcome(proposal, {"summary": "ran"}, tests_passed=not fails, observed=True)
    report.calibrate_agent("agent-a", trust_score=0.7)
    return verdict


def test_the_same_outcomes_give_the_same_model_on_either_backend(state_spec: str) -> None:
    stream = _stream(40)
    alone = _kernel(None)
    alone.calibrate_agent("agent-a", trust_score=0.7)
    expected = [_step(alone, alone, i, d, f) for i, (d, f) in enumerate(stream)]
    first = _kernel(state_spec)
    first.calibrate_agent("agent-a", trust_score=0.7)
    second = _kernel(state_spec) if first.db.shared else first
    got = []
    for i, (diff, fails) in enumerate(stream):
        if i == 20 and not first.db.shared:  # a private file: close and reopen it halfway
            first.close()
            first = second = _kernel(state_spec)
        got.append(_step(first if i % 2 else second, second if i % 2 else first, i, diff, fails))
    assert got == expected
    for kernel in {id(first): first, id(second): second}.values():
        kernel.propose_action(make_proposal(target="pkg.sync"), change=stream[0][0])  # a call: a shared store syncs
        assert canonical_bytes(kernel.change_memory.model.state()) == canonical_bytes(alone.change_memory.model.state())
        assert kernel.change_memory.learned == 40
    first.close()
    if second is not first:
        second.close()
