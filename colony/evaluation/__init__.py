"""The evaluation core both studies share: ranking metrics, bootstrap intervals and Holm's adjustment.

* :mod:`colony.evaluation.ranking` — AUC (plain, pooled within groups, under resample weights), the
  trade-off curve, effort-aware recall and Popt (by raw score or by risk per changed line) and the
  operating point;
* :mod:`colony.evaluation.lines` — line-level top-k accuracy and its random expectation;
* :mod:`colony.evaluation.bootstrap` — resample weights by unit or by block, percentile and BCa
  intervals, bootstrap p-values;
* :mod:`colony.evaluation.block_auc` — AUCs under many block resamples at once (a quadratic form in
  the blocks' draw counts);
* :mod:`colony.evaluation.holm` — Holm's step-down adjustment.

The synthetic study (:mod:`colony.research`) and the real-history study (:mod:`colony.history`)
build their own measures on these (rates over runs, matched odds ratios) and keep their own names
only where they differ.
"""
