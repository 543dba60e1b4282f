"""``python -m paper_claims`` works like the ``claims`` command."""

import sys

from paper_claims.cli import main

sys.exit(main())
