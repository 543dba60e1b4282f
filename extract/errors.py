"""The root exception of paper-claims and its kinds; each carries its context."""

from __future__ import annotations

from typing import Optional


class ClaimsError(Exception):
    """Root of every error paper-claims raises on purpose.

    Carries the document id, the number of attempts and the last raw model output
    where they are known, so a failure can be traced without a debugger.
    """

    resumable = False  # a rerun of the same command can finish the run (the cause may pass by itself)

    def __init__(
        self,
        message: str,
        *,
        doc_id: Optional[str] = None,
        attempts: Optional[int] = None,
        last_output: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.doc_id = doc_id
        self.attempts = attempts
        self.last_output = last_output

    def __str__(self) -> str:
        parts = [self.message]
        if self.doc_id is not None:
            parts.append(f"doc {self.doc_id}")
        if self.attempts:
            parts.append(f"after {self.attempts} attempt(s)")
        return "; ".join(parts)

    def one_line(self) -> str:
        """The error as a single line, for tables and terminals."""
        return " ".join(str(self).split())


class InputError(ClaimsError):
    """An input path or file cannot be read as documents."""


class BackendError(ClaimsError):
    """The model backend could not be started or reached."""


class ModelFileError(ClaimsError):
    """The model file is missing, incomplete or does not match its hash."""


class ExtractionError(ClaimsError):
    """One document could not be extracted (the model failed or its answers were invalid)."""


class EngineCrashed(BackendError):
    """The embedded model server died, failed to start or failed its self-test."""

    resumable = True


class EndpointDown(BackendError):
    """Every request to the endpoint failed to connect for several documents in a row."""

    resumable = True


class BatchError(BackendError):
    """A step of a batch run failed: an upload, a batch's creation, a poll, a download, or a
    request or results file that cannot be read (issue 41)."""


class RunStopped(BackendError):
    """A run stopped early because its model backend died; carries the documents finished before."""

    def __init__(self, message: str, *, results: Optional[list] = None) -> None:  # type: ignore[type-arg]
        super().__init__(message)
        self.results = list(results or [])


class MissingExtra(ClaimsError, ImportError):
    """A package an optional part needs is not installed; the message names the extra that
    brings it (``pip install -e '.[pandas]'``)."""


class ReviewError(ClaimsError):
    """A review decision cannot be applied, or the review app cannot start (e.g. its extra is missing)."""


class StorageError(ClaimsError):
    """A file or folder of a run cannot be written or read: a full disk, a denied permission,
    a read-only file system, a vanished folder, a file where a folder should be. ``path``
    names it; ``errno`` is the operating system's code where there is one."""

    resumable = True  # space freed, the folder back: the same command resumes

    def __init__(self, message: str, *, path: Optional[object] = None, errno: Optional[int] = None) -> None:
        super().__init__(message)
        self.path = None if path is None else str(path)
        self.errno = errno

    def __reduce__(self) -> tuple:  # type: ignore[type-arg]
        # raised in the parse worker process too; keep path and errno on the way back
        return (_storage_error, (self.message, self.path, self.errno))

    @classmethod
    def of(cls, error: BaseException, path: object, doing: str = "writing", what: str = "") -> "StorageError":
        """``error`` (an ``OSError`` or an SQLite error) as one line: "disk full writing out/claims.csv"
        (``what`` names the thing before its path: "the answer cache")."""
        if isinstance(error, StorageError):
            return error
        named = f"{what} {path}" if what else str(path)
        return cls(f"{os_cause(error)} {doing} {named}", path=path, errno=getattr(error, "errno", None))


def _storage_error(message: str, path: Optional[str], errno: Optional[int]) -> StorageError:
    return StorageError(message, path=path, errno=errno)


_CAUSES = {"ENOSPC": "disk full", "EDQUOT": "disk quota exceeded", "EACCES": "permission denied",
           "EPERM": "permission denied", "EROFS": "read-only file system", "ENOENT": "no such file or folder",
           "ENOTDIR": "a file stands where a folder should be", "EISDIR": "a folder stands where a file should be",
           "EIO": "input/output error"}


def os_cause(error: BaseException) -> str:
    """What went wrong, in a few words: "disk full", "permission denied", ...; SQLite's errors
    (the answer cache) as the same words where they mean the same."""
    import errno as codes

    code = getattr(error, "errno", None)
    name = codes.errorcode.get(code, "") if isinstance(code, int) else ""
    if name in _CAUSES:
        return _CAUSES[name]
    text = " ".join(str(getattr(error, "strerror", None) or error).split())
    lowered = text.lower()
    if "disk is full" in lowered or "disk full" in lowered:
        return "disk full"
    if "readonly" in lowered or "read-only" in lowered:
        return "read-only file system"
    return lowered or type(error).__name__


class OutputBusy(ClaimsError):
    """Another run is writing to the same output folder."""
