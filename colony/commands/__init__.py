"""Subcommands of the ``colony`` CLI: one module each, exposing ``register(subparsers)``.

A module's ``register`` adds its parser and sets ``func`` (``args -> exit code``) with
``parser.set_defaults(func=...)``. Raise :class:`colony.errors.ColonyError` for bad
input; :func:`colony.cli.main` turns it into exit code 2 (and a JSON error with ``--json``).
"""
