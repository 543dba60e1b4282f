"""A stand-in for ``llama_cpp``: only what ``paper_claims.engines.llama_server`` touches before it
starts ``llama_cpp.server`` (the fake server here)."""


class Llama:
    """The class whose sampler factory ``paper_claims.engines.llama_server.install`` replaces."""

    def _init_sampler(self, **params: object) -> object:
        raise NotImplementedError("the fake engine samples nothing")
