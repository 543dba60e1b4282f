"""``python -m llama_cpp.server --port N ...`` served by the tests' fake server.

Behaviour from the environment:
``FAKE_ENGINE_CRASH_ON_LONG_PROMPT=1``  die with SIGILL on a prompt over 1,500 characters, as a
                                        llama.cpp built for instructions the CPU refuses does;
``FAKE_ENGINE_LATENCY=S``               seconds per answer (a long "generation");
``FAKE_ENGINE_IGNORE_SIGTERM=1``        keep serving on SIGTERM, as uvicorn does until the
                                        generation in flight ends.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # tests/, for fakeserver

from fakeserver import FakeServer  # noqa: E402


class FakeEngine(FakeServer):
    """The fake server, crashing like a mis-built llama.cpp when asked to."""

    async def _chat(self, headers, raw):  # type: ignore[no-untyped-def]
        if os.environ.get("FAKE_ENGINE_CRASH_ON_LONG_PROMPT") == "1":
            body = json.loads(raw)
            if sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) > 1500:
                print("ggml_compute_forward: tile op on a long batch", flush=True)
                os.kill(os.getpid(), signal.SIGILL)
        return await super()._chat(headers, raw)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--model_alias", default="fake-model")
    args, _unknown = parser.parse_known_args()
    signal.signal(signal.SIGILL, signal.SIG_DFL)
    if os.environ.get("FAKE_ENGINE_IGNORE_SIGTERM") == "1":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    server = FakeEngine(latency=float(os.environ.get("FAKE_ENGINE_LATENCY", "0")),
                        model=args.model_alias, host=args.host, port=args.port)

    async def serve() -> None:
        await server.start_async()
        print(f"fake llama.cpp server listening on {args.host}:{args.port}", flush=True)
        await asyncio.Event().wait()  # until killed

    asyncio.run(serve())


main()
