"""The embedded model's server: llama-cpp-python's own server, sampling faster under a grammar.

llama-cpp-python applies the answer's grammar to every token of the vocabulary (152k for the
embedded model) before each greedy pick, about a fifth of each generated token's time here.
``CheckedGreedySampler`` picks greedily first and asks the grammar about that one token; only
when the grammar rejects it is the whole vocabulary masked and the pick made again, as
llama.cpp's own ``common_sampler_sample`` does. Greedy picks the same token either way: the
best token, if the grammar allows it, is also the best allowed one. Every other request
(temperature above 0, no grammar) gets llama-cpp-python's own sampler.

Run as ``python -m paper_claims.engines.llama_server`` with ``llama_cpp.server``'s arguments.
"""

from __future__ import annotations

import ctypes
import runpy
from typing import Any, Callable

import numpy as np

__all__ = ["CheckedGreedySampler", "install", "main"]

_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)])


class CheckedGreedySampler:
    """Greedy sampling with repeat penalties under a grammar; the grammar is applied to the
    whole vocabulary only when the greedy token breaks it. Has the ``sample`` method that
    ``llama_cpp.Llama`` calls on its sampler."""

    def __init__(self, model: Any, grammar: Any, n_vocab: int, last_n: int, repeat: float,
                 frequency: float, presence: float) -> None:
        import llama_cpp

        self._llama = llama_cpp
        if _TOKEN_DATA.itemsize != ctypes.sizeof(llama_cpp.llama_token_data):
            raise RuntimeError("llama_token_data changed its layout")
        self.n_vocab = n_vocab
        # the same penalty sampler llama-cpp-python builds, so the penalised logits are equal
        self._penalties = llama_cpp.llama_sampler_init_penalties(n_vocab, last_n, repeat, frequency, presence)
        self._grammar = llama_cpp.llama_sampler_init_grammar(
            model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8"))
        self._all = np.zeros(n_vocab, dtype=_TOKEN_DATA)
        self._all["id"] = np.arange(n_vocab, dtype=np.int32)
        self._one = np.zeros(1, dtype=_TOKEN_DATA)
        self.picks = 0  # tokens sampled
        self.masked = 0  # of them, picks the grammar had to mask the whole vocabulary for

    def _view(self, data: np.ndarray) -> Any:
        return self._llama.llama_token_data_array(
            data=data.ctypes.data_as(self._llama.llama_token_data_p), size=len(data), selected=-1, sorted=False)

    def sample(self, ctx: Any, idx: int = -1) -> int:
        """The next token from the logits at ``idx`` of the context (``LlamaContext``)."""
        llama = self._llama
        logits = np.ctypeslib.as_array(llama.llama_get_logits_ith(ctx.ctx, idx), shape=(self.n_vocab,))
        self._all["logit"] = logits  # ids and p never change: the samplers here only set logits
        everything = self._view(self._all)
        llama.llama_sampler_apply(self._penalties, ctypes.byref(everything))
        token = int(np.argmax(self._all["logit"]))  # the first best token, as greedy takes
        self._one[0] = (token, self._all["logit"][token], 0.0)
        llama.llama_sampler_apply(self._grammar, ctypes.byref(self._view(self._one)))
        self.picks += 1
        if not np.isfinite(self._one["logit"][0]):  # the grammar rejects it: mask them all
            self.masked += 1
            llama.llama_sampler_apply(self._grammar, ctypes.byref(everything))
            token = int(np.argmax(self._all["logit"]))
        llama.llama_sampler_accept(self._penalties, token)
        llama.llama_sampler_accept(self._grammar, token)
        return token

    def close(self) -> None:
        """Free the llama.cpp samplers."""
        for name in ("_penalties", "_grammar"):
            sampler = self.__dict__.pop(name, None)
            if sampler is not None:
                self._llama.llama_sampler_free(sampler)

    def __del__(self) -> None:
        self.close()


def install() -> Callable[..., Any]:
    """Make ``llama_cpp.Llama`` sample greedy grammar requests with ``CheckedGreedySampler``;
    returns the sampler factory it replaced."""
    import llama_cpp

    original = llama_cpp.Llama._init_sampler

    def init_sampler(self: Any, **params: Any) -> Any:
        plain = (params.get("grammar") is None or params.get("temp") != 0.0 or params.get("mirostat_mode")
                 or params.get("logits_processor") is not None)
        if plain:
            return original(self, **params)
        return CheckedGreedySampler(self._model, params["grammar"], self._n_vocab, self.last_n_tokens_size,
                                    params["repeat_penalty"], params["frequency_penalty"], params["presence_penalty"])

    llama_cpp.Llama._init_sampler = init_sampler
    return original


def main() -> None:
    """``python -m llama_cpp.server`` with the same arguments, ``install()`` first."""
    install()
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
