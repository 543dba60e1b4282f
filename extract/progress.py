"""The progress bar of long work: tqdm's widget in a Jupyter kernel that has ipywidgets (what
``tqdm.auto`` picks there), else a text bar on stderr; never tqdm's "IProgress not found"
warning, which a kernel without ipywidgets would print on every run."""

from __future__ import annotations

import sys
from typing import Any


def in_kernel() -> bool:
    """Whether this process is a Jupyter kernel (IPython's kernel app is running)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
        return shell is not None and "IPKernelApp" in shell.config
    except Exception:  # an IPython too old or too odd to ask
        return False


def _widgets() -> bool:
    try:
        import ipywidgets  # noqa: F401
    except Exception:
        return False
    return True


def progress_bar(**options: Any) -> Any:
    """A tqdm bar: the notebook widget in a kernel with ipywidgets, else the text bar."""
    if in_kernel() and _widgets():
        from tqdm.notebook import tqdm as notebook_bar

        return notebook_bar(**options)
    from tqdm.std import tqdm as text_bar

    return text_bar(**options)
