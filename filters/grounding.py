"""Grounding: keep a triple only when the pair's text supports it (the CDTP "redundant triples" filter).

This first version accepts a triple when its value occurs in the text after NFKC
normalisation and whitespace removal, and never inside a longer number
(545米 does not match inside 1545米). Date forms, traditional characters and
word segmentation come with the full alignment stage.
"""

from __future__ import annotations

import re
import unicodedata

from filters.base import PairFilter, TripleFilter, Verdict
from schemas import Pair, Triple

_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    return _SPACE.sub("", unicodedata.normalize("NFKC", text)).lower()


def find_value(value: str, text: str) -> int:
    """End offset (in the normalised text) of the first standalone mention of value, or -1."""
    needle = normalize(value)
    if not needle:
        return -1
    start = text.find(needle)
    while start != -1:
        end = start + len(needle)
        before = text[start - 1] if start > 0 else ""
        after = text[end] if end < len(text) else ""
        # A number must not be the tail or head of a longer number.
        if not ((needle[0].isdigit() and before.isdigit()) or (needle[-1].isdigit() and after.isdigit())):
            return end
        start = text.find(needle, start + 1)
    return -1


class ValueInTextFilter(TripleFilter):
    """Drop triples whose value does not appear in the pair's text."""

    name = "grounding"

    def __init__(self) -> None:
        self._cache: tuple[str, str] = ("", "")

    def _normalized(self, pair: Pair) -> str:
        if self._cache[0] != pair.pair_id:
            self._cache = (pair.pair_id, normalize(pair.text))
        return self._cache[1]

    def check(self, triple: Triple, pair: Pair) -> Verdict:
        if not triple.tail.strip():
            return Verdict.drop("empty_value")
        end = find_value(triple.tail, self._normalized(pair))
        if end < 0:
            return Verdict.drop("value_not_in_text", span_end=-1)
        return Verdict.kept(span_end=end)


class HasGroundedTripleFilter(PairFilter):
    """Drop pairs with no text or no grounded triple; record the position index of the rest.

    position index = end offset of the last grounded mention / text length
    (both in the normalised text), as the CDTP paper defines it.
    """

    name = "pair"

    def check(self, pair: Pair) -> Verdict:
        length = len(normalize(pair.text))
        if length == 0:
            return Verdict.drop("no_text")
        if not pair.triples:
            return Verdict.drop("no_infobox")
        ends = [t.span_end for t in pair.triples if t.decision == "kept"]
        if not ends:
            return Verdict.drop("no_grounded_triple")
        return Verdict.kept(position_index=round(max(ends) / length, 6))
