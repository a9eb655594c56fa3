"""``python -m colony.notebooks run ...``: see :mod:`colony.notebooks.cli`."""

import sys

from colony.notebooks.cli import main

sys.exit(main())
