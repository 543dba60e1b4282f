"""Output files written whole or not at all: a locked temporary file beside the target, renamed
into place when complete; leftovers of killed writers removed, never those of a live one; every
``OSError`` as a ``StorageError`` naming the file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator, Union

from paper_claims.errors import StorageError

PathLike = Union[str, Path]


def atomic_write_text(path: PathLike, content: str) -> Path:
    """Write ``content`` to a temporary file beside ``path`` and rename it into place;
    ``StorageError`` (naming ``path``) when the disk is full or the folder cannot be written."""
    target = Path(path)
    with writing(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = temporary_file(target.parent, target.name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                os.chmod(tmp, output_mode())  # mkstemp makes 0600; outputs get the usual mode
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())
                os.replace(tmp, target)  # before the handle closes: its lock marks the file as owned
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return target


@contextlib.contextmanager
def writing(path: Path, also: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """An ``OSError`` (or one of ``also``, such as SQLite's errors) while writing ``path`` as a
    ``StorageError`` naming it ("disk full writing out/claims.csv")."""
    try:
        yield
    except (OSError, *also) as e:
        raise StorageError.of(e, path) from e


def temporary_file(folder: Path, name: str) -> tuple[int, str]:
    """A temporary file for ``name`` in ``folder``, locked while its descriptor is open: a
    clean-up of leftovers (``remove_leftovers``) never removes a file someone is writing."""
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    _lock(fd)
    return fd, tmp


def _lock(fd: int) -> bool:
    """Take the exclusive lock of an open file; False when another open file holds it."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): an open file cannot be removed there anyway
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def remove_leftovers(folder: Path, names: tuple[str, ...]) -> None:
    """Remove the temporary files of ``names`` that a killed writer left in ``folder``; a
    temporary file still open in a live process (its lock held) is left alone."""
    for name in names:
        for stale in folder.glob(f".{name}.*tmp"):
            try:
                fd = os.open(stale, os.O_RDONLY)
            except OSError:  # gone meanwhile
                continue
            try:
                if _lock(fd):
                    stale.unlink(missing_ok=True)
            finally:
                os.close(fd)


def output_mode() -> int:
    """The mode a new output file gets: 0666 less the umask (mkstemp makes 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask
