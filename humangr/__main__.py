"""``python -m humangr``: the ``humangr`` command line."""

import sys

from humangr.engine.cli import main

sys.exit(main())
