"""The token bags of a history's commits as a sparse matrix, and their lines' buckets (JITLine's and IRJIT's input).

A record's ``change.tokens`` is its bag of hashed token buckets ``[[bucket, count], ...]``
(:mod:`colony.history.changes`); :func:`token_bags` turns the records into one CSR matrix of
``log1p`` counts over the buckets any of them uses (a column per used bucket: a bucket no commit
holds is a column of zeros, which neither a similarity nor an L2-regularised model can use). A record
without a change (a merge, a binary-only commit) is an empty row. :func:`line_buckets` gives the
buckets of each of a record's stored added lines (``lines``), as column indices of that matrix
(``-1`` for a bucket no bag holds), and :func:`line_sums` a weight per line summed over them.

>>> records = [{"change": {"tokens": [[7, 2], [3, 1]]}, "lines": [[0, 1, [3, 9, 3]]]}, {"change": None, "lines": []}]
>>> X, buckets = token_bags(records)
>>> buckets.tolist(), X.toarray().round(3).tolist()
([3, 7], [[0.693, 1.099], [0.0, 0.0]])
>>> [x.tolist() for x in line_buckets(records[0], buckets)]  # line 0 holds bucket 3 (column 0) and 9 (none)
[[0, 0], [0, -1]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy import sparse

__all__ = ["line_buckets", "line_sums", "token_bags"]

_SPAN = 1 << 40  # (line, bucket) pairs packed in one integer: buckets stay far below it


def token_bags(records: Sequence[Mapping[str, Any]]) -> tuple[sparse.csr_matrix, np.ndarray]:
    """``(log1p counts per record and used bucket as CSR, the used buckets ascending)``."""
    pairs = [((r.get("change") or {}).get("tokens") or []) for r in records]
    lengths = np.array([len(p) for p in pairs], dtype=np.int64)
    flat = np.array([pair for p in pairs for pair in p], dtype=np.int64).reshape(-1, 2)
    buckets, columns = np.unique(flat[:, 0], return_inverse=True)
    indptr = np.r_[0, np.cumsum(lengths)]
    X = sparse.csr_matrix((np.log1p(flat[:, 1].astype(float)), columns.ravel(), indptr), shape=(len(records), len(buckets)))
    X.sum_duplicates()
    return X, buckets


def line_buckets(record: Mapping[str, Any], buckets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct buckets of each stored added line of ``record``: (line index, column of :func:`token_bags`' matrix)
    per distinct pair, the column -1 for a bucket no bag holds."""
    lines = record.get("lines") or ()
    sizes = np.array([len(tokens) for _, _, tokens in lines], dtype=np.int64)
    flat = np.fromiter((b for _, _, tokens in lines for b in tokens), dtype=np.int64, count=int(sizes.sum()))
    line = np.repeat(np.arange(len(lines), dtype=np.int64), sizes)
    pairs = np.unique(line * _SPAN + flat)
    line, bucket = pairs // _SPAN, pairs % _SPAN
    at = np.minimum(np.searchsorted(buckets, bucket), max(len(buckets) - 1, 0))
    found = (buckets[at] == bucket) if len(buckets) else np.zeros(len(bucket), dtype=bool)
    return line, np.where(found, at, -1)


def line_sums(record: Mapping[str, Any], buckets: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each stored added line's sum of ``weights`` (one per column of :func:`token_bags`) over its distinct buckets.

    >>> line_sums({"lines": [[0, 1, [3, 9, 3]], [0, 2, []]]}, np.array([3, 7]), np.array([0.5, 2.0])).tolist()
    [0.5, 0.0]
    """
    line, column = line_buckets(record, buckets)
    w = np.where(column >= 0, np.asarray(weights, dtype=float)[np.maximum(column, 0)], 0.0)
    return np.bincount(line, weights=w, minlength=len(record.get("lines") or ()))
