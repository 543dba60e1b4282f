"""What the model decides: the prompt, the answer, the backends, the model file."""
