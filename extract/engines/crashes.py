"""What to say when the embedded server ends: how it exited, its log's last lines, what to do."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Optional

from paper_claims.engines.build import rebuild_command

def describe_exit(returncode: int) -> str:
    """'exited with status 1' or 'killed by signal SIGILL (illegal instruction)'."""
    if returncode >= 0:
        return f"exited with status {returncode}"
    try:
        sig = signal.Signals(-returncode)
    except ValueError:
        return f"killed by signal {-returncode}"
    meaning = signal.strsignal(sig) or ""
    return f"killed by signal {sig.name} ({meaning.lower()})" if meaning else f"killed by signal {sig.name}"


def log_tail(path: Optional[Path], lines: int = 3, width: int = 400) -> str:
    """The last non-empty lines of a log file as one line ('' when there is none)."""
    if path is None or not path.is_file():
        return ""
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - 8192))
        text = handle.read().decode("utf-8", errors="replace")
    tail = [" ".join(line.split()) for line in text.splitlines() if line.strip()][-lines:]
    return " | ".join(tail)[-width:]


def crash_message(what: str, returncode: Optional[int], log_path: Optional[Path]) -> str:
    """One line: what failed, how the process ended, its log tail and path, what to do."""
    parts = [what]
    if returncode is not None:
        parts[0] += f": the server {describe_exit(returncode)}"
    tail = log_tail(log_path)
    if tail:
        parts.append(f"last log lines: {tail}")
    if log_path is not None:
        parts.append(f"log: {log_path}")
    if returncode in (-signal.SIGILL, -signal.SIGBUS, -signal.SIGSEGV):
        parts.append("llama.cpp was probably built for instructions this CPU does not allow; "
                     f"rebuild it portably: {rebuild_command()}")
    elif returncode == -signal.SIGKILL:
        parts.append("something killed it (the kernel's out-of-memory killer says so in dmesg); "
                     "rerun the same command to resume")
    else:
        parts.append("to see the server's own output, run it in the foreground with: claims serve")
    return "; ".join(parts)
