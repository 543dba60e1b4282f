"""A stand-in for ``llama_cpp.server`` used by tests: the fake OpenAI-compatible server,
started with llama-cpp-python's command line. Put ``tests/fake_engine`` first on
``PYTHONPATH`` to use it."""
