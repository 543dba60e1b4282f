"""The root exception of paper-claims and its kinds; each carries its context."""

from __future__ import annotations

from typing import Optional


class ClaimsError(Exception):
    """Root of every error paper-claims raises on purpose.

    Carries the document id, the number of attempts and the last raw model output
    where they are known, so a failure can be traced without a debugger.
    """

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


class EndpointDown(BackendError):
    """Every request to the endpoint failed to connect for several documents in a row."""


class RunStopped(BackendError):
    """A run stopped early because its model backend died; carries the documents finished before."""

    def __init__(self, message: str, *, results: Optional[list] = None) -> None:  # type: ignore[type-arg]
        super().__init__(message)
        self.results = list(results or [])


class ReviewError(ClaimsError):
    """A review decision cannot be applied, or the review app cannot start (e.g. its extra is missing)."""
