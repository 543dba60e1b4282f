"""Re-record the end-to-end cassettes against the embedded model (``make cassettes``).

Starts the embedded llama.cpp server, points the cassette tests at it with a throwaway
API key (scrubbed from the recordings), and runs them in rewrite mode.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paper_claims.model.backends import open_backend  # noqa: E402
from paper_claims.settings import Settings  # noqa: E402


def main() -> int:
    with open_backend(Settings()) as backend:  # the embedded server, self-tested
        env = dict(os.environ)
        env["CLAIMS_RECORD_BASE_URL"] = backend.base_url
        env["CLAIMS_RECORD_API_KEY"] = "sk-record-" + secrets.token_hex(16)
        command = [sys.executable, "-m", "pytest", "-m", "cassette", "--record-mode=rewrite", "-q", *sys.argv[1:]]
        code = subprocess.call(command, cwd=ROOT, env=env)
    leaked = [p for p in (ROOT / "cassettes").rglob("*.yaml") if env["CLAIMS_RECORD_API_KEY"] in p.read_text()]
    if leaked:
        print(f"secret found in {leaked}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
