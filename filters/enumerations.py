"""Enumerations in a normalised text, and where a list's items begin and end.

CDTP drops a pair whose text lists items that no kept triple covers (:class:`filters.rules.enumeration.EnumerationFilter`);
the mentions count every item as a fact of its own (:mod:`filters.mentions`), and the cut takes one item out
of a list (:mod:`filters.cut_units`). All read the lists found here: runs of 《》 titles, and items joined by
、 and a last 和/与/及/以及, each item as long as the words around its separators allow.
"""

from __future__ import annotations

import re

from filters.normalize import is_cjk
from filters.text import tagged_words

ENUM_SEPARATORS = "、"
ENUM_LAST = ("和", "与", "及", "以及")
_TITLE = re.compile(r"《[^《》]+》")
# Titles in a row, joined by 、，和及 (not 与: 「《A》与《B》齐名」 compares two works, it lists none).
_TITLE_RUN = re.compile(r"《[^《》]+》(?:(?:[、，,和及]|以及)?《[^《》]+》)+")
_CLAUSE = re.compile(r"[，,。；;：:！!？?（）()“”\"]")


def enumerations(text: str) -> list[list[str]]:
    """Enumerations in a normalised text: runs of 《》 titles, and items joined by 、 (and a final 和)."""
    return [[text[a:b] for a, b in items] for items in _enumerations(text)]


def enumeration_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every item of every enumeration of a normalised text (see :func:`enumerations`)."""
    return [span for items in _enumerations(text) for span in items]


def _strip_title(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in "《》":
        start += 1
    while end > start and text[end - 1] in "《》":
        end -= 1
    return start, end


def _enumerations(text: str) -> list[list[tuple[int, int]]]:
    found: list[list[tuple[int, int]]] = []
    covered_spans: list[tuple[int, int]] = []
    for match in _TITLE_RUN.finditer(text):
        found.append([_strip_title(text, *m.span()) for m in _TITLE.finditer(text, *match.span())])
        covered_spans.append(match.span())
    offset = 0
    for clause in _CLAUSE.split(text):
        start = offset
        offset += len(clause) + 1
        if ENUM_SEPARATORS not in clause:
            continue
        if any(s <= start and start + len(clause) <= e for s, e in covered_spans):
            continue
        parts: list[tuple[int, int]] = []  # spans of the parts between the separators
        at = start
        for part in clause.split(ENUM_SEPARATORS):
            parts.append((at, at + len(part)))
            at += len(part) + len(ENUM_SEPARATORS)
        last_start, last_end = parts[-1]
        last = text[last_start:last_end]
        for word in ENUM_LAST:
            if word in last:
                head, _, rest = last.rpartition(word)  # the last one: 和 may stand in a name (桃和牌)
                if len(rest) <= 1 or not head:
                    break  # 和 inside a compound (健脾和胃), not between two items
                parts[-1:] = [(last_start, last_start + len(head)), (last_start + len(head) + len(word), last_end)]
                break
        if any(_TITLE.search(text[a:b]) for a, b in parts):
            continue
        middle = sorted(b - a for a, b in parts[1:-1])
        typical = middle[len(middle) // 2] if middle else 0
        first = (item_start(text, *parts[0], typical), parts[0][1])
        items = [first, *parts[1:-1],
                 (parts[-1][0], item_end(text, *parts[-1], typical or last_of_two(text, first, parts[-1])))]
        items = [_strip_title(text, a, b) for a, b in items]
        items = [(a, b) for a, b in items if a < b]
        if len(items) >= 2:
            found.append(items)
    return found


# Words that end a list's first item before it, or its last item after it: verbs, function words (a name the
# segmenter cut into characters gets any tag on them, so one character counts only when it is one of _STOP).
_NOT_IN_ITEM = ("v", "p", "u", "c", "r", "d", "y", "e", "f", "m", "t")
_STOP = frozenset("有是为的在于和与及了等之将把被由从向对以及或也都")


def last_of_two(text: str, first: tuple[int, int], last: tuple[int, int]) -> int:
    """How long the last of two items may be: a verb of one character takes its object, as long as the first item
    (赛龙舟、吃粽子, not 吃); otherwise its first word alone (刘文治、张燕主演 lists 张燕)."""
    words = tagged_words(text[last[0]:last[1]])
    if words and len(words[0][0]) == 1 and words[0][1].startswith("v"):
        return first[1] - first[0]
    return 0


def _in_item(word: str, flag: str, taken: int, typical: int) -> bool:
    """Whether a word joins a list item already ``taken`` characters long, the list's items being ``typical``
    long: while the item is no longer than the others, any word but a function word of one character (有, 和,
    了 …); one character more, a character or a noun."""
    if not word.strip() or not all(is_cjk(ch) or ch.isalnum() for ch in word):
        return False
    if len(word) == 1:
        return word not in _STOP and taken + 1 <= typical + 1
    # within the others' length, whatever it is (推恩 of 推恩令, which the segmenter calls a verb); a little over
    # it, a noun
    return taken + len(word) <= typical or taken + len(word) <= typical + 1 and not flag.startswith(_NOT_IN_ITEM)


def item_start(text: str, start: int, end: int, typical: int) -> int:
    """Where a list's first item begins, the part before its first 、 being text[start:end]: its last word, or
    as many words back as the list's other items are long (杨波济 of 「人物有杨波济、范贤、高兰光」, which the
    segmenter cuts into characters), never over a verb or a function word."""
    words = tagged_words(text[start:end])
    if not words:
        return end
    at, taken = end - len(words[-1][0]), len(words[-1][0])
    for word, flag in reversed(words[:-1]):
        if not _in_item(word, flag, taken, typical):
            break
        at, taken = at - len(word), taken + len(word)
    return at


def item_end(text: str, start: int, end: int, typical: int) -> int:
    """Where a list's last item ends, the part after its last separator being text[start:end] (see item_start)."""
    words = tagged_words(text[start:end])
    if not words:
        return start
    at, taken = start + len(words[0][0]), len(words[0][0])
    for word, flag in words[1:]:
        if not _in_item(word, flag, taken, typical):
            break
        at, taken = at + len(word), taken + len(word)
    return at


# What may stand between two members of one co-ordination: the items between them, each joined by one of these.
_COORDINATORS = re.compile(r"、|以及|和|与|及|或|兼|/|／")
_CLAUSE_END = re.compile(r"[，,。；;：:！!？?（）()“”\"\n]")
COORDINATED_ITEM_MAX = 8  # an item between two members is a word or a short phrase (东汉杰出的天文学家 is 9 with its
# modifiers, but only the first member carries them); longer, the two are in different parts of the clause


def coordinated(text: str, first: tuple[str, ...], second: tuple[str, ...]) -> bool:
    """Whether a form of ``first`` and a form of ``second`` (normalised, :func:`filters.normalize.value_forms`) are
    members of one co-ordination of a normalised text: in one clause, with only co-ordinators (、 和 与 及 或 兼 /)
    and short items between them (「天文学家、数学家、发明家和文学家」 co-ordinates 天文学家 and 文学家; 「中国著名
    文学家、考古学家」 文学家 and 考古学家). A form inside a longer one that is also there (文学家 in 天文学家) counts only
    where it stands on its own."""
    spans_a = _spans(text, first)
    spans_b = _spans(text, second)
    for a_start, a_end in spans_a:
        for b_start, b_end in spans_b:
            if a_end <= b_start:
                between = text[a_end:b_start]
            elif b_end <= a_start:
                between = text[b_end:a_start]
            else:
                continue
            if _joins(between):
                return True
    return False


def _spans(text: str, forms: tuple[str, ...]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for form in forms:
        if not form:
            continue
        at = text.find(form)
        while at != -1:
            spans.append((at, at + len(form)))
            at = text.find(form, at + 1)
    return spans


def _joins(between: str) -> bool:
    """Whether the text between two members joins them: it starts and ends with a co-ordinator, and what it holds
    between co-ordinators is short items (no clause break)."""
    if not between or _CLAUSE_END.search(between):
        return False
    first = _COORDINATORS.match(between)
    if first is None:
        return False
    pieces = _COORDINATORS.split(between)
    if pieces[-1] != "":  # it must end with a co-ordinator too: 「天文学家、数学家」, not 「天文学家、数学家的」
        return False
    return all(len(p) <= COORDINATED_ITEM_MAX for p in pieces[1:-1]) and pieces[0] == ""
