"""Cut what a pair's text states beyond its triples, so the pair is kept with a text that says no more.

CDTP drops a pair whose text continues past its last triple (the position index) and keeps the
rest whole, texts that state facts no triple has among them. Here, instead, every factual mention
(:mod:`filters.mentions`) that no kept triple covers is cut from the text with the smallest unit that
holds it and leaves good Chinese:

1. an item of a list (「A、B和C」 less B is 「A和C」), never every item (the clause goes then);
2. a date said of the clause's verb (「1930年出生于宁波」, 「于1492年到达美洲」, 「1936年起连载」);
3. a qualifier of the noun after it (「中国药学家」, 「唐朝伟大的诗人」, 「东汉的蔡伦」);
4. a value ending its clause with the word naming it (「最高峰托木尔峰海拔7443.8米」 less the height);
5. a part of a parenthetical （…）, or the whole parenthetical (a lifespan only whole);
6. the clause (between ，), or what follows its subject when the clause opens the sentence (「屠呦呦出生于
   宁波，毕业于…」 less the birthplace is 「屠呦呦，毕业于…」; 「他七次出击匈奴，收复河套地区」 less the count is
   「他收复河套地区」);
7. the sentence.

Where every unit holds a supported mention, the smallest takes that triple along. Sentences and clauses
that support no kept triple are cut whole (「其诗想象奇特」: a claim no triple makes), and so is a predicate
after the subject's copula that supports none (「X（简称Y）是一所理工类高等院校」). What remains is tidied
(no dangling ，、, empty brackets, or a connective such as 此后 whose sentence before it went), and the
text opens with the entity's name where the source did and what is left has no subject of its own: the
name is kept and a pronoun opening what follows goes (「屠呦呦……。她于1955年毕业于…」 is 「屠呦呦于1955年毕业
于…」). Then the kept triples are grounded again in the cut text (a triple whose only support was cut is
dropped) and the cut repeats until the text states nothing uncovered; where that takes every supported
triple, the pair cannot be cut fluently. The CDTP pair rules then judge the cut text.

Every offset here is in the text as written (the source); the normalised text the mentions and the
grounding are found in is mapped back with :func:`filters.normalize.normalize_mapped`.

The rounds are here; the text being cut and its structure are in :mod:`filters.cut_text`, where each cut
goes in :mod:`filters.cut_units`, and the tidying after the cuts in :mod:`filters.cut_tidy`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from filters.base import NoFluentCut
from filters.cut_text import CutText, Round, Structure
from filters.cut_tidy import join_name, keep_opening, opening_name_span, tidy
from filters.cut_units import cut_unsupported, smallest_unit
from filters.grounding import qualified_noun
from filters.mentions import Lexicon, Mention, RelationNames, covering_spans, find_mentions, occurrences, uncovered
from filters.normalize import normalize, normalize_mapped
from filters.text import AlignedText
from schemas import Pair, Triple

# Nouns that only say the entity is a person or a thing (「清朝人物」): no fact of their own.
GENERIC_NOUNS = frozenset({"人物", "人", "人士", "之一", "作品"})
# Eras a description may hold (「中国现代著名文学家」), longest first.
ERAS = ("近现代", "古代", "近代", "现代", "当代", "上古", "中古")
# Who plays a sport: after the sport a triple states, no fact of its own (篮球运动员).
PLAYERS = frozenset({"运动员", "球员", "选手", "队员", "棋手", "车手"})
MAX_ROUNDS = 4


@dataclass(slots=True)
class CutResult:
    text: str
    cuts: list[dict] = field(default_factory=list)  # {"start", "end", "reason"} in the source text
    dropped: list[tuple[Triple, str]] = field(default_factory=list)  # kept triples the cut took, and why


def _with_title_marks(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """A name's span with the 《》 around it, where it stands in them."""
    start, end = span
    if start > 0 and end < len(text) and text[start - 1] == "《" and text[end] == "》":
        return start - 1, end + 1
    return start, end


class TextCutter:
    """Cuts a pair's text to what its kept triples state (see the module docstring).

    grounding: the run's grounding filter (filters.rules.grounding.GroundingFilter), to ground the kept triples again
    in the cut text; lexicon: the values the crawl's infobox rows give on several pages."""

    def __init__(self, grounding, lexicon: Lexicon | None = None, relations: Iterable[str] = ()):
        self.grounding = grounding
        self.lexicon = lexicon
        # relation names and their other names: a text opening with one (「代表作有…」, 「首都为…」) needs its subject,
        # and what one introduces is a fact (「父亲司马谈」)
        self.relations = tuple(sorted({normalize(r) for r in relations if len(r) >= 2}, key=len, reverse=True))
        self.named = RelationNames(self.relations)

    def cut(self, pair: Pair) -> CutResult:
        """The pair's source text cut to its kept triples; raises NoFluentCut when it cannot be. The pair's
        triples are read, not changed: the result names the kept triples the cut took."""
        source = pair.source_text or pair.text
        text = CutText(source)
        kept = [t for t in pair.triples if t.decision == "kept"]
        dropped: dict[int, str] = {}
        values = [t.tail for t in pair.triples] + [t.raw_value for t in pair.triples if t.raw_value and
                                                    t.raw_value != t.tail and "、" not in t.raw_value]
        names = [n for n in (pair.entity, *pair.aliases) if n]
        opening_name = opening_name_span(source, names)
        for _ in range(MAX_ROUNDS):
            current = text.text
            aligned = AlignedText(current)
            norm, begins, ends = normalize_mapped(current)
            if norm != aligned.text:  # normalize() and its mapped form are one function
                raise AssertionError("normalize_mapped differs from normalize")
            view = Pair(pair_id=pair.pair_id, entity=pair.entity, text=current, aliases=pair.aliases)
            supports: list[tuple[int, int]] = []
            live: list[Triple] = []
            for n, triple in enumerate(kept):
                if n in dropped:
                    continue
                span = self.grounding.support_span(triple, view) if current else None
                if span is None:
                    dropped[n] = "cut:stated_beside_uncovered_fact"
                    continue
                supports.append(span)
                live.append(triple)
            if not live:
                raise NoFluentCut("no_fluent_cut")
            mentions = find_mentions(aligned, values, pair.linked, self.lexicon, relations=self.named)
            covering = covering_spans(aligned, [t.tail for t in live], supports, [t.relation for t in live])
            name_spans = [_with_title_marks(aligned.text, s) for name in {normalize(n) for n in names}
                          for s in occurrences(aligned, name, False)]
            # the entity's title is no fact about it; its other names are (「又称上元节、灯节」 states 别名)
            title_spans = [_with_title_marks(aligned.text, s) for s in occurrences(aligned, normalize(pair.entity), False)]
            if opening_name is not None and text.keep[opening_name[0]:opening_name[1]].count(False) == 0:
                # another name opening the text is its subject, no fact (「阿尔弗雷德·伯恩哈德·诺贝尔，瑞典化学家」)
                written = normalize(source[opening_name[0]:opening_name[1]].strip("《》"))
                title_spans += [_with_title_marks(aligned.text, s) for s in occurrences(aligned, written, False)
                                if s[0] <= 1]
            missing = uncovered(mentions, covering, title_spans)
            missing += self._descriptions(aligned, live, supports, covering, missing)
            missing.sort(key=lambda m: (m.start, -m.end, m.kind))

            def back(start: int, end: int) -> tuple[int, int]:
                return (begins[start], ends[end - 1]) if end > start else (begins[start], begins[start])

            at = Round(current, Structure.of(current), [back(*s) for s in supports],
                       [back(*s) for s in name_spans], [back(*s) for s in covering],
                       [back(m.start, m.end) for m in missing])
            changed = False
            for mention in missing:
                start, end = back(mention.start, mention.end)
                if not any(text.keep[text.where[i]] for i in range(start, end)):
                    continue
                unit = smallest_unit(at, mention, start, end)
                if unit is not None:
                    changed |= text.cut(*unit, f"uncovered {mention.kind}: {mention.text}")
            changed |= cut_unsupported(text, at)
            text.commit()
            changed |= tidy(text)
            if opening_name is not None:
                changed |= keep_opening(text, opening_name, self.relations)
                changed |= join_name(text, opening_name, self.relations)
            if not changed:
                if any(any(text.keep[text.where[i]] for i in range(*back(m.start, m.end))) for m in missing):
                    raise NoFluentCut("no_fluent_cut")
                break
        else:
            raise NoFluentCut("no_fluent_cut")
        return CutResult(text.text, text.spans(), [(kept[n], reason) for n, reason in sorted(dropped.items())])

    def _descriptions(self, aligned, live: list[Triple], supports: list[tuple[int, int]],
                      covering: list[tuple[int, int]], missing: list[Mention]) -> list[Mention]:
        """The noun a kept value qualifies, where no kept triple states it: 宦官 of 「东汉宦官」 for 所处时代 东汉
        says what 蔡伦 was, a fact of its own (开国皇帝, 宦官), unless a triple's value ends it (药学家 of
        「中国药学家」 for 职业). Nouns that only say the entity is a person (人物) are no fact."""
        text, found = aligned.text, []
        cues = self.grounding.grounder.cues
        for triple, (start, end) in zip(live, supports):
            if "qualifier" not in cues(triple.relation).patterns:
                continue
            stop = end
            while stop < len(text) and text[stop] not in "，,。；;！!？?\n（(":
                stop += 1
            noun = qualified_noun(text, end, stop)
            if noun is None or text[noun[0]:noun[1]] in GENERIC_NOUNS:
                continue
            a, b = noun
            for era in ERAS:  # 「中国现代著名文学家」: an era inside the description is a fact of its own
                at = text.find(era, a, b)
                if at != -1 and not any(s <= at and at + len(era) <= e for s, e in covering):
                    found.append(Mention(at, at + len(era), "description", era))
                    break
            # 「美国职业篮球运动员」 for 运动项目 篮球: a player of the stated sport says no more
            if any(a <= s and e < b and text[e:b] in PLAYERS for s, e in covering):
                continue
            if any(s <= a and b <= e or a <= s and e == b for s, e in covering) \
                    or any(m.start <= a and b <= m.end for m in missing + found):
                continue
            found.append(Mention(a, b, "description", text[a:b]))
        return found
