"""Cloze blanks with one filler, and the other forms a blank takes.

A cloze item (ChnEval) blanks a value of a sentence; scored by match, it is right only where one word fills the
blank. :func:`open_blank` says when the sentence's words around the blank let other values in (a list member, a
qualifier, a modifier of the noun after it, a class whose rank nothing fixes, a clause of its own);
:func:`fits_another_fact` when a cue of another of the entity's relations borders the blank; :func:`coarser_places`
the coarser names of a place, which fill a blank it fills; :func:`without_gloss` drops a Latin gloss that would
translate the answer. The item builder (builders.items) applies them, the audit (warehouse.audit) again.
"""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache
from pathlib import Path

from builders.criteria_words import load_word_list
from builders.places import BARE_REGIONS, place_level, region_parts
from filters.normalize import value_key
from filters.statements import relation_words
from filters.text import tagged_words
from filters.triples import NAME_RELATIONS
from schemas import Pair

BLANK = "＿＿＿"

# Relations whose values are places (出生地, 所在地, 籍贯, 产地 …).
_PLACE_RELATION = re.compile(r"(?:地|地点|地区|位置|籍贯|祖籍|区域)$")
# Relations by which the crawl says what region holds a place.
HOLDING_RELATIONS = ("所属地区", "所属国家", "上级行政区", "所属省份", "所在省份")
# Relations whose value is the city that is a seat: a region that holds it is no capital (首都为＿＿＿: 北京, never 中国).
_SEATS = frozenset({"首都", "都城", "陪都", "首府", "省会", "政府驻地", "行政中心"})

_LISTED_BEFORE = ("、", "和", "及", "与", "或", "以及")
_LISTED_AFTER = ("、", "和", "及", "与", "或", "以及", "等")
# Words after which a blank is one qualifier of many (「＿＿＿著名画家」: 中国, 当代, 清代 …; 「＿＿＿近代画家」: 中国, 我国).
_QUALIFIED = ("著名", "杰出", "伟大", "知名", "优秀", "重要", "主要", "古代", "近代", "现代", "当代")
# Relations whose value is a class the entity belongs to: a blank of one takes every class above it (硫是一种＿＿＿:
# 非金属元素, and 元素; 银杏被称为＿＿＿的活化石: 植物界, and 植物).
CLASS_RELATION = re.compile(r"(?:类别|类型|种类|分类|性质|体裁|级别|类|^[亚总]?[界门纲目科属种族组])$")
# Relations whose value is who holds an office or where one belongs now: at another time another value was right.
HELD_RELATIONS = Path(__file__).with_name("held_relations.txt")
# Relations whose answer is open (a description, a list, where a place lies): builders.items asks no multiple choice on
# them, and a blank of one takes other fillers.
OPEN_CHOICE_RELATIONS = Path(__file__).with_name("open_choice_relations.txt")
# Relations whose value is a time: after 于 the blank takes where as well as when.
_WHEN = re.compile(r"(?:时间|日期|年份|年代|时代|年间)$")
# Verbs after which a blank takes a time or a place alike (「安高起义发生于＿＿＿」: 1681年, and 塘宝市).
_TIME_OR_PLACE = ("发生于", "发生在", "爆发于", "爆发在")
# Nouns after a blank that say what kind of modifier it is (「＿＿＿时期」 takes an era, 「＿＿＿境内」 a place).
_PINNING_NOUNS = frozenset({"时期", "年间", "时代", "年代", "世纪", "境内", "一带", "以东", "以西", "以南", "以北"})


def open_blank(masked: str, relation: str = "") -> str:
    """Why a cloze blank takes other fillers by its place in the sentence, or "": a member of a list (「青海、＿＿＿
    等」, 「文学家、＿＿＿。」: any other member fits), a qualifier before 著名 and its kind (「＿＿＿著名画家」), a
    class of ``relation``, which every class above or below it fills as well (「硫是一种＿＿＿」: 非金属元素, and
    元素; 「蔷薇科＿＿＿」: 苹果亚科, and 梨属; 「属＿＿＿」: 茄科, and 茄属), a value that changes hands (「效力于
    ＿＿＿」: every team the player was with), an open answer (「地处＿＿＿」: open_choice_relations.txt), a time or a
    place alike (「发生于＿＿＿」, a time after 于: 「于＿＿＿创作」), a clause of its own or a whole predicate (「韩耀兰，＿＿＿，女」,
    「芜青是＿＿＿。」), or a modifier of the noun after it (「＿＿＿航海家」: 意大利, and 西班牙, 著名; 「＿＿＿人」:
    a place, and an era), unless the noun says which kind (时期, 境内)."""
    at = masked.find(BLANK)
    if at == -1:
        return ""
    if relation and relation in load_word_list(HELD_RELATIONS):
        return "held_relation"
    before, after = masked[:at], masked[at + len(BLANK):]
    if before.endswith(_LISTED_BEFORE) or after.startswith(_LISTED_AFTER):
        return "blank_in_list"
    if (relation and open_choice(relation)) or before.rstrip().endswith(_TIME_OR_PLACE):
        return "open_blank"
    if before.endswith("于") and _WHEN.search(relation):
        return "open_blank"  # 「郭沫若于＿＿＿创作」, 「成立于＿＿＿」: 1942年, and 重庆
    if after.startswith(_QUALIFIED):
        return "open_blank"
    if (before.endswith("，") and after[:1] in ("，", "。", "")) or (before.endswith("是") and after[:1] in ("。", "")):
        return "open_blank"  # a clause of its own (「韩耀兰，＿＿＿，女」) or all the predicate (「芜青是＿＿＿。」)
    if relation and CLASS_RELATION.search(relation):
        return "open_blank"
    if after:
        first = tagged_words(after[:8])
        if first and first[0][1].startswith("n") and first[0][0] not in _PINNING_NOUNS:
            return "open_blank"  # 「＿＿＿航海家」, 「＿＿＿统治集团」, 「＿＿＿人」: a modifier, and many modifiers fit
    return ""


@lru_cache(maxsize=4096)
def open_choice(relation: str) -> bool:
    """Whether the relation's answer is open (``open_choice_relations.txt``): no multiple choice, no cloze blank."""
    return any(fnmatch.fnmatchcase(relation, pattern) for pattern in load_word_list(OPEN_CHOICE_RELATIONS))


_GLOSS = re.compile(r"^\s*[（(][^（）()]*[A-Za-z][^（）()]*[）)]")


def without_gloss(masked: str) -> str:
    """The masked sentence less a gloss in Latin letters right after the blank, which would translate the answer
    (「出生于＿＿＿（Houston, Texas）」)."""
    at = masked.find(BLANK) + len(BLANK)
    return masked[:at] + _GLOSS.sub("", masked[at:], count=1)


def _is_place(value: str, relation: str, levels: dict[str, str]) -> bool:
    """Whether a value is a place: its form has a level, or its relation's values are places."""
    return bool(place_level(value) or relation in levels or _PLACE_RELATION.search(relation))


def coarser_places(place: str, relation: str, graph, levels: dict[str, str]) -> list[str]:
    """The place at coarser grains, each of which fills a blank the place fills (出生于＿＿＿: 美国 and 美国弗吉尼亚州
    for 美国弗吉尼亚州盖特城, 湖北省 for 白福市): the parts its name is made of, and the regions the crawl says hold
    it. Only for a place: a value with a level, or of a relation of places, and never for a seat (首都, 省会)."""
    if relation in _SEATS or not _is_place(place, relation, levels):
        return []
    parts = region_parts(place)
    found = []
    if len(parts) > 1:
        found += ["".join(parts[:n]) for n in range(1, len(parts))] + parts[1:]
    # a country or province named without its unit (南非 of 南非约翰内斯堡, 浙江 of 浙江杭州)
    found += [name for name in BARE_REGIONS if place.startswith(name) and len(place) > len(name)][:1]
    held = graph.relation_values((place, r) for r in HOLDING_RELATIONS)
    found += [tail for rows in held.values() for _, tail, _ in rows]
    found += [f[:-1] for f in found if len(f) > 2 and f[-1] in "省市州" and not f.endswith("自治州")]  # 湖北 for 湖北省
    return [f for f in dict.fromkeys(found) if len(f) >= 2 and value_key(f) != value_key(place)]


def shorter_places(place: str, relation: str, levels: dict[str, str]) -> list[str]:
    """The place written with fewer of the regions that hold it, the same place (汉福德 and 加利福尼亚州汉福德 for
    美国加利福尼亚州汉福德, 白福市 for 湖北省白福市): each answers a short question on it rightly. Only for a place."""
    if not _is_place(place, relation, levels):
        return []
    parts = region_parts(place)
    return [name for name in ("".join(parts[n:]) for n in range(1, len(parts))) if len(name) >= 2]


def fits_another_fact(pair: Pair, masked: str, relation: str) -> bool:
    """Whether a word right before or after the blank says another of the entity's relations, whose value the
    sentence does not give: that value fills the blank as well (「…，＿＿＿出生。」 takes the birthplace as well
    as the birth date, 「出生于＿＿＿」 the date as well as the place, 「字竹云，＿＿＿人」 the 籍贯 as well as the
    出生地). The relation's name or a cue of the table (filters.statements.relation_words) of two characters or
    more, or 人."""
    at = masked.find(BLANK)
    before, after = masked[:at], masked[at + len(BLANK):]
    for other in pair.triples:
        if other.relation in (relation, *NAME_RELATIONS) or len(other.tail) < 2 or other.tail in masked:
            continue
        words = [w for w in relation_words(other.relation) if len(w) >= 2 or w == "人"]
        if any(before.endswith(w) or after.startswith(w) for w in words):
            return True
    return False


# Words after which a name is another name of the subject, not the subject: 「别称羧基乙酰基噻吩，熔点＿＿＿」 says whose
# melting point only to a reader who knows the other name.
_OTHER_NAME_CUES = re.compile(r"(?:别称|别名|又称|又名|古称|俗称|简称|英文名|外文名)[为是：:]?$")


def names_subject(masked: str, names) -> bool:
    """Whether the sentence names its entity outside the blank as its subject: one of ``names``, not inside another
    title in 《》 (「…作品集有《史琦福诗集》，父亲＿＿＿」 names a book, not 史琦福) nor as another name of it."""
    for name in names:
        at = masked.find(name)
        while at != -1:
            before, after = masked[:at], masked[at + len(name):]
            titled = before.endswith("《") and after.startswith("》")  # the work itself: 《残阳霜天谣》是…
            if (titled or before.count("《") <= before.count("》")) and not _OTHER_NAME_CUES.search(before):
                return True
            at = masked.find(name, at + 1)
    return False
