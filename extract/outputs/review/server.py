"""``claims review OUT_DIR``: serve the review app on a local port until Ctrl-C."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Optional, Union

from paper_claims.errors import ReviewError
from paper_claims.text import Say, to_stderr

DEFAULT_PORT = 8765
EVERY_INTERFACE = ("0.0.0.0", "::", "")


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: a free one)."""
    try:
        family, kind, proto, _name, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        raise ReviewError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def serve_review(out_dir: Union[str, Path], *, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
                 reviewer: Optional[str] = None, say: Say = to_stderr) -> int:
    """Serve the review of ``out_dir`` at http://host:port/ until interrupted (``claims review``);
    print the address (the real port when ``port`` is 0) and any unreadable line of the review
    log. ``reviewer`` is the name logged with each decision (default: your login name). Needs
    the ``review`` extra (FastAPI, uvicorn)."""
    try:
        import uvicorn

        from paper_claims.outputs.review.app import create_app
    except ImportError as exc:
        raise ReviewError(f"claims review needs the review extra: pip install -e '.[review]' in a clone of paper-claims ({exc})") from None

    app = create_app(out_dir, reviewer=reviewer, hosts=None if host in EVERY_INTERFACE else (host,))
    review = app.state.review
    sock = _listen(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else (host or "0.0.0.0")
    progress = review.state.progress()
    say(f"Reviewing {review.out_dir} ({progress['docs_total']} documents, {progress['claims_reviewed']}/"
        f"{progress['claims_total']} claims reviewed) at http://{shown}:{bound}/")
    say(f"Decisions are appended to {review.log.path}; Ctrl-C stops.")
    for problem in review.state.problems:
        say(f"warning: {problem}")
    if host in EVERY_INTERFACE:
        say("warning: listening on every interface: anyone who can reach this port can read the abstracts")
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    return 0
