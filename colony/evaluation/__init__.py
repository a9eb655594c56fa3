"""The evaluation core both studies share: ranking metrics, bootstrap intervals and Holm's adjustment.

* :mod:`colony.evaluation.ranking` — AUC (plain and under resample weights), the trade-off curve,
  effort-aware recall and the operating point;
* :mod:`colony.evaluation.bootstrap` — resample weights by unit or by block, percentile and BCa
  intervals, bootstrap p-values;
* :mod:`colony.evaluation.holm` — Holm's step-down adjustment.

The synthetic study (:mod:`colony.research`) and the real-history study (:mod:`colony.history`)
build their own measures on these (rates over runs, matched odds ratios) and keep their own names
only where they differ.
"""
