"""The text as the filters read it: normalised once, cut into jieba words, clauses and sentences.

Every filter that segments a text goes through :func:`segmenter` (or :func:`tagger`, for parts of speech):
jieba is imported on first use (that takes a second) and initialised once, quietly. :class:`AlignedText` holds a pair's normalised text with
its token boundaries, clauses and ordinals, each computed on first use; the grounding
(:mod:`filters.grounding`), the mentions (:mod:`filters.mentions`) and the cut (:mod:`filters.cut`) read
the same one.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from filters.normalize import is_cjk, normalize
from schemas import Pair

CLAUSE_MARKS = frozenset("，,。；;！!？?\n")
SENTENCE_MARKS = frozenset("。；;！!？?\n")


@lru_cache(maxsize=1)
def segmenter():
    """jieba, initialised once and quietly; imported on first use (loading it takes a second)."""
    import jieba

    jieba.setLogLevel(60)
    jieba.initialize()
    return jieba


def token_boundaries(text: str) -> set[int]:
    """Offsets where a jieba token starts or ends."""
    bounds = {0}
    offset = 0
    for token in segmenter().cut(text, HMM=False):
        offset += len(token)
        bounds.add(offset)
    return bounds


def tagger():
    """jieba's part-of-speech tagger (jieba.posseg) on the segmenter's dictionary; imported on first use."""
    import jieba.posseg

    segmenter()
    return jieba.posseg


def tagged_words(text: str) -> list[tuple[str, str]]:
    """The jieba words of a text with their part-of-speech tags."""
    return [(w.word, w.flag) for w in tagger().cut(text, HMM=False)]


class Clauses:
    """Clause and sentence boundaries of a normalised text."""

    def __init__(self, text: str):
        self.text = text
        self.clause_ends = [i for i, ch in enumerate(text) if ch in CLAUSE_MARKS] + [len(text)]
        self.sentence_ends = [i for i, ch in enumerate(text) if ch in SENTENCE_MARKS] + [len(text)]

    def clause(self, start: int, end: int | None = None) -> tuple[int, int]:
        """(start, end) of the clause holding text[start:end] (several clauses when it spans them)."""
        end = start if end is None else end
        first = bisect.bisect_right(self.clause_ends, start - 1)
        last = bisect.bisect_left(self.clause_ends, max(end - 1, start))
        begin = self.clause_ends[first - 1] + 1 if first > 0 else 0
        return begin, self.clause_ends[min(last, len(self.clause_ends) - 1)]

    def sentence(self, position: int) -> int:
        """The index of the sentence holding a position (0 for the opening sentence)."""
        return bisect.bisect_right(self.sentence_ends, position - 1)


_ORDINAL = re.compile(r"第([一二三四五六七八九十]{1,3})|首(?=轮)")
_DIGITS = {c: n for n, c in enumerate("零一二三四五六七八九")}


def _ordinal_value(chars: str) -> int:
    if "十" not in chars:
        return _DIGITS.get(chars, 0)
    tens, _, ones = chars.partition("十")
    return (_DIGITS.get(tens, 1) if tens else 1) * 10 + (_DIGITS.get(ones, 0) if ones else 0)


def ordinals_as_digits(text: str) -> tuple[str, list[int]]:
    """The text with ordinals in digits (第二 -> 第2, 首轮 -> 第1轮) and, per character of the result,
    its offset in the text."""
    out: list[str] = []
    where: list[int] = []
    position = 0
    for match in _ORDINAL.finditer(text):
        out.append(text[position:match.start()])
        where.extend(range(position, match.start()))
        written = f"第{_ordinal_value(match.group(1))}" if match.group(1) else "第1"
        out.append(written)
        where.extend([match.start()] * len(written))
        position = match.end()
    out.append(text[position:])
    where.extend(range(position, len(text)))
    return "".join(out), where


class AlignedText:
    """A pair's text, normalised once, with its token boundaries and clauses computed on first use."""

    def __init__(self, text: str):
        self.text = normalize(text)
        self._bounds: set[int] | None = None
        self._clauses = None
        self._ordinals = None

    @property
    def bounds(self) -> set[int]:
        if self._bounds is None:
            self._bounds = token_boundaries(self.text)
        return self._bounds

    @property
    def ordinals(self) -> tuple[str, list[int]]:
        """The text with ordinals in digits and each character's offset (:func:`ordinals_as_digits`)."""
        if self._ordinals is None:
            self._ordinals = ordinals_as_digits(self.text)
        return self._ordinals

    @property
    def clauses(self):
        if self._clauses is None:
            self._clauses = Clauses(self.text)
        return self._clauses

    def find(self, value: str) -> tuple[int, int] | None:
        """(start, end) of the first standalone mention of value, or None."""
        needle = normalize(value)
        if not needle:
            return None
        text = self.text
        start = text.find(needle)
        while start != -1:
            end = start + len(needle)
            if not self.inside_number(start, end, needle) and self.standalone(start, end, needle):
                return start, end
            start = text.find(needle, start + 1)
        return None

    def inside_number(self, start: int, end: int, needle: str) -> bool:
        """Whether text[start:end] is part of a longer number (545米 in 1545米) or Latin word."""
        text = self.text
        before = text[start - 1] if start > 0 else ""
        after = text[end] if end < len(text) else ""
        if needle[0].isdigit() and before.isdigit() or needle[-1].isdigit() and after.isdigit():
            return True
        if needle[0].isascii() and needle[0].isalnum() and before.isascii() and before.isalnum():
            return True
        return needle[-1].isascii() and needle[-1].isalnum() and after.isascii() and after.isalnum()

    def standalone(self, start: int, end: int, needle: str) -> bool:
        """Whether text[start:end] is not inside a longer word by the segmentation (中国 in 中国人民银行)."""
        text = self.text
        before = text[start - 1] if start > 0 else ""
        after = text[end] if end < len(text) else ""
        if _has_digit(needle):
            # Quantities and dates (12首, 701年): the segmenter often glues a measure word to what
            # follows (首歌), so only the number boundary decides for them.
            return True
        starts_inside = is_cjk(needle[0]) and before and is_cjk(before) and start not in self.bounds
        ends_inside = is_cjk(needle[-1]) and after and is_cjk(after) and end not in self.bounds
        if starts_inside and not ends_inside:
            # the end of a word is a mention of its kind (男歌手 states 歌手, 唐代诗人 诗人); its start is not
            # (中国 in 中国人民银行); a name of three characters or more that the segmenter glued to the character
            # before it is a name (「境内有关会岭」 as 有关/会岭)
            return len(needle) >= 2 and not any(start < b < end for b in self.bounds) \
                or len(needle) >= 3 and start - 1 in self.bounds
        if ends_inside and not starts_inside:
            # a name of three characters or more that the segmenter glued to the next character (「和浦河流过」
            # as 河流)
            return len(needle) >= 3 and end + 1 in self.bounds
        return not starts_inside


class PairTextCache:
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


@lru_cache(maxsize=4096)
def _has_digit(needle: str) -> bool:
    """Once per needle: a repetitive one is asked about at each of its thousands of overlapping places."""
    return any(ch.isdigit() for ch in needle)
