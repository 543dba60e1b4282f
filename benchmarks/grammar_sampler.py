"""Generation time per token under the answer grammar: llama-cpp-python's sampler (the grammar
applied to the whole vocabulary at every token) against ``CheckedGreedySampler`` (the grammar
asked about the greedy token first), with generation without any grammar as the ideal.

Runs the embedded model in this process on the real requests of the first sample-corpus
abstracts with numbers (the same messages and schema ``claims extract`` sends), greedy, and
checks that both samplers give the same answers. Prints milliseconds per generated token and
each sampler's ratio to the ideal. Usage:

    .venv/bin/python benchmarks/grammar_sampler.py [--requests 6]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paper_claims.engines.modelfile import resolve_model  # noqa: E402
from paper_claims.tasks import task_for  # noqa: E402
from paper_claims.settings import Settings  # noqa: E402
from paper_claims.sources.files import load_documents  # noqa: E402


def _generate(llm, request, grammar: bool) -> tuple[str, int, float]:  # type: ignore[no-untyped-def]
    """The answer, its token count and the seconds from its first token to its last."""
    extra = {"response_format": {"type": "json_object", "schema": request.schema}} if grammar else {}
    text, tokens, first = "", 0, None
    for chunk in llm.create_chat_completion(request.messages, temperature=0, max_tokens=200, stream=True, **extra):
        piece = chunk["choices"][0]["delta"].get("content")
        if piece:
            first = first if first is not None else time.perf_counter()
            text, tokens = text + piece, tokens + 1
    return text, tokens, time.perf_counter() - (first or time.perf_counter())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=6)
    args = parser.parse_args()
    import llama_cpp

    from paper_claims.engines import llama_server

    settings = Settings()
    model = resolve_model(settings.model_path, settings.resolved_cache_dir, say=lambda _m: None)
    llm = llama_cpp.Llama(str(model), n_ctx=4096, n_batch=512, n_threads=2, n_threads_batch=2, verbose=False)
    docs = load_documents(sorted(ROOT.glob("examples/abstracts/*.txt")))
    task = task_for(settings, "bench")
    requests = [r for r in (task.prepare(d) for d in docs) if r.messages][:args.requests]
    whole_sampler = llama_cpp.Llama._init_sampler
    totals = {"no grammar": [0, 0.0], "whole vocabulary": [0, 0.0], "checked": [0, 0.0]}
    same = 0
    for request in requests:
        _generate(llm, request, grammar=False)  # reads the prompt once, so every timing below reuses it
        _text, n, seconds = _generate(llm, request, grammar=False)
        totals["no grammar"][0] += n - 1
        totals["no grammar"][1] += seconds
        llama_cpp.Llama._init_sampler = whole_sampler
        whole, n, seconds = _generate(llm, request, grammar=True)
        totals["whole vocabulary"][0] += n - 1
        totals["whole vocabulary"][1] += seconds
        llama_server.install()
        checked, n, seconds = _generate(llm, request, grammar=True)
        totals["checked"][0] += n - 1
        totals["checked"][1] += seconds
        llama_cpp.Llama._init_sampler = whole_sampler
        same += checked == whole
    ideal = totals["no grammar"][1] / totals["no grammar"][0] * 1000
    print(f"{len(requests)} corpus requests; identical answers from both grammar samplers: {same}/{len(requests)}")
    for name, (tokens, seconds) in totals.items():
        per = seconds / tokens * 1000
        print(f"  {name:17s} {tokens:5d} tokens  {per:6.1f} ms/token  ratio to no grammar {per / ideal:.2f}")


if __name__ == "__main__":
    main()
