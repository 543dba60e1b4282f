"""What the model decides: the prompt, the answer, the requests, the backend boundary (the embedded
server itself runs in ``paper_claims.engines``)."""
