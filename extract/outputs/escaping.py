"""Text made safe inside HTML: the one escaping of the report, its charts and the notebook table."""

from __future__ import annotations

import html
from typing import Any


def esc(value: Any) -> str:
    """Escaped text of a value, quotes too; '' for None."""
    return "" if value is None else html.escape(str(value), quote=True)
