"""The contamination check: new questions against a question database (Chinese SimpleQA's step).

The database holds the questions of earlier releases and of any benchmark files
the user registers (CSV with a ``question`` or ``problem`` column, or JSON lines
with such a key: Chinese SimpleQA's files, simple-evals CSVs). A new question
matches when it is an exact or near duplicate of one by character MinHash
(:class:`filters.dedup.Deduplicator` with the database as references) or when
its embedding's cosine similarity to one reaches ``embedding_min``. A match
keeps the database question it hit, so a reviewer can see why.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np

from filters.dedup import Deduplicator
from filters.embeddings import Embedder
from warehouse.shards import json_lines

QUESTION_KEYS = ("question", "problem", "prompt")


class ContaminationError(ValueError):
    """A registered question file cannot be read; the message names it and the fix."""


@dataclass(frozen=True)
class Match:
    item_id: str
    matched_id: str
    matched_question: str
    kind: str  # exact | near | embedding
    similarity: float


def read_question_file(path: Path) -> Iterator[tuple[str, str]]:
    """(id, question) from a CSV or JSON-lines benchmark file; ids are "<file name>:<row>"."""
    path = Path(path)
    if not path.is_file():
        raise ContaminationError(f"question file {path} does not exist; fix items.contamination_files")
    name = path.name
    if path.suffix.lower() == ".csv":
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            key = next((k for k in QUESTION_KEYS if k in (reader.fieldnames or [])), None)
            if key is None:
                raise ContaminationError(f"{path}: no column named {' or '.join(QUESTION_KEYS)} in the header "
                                         f"{reader.fieldnames}; rename the question column")
            for row_number, row in enumerate(reader, 2):
                if row.get(key):
                    yield f"{name}:{row_number}", row[key]
        return
    if path.suffix.lower() in (".jsonl", ".json"):
        for line_number, record in json_lines(path, ContaminationError, "one object per line is expected"):
            question = next((record[k] for k in QUESTION_KEYS if isinstance(record, dict) and k in record), None)
            if question:
                yield f"{name}:{line_number}", str(question)
        return
    raise ContaminationError(f"{path}: unknown file type {path.suffix!r}; register a .csv or .jsonl file")


class QuestionDatabase:
    def __init__(self, embedder: Embedder, minhash_threshold: float = 0.7, embedding_min: float = 0.95):
        self.embedder = embedder
        self.minhash_threshold, self.embedding_min = minhash_threshold, embedding_min
        self.ids: list[str] = []
        self.questions: list[str] = []
        self._vectors: np.ndarray | None = None

    def add(self, questions: Iterable[tuple[str, str]]) -> int:
        before = len(self.ids)
        for question_id, question in questions:
            self.ids.append(question_id)
            self.questions.append(question)
        self._vectors = None
        return len(self.ids) - before

    def __len__(self) -> int:
        return len(self.ids)

    def check(self, items: list[tuple[str, str]]) -> dict[str, Match]:
        """item_id -> the database question it matches, for the items that match one."""
        if not self.ids or not items:
            return {}
        matches: dict[str, Match] = {}
        finder = Deduplicator(self.minhash_threshold, n=3)
        finder.add_references(zip(self.ids, self.questions))
        by_id = dict(zip(self.ids, self.questions))
        for found in finder.find(items):
            if found.reference:
                matches[found.doc_id] = Match(found.doc_id, found.duplicate_of, by_id[found.duplicate_of],
                                              found.kind, round(found.similarity, 6))
        if self._vectors is None:
            self._vectors = self.embedder.encode(self.questions)
        rest = [(i, q) for i, q in items if i not in matches]
        for start in range(0, len(rest), 1_000):
            chunk = rest[start:start + 1_000]
            similarity = self.embedder.encode([q for _, q in chunk]) @ self._vectors.T
            best = similarity.argmax(axis=1)
            for (item, _), column, row in zip(chunk, best, similarity):
                if row[column] >= self.embedding_min:
                    matches[item] = Match(item, self.ids[column], self.questions[column], "embedding",
                                          round(float(row[column]), 6))
        return matches
