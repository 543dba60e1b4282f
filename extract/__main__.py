"""``python -m extract`` works like the ``claims`` command."""

import sys

from extract.cli import main

sys.exit(main())
