"""The review web app (FastAPI): the page, the review state as JSON, and decisions.

Routes: ``GET /`` the page (its per-process write token in a meta tag), ``GET /static/<file>``
the page's script and style (a fixed list of package files), ``GET /api/state`` every document
with its claims and their review status, ``GET /api/span`` what the parser reads in chosen
words (nothing is written), ``POST /api/decide`` one decision, appended to ``review.jsonl``
before the answer.

Safety: the app reads only the output folder it was given and writes only its review log; no
route maps a path to a file. A request that writes must carry the page's token in the
``X-Review-Token`` header (403 otherwise), so another page open in the browser cannot post
decisions (it cannot read the token, and a custom header needs a CORS preflight the app never
grants). Requests naming another host (DNS rebinding) are refused unless the app listens on
every interface. The page builds every piece of text as DOM text, never as HTML, and a strict
Content-Security-Policy allows only the app's own script.
"""

from __future__ import annotations

import getpass
import hmac
import html
import secrets
import threading
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Optional, Union

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from paper_claims.errors import OutputBusy, ReviewError
from paper_claims.outputs.review.log import LOG_NAME, ReviewLog
from paper_claims.outputs.review.spans import span_claim
from paper_claims.outputs.review.state import Decision, ReviewState
from paper_claims.schemas import Qualifier

TOKEN_HEADER = "X-Review-Token"
STATIC_FILES = {"review.js": "text/javascript; charset=utf-8", "review.css": "text/css; charset=utf-8"}
LOCAL_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
SECURITY_HEADERS = {
    "Content-Security-Policy": ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def default_reviewer() -> str:
    """The login name, else "reviewer"."""
    try:
        return getpass.getuser() or "reviewer"
    except (OSError, KeyError):
        return "reviewer"


def static_text(name: str) -> str:
    """A page file shipped in the package (``static/``)."""
    return resources.files("paper_claims.outputs.review").joinpath("static", name).read_text(encoding="utf-8")


def _host_name(header: str) -> str:
    """The host of a Host header, without port or IPv6 brackets, lower case."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class Review:
    """The state of one output folder's review and its log, behind one lock."""

    def __init__(self, out_dir: Union[str, Path], reviewer: Optional[str] = None) -> None:
        self.out_dir = Path(out_dir)
        self.reviewer = reviewer or default_reviewer()
        self.log = ReviewLog(self.out_dir / LOG_NAME)
        self.state = ReviewState.load(self.out_dir)
        self.lock = threading.Lock()

    def snapshot(self) -> dict[str, Any]:
        """Everything the page shows."""
        with self.lock:
            return {
                "out_dir": str(self.out_dir), "reviewer": self.reviewer, "log": str(self.log.path),
                "kinds": list(self.state.schema.kinds), "qualifiers": [q.value for q in Qualifier],
                "fields": self.state.schema.to_json(),
                "progress": self.state.progress(), "warnings": list(self.state.problems),
                "last": self.state.last, "docs": [d.to_json() for d in self.state.docs.values()],
            }

    def decide(self, decision: Decision) -> dict[str, Any]:
        """Apply one decision and append its events to the log (each applied, then written)."""
        with self.lock:
            events = self.state.events_for(decision, self.reviewer)
            replaced = self.state.replaced(decision)
            try:
                for event in events:
                    self.state.apply(event)
                    self.log.append(event)
            except (OSError, OutputBusy):
                self.state = ReviewState.load(self.out_dir)  # back to what the log holds
                raise
            doc = self.state.doc(decision.doc_id)
            return {"doc": doc.to_json(), "progress": self.state.progress(), "replaced": replaced,
                    "claim_id": events[-1].claim_id, "logged": len(events)}

    def span(self, doc_id: str, start: int, end: int) -> dict[str, Any]:
        with self.lock:
            text = self.state.doc(doc_id).text
        return span_claim(text, start, end)


def create_app(out_dir: Union[str, Path], *, reviewer: Optional[str] = None, token: Optional[str] = None,
               hosts: Optional[Iterable[str]] = ("127.0.0.1",)) -> FastAPI:
    """The review app over ``out_dir``. ``token`` defaults to a fresh random one (in
    ``app.state.token``); ``hosts`` are the names the app answers to besides localhost
    (None: any, for an app listening on every interface)."""
    review = Review(out_dir, reviewer)
    token = token or secrets.token_urlsafe(32)
    allowed = None if hosts is None else LOCAL_NAMES | {_host_name(h) for h in hosts}
    app = FastAPI(title="paper-claims review", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.review = review
    app.state.token = token

    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Response:
        if allowed is not None and _host_name(request.headers.get("host", "")) not in allowed:
            return JSONResponse({"detail": "unexpected Host header"}, status_code=403)
        if request.method not in ("GET", "HEAD") and not hmac.compare_digest(
                request.headers.get(TOKEN_HEADER, "").encode(), token.encode()):
            return JSONResponse({"detail": f"missing or wrong {TOKEN_HEADER}: reload the page"}, status_code=403)
        response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    @app.exception_handler(ReviewError)
    async def review_error(_request: Request, exc: ReviewError) -> JSONResponse:
        return JSONResponse({"detail": exc.one_line()}, status_code=422)

    @app.get("/")
    def page() -> Response:
        body = static_text("index.html").replace("{{TOKEN}}", html.escape(token, quote=True))
        return Response(body, media_type="text/html; charset=utf-8")

    @app.get("/static/{name}")
    def static(name: str) -> Response:
        if name not in STATIC_FILES:
            return JSONResponse({"detail": "not found"}, status_code=404)
        return Response(static_text(name), media_type=STATIC_FILES[name])

    @app.get("/api/state")
    def state() -> dict[str, Any]:
        return review.snapshot()

    @app.get("/api/span")
    def span(doc_id: str, start: int, end: int) -> dict[str, Any]:
        return review.span(doc_id, start, end)

    @app.post("/api/decide")
    def decide(decision: Decision) -> Any:
        try:
            return review.decide(decision)
        except OSError as exc:
            return JSONResponse({"detail": f"could not write {LOG_NAME}: {exc}"}, status_code=500)
        except OutputBusy as exc:  # a run writing to the folder: the decision is not kept
            return JSONResponse({"detail": f"could not write {LOG_NAME}: {exc.one_line()}"}, status_code=409)

    return app
