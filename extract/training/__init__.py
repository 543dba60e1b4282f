"""Learning the decisions from annotated abstracts (``make train``, ``claims train``) and checking
them on the annotated set left out (``make eval``): examples, fitting, the leave-one-set-out folds,
the packaged examples."""

# the held-out claims ``claims train`` calibrates the confidence on: every annotated set's, or
# yours alone (at least MIN_CALIBRATION of your claims); here, so the command line reads them
# without importing the learners
CALIBRATE = ("all", "yours")
MIN_CALIBRATION = 50
