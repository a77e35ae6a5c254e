"""The text a cut works on (:mod:`filters.cut`): the source with what is cut so far, and its parts as written.

:class:`CutText` keeps the source and which of its characters are still there; :class:`Structure` finds the
sentences, clauses and brackets of the current text (a ， inside brackets or quotes separates no clauses);
a :class:`Round` holds one round's text and structure with the spans the cut must keep, may cut and must
cut. The words that open and end a part (jieba, :func:`filters.text.tagger`) say whether it goes on as a
predicate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from filters.text import tagger


SENTENCE_END = frozenset("。！？!?；;\n")
CLAUSE_SEP = frozenset("，,")
OPENERS = {"（": "）", "(": ")", "“": "”", "‘": "’", "「": "」", "『": "』", "【": "】", "《": "》", "〈": "〉"}
CLOSERS = {v: k for k, v in OPENERS.items()}
PARENS = {"（": "）", "(": ")"}
# A date opening a clause, before its verb.
_LEADING_DATE = re.compile(r"^(?:公元前|公元|约)?\d{1,4}年(?:\d{1,2}月(?:\d{1,2}日)?)?[，,]?")
# What opens a sentence and stands for the entity (removed when the entity's name takes its place).
PRONOUN = re.compile(r"^(?:他们|她们|它们|他|她|它|该(?:作品|公司|企业|学校|大学|机构|组织|事件|战役|条约|物种|植物|动物|化合物|"
                     r"元素|城市|地区|河流|[种属科书剧片词曲诗作校河山湖市县])?|此[人书剧]?)")
PRONOUN_AT = re.compile(PRONOUN.pattern.lstrip("^"))  # matched at a position (match() anchors there)
COPULA_ENDS = ("是", "为", "系", "乃", "属于", "成为", "作为")


class CutText:
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
class Clause:
    start: int
    end: int  # exclusive, before its separator
    sep: int  # index of the separator after it (，), or -1 when the sentence ends there
    sentence: int


@dataclass(slots=True)
class Structure:
    """Sentences, clauses and brackets of a text as written (brackets and quotes nest: a ， inside them
    separates no clauses)."""

    sentences: list[tuple[int, int]]  # [start, end) with the end mark
    clauses: list[Clause]
    brackets: list[tuple[int, int]]  # [open, close] positions of （…） and (…)

    @classmethod
    def of(cls, text: str) -> Structure:
        inside = bracketed(text)
        sentences, clauses, brackets = [], [], []
        sentence_start = clause_start = 0
        for i, ch in enumerate(text):
            if inside[i]:
                continue
            if ch in CLAUSE_SEP and not _between_digits(text, i):
                clauses.append(Clause(clause_start, i, i, len(sentences)))
                clause_start = i + 1
            elif ch in SENTENCE_END:
                clauses.append(Clause(clause_start, i, -1, len(sentences)))
                sentences.append((sentence_start, i + 1))
                sentence_start = clause_start = i + 1
        if sentence_start < len(text):
            clauses.append(Clause(clause_start, len(text), -1, len(sentences)))
            sentences.append((sentence_start, len(text)))
        brackets = [(a, b) for a, b in _pairs(text) if text[a] in PARENS]
        return cls(sentences, clauses, sorted(brackets))

    def clause_at(self, position: int) -> Clause | None:
        for clause in self.clauses:
            if clause.start <= position < max(clause.end, clause.start + 1):
                return clause
        return None

    def sentence_clauses(self, sentence: int) -> list[Clause]:
        return [c for c in self.clauses if c.sentence == sentence]


@dataclass(slots=True)
class Round:
    """One round of the cut: the current text, its structure, and spans in it (each [start, end))."""

    text: str
    structure: Structure
    protected: list[tuple[int, int]]  # the mentions that support kept triples
    names: list[tuple[int, int]]  # the entity's names (with their 《》)
    covered: list[tuple[int, int]]  # what kept triples state (their written values, their supports)
    missing: list[tuple[int, int]]  # the mentions to cut

    @property
    def stated(self) -> list[tuple[int, int]]:
        return self.covered + self.names

    def subject_end(self, clause: Clause, following: Clause) -> int | None:
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
        if opens_predicate(*first_word(rest)):  # 「她发现了青蒿素，2015年获得…」: the date is no subject
            return pronoun.end()
        return None


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


def bracketed(text: str) -> list[bool]:
    """Per character, whether it stands inside a matched bracket or quote (the marks themselves not)."""
    inside = [False] * len(text)
    for a, b in _pairs(text):
        for i in range(a + 1, b):
            inside[i] = True
    return inside


def _between_digits(text: str, i: int) -> bool:
    return 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()


def overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(s < end and start < e for s, e in spans)


def opens_predicate(word: str, flag: str) -> bool:
    """Whether a word opens a predicate (a verb, an adverb, a preposition, a copula, a passive: 被誉为, which
    the segmenter calls a noun)."""
    return word in COPULA_ENDS or flag.startswith(("v", "d", "p")) or word[:1] in "被由将把"


def first_word(text: str) -> tuple[str, str]:
    """The first word of a text and its part of speech (jieba)."""
    for word, flag in tagger().cut(text[:12], HMM=False):
        return word, flag
    return "", ""


def last_word(text: str) -> tuple[str, str]:
    """The last word of a text and its part of speech (jieba)."""
    words = list(tagger().cut(text[-12:], HMM=False))
    return (words[-1].word, words[-1].flag) if words else ("", "")
