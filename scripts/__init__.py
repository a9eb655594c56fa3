"""The manuscript build: gates, notebooks, variables, figures, compile, validate, bundle.

Every stage is a module here with a ``run(config)`` function and a small command line
(``python scripts/<stage>.py``); ``python scripts/build.py`` runs them all in order.
The stages are parameterised by a :class:`scripts.buildconfig.BuildConfig`, so the same
code builds this repository and the tiny fixture projects the tests use.
"""
