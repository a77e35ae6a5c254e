"""CDTP's enumerations: every item of a list in the text must be covered by a kept triple (how lists are
found: filters/enumerations.py)."""

from __future__ import annotations

from filters.base import PairFilter, Verdict
from filters.enumerations import enumerations
from filters.normalize import normalize
from filters.text import PairTextCache
from schemas import Pair

class EnumerationFilter(PairFilter):
    """Drop pairs with an enumeration in the text whose items are not all covered by kept triples."""

    name = "enumeration"

    def __init__(self, cache: PairTextCache | None = None):
        self.cache = cache or PairTextCache()

    def check(self, pair: Pair) -> Verdict:
        tails = [normalize(t.tail).strip("《》") for t in pair.triples if t.decision == "kept"]
        tails += [normalize(name).strip("《》") for name in [pair.entity, *pair.aliases]]  # the entity itself
        for items in enumerations(self.cache.get(pair).text):
            missing = [i for i in items if not any(i == t or i in t or t in i for t in tails if t)]
            if missing:
                return Verdict.drop("enumeration_item_without_triple", items=items, missing=missing)
        return Verdict.kept()
