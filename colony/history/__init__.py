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
* :mod:`~colony.history.conditions`, :mod:`~colony.history.jit` — the conditions under study;
* :mod:`~colony.history.metrics`, :mod:`~colony.history.stats`, :mod:`~colony.history.hypotheses`,
  :mod:`~colony.history.evaluate`, :mod:`~colony.history.study` — scoring, the preregistered tests
  and the whole study (``colony history study``); numbers in :mod:`~colony.history.config`.

The package sits above the kernel (it uses ``ColonyKernel`` through its public API); nothing in
the kernel imports it.
"""
