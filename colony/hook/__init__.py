"""``colony hook``: Claude Code's PreToolUse/PostToolUse hooks, answered by colony.

* :mod:`~colony.hook.payload`: a hook payload, checked, and the target a tool call acts on;
* :mod:`~colony.hook.decide`: allow / ask / deny from the gate, and outcomes for the kernel;
* :mod:`~colony.hook.run`: one hook call against a state (opened, used and closed at once), fail-safe;
* :mod:`~colony.hook.resident`: ``colony hook serve``, a process that owns the state and answers over a socket;
* :mod:`~colony.hook.client`: the resident mode's client, standard library only (fast to start).

This package's ``__init__`` imports nothing, so the client stays cheap to load.
"""
