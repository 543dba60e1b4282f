"""Span fields learned from annotated examples: which words of a number's sentence are its
entity, property or context, as a conditional random field (CRF) over the sentence's words.

An optional piece beside a claim schema, for a user who has annotations in the schema's shape
(a paragraph, a number's offsets, and the offsets of each span field it has): the model of a
claim schema says which numbers are claims and their kind; this tagger, trained on the user's
own examples, says where each span field stands. Each word of the number's sentence is one
position of the sequence, labelled ``B-<field>``/``I-<field>``/``O``; its features are generic
facts of how measurements are written, read relative to the number: the word and its shape,
its distance from the number and on which side, its neighbours, and what stands between it and
the number (``of``, a verb such as ``was``, a comma, a bracket, another number). No word list of
a domain, no language model.

    tagger = SpanTagger(("entity", "property", "context")).fit(examples)
    tagger.predict(text, start, end)  # {"entity": (12, 30), "property": None, ...}

Needs ``python-crfsuite`` (PyPI), which paper-claims itself does not need. ``measeval.py``
beside this file reads MeasEval's annotations as examples.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence

Span = tuple[int, int]

_TOKEN = re.compile(r"\w+(?:[-'’.]\w+)*|[^\w\s]")
_VERBS = {"is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "reached", "reaches",
          "ranged", "ranges", "range", "varied", "varies", "increased", "decreased", "measured", "showed",
          "shows", "show", "yielded", "gave", "give", "gives", "found", "reported", "observed", "recorded",
          "estimated", "obtained", "exceeded", "exceeds", "contained", "contains", "contain", "occurs",
          "occurred", "includes", "included", "comprised", "comprises", "used", "using", "with", "at"}
_FUNCTION = {"the", "a", "an", "of", "in", "on", "at", "to", "for", "by", "with", "from", "and", "or", "as",
             "that", "which", "this", "these", "those", "its", "their", "between", "than", "within", "into",
             "over", "under", "per", "each", "all", "both", "during", "after", "before", "while", "when",
             "where", "not", "no", "be", "is", "are", "was", "were", "it", "we", "our", "here", "there"}


@dataclass(frozen=True)
class Example:
    """One annotated number: the paragraph, the number's offsets, and the offsets of each span
    field the annotation has (a field left out has no span)."""

    text: str
    number: Span
    spans: Mapping[str, Span] = field(default_factory=dict)
    others: Sequence[Span] = ()  # the paragraph's other numbers, when known


def tokens(text: str, start: int = 0, end: Optional[int] = None) -> list[Span]:
    """The words and signs of ``text[start:end]`` as offsets into ``text``."""
    return [(m.start() + start, m.end() + start) for m in _TOKEN.finditer(text[start:end])]


def sentence_of(text: str, start: int, end: int) -> Span:
    """The sentence around ``text[start:end]`` (paper-claims' one sentence splitter)."""
    from paper_claims.text import sentence_around

    return sentence_around(text, start, end)


def _shape(word: str) -> str:
    shape = re.sub(r"[A-Z]+", "A", re.sub(r"[a-z]+", "a", re.sub(r"\d+", "0", word)))
    return shape[:4]


def _bucket(distance: int) -> str:
    for limit, name in ((1, "1"), (2, "2"), (3, "3"), (4, "4"), (6, "5-6"), (10, "7-10"), (15, "11-15")):
        if distance <= limit:
            return name
    return "16+"


def _suffix_class(word: str) -> str:
    lower = word.lower()
    if lower in _FUNCTION:
        return "function"
    if not word[:1].isalpha():
        return "digit" if word[:1].isdigit() else "sign"
    for suffixes, name in ((("tion", "sion", "ity", "ness", "ment", "ance", "ence", "ure", "age", "ism", "ogy"), "noun"),
                           (("ed",), "past"), (("ing",), "gerund"), (("ly",), "adverb"),
                           (("al", "ic", "ous", "ive", "ble", "ary"), "adjective"), (("s",), "plural")):
        if lower.endswith(suffixes):
            return name
    return "other"


def features(text: str, words: Sequence[Span], number: Span, others: Sequence[Span] = ()) -> list[dict[str, float]]:
    """The features of each word of a sequence (the number's sentence) for one number."""
    inside = [i for i, (a, b) in enumerate(words) if a < number[1] and number[0] < b]
    first, last = (inside[0], inside[-1]) if inside else (0, -1)
    lowers = [text[a:b].lower() for a, b in words]
    other_number = [any(a < e and s < b for s, e in others) or any(c.isdigit() for c in text[a:b]) for a, b in words]
    feats: list[dict[str, float]] = []
    for i, (a, b) in enumerate(words):
        word, lower = text[a:b], lowers[i]
        f: dict[str, float] = {"bias": 1.0, "w=" + lower: 1.0, "suf3=" + lower[-3:]: 1.0, "shape=" + _shape(word): 1.0,
                               "class=" + _suffix_class(word): 1.0}
        if word[:1].isupper():
            f["title"] = 1.0
        if i == 0:
            f["first"] = 1.0
        if first <= i <= last:
            side, between = "in", []
            f["in_number"] = 1.0
        else:
            before = i < first
            distance = first - i if before else i - last
            side = "before" if before else "after"
            between = range(i + 1, first) if before else range(last + 1, i)
            f[f"{side}={_bucket(distance)}"] = 1.0
            f[f"{side}"] = 1.0
            f[f"{side}:class={_suffix_class(word)}"] = 1.0
            f[f"{side}:w={lower}"] = 1.0
            marks = {lowers[j] for j in between}
            for cue, cue_words in (("of", {"of"}), ("verb", _VERBS), ("comma", {","}), ("bracket", {"(", "["}),
                                   ("closing", {")", "]"}), ("and", {"and", "or"}), ("semicolon", {";", ":"}),
                                   ("for", {"for", "in", "at", "on"})):
                if marks & cue_words:
                    f[f"{side}:between_{cue}"] = 1.0
            if any(other_number[j] for j in between):
                f[f"{side}:between_number"] = 1.0
        if other_number[i] and side != "in":
            f["other_number"] = 1.0
        for offset in (-2, -1, 1, 2):
            j = i + offset
            if 0 <= j < len(words):
                f[f"w{offset:+d}={lowers[j]}"] = 1.0
                f[f"class{offset:+d}={_suffix_class(text[words[j][0]:words[j][1]])}"] = 1.0
                if first <= j <= last:
                    f[f"number{offset:+d}"] = 1.0
            else:
                f[f"edge{offset:+d}"] = 1.0
        feats.append(f)
    return feats


def labels(words: Sequence[Span], spans: Mapping[str, Span], fields: Sequence[str]) -> list[str]:
    """BIO labels of the words: a word belongs to the first field (in ``fields`` order) whose
    span it overlaps."""
    out = ["O"] * len(words)
    for name in fields:
        span = spans.get(name)
        if span is None:
            continue
        started = False
        for i, (a, b) in enumerate(words):
            if a < span[1] and span[0] < b and out[i] == "O":
                out[i] = ("I-" if started else "B-") + name
                started = True
    return out


class Syntax:
    """Parts of speech and dependencies of a paragraph from a spaCy pipeline (optional: the
    tagger's words are then spaCy's tokens and its features add each word's tag, dependency
    label and its path in the tree to the number; with ``vectors``, the pipeline's context vector
    of each word, as real-valued features). ``model``: an installed spaCy pipeline."""

    def __init__(self, model: str = "en_core_web_sm", vectors: bool = True) -> None:
        self.model = model
        self.vectors = vectors
        self._nlp = None
        self._cache: dict[str, object] = {}

    def parse(self, text: str):  # type: ignore[no-untyped-def]
        if self._nlp is None:
            import spacy

            self._nlp = spacy.load(self.model, exclude=["ner", "lemmatizer"])
        doc = self._cache.get(text)
        if doc is None:
            if len(self._cache) > 512:
                self._cache.clear()
            doc = self._cache[text] = self._nlp(text)  # type: ignore[misc]
        return doc


def _ancestors(token) -> list:  # type: ignore[no-untyped-def]
    chain = [token]
    while chain[-1].head.i != chain[-1].i and len(chain) < 40:
        chain.append(chain[-1].head)
    return chain


def syntax_features(doc, window: Span, number: Span,  # type: ignore[no-untyped-def]
                    vectors: bool = False) -> tuple[list[Span], list[dict[str, float]]]:
    """The tokens of ``doc`` in ``window`` and their syntactic features relative to the number
    (with ``vectors``, each token's context vector from the pipeline too)."""
    toks = [t for t in doc if window[0] <= t.idx < window[1] and not t.is_space]
    inside = [t for t in toks if t.idx < number[1] and number[0] < t.idx + len(t.text)]
    root = None
    if inside:
        ids = {t.i for t in inside}
        root = next((t for t in inside if t.head.i not in ids or t.head.i == t.i), inside[0])
    up_q = _ancestors(root) if root is not None else []
    q_index = {t.i: k for k, t in enumerate(up_q)}
    chunks = {}
    try:
        for chunk in doc.noun_chunks:
            for k, t in enumerate(chunk):
                chunks[t.i] = ("B" if k == 0 else "I", chunk.root.i == t.i,
                               any(x.i in {y.i for y in inside} for x in chunk))
    except (ValueError, NotImplementedError):
        pass
    inside_ids = {x.i for x in inside}

    def path(t) -> dict[str, float]:  # type: ignore[no-untyped-def]
        f: dict[str, float] = {}
        if root is None or t.i in inside_ids:
            return f
        up = _ancestors(t)
        meet = next((k for k, a in enumerate(up) if a.i in q_index), None)
        if meet is None:
            f["path=none"] = 1.0
            return f
        down = up_q[:q_index[up[meet].i]]
        path_up = ">".join(a.dep_ for a in up[:meet][:3])
        path_down = "<".join(a.dep_ for a in down[:3])
        f["up=" + path_up] = 1.0
        f["down=" + path_down] = 1.0
        f["path=" + path_up + "|" + path_down] = 1.0
        f["pathlen=" + _bucket(meet + len(down))] = 1.0
        f["meet_tag=" + up[meet].tag_] = 1.0
        if meet == 0:
            f["ancestor_of_number"] = 1.0
        if not down:
            f["under_number"] = 1.0
        if root.head.i == t.i:
            f["number_head"] = 1.0
        return f

    feats = []
    for t in toks:
        f: dict[str, float] = {"tag=" + t.tag_: 1.0, "dep=" + t.dep_: 1.0, "pos=" + t.pos_: 1.0}
        if t.i > 0:
            f["tag-1=" + doc[t.i - 1].tag_] = 1.0
        if t.i + 1 < len(doc):
            f["tag+1=" + doc[t.i + 1].tag_] = 1.0
        if t.i in chunks:
            where, head, with_number = chunks[t.i]
            f["chunk=" + where] = 1.0
            if head:
                f["chunk_head"] = 1.0
            if with_number:
                f["chunk_with_number"] = 1.0
        f.update(path(t))
        if vectors and doc.tensor is not None and len(doc.tensor):
            for k, value in enumerate(doc.tensor[t.i]):
                f[f"v{k}"] = float(value)
        feats.append(f)
    return [(t.idx, t.idx + len(t.text)) for t in toks], feats


class SpanTagger:
    """A CRF that tags the span fields of a number in its sentence (see the module's doc)."""

    def __init__(self, fields: Sequence[str], c1: float = 0.1, c2: float = 0.3, max_iterations: int = 150,
                 model_path: Optional[Path] = None,
                 fill: "Optional[float | Mapping[str, float]]" = None, syntax: Optional[Syntax] = None,
                 ranker: "Optional[SpanRanker]" = None) -> None:
        self.fields = tuple(fields)
        self.syntax = syntax
        self.ranker = ranker
        self.fill = fill
        self.params = {"c1": c1, "c2": c2, "max_iterations": max_iterations, "feature.possible_transitions": True}
        self.model_path = model_path
        self._tagger = None

    def _sequence(self, example: Example) -> tuple[list[Span], list[dict[str, float]]]:
        left, right = sentence_of(example.text, *example.number)
        if self.syntax is None:
            words = tokens(example.text, left, right)
            return words, features(example.text, words, example.number, example.others)
        words, extra = syntax_features(self.syntax.parse(example.text), (left, right), example.number,
                                       self.syntax.vectors)
        feats = features(example.text, words, example.number, example.others)
        for f, more in zip(feats, extra):
            f.update(more)
        return words, feats

    def fit(self, examples: Iterable[Example]) -> "SpanTagger":
        import pycrfsuite

        examples = list(examples)
        trainer = pycrfsuite.Trainer(verbose=False)
        for example in examples:
            words, feats = self._sequence(example)
            trainer.append(pycrfsuite.ItemSequence(feats), labels(words, example.spans, self.fields))
        trainer.set_params(self.params)
        if self.model_path is None:
            self.model_path = Path(tempfile.mkdtemp(prefix="span-tagger-")) / "model.crfsuite"
        self.model_path.parent.mkdir(parents=True, exist_ok=True)
        trainer.train(str(self.model_path))
        self._tagger = None
        if self.ranker is not None:
            self.ranker.fit(examples)
        return self

    @classmethod
    def load(cls, fields: Sequence[str], model_path: Path,
             fill: "Optional[float | Mapping[str, float]]" = None, syntax: Optional[Syntax] = None) -> "SpanTagger":
        return cls(fields, model_path=model_path, fill=fill, syntax=syntax)

    def _open(self):  # type: ignore[no-untyped-def]
        if self._tagger is None:
            import pycrfsuite

            if self.model_path is None or not Path(self.model_path).exists():
                raise RuntimeError("SpanTagger: not trained (fit it or load a model file)")
            self._tagger = pycrfsuite.Tagger()
            self._tagger.open(str(self.model_path))
        return self._tagger

    def predict(self, text: str, start: int, end: int, others: Sequence[Span] = ()) -> dict[str, Optional[Span]]:
        """Each field's span for the number at ``start:end`` (None when the tagger puts none):
        of several runs of one field, the nearest the number. A field the best sequence leaves
        out is filled when ``fill`` is set: from the word likeliest to begin it (its marginal
        probability at least ``fill``) through the words likelier inside it than not."""
        tagger = self._open()
        words, feats = self._sequence(Example(text, (start, end), {}, others))
        tags = tagger.tag(feats)
        found: dict[str, Optional[Span]] = {}
        for name in self.fields:
            runs: list[Span] = []
            for i, tag in enumerate(tags):
                if tag == "B-" + name or (tag == "I-" + name and (i == 0 or tags[i - 1][2:] != name)):
                    runs.append((words[i][0], words[i][1]))
                elif tag == "I-" + name:
                    runs[-1] = (runs[-1][0], words[i][1])
            threshold = self.fill.get(name) if isinstance(self.fill, Mapping) else self.fill
            if not runs and threshold is not None and words:
                runs = self._filled(tagger, words, name, tags, threshold)
            found[name] = min(runs, key=lambda run: _distance(run, (start, end))) if runs else None
        if self.ranker is not None and any(found[name] is None for name in self.ranker.fields if name in found):
            for name, (span, score) in self.ranker.best(text, start, end).items():
                limit = self.ranker.threshold
                if found.get(name) is None and score >= (limit.get(name, 2.0) if isinstance(limit, Mapping) else limit):
                    found[name] = span
        return found

    def _filled(self, tagger, words: Sequence[Span], name: str, tags: Sequence[str],  # type: ignore[no-untyped-def]
                threshold: float) -> list[Span]:
        labels_known = set(tagger.labels())
        if "B-" + name not in labels_known:
            return []
        begin = [tagger.marginal("B-" + name, i) if tags[i] == "O" else 0.0 for i in range(len(words))]
        best = max(range(len(words)), key=begin.__getitem__)
        if begin[best] < threshold:
            return []
        last = best
        inside = "I-" + name
        while (last + 1 < len(words) and tags[last + 1] == "O" and inside in labels_known
               and tagger.marginal(inside, last + 1) >= 0.5 * tagger.marginal("O", last + 1)):
            last += 1
        return [(words[best][0], words[last][1])]


class SpanRanker:
    """The likeliest span of each field among the noun phrases, nouns and their subtrees of the
    number's sentence (a logistic regression over each candidate's head, length, side, distance,
    the words between, its dependency path to the number and its context vector; scikit-learn
    and a spaCy pipeline). The tagger's fallback: it finds the place of a field more often, the
    tagger its edges better; it fills a field the tagger leaves out when its best candidate's
    probability is at least ``threshold`` (one for all fields, or one per field)."""

    def __init__(self, fields: Sequence[str], syntax: Syntax, threshold: "float | Mapping[str, float]" = 0.3,
                 C: float = 0.3) -> None:
        self.fields = tuple(fields)
        self.syntax = syntax
        self.threshold = threshold
        self.C = C
        self._models: dict[str, object] = {}

    def _candidates(self, text: str, number: Span) -> list[tuple[Span, dict[str, float]]]:
        import numpy as np

        doc = self.syntax.parse(text)
        left, right = sentence_of(text, *number)
        inside = [t for t in doc if t.idx < number[1] and number[0] < t.idx + len(t.text)]
        root, up_q, q_index, qvec = None, [], {}, None
        if inside:
            ids = {t.i for t in inside}
            root = next((t for t in inside if t.head.i not in ids or t.head.i == t.i), inside[0])
            up_q = _ancestors(root)
            q_index = {t.i: k for k, t in enumerate(up_q)}
            if doc.tensor is not None and len(doc.tensor):
                qvec = np.mean([doc.tensor[t.i] for t in inside], axis=0)
        spans: set[tuple[int, int]] = set()
        for chunk in doc.noun_chunks:
            if left <= chunk.start_char < right:
                start = chunk.start
                while start < chunk.end - 1 and doc[start].pos_ in ("DET", "PRON"):
                    start += 1
                spans.update({(chunk.start, chunk.end), (start, chunk.end), (chunk.root.i, chunk.root.i + 1)})
        for t in doc:
            if left <= t.idx < right:
                if t.pos_ in ("NOUN", "PROPN", "VERB", "ADJ"):
                    spans.add((t.i, t.i + 1))
                if t.pos_ in ("NOUN", "PROPN") and t.right_edge.i + 1 - t.left_edge.i <= 12:
                    spans.add((t.left_edge.i, t.right_edge.i + 1))
        found = []
        for a, b in sorted(spans):
            start, end = doc[a].idx, doc[b - 1].idx + len(doc[b - 1].text)
            if start < number[1] and number[0] < end:
                continue
            head = doc[a:b].root
            before = end <= number[0]
            between = text[end:number[0]] if before else text[number[1]:start]
            side = "before" if before else "after"
            f: dict[str, float] = {"bias": 1.0, "len=" + _bucket(b - a): 1.0, "head=" + head.lower_: 1.0,
                                   "headpos=" + head.pos_: 1.0, "headtag=" + head.tag_: 1.0, "headdep=" + head.dep_: 1.0,
                                   "first=" + doc[a].lower_: 1.0, "firstpos=" + doc[a].pos_: 1.0, "side=" + side: 1.0,
                                   f"{side}={_bucket(max(1, len(tokens(between))))}": 1.0}
            padded = f" {between.lower()} "
            for cue, mark in (("of", " of "), ("was", " was "), ("were", " were "), ("is", " is "), ("comma", ","),
                              ("bracket", "("), ("and", " and "), ("in", " in "), ("at", " at "), ("for", " for ")):
                if mark in padded:
                    f["between_" + cue] = 1.0
            if any(c.isdigit() for c in between):
                f["between_digit"] = 1.0
            if root is not None:
                up = _ancestors(head)
                meet = next((k for k, x in enumerate(up) if x.i in q_index), None)
                if meet is None:
                    f["path=none"] = 1.0
                else:
                    down = up_q[:q_index[up[meet].i]]
                    path_up = ">".join(x.dep_ for x in up[:meet][:4])
                    path_down = "<".join(x.dep_ for x in down[:4])
                    f.update({"up=" + path_up: 1.0, "down=" + path_down: 1.0, f"path={path_up}|{path_down}": 1.0,
                              "pathlen=" + _bucket(meet + len(down)): 1.0})
            if qvec is not None:
                vector = np.mean([doc.tensor[t.i] for t in doc[a:b]], axis=0)
                f.update({f"v{k}": float(x) for k, x in enumerate(vector)})
                f["cosine"] = float(vector @ qvec / (np.linalg.norm(vector) * np.linalg.norm(qvec) + 1e-9))
            found.append(((start, end), f))
        return found

    def fit(self, examples: Iterable[Example]) -> "SpanRanker":
        from sklearn.feature_extraction import DictVectorizer
        from sklearn.linear_model import LogisticRegression

        rows: list[dict[str, float]] = []
        spans: list[tuple[Example, Span]] = []
        for example in examples:
            for span, f in self._candidates(example.text, example.number):
                rows.append(f)
                spans.append((example, span))
        for name in self.fields:
            labels = [_good(example.text, span, example.spans.get(name)) for example, span in spans]
            if len(set(labels)) < 2:
                continue
            vectorizer = DictVectorizer()
            model = LogisticRegression(C=self.C, max_iter=3000).fit(vectorizer.fit_transform(rows), labels)
            self._models[name] = (vectorizer, model)
        return self

    def best(self, text: str, start: int, end: int) -> dict[str, tuple[Span, float]]:
        """Each field's likeliest candidate and its probability."""
        candidates = self._candidates(text, (start, end))
        found: dict[str, tuple[Span, float]] = {}
        if not candidates:
            return found
        for name, (vectorizer, model) in self._models.items():  # type: ignore[misc]
            scores = model.predict_proba(vectorizer.transform([f for _, f in candidates]))[:, 1]
            top = int(scores.argmax())
            found[name] = (candidates[top][0], float(scores[top]))
        return found


def _good(text: str, span: Span, gold: Optional[Span]) -> bool:
    """A candidate that overlaps the annotated span by half its words at least (the scorer's
    token overlap)."""
    if gold is None or not (span[0] <= gold[1] and gold[0] <= span[1]):
        return False
    a, b = max(span[0], gold[0]), min(span[1], gold[1])
    shared = len(text[a:b].split(" "))
    precision, recall = shared / len(text[span[0]:span[1]].split(" ")), shared / len(text[gold[0]:gold[1]].split(" "))
    return 2 * precision * recall / (precision + recall) >= 0.5


def _distance(span: Span, number: Span) -> int:
    return number[0] - span[1] if span[1] <= number[0] else (span[0] - number[1] if span[0] >= number[1] else 0)
