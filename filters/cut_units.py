"""Where a cut goes (:mod:`filters.cut`): the smallest unit holding a mention no kept triple covers, and what
supports no kept triple.

The units, smallest first: an item of a list (never every item), a date or an event said of the verb, a
qualifier of the noun after it, a value ending its clause with the word naming it, a part of a parenthetical
or the whole of it, what follows the subject of a sentence's first clause, the clause, the sentence. A unit
that holds a supporting mention is taken only where every unit does. Sentences and clauses that support no
kept triple go whole, and so does a predicate after the subject's copula that supports none.
"""

from __future__ import annotations

import re

from filters.cut_text import (COPULA_ENDS, PRONOUN, SENTENCE_END, Clause, CutText, Round, Structure, bracketed,
                              first_word, last_word, opens_predicate, overlaps)
from filters.enumerations import item_end, item_start, last_of_two
from filters.mentions import Mention
from filters.text import segmenter, tagged_words


LIST_SEP = "、"
LIST_LAST = ("以及", "和", "及", "与", "或")
# What a date said of the verb may be introduced by, and end with.
DATE_BEFORE = ("于", "在", "自", "从")
DATE_AFTER = ("年间", "以来", "起", "时", "后", "前", "间", "底", "初", "末")
# Words whose truth depends on what qualifies them (「地球唯一的天然卫星」, 「中国最大的淡水湖」): the qualifier never
# goes alone.
SCOPED = ("唯一", "最", "第一", "第二", "第三", "首个", "首位", "首座", "首部", "仅有", "独有", "特有", "面积最", "之最")
# What makes an event a time said of the verb after it (「第一次世界大战结束后，…」).
EVENT_AFTER = ("结束后", "结束时", "爆发后", "爆发时", "胜利后", "期间", "之后", "以后", "之初", "前夕")
# What a qualifier may follow (「是中国药学家」, 「由隋朝工匠李春设计」, 「的著名诗人」).
MODIFIED_AFTER = COPULA_ENDS + ("由", "被", "的")


def smallest_unit(at: Round, mention: Mention, start: int, end: int) -> tuple[int, int] | None:
    """The smallest unit holding [start, end) that no supporting mention stands in; where every unit holds
    one, the smallest of them (the triples it supported are grounded again in what is left)."""
    candidates = [u for u in (_list_item(at, start, end),
                              _date_adverbial(at, mention, start, end),
                              _modifier(at, start, end),
                              _tail_phrase(at, start, end),
                              *_parenthetical(at, start, end)) if u is not None]
    clause = at.structure.clause_at(start)
    clause_units = _clause_units(at, clause) if clause is not None else []
    last = at.structure.clause_at(max(end - 1, start))
    if clause is not None and last is not None and last is not clause and last.sentence == clause.sentence:
        clause_units.append(_clause_run(at, clause, last))  # a value written across a ，
    for unit in candidates + clause_units:
        if unit[0] <= start and end <= unit[1] and not overlaps(*unit, at.protected):
            return unit
    sentence = _sentence_unit(at.structure, start)
    if sentence is not None and not overlaps(*sentence, at.protected):
        return sentence
    # every unit holds a supported triple: the smallest takes it along
    for unit in [u for u in candidates if u[0] <= start and end <= u[1]] + clause_units:
        if unit[0] <= start and end <= unit[1]:
            return unit
    return sentence if sentence is not None else (start, end)


def _list_item(at: Round, start: int, end: int):
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


def _date_adverbial(at: Round, mention: Mention, start: int, end: int):
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


def _modifier(at: Round, start: int, end: int):
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
    following = first_word(rest)
    if len(following[0]) < 2 or following[1].startswith(("v", "p", "c", "u", "d", "m", "q")):
        return None  # 「浙江绍兴人」, 「北京是首都」: the value is no qualifier there
    return start, hi


def _tail_phrase(at: Round, start: int, end: int):
    """A value that ends its clause with the word naming it right before it, after what a kept triple
    states (「最高峰托木尔峰海拔7443.8米」 less the height is 「最高峰托木尔峰」)."""
    text = at.text
    clause = at.structure.clause_at(start)
    if clause is None or text[end:clause.end] not in ("", "等"):
        return None
    word = last_word(text[clause.start:start])
    lo = start - len(word[0])
    if len(word[0]) < 2 or not word[1].startswith("n") or not any(e == lo for s, e in at.stated):
        return None
    return lo, clause.end


def _parenthetical(at: Round, start: int, end: int):
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


def _clause_units(at: Round, clause: Clause):
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


def _clause_run(at: Round, first: Clause, last: Clause) -> tuple[int, int]:
    """The clauses from first to last, with the separator after them (before them, at the sentence's end)."""
    siblings = at.structure.sentence_clauses(first.sentence)
    if last.sep != -1:
        return first.start, last.sep + 1
    if siblings[0] is first:
        return first.start, last.end
    return first.start - 1, last.end


def _sentence_unit(structure: Structure, position: int):
    for start, end in structure.sentences:
        if start <= position < end:
            return start, end
    return None


def _topic(at: Round, clause: Clause, siblings: list[Clause]) -> bool:
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
            or opens_predicate(*first_word(rest)):
        return False  # 「交子是北宋时期…的纸币」 says something of 交子: no topic
    words = tagged_words(rest[rest.rindex("的") + 1:])
    # nouns (the segmenter may call 大米 a numeral): nothing that predicates
    return bool(words) and not any(flag.startswith(("v", "p", "c", "u", "d", "a", "y", "e", "l", "i"))
                                   for _, flag in words)


def _list_items(at: Round, start: int, end: int) -> list[tuple[int, int, str]]:
    """The items of the list (joined by 、 and a last 和/及/与/以及/或) that text[start:end] stands in, within
    its clause, each (start, end, the separator before it); [] when it stands in none. The first item starts
    where its clause, a copula, a 的, the subject or another stated value ends; the last ends before 等."""
    text, structure = at.text, at.structure
    clause = structure.clause_at(start)
    if clause is None:
        return []
    inside = bracketed(text)
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


def cut_unsupported(text: CutText, at: Round) -> bool:
    """Cut sentences and clauses that support no kept triple (a clause that only names a kept value again
    says something new of it: 「是李白诗风的代表作之一」); a clause that is the entity's name stays (the
    subject)."""
    changed = False
    for number, (s_start, s_end) in enumerate(at.structure.sentences):
        if not overlaps(s_start, s_end, at.protected):
            body = at.text[s_start:s_end].rstrip("。；;！!？?\n ")
            after = text.where[s_start + len(body) - 1] + 1 if body else -1
            if number == 0 and any(s == s_start and e == s_start + len(body) for s, e in at.names) \
                    and 0 <= after < len(text.source) and text.source[after] in SENTENCE_END:
                continue  # 「秦寧鴻；中国近代书法家…」: the name alone opens the source, the subject of what follows
            changed |= text.cut(s_start, s_end, "supports no triple")
            continue
        for clause in at.structure.sentence_clauses(number):
            if overlaps(clause.start, max(clause.end, clause.start + 1), at.protected):
                predicate = _unsupported_predicate(at, clause)
                if predicate is not None:
                    changed |= text.cut(*predicate, "supports no triple")
                continue
            body = at.text[clause.start:clause.end]
            if not body.strip() or (clause.start, clause.end) in at.names or PRONOUN.fullmatch(body):
                continue  # the entity's name or a pronoun alone is the subject (「屠呦呦，女，…」)
            for unit in _clause_units(at, clause):
                if not overlaps(*unit, at.protected):
                    changed |= text.cut(*unit, "supports no triple")
                    break
    return changed


def _unsupported_predicate(at: Round, clause: Clause) -> tuple[int, int] | None:
    """What follows the copula of a clause whose supported mentions all stand before it: 「桃泉科技大学（简称
    桃泉科大）是一所理工类高等院校」 less its predicate is 「桃泉科技大学（简称桃泉科大）」."""
    inside = bracketed(at.text)
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
                    and not overlaps(i, clause.end, at.protected + at.covered):
                return i, clause.end
            return None
        i += len(word)
    return None
