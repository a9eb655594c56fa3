"""Public kernel methods under concurrent callers."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest

from colony.kernel import ColonyKernel, ColonyKernelConfig
from tests.conftest import make_proposal


@pytest.mark.parametrize("on_disk", [False, True])
def test_eight_threads_of_mixed_calls(tmp_path: Path, on_disk: bool) -> None:
    kernel = ColonyKernel(ColonyKernelConfig(state_path=tmp_path / "c.sqlite" if on_disk else None))
    errors: list[BaseException] = []
    recorded: list[str] = []
    seen = [0] * 8
    lock = threading.Lock()

    def worker(n: int) -> None:
        rng = random.Random(n)
        try:
            for i in range(500):
                p = make_proposal(agent_id=f"w{n}", target=f"t{rng.randrange(20)}", proposal_id=f"w{n}-{i}")
                op = rng.randrange(4)
                if op < 2:
                    seen[n] += 1
                if op == 0:
                    kernel.propose_action(p)
                elif op == 1:
                    kernel.record_outcome(p, {"summary": "x"}, tests_passed=rng.random() < 0.7)
                    with lock:
                        recorded.append(p.proposal_id)
                elif op == 2:
                    kernel.colony_status()
                else:
                    kernel.tick()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert kernel.consequence_memory.count() == len(recorded) == len(set(recorded))
    for pid in recorded:
        assert kernel.consequence_memory.has_outcome(pid)
    for n in range(8):
        profile = kernel.agent_profile(f"w{n}")
        assert profile.total_proposals == seen[n]
        reports = sum(1 for r in recorded if r.startswith(f"w{n}-"))
        assert len(profile.consequence_history) == min(reports, 200)
