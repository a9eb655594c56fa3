"""``python -m colony.notebooks run ...``: the same as ``colony notebooks run ...`` (:mod:`colony.commands.notebooks`).

An entry script, not a module of the package: it hands its process over to colony's command line
(``python -m colony.cli notebooks ...``, same interpreter, environment and working directory), so the
arguments are parsed in the command layer and nothing here imports it.
"""

import os
import sys

os.execv(sys.executable, [sys.executable, "-m", "colony.cli", "notebooks", *sys.argv[1:]])
