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
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from filters.base import NoFluentCut
from filters.enumerations import item_end, item_start, last_of_two
from filters.grounding import qualified_noun
from filters.mentions import Lexicon, Mention, RelationNames, covering_spans, find_mentions, occurrences, uncovered
from filters.normalize import normalize, normalize_mapped
from filters.text import AlignedText, segmenter, tagged_words, tagger
from schemas import Pair, Triple

SENTENCE_END = frozenset("。！？!?；;\n")
CLAUSE_SEP = frozenset("，,")
OPENERS = {"（": "）", "(": ")", "“": "”", "‘": "’", "「": "」", "『": "』", "【": "】", "《": "》", "〈": "〉"}
CLOSERS = {v: k for k, v in OPENERS.items()}
PARENS = {"（": "）", "(": ")"}
LIST_SEP = "、"
LIST_LAST = ("以及", "和", "及", "与", "或")
# What a date said of the verb may be introduced by, and end with.
DATE_BEFORE = ("于", "在", "自", "从")
DATE_AFTER = ("年间", "以来", "起", "时", "后", "前", "间", "底", "初", "末")
# Words opening a clause that name what the clause before it says (「…，史称“光武中兴”」): where that clause
# opened the sentence and went, they would name the entity.
NAMES_WHAT_CAME_BEFORE = ("史称", "世称", "统称", "合称")
# A date opening a clause, before its verb.
_LEADING_DATE = re.compile(r"^(?:公元前|公元|约)?\d{1,4}年(?:\d{1,2}月(?:\d{1,2}日)?)?[，,]?")
# Nouns that only say the entity is a person or a thing (「清朝人物」): no fact of their own.
GENERIC_NOUNS = frozenset({"人物", "人", "人士", "之一", "作品"})
# Eras a description may hold (「中国现代著名文学家」), longest first.
ERAS = ("近现代", "古代", "近代", "现代", "当代", "上古", "中古")
# Who plays a sport: after the sport a triple states, no fact of its own (篮球运动员).
PLAYERS = frozenset({"运动员", "球员", "选手", "队员", "棋手", "车手"})
# Words whose truth depends on what qualifies them (「地球唯一的天然卫星」, 「中国最大的淡水湖」): the qualifier never
# goes alone.
SCOPED = ("唯一", "最", "第一", "第二", "第三", "首个", "首位", "首座", "首部", "仅有", "独有", "特有", "面积最", "之最")
# What makes an event a time said of the verb after it (「第一次世界大战结束后，…」).
EVENT_AFTER = ("结束后", "结束时", "爆发后", "爆发时", "胜利后", "期间", "之后", "以后", "之初", "前夕")
# What opens a sentence and stands for the entity (removed when the entity's name takes its place).
PRONOUN = re.compile(r"^(?:他们|她们|它们|他|她|它|该(?:作品|公司|企业|学校|大学|机构|组织|事件|战役|条约|物种|植物|动物|化合物|"
                     r"元素|城市|地区|河流|[种属科书剧片词曲诗作校河山湖市县])?|此[人书剧]?)")
PRONOUN_AT = re.compile(PRONOUN.pattern.lstrip("^"))  # matched at a position (match() anchors there)
MAX_ROUNDS = 4
COPULA_ENDS = ("是", "为", "系", "乃", "属于", "成为", "作为")
# What a qualifier may follow (「是中国药学家」, 「由隋朝工匠李春设计」, 「的著名诗人」).
MODIFIED_AFTER = COPULA_ENDS + ("由", "被", "的")
# Words opening a sentence or clause that refer to what came before it: where that was cut, they go too.
CONNECTIVE = re.compile(r"^(?:此后|之后|随后|其后|后来|此外|同时|同年|次年|翌年|当年|因此|因而|所以|但是|但|然而|并且|而且|另外|其中|并|而|也|还|亦)[，,]?")
CONNECTIVE_AT = re.compile(CONNECTIVE.pattern.lstrip("^"))  # matched at a position (match() anchors there)


@dataclass(slots=True)
class CutResult:
    text: str
    cuts: list[dict] = field(default_factory=list)  # {"start", "end", "reason"} in the source text
    dropped: list[tuple[Triple, str]] = field(default_factory=list)  # kept triples the cut took, and why


class _Text:
    """The source text with some characters cut, and the current text's offsets in the source."""

    def __init__(self, source: str):
        self.source = source
        self.keep = [True] * len(source)
        self.reasons: dict[int, str] = {}
        self._refresh()

    def _refresh(self) -> None:
        self.where = [i for i, k in enumerate(self.keep) if k]
        self.text = "".join(self.source[i] for i in self.where)

    def cut(self, start: int, end: int, reason: str) -> bool:
        """Cut [start, end) of the current text; whether anything was cut."""
        changed = False
        for i in range(start, end):
            at = self.where[i]
            if self.keep[at]:
                self.keep[at] = False
                self.reasons.setdefault(at, reason)
                changed = True
        return changed

    def cut_before(self, i: int) -> bool:
        """Whether something was cut right before the current text's character i (separators aside)."""
        at = self.where[i] - 1 if i < len(self.where) else len(self.source) - 1
        while at >= 0 and self.keep[at] and self.source[at] in "，,、；;。 ":
            at -= 1
        return at >= 0 and not self.keep[at]

    def restore(self, source_start: int, source_end: int) -> None:
        for at in range(source_start, source_end):
            self.keep[at] = True
            self.reasons.pop(at, None)

    def commit(self) -> None:
        self._refresh()

    def spans(self) -> list[dict]:
        """The cut spans of the source, each with the reason its first character was cut for."""
        out: list[dict] = []
        for at, kept in enumerate(self.keep):
            if kept:
                continue
            if out and out[-1]["end"] == at and (self.reasons.get(at) == out[-1]["reason"] or at not in self.reasons):
                out[-1]["end"] = at + 1
            else:
                out.append({"start": at, "end": at + 1, "reason": self.reasons.get(at, "tidy")})
        return out


@dataclass(slots=True)
class _Clause:
    start: int
    end: int  # exclusive, before its separator
    sep: int  # index of the separator after it (，), or -1 when the sentence ends there
    sentence: int


@dataclass(slots=True)
class _Structure:
    """Sentences, clauses and brackets of a text as written (brackets and quotes nest: a ， inside them
    separates no clauses)."""

    sentences: list[tuple[int, int]]  # [start, end) with the end mark
    clauses: list[_Clause]
    brackets: list[tuple[int, int]]  # [open, close] positions of （…） and (…)

    @classmethod
    def of(cls, text: str) -> "_Structure":
        inside = _bracketed(text)
        sentences, clauses, brackets = [], [], []
        sentence_start = clause_start = 0
        for i, ch in enumerate(text):
            if inside[i]:
                continue
            if ch in CLAUSE_SEP and not _between_digits(text, i):
                clauses.append(_Clause(clause_start, i, i, len(sentences)))
                clause_start = i + 1
            elif ch in SENTENCE_END:
                clauses.append(_Clause(clause_start, i, -1, len(sentences)))
                sentences.append((sentence_start, i + 1))
                sentence_start = clause_start = i + 1
        if sentence_start < len(text):
            clauses.append(_Clause(clause_start, len(text), -1, len(sentences)))
            sentences.append((sentence_start, len(text)))
        brackets = [(a, b) for a, b in _pairs(text) if text[a] in PARENS]
        return cls(sentences, clauses, sorted(brackets))

    def clause_at(self, position: int) -> _Clause | None:
        for clause in self.clauses:
            if clause.start <= position < max(clause.end, clause.start + 1):
                return clause
        return None

    def sentence_clauses(self, sentence: int) -> list[_Clause]:
        return [c for c in self.clauses if c.sentence == sentence]


@dataclass(slots=True)
class _Round:
    """One round of the cut: the current text, its structure, and spans in it (each [start, end))."""

    text: str
    structure: _Structure
    protected: list[tuple[int, int]]  # the mentions that support kept triples
    names: list[tuple[int, int]]  # the entity's names (with their 《》)
    covered: list[tuple[int, int]]  # what kept triples state (their written values, their supports)
    missing: list[tuple[int, int]]  # the mentions to cut

    @property
    def stated(self) -> list[tuple[int, int]]:
        return self.covered + self.names

    def subject_end(self, clause: _Clause, following: _Clause) -> int | None:
        """Where the subject opening a sentence's first clause ends: the entity's name, or a pronoun (他, 该校)
        when the next clause goes on without one of its own (it opens with a verb, an adverb, a copula). A
        noun is no subject here: 「海拔976米，位于…」 opens with the relation its value follows."""
        name = max((e for s, e in self.names if s == clause.start and e < clause.end), default=None)
        if name is not None:
            return name
        lead = _LEADING_DATE.match(self.text[clause.start:clause.end])  # 「960年他发动陈桥兵变」
        pronoun = PRONOUN_AT.match(self.text, clause.start + (lead.end() if lead else 0), clause.end)
        if pronoun is None or pronoun.end() >= clause.end:
            return None
        rest = _LEADING_DATE.sub("", self.text[following.start:following.end], count=1)
        if _opens_predicate(*_first_word(rest)):  # 「她发现了青蒿素，2015年获得…」: the date is no subject
            return pronoun.end()
        return None


def _topic(at: "_Round", clause: _Clause, siblings: list[_Clause]) -> bool:
    """Whether a clause opening a sentence that goes on is its topic: the entity's name and a 的-phrase ending in
    a noun (「嘉荫水稻所生产的大米，形状纵长」). Cutting what follows the name would say the rest of the
    entity itself (嘉荫水稻 is not 形状纵长; its rice is)."""
    if not siblings or siblings[0] is not clause or len(siblings) < 2:
        return False
    name = max((e for s, e in at.names if s == clause.start and e < clause.end), default=None)
    if name is None:
        return False
    rest = at.text[name:clause.end]
    if "的" not in rest or any(ch in rest for ch in "（）()“”") or any(c in rest for c in COPULA_ENDS) \
            or _opens_predicate(*_first_word(rest)):
        return False  # 「交子是北宋时期…的纸币」 says something of 交子: no topic
    words = tagged_words(rest[rest.rindex("的") + 1:])
    # nouns (the segmenter may call 大米 a numeral): nothing that predicates
    return bool(words) and not any(flag.startswith(("v", "p", "c", "u", "d", "a", "y", "e", "l", "i"))
                                   for _, flag in words)


def _pairs(text: str) -> list[tuple[int, int]]:
    """(open, close) of every matched bracket or quote; one left open matches nothing."""
    stack: list[int] = []
    found = []
    for i, ch in enumerate(text):
        if stack and ch == OPENERS[text[stack[-1]]]:
            found.append((stack.pop(), i))
        elif ch in OPENERS:
            stack.append(i)
        elif ch in CLOSERS and any(text[j] == CLOSERS[ch] for j in stack):
            while text[stack[-1]] != CLOSERS[ch]:  # what was left open inside it
                stack.pop()
            found.append((stack.pop(), i))
    return found


def _bracketed(text: str) -> list[bool]:
    """Per character, whether it stands inside a matched bracket or quote (the marks themselves not)."""
    inside = [False] * len(text)
    for a, b in _pairs(text):
        for i in range(a + 1, b):
            inside[i] = True
    return inside


def _with_title_marks(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """A name's span with the 《》 around it, where it stands in them."""
    start, end = span
    if start > 0 and end < len(text) and text[start - 1] == "《" and text[end] == "》":
        return start - 1, end + 1
    return start, end


def _between_digits(text: str, i: int) -> bool:
    return 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()


def _overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(s < end and start < e for s, e in spans)


class TextCutter:
    """Cuts a pair's text to what its kept triples state (see the module docstring).

    grounding: the run's grounding filter (filters.align.GroundingFilter), to ground the kept triples again
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
        text = _Text(source)
        kept = [t for t in pair.triples if t.decision == "kept"]
        dropped: dict[int, str] = {}
        values = [t.tail for t in pair.triples] + [t.raw_value for t in pair.triples if t.raw_value and
                                                    t.raw_value != t.tail and "、" not in t.raw_value]
        names = [n for n in (pair.entity, *pair.aliases) if n]
        opening_name = self._opening_name(source, names)
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

            at = _Round(current, _Structure.of(current), [back(*s) for s in supports],
                        [back(*s) for s in name_spans], [back(*s) for s in covering],
                        [back(m.start, m.end) for m in missing])
            changed = False
            for mention in missing:
                start, end = back(mention.start, mention.end)
                if not any(text.keep[text.where[i]] for i in range(start, end)):
                    continue
                unit = self._unit(at, mention, start, end)
                if unit is not None:
                    changed |= text.cut(*unit, f"uncovered {mention.kind}: {mention.text}")
            changed |= self._unsupported(text, at)
            text.commit()
            changed |= self._tidy(text)
            if opening_name is not None:
                changed |= self._keep_opening(text, opening_name, self.relations)
                changed |= self._join_name(text, opening_name, self.relations)
            if not changed:
                if any(any(text.keep[text.where[i]] for i in range(*back(m.start, m.end))) for m in missing):
                    raise NoFluentCut("no_fluent_cut")
                break
        else:
            raise NoFluentCut("no_fluent_cut")
        return CutResult(text.text, text.spans(), [(kept[n], reason) for n, reason in sorted(dropped.items())])

    # -- units ----------------------------------------------------------------------------------------

    def _unit(self, at: "_Round", mention: Mention, start: int, end: int) -> tuple[int, int] | None:
        """The smallest unit holding [start, end) that no supporting mention stands in; where every unit holds
        one, the smallest of them (the triples it supported are grounded again in what is left)."""
        candidates = [u for u in (self._list_item(at, start, end),
                                  self._date_adverbial(at, mention, start, end),
                                  self._modifier(at, start, end),
                                  self._tail_phrase(at, start, end),
                                  *self._parenthetical(at, start, end)) if u is not None]
        clause = at.structure.clause_at(start)
        clause_units = self._clause_units(at, clause) if clause is not None else []
        last = at.structure.clause_at(max(end - 1, start))
        if clause is not None and last is not None and last is not clause and last.sentence == clause.sentence:
            clause_units.append(self._clause_run(at, clause, last))  # a value written across a ，
        for unit in candidates + clause_units:
            if unit[0] <= start and end <= unit[1] and not _overlaps(*unit, at.protected):
                return unit
        sentence = self._sentence_unit(at.structure, start)
        if sentence is not None and not _overlaps(*sentence, at.protected):
            return sentence
        # every unit holds a supported triple: the smallest takes it along
        for unit in [u for u in candidates if u[0] <= start and end <= u[1]] + clause_units:
            if unit[0] <= start and end <= unit[1]:
                return unit
        return sentence if sentence is not None else (start, end)

    @staticmethod
    def _list_item(at: "_Round", start: int, end: int):
        """「A、B和C」: the item holding the mention, with the separator before it (after it, for the first and
        for an item all of whose items before go too); never every item of a list (the clause goes then)."""
        items = _list_items(at, start, end)
        if len(items) < 2:
            return None
        if all(any(a < e and s < b for s, e in at.missing) for a, b, _ in items):
            return None  # every item goes: the clause does
        for k, (a, b, sep) in enumerate(items):
            if a <= start and end <= b:
                # the first item goes with the separator after it, and so does every item whose items before
                # all go too (「在云南、贵州、陕西」 less 云南 and 贵州 is 「在陕西」, not 「在、陕西」)
                leading = all(any(x < e and s < y for s, e in at.missing) for x, y, _ in items[:k])
                return (a, items[k + 1][0]) if leading and k + 1 < len(items) else (a - len(sep), b)
        return None

    @staticmethod
    def _date_adverbial(at: "_Round", mention: Mention, start: int, end: int):
        """A date said of the verb after it: at the clause's start (after the subject), or after 于/在; or an event
        that dates it (「第一次世界大战结束后」), there or after a copula."""
        text = at.text
        event = next((w for w in EVENT_AFTER if text.startswith(w, end)), None) if mention.kind != "date" else None
        if mention.kind != "date" and event is None:
            return None
        clause = at.structure.clause_at(start)
        if clause is None:
            return None
        if event is not None:
            opening = text[clause.start:start]
            if not (not opening or opening.endswith(COPULA_ENDS + DATE_BEFORE)
                    or any(s == clause.start and e == start for s, e in at.names)
                    or PRONOUN.fullmatch(opening) is not None):
                return None
            hi = end + len(event)
            rest = text[hi:clause.end]
            return (start, hi) if rest and rest[0] not in "的之，," else None
        lo, hi = start, end
        for word in DATE_BEFORE:
            if text[max(lo - len(word), 0):lo] == word:
                lo -= len(word)
                break
        for word in DATE_AFTER:
            if text.startswith(word, hi):
                hi += len(word)
                break
        opening = text[clause.start:lo]
        subject_only = not opening or any(s == clause.start and e == lo for s, e in at.names) \
            or PRONOUN.fullmatch(opening) is not None
        rest = text[hi:clause.end]
        if not subject_only and lo == start:
            return None  # 「出生于1930年」: the date is what the verb says
        if not rest or rest[0] in "的之" or rest[0].isdigit():
            return None
        return lo, hi

    @staticmethod
    def _modifier(at: "_Round", start: int, end: int):
        """A value that qualifies the noun after it (「中国药学家」, 「唐朝伟大的诗人」, 「东汉的蔡伦」), where it opens
        its clause or follows the subject, a copula, 由/被 or another qualifier: the value (and its 的) alone."""
        text = at.text
        clause = at.structure.clause_at(start)
        if clause is None:
            return None
        before = text[clause.start:start]
        hi = end + 1 if text[end:end + 1] == "的" else end
        # a place before a stated place, after 在/于 (「在法国凡尔赛宫签订」 less 法国 is 「在凡尔赛宫签订」)
        placed = before.endswith(("在", "于")) and any(s == hi for s, e in at.stated)
        opens = not before or any(e == start for s, e in at.stated) or before.endswith(MODIFIED_AFTER) \
            or PRONOUN.fullmatch(before) is not None or placed
        if not opens:
            return None
        rest = text[hi:clause.end]
        if not rest:
            return None
        if rest.startswith(SCOPED):
            return None  # 「地球唯一的天然卫星」 less 地球 is no longer true: the clause goes
        following = _first_word(rest)
        if len(following[0]) < 2 or following[1].startswith(("v", "p", "c", "u", "d", "m", "q")):
            return None  # 「浙江绍兴人」, 「北京是首都」: the value is no qualifier there
        return start, hi

    @staticmethod
    def _tail_phrase(at: "_Round", start: int, end: int):
        """A value that ends its clause with the word naming it right before it, after what a kept triple
        states (「最高峰托木尔峰海拔7443.8米」 less the height is 「最高峰托木尔峰」)."""
        text = at.text
        clause = at.structure.clause_at(start)
        if clause is None or text[end:clause.end] not in ("", "等"):
            return None
        word = _last_word(text[clause.start:start])
        lo = start - len(word[0])
        if len(word[0]) < 2 or not word[1].startswith("n") or not any(e == lo for s, e in at.stated):
            return None
        return lo, clause.end

    @staticmethod
    def _parenthetical(at: "_Round", start: int, end: int):
        """A part of the innermost （…） holding the mention, between its ，、；, and the whole of it."""
        text = at.text
        holding = [(a, b) for a, b in at.structure.brackets if a < start and end <= b]
        if not holding:
            return []
        a, b = max(holding)  # innermost: the last to open
        inner = text[a + 1:b]
        whole = (a, b + 1)
        if re.search(r"\d[^，,；;]*[—\-–－~～至到]", inner):
            return [whole]  # a lifespan or a range is cut whole, never to one end
        bounds = [a] + [a + 1 + i for i, ch in enumerate(inner) if ch in "，,、；;"] + [b]
        for k in range(len(bounds) - 1):
            lo, hi = bounds[k], bounds[k + 1]
            if lo < start and end <= hi:
                if len(bounds) == 2:
                    return [whole]
                # the part with the separator before it, or after it for the first part
                return [(lo, hi) if k > 0 else (lo + 1, hi + 1), whole]
        return [whole]

    @staticmethod
    def _clause_units(at: "_Round", clause: _Clause):
        """The clause with its separator; when it opens a sentence that goes on, only what follows its
        subject (the entity's name, or a noun the next clause goes on from: 「学校以…为校训，是…」)."""
        units = []
        siblings = at.structure.sentence_clauses(clause.sentence)
        if _topic(at, clause, siblings):
            return units  # what the sentence is about: without it the rest says its facts of something else
        if siblings and siblings[0] is clause and len(siblings) > 1:
            subject = at.subject_end(clause, siblings[1])
            if subject is not None and subject < clause.end:
                if any(s == clause.start and e == subject for s, e in at.names):
                    units.append((subject, clause.end))  # 「阿尔伯特·爱因斯坦，犹太裔物理学家」: the ， stays
                else:  # 「他七次出击匈奴，收复河套地区」 less the count is 「他收复河套地区」
                    units.append((subject, clause.sep + 1 if clause.sep != -1 else clause.end))
        if len(siblings) > 1:
            if clause.sep != -1:
                units.append((clause.start, clause.sep + 1))
            else:  # the last clause: the separator before it goes with it, the sentence's end stays
                units.append((clause.start - 1, clause.end))
        return units

    @staticmethod
    def _clause_run(at: "_Round", first: _Clause, last: _Clause) -> tuple[int, int]:
        """The clauses from first to last, with the separator after them (before them, at the sentence's end)."""
        siblings = at.structure.sentence_clauses(first.sentence)
        if last.sep != -1:
            return first.start, last.sep + 1
        if siblings[0] is first:
            return first.start, last.end
        return first.start - 1, last.end

    @staticmethod
    def _sentence_unit(structure: _Structure, position: int):
        for start, end in structure.sentences:
            if start <= position < end:
                return start, end
        return None

    # -- what supports nothing ------------------------------------------------------------------------

    def _unsupported(self, text: _Text, at: "_Round") -> bool:
        """Cut sentences and clauses that support no kept triple (a clause that only names a kept value again
        says something new of it: 「是李白诗风的代表作之一」); a clause that is the entity's name stays (the
        subject)."""
        changed = False
        for number, (s_start, s_end) in enumerate(at.structure.sentences):
            if not _overlaps(s_start, s_end, at.protected):
                body = at.text[s_start:s_end].rstrip("。；;！!？?\n ")
                after = text.where[s_start + len(body) - 1] + 1 if body else -1
                if number == 0 and any(s == s_start and e == s_start + len(body) for s, e in at.names) \
                        and 0 <= after < len(text.source) and text.source[after] in SENTENCE_END:
                    continue  # 「秦寧鴻；中国近代书法家…」: the name alone opens the source, the subject of what follows
                changed |= text.cut(s_start, s_end, "supports no triple")
                continue
            for clause in at.structure.sentence_clauses(number):
                if _overlaps(clause.start, max(clause.end, clause.start + 1), at.protected):
                    predicate = self._unsupported_predicate(at, clause)
                    if predicate is not None:
                        changed |= text.cut(*predicate, "supports no triple")
                    continue
                body = at.text[clause.start:clause.end]
                if not body.strip() or (clause.start, clause.end) in at.names or PRONOUN.fullmatch(body):
                    continue  # the entity's name or a pronoun alone is the subject (「屠呦呦，女，…」)
                for unit in self._clause_units(at, clause):
                    if not _overlaps(*unit, at.protected):
                        changed |= text.cut(*unit, "supports no triple")
                        break
        return changed

    @staticmethod
    def _unsupported_predicate(at: "_Round", clause: _Clause) -> tuple[int, int] | None:
        """What follows the copula of a clause whose supported mentions all stand before it: 「桃泉科技大学（简称
        桃泉科大）是一所理工类高等院校」 less its predicate is 「桃泉科技大学（简称桃泉科大）」."""
        inside = _bracketed(at.text)
        last = max((e for s, e in at.protected if clause.start <= s < clause.end), default=None)
        if last is None:
            return None
        i = clause.start
        for word in segmenter().cut(at.text[clause.start:clause.end], HMM=False):
            if i >= last and not inside[i] and word in ("是", "为", "系", "乃"):  # the copula, a word of its own
                # only after the subject: the entity's name and what its brackets hold (never 「以X为开端」)
                subject = "".join(ch for k, ch in enumerate(at.text[clause.start:i], clause.start)
                                  if not inside[k] and at.text[k] not in "（）()"
                                  and not any(s <= k < e for s, e in at.names))
                if not subject.strip() and i + 1 < clause.end \
                        and not _overlaps(i, clause.end, at.protected + at.covered):
                    return i, clause.end
                return None
            i += len(word)
        return None

    # -- tidying --------------------------------------------------------------------------------------

    @staticmethod
    def _tidy(text: _Text) -> bool:
        """Cut what the cuts left dangling: separators at a sentence's start or before another mark,
        empty brackets."""
        changed = False
        for _ in range(8):
            current = text.text
            remove: list[int] = []
            for i, ch in enumerate(current):
                prev = current[i - 1] if i else ""
                if ch in "，,、；;：:" and (not prev or prev in SENTENCE_END or prev in "，,、；;：:（(“"):
                    remove.append(i)  # a separator opening the text, a sentence, a bracket, or after another
                elif ch in "，,、：:" and i + 1 < len(current) and current[i + 1] in "。！？!?；;）)”\n":
                    remove.append(i)
                elif ch in "。；;" and prev in "。；;":
                    remove.append(i)
                elif ch in "（(" and i + 1 < len(current) and current[i + 1] == PARENS[ch]:
                    remove.extend([i, i + 1])
                elif ch in "，,、" and i == len(current) - 1:
                    remove.append(i)
                if ch == "的" and (i + 1 == len(current) or current[i + 1] in CLAUSE_SEP or
                                   current[i + 1] in SENTENCE_END) and text.cut_before(i + 1):
                    # a qualifier whose noun was cut (「唐朝杰出的」): its clause goes
                    begin = i
                    while begin > 0 and current[begin - 1] not in CLAUSE_SEP and current[begin - 1] not in SENTENCE_END:
                        begin -= 1
                    remove.extend(range(begin, i + 1))
                # 「他[…，]并提出了…」: after the pronoun alone too (looked for only where something was cut)
                if text.cut_before(i) and (not prev or prev in SENTENCE_END or prev in CLAUSE_SEP
                                           or PRONOUN.fullmatch(current[:i].rsplit("。", 1)[-1]) is not None):
                    connective = CONNECTIVE_AT.match(current, i)
                    if connective and len(connective.group(0).rstrip("，,")) == 1 \
                            and _first_word(current[i:])[0] != connective.group(0).rstrip("，,"):
                        connective = None  # 也门, 并非: a word of its own, no connective
                    if connective:
                        remove.extend(range(i, connective.end()))
                    elif (not prev or prev in SENTENCE_END) and current.startswith(NAMES_WHAT_CAME_BEFORE, i):
                        # 「他在位期间恢复和发展社会经济，史称“光武中兴”」 less its first clause: 史称 would name the
                        # entity; the clause goes
                        stop = i
                        while stop < len(current) and current[stop] not in CLAUSE_SEP \
                                and current[stop] not in SENTENCE_END:
                            stop += 1
                        remove.extend(range(i, stop))
            if not remove and current and current[-1] not in "。！？!?”」』）)":
                # the text ends where a sentence went on: its own end mark comes back (「…称为钻石。」)
                end = next((at for at in range(text.where[-1] + 1, len(text.source))
                            if text.source[at] in "。！？!?"), None)
                if end is not None:
                    if current[-1] in "，,、；;：:":
                        text.cut(len(current) - 1, len(current), "tidy")
                    text.restore(end, end + 1)
                    text.commit()
                    changed = True
                    continue
            if not remove:
                break
            for i in sorted(set(remove), reverse=True):
                text.cut(i, i + 1, "tidy")
            text.commit()
            changed = True
        return changed

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

    @staticmethod
    def _opening_name(source: str, names: list[str]) -> tuple[int, int] | None:
        """The entity's name the source opens with (in 《》 where it stands in them), as a span of the source."""
        best = None
        for name in names:
            for written in (f"《{name}》", name):
                if source.startswith(written) and (best is None or len(written) > best[1]):
                    best = (0, len(written))
        return best

    @staticmethod
    def _join_name(text: _Text, name: tuple[int, int], relations: tuple[str, ...] = ()) -> bool:
        """Where the name is a sentence of its own before a pronoun the cuts left (「成吉思汗。他统一蒙古各部。」), the
        name takes the pronoun's place (「成吉思汗统一蒙古各部。」); before a relation's name, the end mark goes
        (「桃延市英文名Taoyan City」)."""
        if name[0] != 0 or not all(text.keep[i] for i in range(*name)):
            return False
        current, length = text.text, name[1] - name[0]
        if current[:length] != text.source[name[0]:name[1]] or current[length:length + 1] not in ("。", "；", ";"):
            return False
        rest = current[length + 1:]
        if relations and any(normalize(rest[:len(r) + 1]).startswith(r) for r in relations):
            # 「桃延市。英文名Taoyan City」: the relation's name is said of the name before it
            text.cut(length, length + 1, "the name opens what is said of it")
            text.commit()
            return True
        pronoun = PRONOUN.match(rest)
        if pronoun is None or not text.cut_before(length) \
                or not _opens_predicate(*_first_word(rest[pronoun.end():])):
            return False  # 「该作品由…」: 该作 is no pronoun there
        text.cut(length, length + 1 + pronoun.end(), "the name takes the pronoun's place")
        text.commit()
        return True

    @staticmethod
    def _keep_opening(text: _Text, name: tuple[int, int], relations: tuple[str, ...] = ()) -> bool:
        """Keep the entity's name at the text's start when the cuts took the sentence it opened and what is
        left opens with no subject of its own: a pronoun (which then goes), 其, a verb, an adverb, a copula, a
        date or number (「1946年出生」), a relation's name in its first words (「代表作有…」, 「东端起点为长安」
        are the entity's); never before a subject of its own (「清军入关并定都北京」)."""
        if all(text.keep[i] for i in range(*name)):
            return False
        rest = text.text
        pronoun = PRONOUN.match(rest)
        word, flag = _first_word(rest)
        # a relation's name opening it, or in its first words (「东端起点为长安」)
        relation = any(r in normalize(rest[:6]) for r in relations)
        # a word the segmenter calls a noun that 于 follows is a verb there (「发源于潭灵岭」)
        verb = rest[len(word):len(word) + 1] in ("于", "自") and len(word) == 2 \
            or len(word) >= 3 and word.endswith(("于", "自"))  # 隶属于, one word to the segmenter
        if not (pronoun or relation or verb or rest[:1] == "其" or _opens_predicate(word, flag)
                or flag.startswith(("m", "t")) or word[:1].isdigit()):
            return False  # what is left has a subject of its own (「中华人民共和国成立于…」)
        text.restore(*name)
        text.commit()
        if pronoun:
            text.cut(name[1], name[1] + pronoun.end(), "the name takes the pronoun's place")
            text.commit()
        return True


def _last_word(text: str) -> tuple[str, str]:
    """The last word of a text and its part of speech (jieba)."""
    words = list(tagger().cut(text[-12:], HMM=False))
    return (words[-1].word, words[-1].flag) if words else ("", "")


def _list_items(at: "_Round", start: int, end: int) -> list[tuple[int, int, str]]:
    """The items of the list (joined by 、 and a last 和/及/与/以及/或) that text[start:end] stands in, within
    its clause, each (start, end, the separator before it); [] when it stands in none. The first item starts
    where its clause, a copula, a 的, the subject or another stated value ends; the last ends before 等."""
    text, structure = at.text, at.structure
    clause = structure.clause_at(start)
    if clause is None:
        return []
    inside = _bracketed(text)
    # separators at the clause's own level: 、, and a last connective only after a 、 (「与杜甫并称」 lists nothing)
    seps: list[tuple[int, str]] = []
    i = clause.start
    while i < clause.end:
        if inside[i]:
            i += 1
            continue
        if text[i] == LIST_SEP:
            seps.append((i, LIST_SEP))
        else:
            word = next((w for w in LIST_LAST if text.startswith(w, i)), None)
            if word and seps and not any(ch in "，," for ch in text[seps[-1][0]:i]):
                seps.append((i, word))
                i += len(word)
                continue
        i += 1
    if not seps:
        return []
    bounds = [clause.start] + [p for p, _ in seps] + [clause.end]
    items: list[tuple[int, int, str]] = []
    for k in range(len(bounds) - 1):
        a = bounds[k] + (len(seps[k - 1][1]) if k else 0)
        b = bounds[k + 1]
        items.append((a, b, seps[k - 1][1] if k else ""))
    middle = sorted(b - a for a, b, _ in items[1:-1])
    typical = middle[len(middle) // 2] if middle else 0
    first_a, first_b, _ = items[0]
    # as long as the others, never over the verb before it (「推行推恩令、独尊儒术」 lists 推恩令), nor over what
    # a kept triple states, a copula or a 的
    stops = [e for s, e in at.stated + at.protected if first_a <= e < first_b] + \
        [first_a + m.end() for m in re.finditer("|".join(map(re.escape, MODIFIED_AFTER + ("（", "(", "“"))),
                                                text[first_a:first_b])] + [item_start(text, first_a, first_b, typical)]
    items[0] = (max(stops), first_b, "")
    last_a, last_b, sep = items[-1]
    cut_at = min([last_a + i for i, ch in enumerate(text[last_a:last_b]) if ch in "等）)”"] + [last_b])
    # as long as the others (黄章牌乳饮料, not 黄章), never over the verb after it (「…和崔善方主演」)
    last_end = max([item_end(text, last_a, cut_at, typical or last_of_two(text, items[0][:2], (last_a, cut_at)))]
                   + [e for s, e in at.stated + at.protected + at.missing if s == last_a and e <= cut_at])
    items[-1] = (last_a, last_end, sep)
    if not any(a <= start and end <= b for a, b, _ in items):
        return []
    return [(a, b, s) for a, b, s in items if b > a]


def _opens_predicate(word: str, flag: str) -> bool:
    """Whether a word opens a predicate (a verb, an adverb, a preposition, a copula, a passive: 被誉为, which
    the segmenter calls a noun)."""
    return word in COPULA_ENDS or flag.startswith(("v", "d", "p")) or word[:1] in "被由将把"


def _first_word(text: str) -> tuple[str, str]:
    """The first word of a text and its part of speech (jieba)."""
    for word, flag in tagger().cut(text[:12], HMM=False):
        return word, flag
    return "", ""


def _listed_before(text: str, position: int) -> bool:
    """Whether the 和/与 at position ends a list: a 、 before it in its clause."""
    start = position
    while start > 0 and text[start - 1] not in "，,。；;！？!?\n":
        start -= 1
    return LIST_SEP in text[start:position]


def _listed_after(text: str, position: int) -> bool:
    end = position
    while end < len(text) and text[end] not in "，,。；;！？!?\n":
        end += 1
    return LIST_SEP in text[position:end]
