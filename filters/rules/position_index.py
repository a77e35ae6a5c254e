"""CDTP's position index: the end of the last grounded mention divided by the text's length must exceed a
threshold (0.75 in the paper), or the text goes on well past what the triples state."""

from __future__ import annotations

from filters.base import PairFilter, Verdict
from schemas import Pair

class PositionIndexFilter(PairFilter):
    """Drop pairs whose text continues well past the last grounded triple.

    threshold: keep when index > threshold; 0.75 follows the CDTP paper.
    """

    name = "position_index"

    def __init__(self, threshold: float = 0.75):
        if not 0 < threshold < 1:
            raise ValueError(f"threshold must be in (0, 1), got {threshold}")
        self.threshold = threshold

    def check(self, pair: Pair) -> Verdict:
        index = pair.position_index
        if index is None or index <= self.threshold:
            return Verdict.drop("below_threshold", position_index=index)
        return Verdict.kept(position_index=index)
