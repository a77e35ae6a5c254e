"""What the cuts leave behind (:mod:`filters.cut`), made good Chinese again.

Separators left dangling, empty brackets, a qualifier whose noun went and a connective (此后, 并) or a name for
what came before (史称) whose sentence went are cut too, and a text that lost its end mark gets it back. Where
the source opens with the entity's name, the name is kept when what is left has no subject of its own, and
takes the place of a pronoun the cuts left after it.
"""

from __future__ import annotations

import re

from filters.cut_text import CLAUSE_SEP, PARENS, PRONOUN, SENTENCE_END, CutText, first_word, opens_predicate
from filters.normalize import normalize


# Words opening a clause that name what the clause before it says (「…，史称“光武中兴”」): where that clause
# opened the sentence and went, they would name the entity.
NAMES_WHAT_CAME_BEFORE = ("史称", "世称", "统称", "合称")
# Words opening a sentence or clause that refer to what came before it: where that was cut, they go too.
CONNECTIVE = re.compile(r"^(?:此后|之后|随后|其后|后来|此外|同时|同年|次年|翌年|当年|因此|因而|所以|但是|但|然而|并且|而且|另外|其中|并|而|也|还|亦)[，,]?")
CONNECTIVE_AT = re.compile(CONNECTIVE.pattern.lstrip("^"))  # matched at a position (match() anchors there)


def tidy(text: CutText) -> bool:
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
                        and first_word(current[i:])[0] != connective.group(0).rstrip("，,"):
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


def opening_name_span(source: str, names: list[str]) -> tuple[int, int] | None:
    """The entity's name the source opens with (in 《》 where it stands in them), as a span of the source."""
    best = None
    for name in names:
        for written in (f"《{name}》", name):
            if source.startswith(written) and (best is None or len(written) > best[1]):
                best = (0, len(written))
    return best


def join_name(text: CutText, name: tuple[int, int], relations: tuple[str, ...] = ()) -> bool:
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
            or not opens_predicate(*first_word(rest[pronoun.end():])):
        return False  # 「该作品由…」: 该作 is no pronoun there
    text.cut(length, length + 1 + pronoun.end(), "the name takes the pronoun's place")
    text.commit()
    return True


def keep_opening(text: CutText, name: tuple[int, int], relations: tuple[str, ...] = ()) -> bool:
    """Keep the entity's name at the text's start when the cuts took the sentence it opened and what is
    left opens with no subject of its own: a pronoun (which then goes), 其, a verb, an adverb, a copula, a
    date or number (「1946年出生」), a relation's name in its first words (「代表作有…」, 「东端起点为长安」
    are the entity's); never before a subject of its own (「清军入关并定都北京」)."""
    if all(text.keep[i] for i in range(*name)):
        return False
    rest = text.text
    pronoun = PRONOUN.match(rest)
    word, flag = first_word(rest)
    # a relation's name opening it, or in its first words (「东端起点为长安」)
    relation = any(r in normalize(rest[:6]) for r in relations)
    # a word the segmenter calls a noun that 于 follows is a verb there (「发源于潭灵岭」)
    verb = rest[len(word):len(word) + 1] in ("于", "自") and len(word) == 2 \
        or len(word) >= 3 and word.endswith(("于", "自"))  # 隶属于, one word to the segmenter
    if not (pronoun or relation or verb or rest[:1] == "其" or opens_predicate(word, flag)
            or flag.startswith(("m", "t")) or word[:1].isdigit()):
        return False  # what is left has a subject of its own (「中华人民共和国成立于…」)
    text.restore(*name)
    text.commit()
    if pronoun:
        text.cut(name[1], name[1] + pronoun.end(), "the name takes the pronoun's place")
        text.commit()
    return True
