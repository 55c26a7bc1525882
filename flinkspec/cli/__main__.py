"""``python -m flinkspec.cli``: the ``flinkspec`` command."""

import sys

from flinkspec.cli.main import main

sys.exit(main())
