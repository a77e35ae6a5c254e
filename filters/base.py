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
                  pair_filters: list[PairFilter], funnel: Funnel, cutter=None) -> Iterator[Pair]:
    """Judge every pair; yields every pair (kept and dropped) with decisions recorded. With a ``cutter``
    (filters.cut.TextCutter), a pair's text is cut to what its kept triples state before the pair rules
    judge it (see :func:`cut_and_judge`)."""
    for pair in pairs:
        funnel.pairs_in += 1
        for triple in pair.triples:
            funnel.triples_in += 1
            _judge_triple(triple, pair, triple_filters)
            if triple.decision == "kept":
                funnel.triples_kept += 1
            else:
                funnel.triples_dropped[triple.reason] += 1
        for triple in cut_and_judge(pair, triple_filters, pair_filters, cutter):
            funnel.triples_kept -= 1
            funnel.triples_dropped[triple.reason] += 1
        if pair.decision == "kept":
            funnel.pairs_kept += 1
        else:
            funnel.pairs_dropped[pair.reason] += 1
        yield pair


def _judge_triple(triple: Triple, pair: Pair, triple_filters: list[TripleFilter]) -> None:
    for filt in triple_filters:
        verdict = filt.check(triple, pair)
        if "span_end" in verdict.info:
            triple.span_end = verdict.info["span_end"]
        if not verdict.keep:
            triple.decision, triple.reason = "dropped", f"{filt.name}:{verdict.reason}"
            return
    triple.decision, triple.reason = "kept", ""


class NoFluentCut(Exception):
    """The text cannot be cut so that it states nothing beyond the triples and stays good Chinese (raised by
    a cutter, :class:`filters.cut.TextCutter`; :func:`cut_and_judge` drops the pair for it)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def cut_and_judge(pair: Pair, triple_filters: list[TripleFilter], pair_filters: list[PairFilter],
                  cutter=None, stage: str = "") -> list[Triple]:
    """Cut the pair's source text to its kept triples (with a cutter), then judge the pair by the pair rules
    on the cut text; sets the pair's text, cuts, decision and reason, and returns the kept triples the cut
    dropped (the rest of the text no longer states them). ``stage`` prefixes the reason of a drop
    (``search:`` when a later stage judges a pair again)."""
    lost: list[Triple] = []
    if cutter is not None:  # without one, the text is judged as it is (the audit: as shipped)
        source = pair.source_text or pair.text
        pair.source_text, pair.text, pair.cuts = source, source, []
    if cutter is not None and pair.text and pair.kept_triples():
        try:
            result = cutter.cut(pair)
        except NoFluentCut as failed:
            pair.decision, pair.reason = "dropped", f"{stage}cut:{failed.reason}"
            return lost
        pair.text, pair.cuts = result.text, result.cuts
        for triple, reason in result.dropped:
            triple.decision, triple.reason, triple.span_end = "dropped", reason, -1
            lost.append(triple)
        for triple in pair.kept_triples():  # where the cut text states it
            _judge_triple(triple, pair, triple_filters)
            if triple.decision != "kept":
                triple.reason = f"cut:{triple.reason}"
                lost.append(triple)
    decision, reason = judge_pair(pair, pair_filters)
    pair.decision, pair.reason = decision, (f"{stage}{reason}" if decision != "kept" else "")
    return lost


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


def rejudge(pair: Pair, triple_filters: list[TripleFilter], pair_filters: list[PairFilter], stage: str,
            cutter=None) -> bool:
    """Judge a kept pair again after a later stage dropped some of its triples: its source text is cut again
    to the triples it still has, and every pair rule runs on that. A pair that no longer passes is dropped
    with ``<stage>:<rule>:<reason>``; returns whether it is still kept."""
    cut_and_judge(pair, triple_filters, pair_filters, cutter, stage=f"{stage}:")
    return pair.decision == "kept"
