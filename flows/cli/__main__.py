"""``python -m flows.cli``: the ``zhbench`` command."""

import sys

from flows.cli import main

sys.exit(main())
