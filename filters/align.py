"""CDTP alignment: keep the triples the text supports, and the pairs whose text says no more than their triples.

Following the CDTP paper (section 3.2, data cleaning):

* redundant triples: a triple is kept only when the text states it: its value is
  mentioned (after :mod:`filters.normalize`), never inside a longer number (545米 in
  1545米) and never inside a longer word where the segmentation (jieba) shows another
  word (中国 inside 中国人民银行), in a clause that expresses its relation
  (:mod:`filters.grounding`); a pair left with no grounded triple is dropped;
* redundant descriptions: the position index (end of the last grounded mention
  divided by the text's length) must exceed a threshold, 0.75 in the paper; the
  text after that mention must not name a relation of the corpus vocabulary that no
  kept triple covers; and every item of an enumeration in the text must be covered
  by a kept triple.

Each rule is a file of filters/rules/ (length, relation_frequency, grounding, position_index, trailing_relation,
enumeration); this module assembles them (:func:`cdtp_filters`) and records what a run's were built from
(:class:`AlignmentRules`), so that a later stage that drops triples judges the pair again with the same rules
(:func:`filters.base.rejudge`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable

from filters.base import PairFilter, TripleFilter
from filters.cut import TextCutter
from filters.grounding import Grounder, RelationCues
from filters.mentions import Lexicon
from filters.rules.enumeration import EnumerationFilter
from filters.rules.grounding import GroundedPairFilter, GroundingFilter
from filters.rules.length import LengthFilter
from filters.rules.position_index import PositionIndexFilter
from filters.rules.relation_frequency import RelationFrequencyFilter
from filters.rules.trailing_relation import TrailingRelationFilter
from filters.text import PairTextCache


@dataclass
class AlignmentRules:
    """Everything the CDTP filters of a run were built from, so that a later stage (or the audit) can
    judge a pair again by the same rules: the corpus relation vocabulary with each relation's page
    count, the relations kept by the frequency filter, the alias table and the pair thresholds."""

    vocabulary: dict[str, int]
    keep: list[str] | None  # None: every relation
    aliases: dict[str, str] = field(default_factory=dict)
    threshold: float = 0.75
    enumerations_must_be_covered: bool = True
    rejected: list[str] = field(default_factory=list)  # relations people rejected (review/store.py)
    # Cut what a pair's text states beyond its kept triples (filters.cut) rather than keep the text whole.
    cut: bool = True
    # Values infobox rows of the crawl give on several pages: facts a text may state without its own row.
    lexicon: list[str] = field(default_factory=list)
    # Relation cues learned from the crawl (filters.cues_learned): relation -> <word / >word tokens.
    learned_cues: dict[str, list[str]] = field(default_factory=dict)

    def filters(self) -> tuple[list[TripleFilter], list[PairFilter]]:
        return cdtp_filters(self.vocabulary, self.threshold, self.enumerations_must_be_covered,
                            keep_relations=self.keep, aliases=self.aliases, rejected_relations=self.rejected,
                            learned_cues=self.learned_cues)

    def pair_filters(self) -> list[PairFilter]:
        return self.filters()[1]

    def judge(self) -> tuple[list[TripleFilter], list[PairFilter], object | None]:
        """The triple filters, the pair filters and the text cutter (None when ``cut`` is off), sharing one
        normalised text per pair."""
        triple_filters, pair_filters = self.filters()
        if not self.cut:
            return triple_filters, pair_filters, None
        grounding = next(f for f in triple_filters if isinstance(f, GroundingFilter))
        return triple_filters, pair_filters, TextCutter(grounding, Lexicon(self.lexicon),
                                                         [*self.vocabulary, *self.aliases])

    def relation_rows(self) -> list[dict]:
        """The vocabulary as RELATION_SCHEMA rows, most frequent first."""
        others: dict[str, list[str]] = {}
        for alias, canonical in sorted(self.aliases.items()):
            others.setdefault(canonical, []).append(alias)
        keep = set(self.vocabulary if self.keep is None else self.keep) - set(self.rejected)
        return [{"relation": r, "pages": n, "kept": r in keep, "aliases": others.get(r, []),
                 "learned_cues": list(self.learned_cues.get(r, []))}
                for r, n in sorted(self.vocabulary.items(), key=lambda x: (-x[1], x[0]))]

    def save(self, path: Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), ensure_ascii=False, sort_keys=True), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: Path) -> "AlignmentRules":
        return cls(**json.loads(Path(path).read_text(encoding="utf-8")))


def cdtp_filters(vocabulary: Iterable[str], threshold: float = 0.75, enumerations_must_be_covered: bool = True,
                 keep_relations: Iterable[str] | None = None,
                 aliases: dict[str, str] | None = None,
                 rejected_relations: Iterable[str] = (),
                 learned_cues: dict[str, list[str]] | None = None) -> tuple[list[TripleFilter], list[PairFilter]]:
    """The CDTP alignment filters in order, sharing one normalised text per pair.

    vocabulary: every relation of the corpus (for the trailing-mention rule);
    keep_relations: the frequent relations whose triples may be kept (None: all);
    aliases: other names of relations, so a trailing mention by another name counts as the relation;
    rejected_relations: relations people rejected in review: their triples are dropped;
    learned_cues: relation cues learned from the crawl (filters.cues_learned), used beside the table's.
    """
    cache = PairTextCache()
    grounder = None
    if learned_cues:
        grounder = Grounder(RelationCues(learned=learned_cues))
    grounding = GroundingFilter(cache, grounder)
    pair_filters: list[PairFilter] = [GroundedPairFilter(cache), PositionIndexFilter(threshold),
                                      TrailingRelationFilter(vocabulary, cache, aliases=aliases,
                                                             cues=grounding.grounder.cues)]
    if enumerations_must_be_covered:
        pair_filters.append(EnumerationFilter(cache))
    triple_filters: list[TripleFilter] = [LengthFilter(), grounding]
    rejected_relations = list(rejected_relations)
    if keep_relations is not None or rejected_relations:
        keep = vocabulary if keep_relations is None else keep_relations
        triple_filters.insert(1, RelationFrequencyFilter(keep, rejected_relations))
    return triple_filters, pair_filters
