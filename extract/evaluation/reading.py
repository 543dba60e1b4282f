"""What is scored: the annotations, and an output folder's documents, claims and texts."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Optional, Union

from paper_claims.errors import InputError
from paper_claims.text import read_jsonl

PathLike = Union[str, Path]


def read_claims(out: Path) -> list[dict[str, Any]]:
    """claims.jsonl, or claims.csv when there is no jsonl."""
    if (out / "claims.jsonl").is_file():
        return read_jsonl(out / "claims.jsonl", strict=True)
    if (out / "claims.csv").is_file():
        with (out / "claims.csv").open(encoding="utf-8", newline="") as fh:
            return [{k: (v if v != "" else None) for k, v in row.items()}
                    for row in csv.DictReader(fh)]
    raise InputError(f"no claims.jsonl or claims.csv in output directory {out}")


def load(gold_path: PathLike, out_dir: PathLike, inputs_path: Optional[PathLike]) -> tuple[
        list[dict[str, Any]], dict[str, dict[str, Any]], list[dict[str, Any]], dict[str, str]]:
    """Gold documents, output documents by id, predicted claims, and document texts."""
    gold_file, out = Path(gold_path), Path(out_dir)
    if not gold_file.is_file():
        raise InputError(f"gold annotations not found: {gold_file}")
    if not out.is_dir():
        raise InputError(f"output directory not found: {out}")
    if not (out / "documents.jsonl").is_file():
        raise InputError(f"no documents.jsonl in output directory {out}")
    gold = read_jsonl(gold_file, strict=True)
    documents = {str(d.get("doc_id")): d for d in read_jsonl(out / "documents.jsonl", strict=True)}
    claims = read_claims(out)
    texts: dict[str, str] = {}
    inputs = Path(inputs_path) if inputs_path else gold_file.with_name(f"{gold_file.stem}_inputs.jsonl")
    if inputs.is_file():
        texts.update({str(r["id"]): r["text"] for r in read_jsonl(inputs, strict=True) if r.get("text")})
    texts.update({k: d["text"] for k, d in documents.items() if d.get("text")})
    return gold, documents, claims, texts
