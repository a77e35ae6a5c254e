"""CDTP's redundant triples: a triple is kept only where the text states it (how: filters/grounding.py); a pair
left with no grounded triple is dropped, and the others get their position index."""

from __future__ import annotations

from filters.base import PairFilter, TripleFilter, Verdict
from filters.grounding import Grounder
from filters.normalize import normalize
from filters.text import PairTextCache
from schemas import Pair, Triple

class GroundingFilter(TripleFilter):
    """Drop triples the text does not state: their value must be mentioned where the text expresses
    their relation (CDTP's redundant triples; how, in :mod:`filters.grounding`)."""

    name = "grounding"

    def __init__(self, cache: PairTextCache | None = None, grounder=None):
        self.cache = cache or PairTextCache()
        self.grounder = grounder or Grounder()
        self._names: tuple[tuple, list[str]] = ((), [])

    def _head_names(self, pair: Pair) -> list[str]:
        key = (pair.pair_id, pair.entity, *pair.aliases)
        if self._names[0] != key:
            names = [normalize(n) for n in (pair.entity, *pair.aliases) if n]
            self._names = (key, sorted(set(names), key=lambda n: (-len(n), n)))  # longest first, then by name
        return self._names[1]

    def check(self, triple: Triple, pair: Pair) -> Verdict:
        if not triple.tail.strip():
            return Verdict.drop("empty_value", span_end=-1)
        if normalize(triple.tail) == normalize(triple.head):
            # 李白 | 中文名 | 李白: the title restated says nothing, and its mention is the text's first words
            return Verdict.drop("restates_head", span_end=-1)
        text = self.cache.get(pair)
        found = self.grounder.support(text, text.clauses, self._head_names(pair), triple.relation, triple.tail)
        if found is None:
            reason = "value_not_in_text" if text.find(triple.tail) is None else "relation_not_expressed"
            return Verdict.drop(reason, span_end=-1)
        return Verdict.kept(span_end=found[1])

    def support_span(self, triple: Triple, pair: Pair) -> tuple[int, int] | None:
        """(start, end) in the pair's normalised text of the mention that states the triple, or None."""
        text = self.cache.get(pair)
        return self.grounder.support(text, text.clauses, self._head_names(pair), triple.relation, triple.tail)


class GroundedPairFilter(PairFilter):
    """Drop pairs with no text or no grounded triple; record the position index of the others."""

    name = "pair"

    def __init__(self, cache: PairTextCache | None = None):
        self.cache = cache or PairTextCache()

    def check(self, pair: Pair) -> Verdict:
        length = len(self.cache.get(pair).text)
        if length == 0:
            return Verdict.drop("no_text")
        if not pair.triples:
            return Verdict.drop("no_infobox")
        ends = [t.span_end for t in pair.triples if t.decision == "kept"]
        if not ends:
            return Verdict.drop("no_grounded_triple")
        return Verdict.kept(position_index=round(max(ends) / length, 6))
