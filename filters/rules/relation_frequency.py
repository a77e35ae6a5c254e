"""CDTP's frequent relations: a triple of a rare relation, or of one people rejected in review, is dropped."""

from __future__ import annotations

from typing import Iterable

from filters.base import TripleFilter, Verdict
from schemas import Pair, Triple

class RelationFrequencyFilter(TripleFilter):
    """Keep only triples of frequent relations (CDTP keeps the frequent ones; rare ones are mostly noise).

    keep: the relation names that passed (see :func:`frequent_relations`);
    rejected: relations people rejected in review (CDTP reviews each relation type by hand).
    """

    name = "relation"

    def __init__(self, keep: Iterable[str], rejected: Iterable[str] = ()):
        self.rejected = set(rejected)
        self.keep = set(keep) - self.rejected

    def check(self, triple: Triple, pair: Pair) -> Verdict:
        if triple.relation in self.rejected:
            return Verdict.drop("relation_rejected_in_review", span_end=-1)
        if triple.relation not in self.keep:
            return Verdict.drop("infrequent_relation", span_end=-1)
        return Verdict.kept()


def frequent_relations(counts: dict[str, int], min_support: int = 1, top_k: int = 0) -> list[str]:
    """Relations with at least min_support pages, the top_k most frequent of them (0: all),
    ties broken by name so the choice is the same on every run."""
    if min_support < 1 or top_k < 0:
        raise ValueError("min_support must be >= 1 and top_k >= 0")
    ranked = sorted(((n, c) for n, c in counts.items() if c >= min_support), key=lambda x: (-x[1], x[0]))
    return [n for n, _ in (ranked[:top_k] if top_k else ranked)]
