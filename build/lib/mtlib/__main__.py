"""``python -m mtlib ...`` is the ``mtlib`` command (see :mod:`mtlib.cli`)."""

import sys

from mtlib.cli import main

sys.exit(main())
