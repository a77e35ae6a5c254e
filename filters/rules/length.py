"""Names and values too long to be an infobox row's: the triple is dropped before any rule reads it."""

from __future__ import annotations

from filters.base import TripleFilter, Verdict
from filters.mentions import MAX_RELATION_CHARS, MAX_VALUE_CHARS
from schemas import Pair, Triple


class LengthFilter(TripleFilter):
    """Drop a triple whose relation name or value is longer than an infobox row's ever is.

    max_relation, max_value: in characters; the defaults (filters.mentions) are several times Baike's longest.
    Matching such a string would cost the square of its length; as a fact it says nothing a pair can hold.
    """

    name = "length"

    def __init__(self, max_relation: int = MAX_RELATION_CHARS, max_value: int = MAX_VALUE_CHARS):
        if max_relation < 1 or max_value < 1:
            raise ValueError(f"max_relation and max_value must be at least 1, got {max_relation}, {max_value}")
        self.max_relation = max_relation
        self.max_value = max_value

    def check(self, triple: Triple, pair: Pair) -> Verdict:
        if len(triple.relation) > self.max_relation:
            return Verdict.drop("relation_too_long", span_end=-1, chars=len(triple.relation))
        if len(triple.tail) > self.max_value:
            return Verdict.drop("value_too_long", span_end=-1, chars=len(triple.tail))
        return Verdict.kept()
