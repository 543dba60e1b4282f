"""Learning the decisions from annotated abstracts (``make train``, ``claims train``) and checking
them on the annotated set left out (``make eval``): examples, fitting, the leave-one-set-out folds,
the packaged examples."""
