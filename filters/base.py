"""The filter interface: one predicate per filter, reasons kept as data.

A triple filter judges one triple against its pair's text; a pair filter judges a
whole pair. Both return a :class:`Verdict`; :func:`apply_filters` records the
decision and reason on the records and counts them for the run's funnel.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from schemas import Pair, Triple


@dataclass(frozen=True, slots=True)
class Verdict:
    keep: bool
    reason: str = ""
    info: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def kept(cls, **info: Any) -> "Verdict":
        return cls(True, "", info)

    @classmethod
    def drop(cls, reason: str, **info: Any) -> "Verdict":
        return cls(False, reason, info)


class TripleFilter:
    name = "triple_filter"

    def check(self, triple: Triple, pair: Pair) -> Verdict:
        raise NotImplementedError


class PairFilter:
    name = "pair_filter"

    def check(self, pair: Pair) -> Verdict:
        raise NotImplementedError


@dataclass
class Funnel:
    """How many records went in and out of each stage, and why the others were dropped."""

    pairs_in: int = 0
    pairs_kept: int = 0
    pairs_dropped: Counter = field(default_factory=Counter)
    triples_in: int = 0
    triples_kept: int = 0
    triples_dropped: Counter = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        return {
            "pairs_in": self.pairs_in,
            "pairs_kept": self.pairs_kept,
            "pairs_dropped": dict(sorted(self.pairs_dropped.items())),
            "triples_in": self.triples_in,
            "triples_kept": self.triples_kept,
            "triples_dropped": dict(sorted(self.triples_dropped.items())),
        }


def apply_filters(pairs: Iterable[Pair], triple_filters: list[TripleFilter],
                  pair_filters: list[PairFilter], funnel: Funnel) -> Iterator[Pair]:
    """Judge every pair; yields every pair (kept and dropped) with decisions recorded."""
    for pair in pairs:
        funnel.pairs_in += 1
        for triple in pair.triples:
            funnel.triples_in += 1
            for filt in triple_filters:
                verdict = filt.check(triple, pair)
                if "span_end" in verdict.info:
                    triple.span_end = verdict.info["span_end"]
                if not verdict.keep:
                    triple.decision, triple.reason = "dropped", f"{filt.name}:{verdict.reason}"
                    funnel.triples_dropped[triple.reason] += 1
                    break
            else:
                triple.decision, triple.reason = "kept", ""
                funnel.triples_kept += 1
        pair.decision, pair.reason = judge_pair(pair, pair_filters)
        if pair.decision == "kept":
            funnel.pairs_kept += 1
        else:
            funnel.pairs_dropped[pair.reason] += 1
        yield pair


def judge_pair(pair: Pair, pair_filters: list[PairFilter]) -> tuple[str, str]:
    """(decision, reason) of the pair filters on the pair's kept triples; the position index is
    recorded on the pair as it is computed."""
    for filt in pair_filters:
        verdict = filt.check(pair)
        if "position_index" in verdict.info:
            pair.position_index = verdict.info["position_index"]
        if not verdict.keep:
            return "dropped", f"{filt.name}:{verdict.reason}"
    return "kept", ""


def rejudge(pair: Pair, pair_filters: list[PairFilter], stage: str) -> bool:
    """Judge a kept pair again after a later stage dropped some of its triples: every pair rule
    runs on the triples it still has. A pair that no longer passes is dropped with
    ``<stage>:<filter>:<reason>``; returns whether it is still kept."""
    decision, reason = judge_pair(pair, pair_filters)
    if decision != "kept":
        pair.decision, pair.reason = "dropped", f"{stage}:{reason}"
        return False
    return True
