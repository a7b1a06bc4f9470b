"""``python -m humangr``: the ``humangr`` command line."""

import sys

from humangr.cli.main import main

sys.exit(main())
