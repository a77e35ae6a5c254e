"""CDTP's trailing relations: the text after the last grounded mention must not name a relation of the corpus
vocabulary that no kept triple covers."""

from __future__ import annotations

from typing import Iterable

from filters.base import PairFilter, Verdict
from filters.mentions import MAX_RELATION_CHARS, ORDINARY_WORDS, VALUE_STARTS
from filters.normalize import normalize
from filters.text import CLAUSE_MARKS, PairTextCache
from schemas import Pair

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

    def __init__(self, vocabulary: Iterable[str], cache: PairTextCache | None = None, min_length: int = 2,
                 aliases: dict[str, str] | None = None, cues=None):
        import ahocorasick_rs

        self.cues = cues
        # Another name of a relation counts as that relation (出生时间 is 出生日期).
        self.canonical = {normalize(a): normalize(c) for a, c in (aliases or {}).items()}
        vocabulary = set(vocabulary) | set((aliases or {}))
        names = sorted({n for n in map(normalize, vocabulary) if min_length <= len(n) <= MAX_RELATION_CHARS})
        self.names = names
        self.automaton = ahocorasick_rs.AhoCorasick(names) if names else None
        self.cache = cache or PairTextCache()

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
