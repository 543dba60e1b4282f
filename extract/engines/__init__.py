"""The model servers this toolkit runs itself: the embedded llama.cpp server (its process, the
machine's lock, its model file, its faster greedy sampler)."""
