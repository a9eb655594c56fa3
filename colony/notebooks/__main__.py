"""``python -m colony.notebooks run ...``: see :mod:`colony.commands.notebooks`.

An entry script, not a module of the package: it reaches up to the command layer, where the
arguments are parsed (the contract in pyproject.toml ignores this one import).
"""

import sys

from colony.commands.notebooks import main

sys.exit(main())
