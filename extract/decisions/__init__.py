"""The learned decisions (``claims extract``'s built-in claims, when a decisions file is there):
``features`` (general features over the parsed document, the model's labels and the rules'
votes), ``model`` (gradient-boosted trees and a calibration read from a JSON file and evaluated
with numpy, never a pickle; ``load_decisions`` finds the packaged ``decisions.json`` or a file of
your own) and ``decide`` (each claim's kind, dataset, hardware, model and baseline, the document's
lists, and the calibrated confidence). ``make train`` writes the packaged ``decisions.json`` and
``examples.json.gz`` into this folder (``paper_claims.training``)."""
