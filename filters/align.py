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

A later stage that drops triples judges the pair again with the same rules
(:class:`AlignmentRules`, :func:`filters.base.rejudge`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable

from filters.base import PairFilter, TripleFilter, Verdict
from filters.cut import TextCutter
from filters.enumerations import enumerations
from filters.grounding import Grounder, RelationCues
from filters.mentions import ORDINARY_WORDS, VALUE_STARTS, Lexicon
from filters.normalize import normalize
from filters.text import CLAUSE_MARKS, AlignedText
from schemas import Pair, Triple

class _PairTextCache:
    """Normalise and segment each pair's text once, for every filter that reads it. Keyed by id and
    text: two pairs of one id (a batch that repeats one) are each judged on their own text."""

    def __init__(self) -> None:
        self.key: tuple[str, str] = ("", "")
        self.value: AlignedText | None = None

    def get(self, pair: Pair) -> AlignedText:
        key = (pair.pair_id, pair.text)
        if self.value is None or self.key != key:
            self.key, self.value = key, AlignedText(pair.text)
        return self.value


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


class GroundingFilter(TripleFilter):
    """Drop triples the text does not state: their value must be mentioned where the text expresses
    their relation (CDTP's redundant triples; how, in :mod:`filters.grounding`)."""

    name = "grounding"

    def __init__(self, cache: _PairTextCache | None = None, grounder=None):
        self.cache = cache or _PairTextCache()
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

    def __init__(self, cache: _PairTextCache | None = None):
        self.cache = cache or _PairTextCache()

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


class TrailingRelationFilter(PairFilter):
    """Drop pairs whose text, after the last grounded mention, names a relation no kept triple covers.

    vocabulary: relation names of the whole corpus; names shorter than min_length
    (one character: 字, 号, 科 ...) occur inside ordinary words too often to count.
    A name inside the entity's own name does not count (条约 in the title of a treaty). A name that is
    also an ordinary word (ORDINARY_WORDS: 影响, 国家 ...) counts only where a value follows it
    (「其国家为…」), not in 「造成了一定影响」 or 「与许多国家建立了外交关系」. Nor does a name that, in the
    clause of the last mention, is how a kept triple's relation is said there (特产 in 「X，浙江省建德市特产。」
    states the kept 产地名称; ``cues`` gives a relation's cues, filters.grounding.RelationCues).
    """

    name = "trailing_relation"

    def __init__(self, vocabulary: Iterable[str], cache: _PairTextCache | None = None, min_length: int = 2,
                 aliases: dict[str, str] | None = None, cues=None):
        import ahocorasick_rs

        self.cues = cues
        # Another name of a relation counts as that relation (出生时间 is 出生日期).
        self.canonical = {normalize(a): normalize(c) for a, c in (aliases or {}).items()}
        vocabulary = set(vocabulary) | set((aliases or {}))
        names = sorted({normalize(v) for v in vocabulary if len(normalize(v)) >= min_length})
        self.names = names
        self.automaton = ahocorasick_rs.AhoCorasick(names) if names else None
        self.cache = cache or _PairTextCache()

    def check(self, pair: Pair) -> Verdict:
        kept = [t for t in pair.triples if t.decision == "kept"]
        if not kept or self.automaton is None:
            return Verdict.kept()
        text = self.cache.get(pair).text
        start = max(t.span_end for t in kept)
        tail_text = _mask_names(text[start:], pair)
        covered = {normalize(t.relation) for t in kept}
        # the rest of the last mention's clause, where a kept triple's own cue says its relation
        clause_end = next((i for i, ch in enumerate(tail_text) if ch in CLAUSE_MARKS), len(tail_text))
        said = set()
        if self.cues is not None:
            for t in kept:
                cues = self.cues(t.relation)
                said.update(normalize(w) for w in (*cues.words, *cues.after))
        mentioned = sorted({self.names[i] for i, begin, end in self.automaton.find_matches_as_indexes(tail_text)
                            if (self.names[i] not in ORDINARY_WORDS or tail_text[end:end + 1] in VALUE_STARTS)
                            and not (end <= clause_end and self.names[i] in said)})
        uncovered = [m for m in mentioned if self.canonical.get(m, m) not in covered]
        if uncovered:
            return Verdict.drop("uncovered_relation_after_last_triple", relations=uncovered)
        return Verdict.kept()


def _mask_names(text: str, pair: Pair) -> str:
    """The text with every character inside a mention of the entity's names masked; where two names
    overlap (张三丰 and 三丰山 in 张三丰山) both are masked, whichever comes first."""
    covered = bytearray(len(text))
    for name in {normalize(n) for n in (pair.entity, *pair.aliases) if n}:
        if len(name) >= 2:
            start = text.find(name)
            while start != -1:
                covered[start:start + len(name)] = b"\x01" * len(name)
                start = text.find(name, start + 1)
    if not any(covered):
        return text
    return "".join("\x00" if masked else ch for ch, masked in zip(text, covered))


class EnumerationFilter(PairFilter):
    """Drop pairs with an enumeration in the text whose items are not all covered by kept triples."""

    name = "enumeration"

    def __init__(self, cache: _PairTextCache | None = None):
        self.cache = cache or _PairTextCache()

    def check(self, pair: Pair) -> Verdict:
        tails = [normalize(t.tail).strip("《》") for t in pair.triples if t.decision == "kept"]
        tails += [normalize(name).strip("《》") for name in [pair.entity, *pair.aliases]]  # the entity itself
        for items in enumerations(self.cache.get(pair).text):
            missing = [i for i in items if not any(i == t or i in t or t in i for t in tails if t)]
            if missing:
                return Verdict.drop("enumeration_item_without_triple", items=items, missing=missing)
        return Verdict.kept()


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
    cache = _PairTextCache()
    grounder = None
    if learned_cues:
        grounder = Grounder(RelationCues(learned=learned_cues))
    grounding = GroundingFilter(cache, grounder)
    pair_filters: list[PairFilter] = [GroundedPairFilter(cache), PositionIndexFilter(threshold),
                                      TrailingRelationFilter(vocabulary, cache, aliases=aliases,
                                                             cues=grounding.grounder.cues)]
    if enumerations_must_be_covered:
        pair_filters.append(EnumerationFilter(cache))
    triple_filters: list[TripleFilter] = [grounding]
    rejected_relations = list(rejected_relations)
    if keep_relations is not None or rejected_relations:
        keep = vocabulary if keep_relations is None else keep_relations
        triple_filters.insert(0, RelationFrequencyFilter(keep, rejected_relations))
    return triple_filters, pair_filters
