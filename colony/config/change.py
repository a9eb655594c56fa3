"""The ``change:`` section of ``policy.yaml``: measuring a change and learning its risk (kernel v2).

A change (a diff, or edits per file) is measured by :mod:`colony.kernel.change` and scored by
:mod:`colony.kernel.change_risk`; every number they use is here. The section's one cross-field rule
keeps a remembered change within :data:`REMEMBERED_BYTES`: its token bag is at most
``remembered_tokens`` pairs of a bucket id (< ``buckets``) and a count (<= ``count_cap``), written as
compact JSON, beside a fixed head of metrics and a digest (at most :data:`HEAD_BYTES`).

>>> worst_case_bytes(buckets=262144, count_cap=255, remembered_tokens=128)
1920
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal, Self

from pydantic import model_validator

from colony.config.validation import Count, Exact, Integer, NonNegative, Number, Positive, Text, check, rule

__all__ = ["HEAD_BYTES", "REMEMBERED_BYTES", "ChangePolicy", "worst_case_bytes"]

REMEMBERED_BYTES = 2048
"""The most a remembered change may take, serialised (issue #25: <= 2 KB per remembered change)."""
HEAD_BYTES = 256
"""An upper bound of a remembered change's fields beside its token bag (metrics, digest, keys, brackets)."""

PowerOfTwo = Annotated[Integer, rule(lambda v: v >= 2 and v & (v - 1) == 0, "must be a power of two >= 2")]
Budget = Annotated[Number, rule(lambda v: 0.0 < v < 1.0, "must be a share strictly between 0 and 1")]
Sha256 = Annotated[
    Text, rule(lambda v: len(v) == 64 and all(c in "0123456789abcdef" for c in v), "must be 64 lower-case hex digits")
]


def worst_case_bytes(*, buckets: int, count_cap: int, remembered_tokens: int) -> int:
    """The largest serialised remembered change these settings allow: each pair is ``[bucket,count],``."""
    pair = len(str(buckets - 1)) + len(str(count_cap)) + 4
    return HEAD_BYTES + remembered_tokens * pair


@dataclass(frozen=True, slots=True)
class ChangePolicy(Exact):
    max_bytes: Count
    max_files: Count
    buckets: PowerOfTwo
    line_tokens: Count
    remembered_tokens: Count
    count_cap: Count
    learning_rate: Positive
    intercept_learning_rate: NonNegative
    l2: NonNegative
    hold_budget: Budget
    budget_unit: Literal["changes", "lines"]
    window: Count
    reason_lines: Count
    prior: Text  # "packaged", "none", or the path of a prior file (colony history prior writes one)
    prior_sha256: Sha256
    snapshot_every: Count

    @model_validator(mode="after")
    def _rules(self) -> Self:
        size = worst_case_bytes(buckets=self.buckets, count_cap=self.count_cap, remembered_tokens=self.remembered_tokens)
        check(
            size <= REMEMBERED_BYTES,
            "remembered_tokens",
            f"a remembered change could take {size} bytes, over {REMEMBERED_BYTES}: keep fewer tokens or buckets",
        )
        return self
