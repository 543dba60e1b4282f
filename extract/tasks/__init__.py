"""One task per mode, each with ``prepare(document) -> Request`` and ``ground(request, answer,
attempts) -> DocumentResult``: the built-in claims with marks (``claims``), a schema of your own
(``schema``), a schema filled directly through instructor (``filled``). ``task_for`` builds the one
a run's settings ask for; ``request`` holds ``Request`` and the answer-cache key."""

from __future__ import annotations

from typing import Optional

from paper_claims.settings import Settings
from paper_claims.tasks.base import Grounded, Task
from paper_claims.tasks.request import Request, cache_key


def task_for(settings: Settings, endpoint: Optional[str] = None) -> Task:
    """The task of these settings (its claim schema checked: ``SchemaError`` names a field that
    cannot work); ``endpoint``: the identity its answers are keyed on (default: the settings')."""
    from paper_claims.model.backends import endpoint_identity

    endpoint = endpoint_identity(settings) if endpoint is None else endpoint
    schema = settings.schema_info
    if settings.fill == "instructor":
        from paper_claims.tasks.filled import FilledTask

        return FilledTask(settings, schema, endpoint)
    if not schema.builtin:
        from paper_claims.tasks.schema import SchemaTask

        return SchemaTask(settings, schema, endpoint)
    from paper_claims.tasks.claims import ClaimsTask

    return ClaimsTask(settings, schema, endpoint)


__all__ = ["Grounded", "Request", "Task", "cache_key", "task_for"]
