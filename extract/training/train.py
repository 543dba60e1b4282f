"""``claims train``: learn the decisions again from the packaged annotated examples and a lab's
own reviewed abstracts (the review app's export), and write a decisions file that ``claims
extract --decisions`` uses. The model's answers come from the answer cache (the abstracts were
extracted before they were reviewed); the annotated sets' own texts are never needed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from paper_claims.errors import InputError, MissingExtra
from paper_claims.run.cache import AnswerCache
from paper_claims.settings import Settings
from paper_claims.sources.inputs import iter_inputs
from paper_claims.tasks import Request, task_for
from paper_claims.text import read_jsonl, to_stderr
from paper_claims.training import CALIBRATE, MIN_CALIBRATION
from paper_claims.training.examples import DocumentExamples, set_examples
from paper_claims.training.learn import fit_decisions
from paper_claims.training.store import read_examples

PathLike = Union[str, Path]
YOURS = "yours"  # the group of a lab's own examples


@dataclass
class Trained:
    """What ``train_decisions`` learned from and wrote."""

    path: Path
    documents: int  # your reviewed documents used
    claims: int  # your annotated claims
    packaged: int  # packaged annotated documents used
    missing: list[str]  # your documents whose answer is not in the answer cache (left out)

    def describe(self) -> str:
        lines = [f"Wrote {self.path}: decisions learned from {self.documents} of your reviewed documents "
                 f"({self.claims} claims) and {self.packaged} packaged annotated abstracts"]
        if self.missing:
            lines.append(f"left out {len(self.missing)} documents whose model answer is not cached (extract them "
                         f"first with the same model): {', '.join(self.missing[:5])}{' ...' if len(self.missing) > 5 else ''}")
        return "\n".join(lines)


def cached_answers(cache: AnswerCache, missing: list[str]) -> Callable[[Request], Any]:
    """The model's answer to a request from the answer cache (an empty answer, and the document
    listed in ``missing``, when it is not there)."""
    def answer(request: Request) -> Any:
        found = cache.get(request.key)
        if found is None:
            missing.append(request.doc.id)
            return request.empty_answer()
        return request.read_answer(found)
    return answer


def user_examples(gold: PathLike, inputs: Optional[PathLike], settings: Settings,
                  missing: list[str], weight: float) -> list[DocumentExamples]:
    """Your reviewed documents as examples (their texts from ``inputs``, default the
    ``<gold stem>_inputs.jsonl`` the review export writes beside the annotations)."""
    gold_path = Path(gold)
    if not gold_path.is_file():
        raise InputError(f"annotations not found: {gold_path}")
    annotations = {str(g["id"]): g for g in read_jsonl(gold_path, strict=True)}
    texts = Path(inputs) if inputs is not None else gold_path.with_name(f"{gold_path.stem}_inputs.jsonl")
    if not texts.exists():
        raise InputError(f"no texts for the annotations: {texts} not found (give the reviewed output's "
                         f"documents.jsonl with --inputs)")
    task = task_for(settings)
    with AnswerCache(settings.resolved_cache_dir) as cache:
        found = set_examples(task, iter_inputs(str(texts)), annotations, YOURS, cached_answers(cache, missing))
    missed = set(missing)
    found = [e for e in found if e.doc_id not in missed]
    for i, e in enumerate(found):  # two halves: each threshold is chosen on one half learned with the other
        e.weight, e.group = weight, f"{YOURS}/{i % 2}"
    return found


def train_decisions(gold: PathLike, *, out: PathLike = "decisions.json", inputs: Optional[PathLike] = None,
                    weight: float = 3.0, packaged: bool = True, model: Optional[str] = None,
                    base_url: Optional[str] = None, cache_dir: Optional[PathLike] = None,
                    examples: Optional[Sequence[DocumentExamples]] = None, calibrate: str = "all",
                    say: Callable[[str], None] = to_stderr) -> Trained:
    """Learn the decisions from the packaged annotated examples and your reviewed documents
    (``gold``: the annotations ``claims review --export`` wrote), and write the decisions file
    ``out`` for ``claims extract --decisions``. ``weight``: how much one of your examples counts
    against a packaged one; ``packaged=False`` learns from yours alone (at least two annotated sets
    are needed: give ``examples`` of another). ``calibrate="yours"`` calibrates the confidence on
    your documents' held-out claims alone (each half scored by decisions learned with the other),
    so that it reads as a probability on abstracts like yours (at least ``MIN_CALIBRATION`` of your
    claims). The model and endpoint must be those the documents were extracted with: their answers
    come from the answer cache."""
    if calibrate not in CALIBRATE:
        raise InputError(f"calibrate must be one of {', '.join(CALIBRATE)}, not {calibrate!r}")
    try:
        import sklearn  # noqa: F401
    except ImportError as e:
        raise MissingExtra("claims train needs scikit-learn: pip install -e '.[train]' in a clone of paper-claims") from e
    settings = Settings.from_env(model=model, base_url=base_url, cache_dir=cache_dir, progress=False)
    missing: list[str] = []
    yours = user_examples(gold, inputs, settings, missing, weight)
    if not yours:
        raise InputError(f"none of the documents of {gold} can be used (no text, or no cached model answer)")
    others = list(examples) if examples is not None else (read_examples() if packaged else [])
    if len({e.group for e in [*others, *yours]}) < 2:
        raise InputError("learning needs annotated examples of another set besides yours (the packaged ones)")
    yours_claims = sum(len(e.claims) for e in yours)
    if calibrate == "yours" and yours_claims < MIN_CALIBRATION:
        raise InputError(f"calibrating on your claims alone needs at least {MIN_CALIBRATION}; {gold} gives "
                         f"{yours_claims} (review more abstracts, or calibrate on all)")
    say(f"Learning from {len(yours)} of your documents and {len(others)} packaged annotated abstracts ...")
    decisions = fit_decisions([*others, *yours], about={"trained_with": str(Path(gold).name), "weight": weight,
                                                        "calibrated_on": calibrate},
                              calibrate_on={e.group for e in yours} if calibrate == "yours" else ())
    path = Path(out)
    path.write_text(json.dumps(decisions, sort_keys=True, separators=(",", ":")), encoding="utf-8")
    return Trained(path, len(yours), sum(len(e.matched) for e in yours), len(others), missing)
