"""Real change histories: the real-data study of the kernel.

One concept per module, in the order the data flows:

* :mod:`~colony.history.identity`, :mod:`~colony.history.rules`, :mod:`~colony.history.kamei`,
  :mod:`~colony.history.szz` — who wrote a commit, what its message and paths say, its change
  metrics, and the SZZ blame of its fixes;
* :mod:`~colony.history.extract`, :mod:`~colony.history.dataset` — a repository or bundle into a
  committed, manifest-checked ``data/history/<name>.jsonl.gz`` (``colony history extract``);
* :mod:`~colony.history.labels` — inducing commits and when they were discovered, under the
  declared hygiene rules and views;
* :mod:`~colony.history.replay` — the history through the real kernel, consequences delivered when
  discovered;
* :mod:`~colony.history.conditions` (the table), :mod:`~colony.history.scoring` (what a condition is),
  :mod:`~colony.history.jit`, :mod:`~colony.history.transfer`, :mod:`~colony.history.jitline`,
  :mod:`~colony.history.irjit` (over :mod:`~colony.history.tokens`), :mod:`~colony.history.kernel_conditions`
  — the conditions under study;
* :mod:`~colony.history.evaluate`, :mod:`~colony.history.endpoints`, :mod:`~colony.history.latency` — one
  evaluation and its endpoints; :mod:`~colony.history.hypotheses`, :mod:`~colony.history.hypotheses_v2` —
  the preregistered tests of the first study and of study v2; :mod:`~colony.history.variants`,
  :mod:`~colony.history.studied`, :mod:`~colony.history.study`, :mod:`~colony.history.report_v2` — the
  whole study (``colony history study``) and its ``v2`` section; numbers in :mod:`~colony.history.config`.

The package sits above the kernel (it uses ``ColonyKernel`` through its public API); nothing in
the kernel imports it.
"""
