"""What the model is asked and answers: the prompt (``prompt``, ``prompt_files``; a schema of your
own's in ``schema_prompt``, an instructor fill's in ``instructor_fill``), the answer schema
(``answer``), the requests (``request``; ``batches`` for the Batch APIs), the backend boundary
(``backends``; the embedded server itself runs in ``paper_claims.engines``)."""
