"""Chinese historical eras named in a value, and whether two such values overlap.

A distractor that names the gold's era at another granularity is a right answer in other words: 元末明初
for 明代 (the early Ming is Ming), 汉代 for 东汉末年, 春秋末期 for 东周. Plain containment of one written value in
the other misses these (明朝, the key of 明代, is not in 元末明初). A value is read as eras only when the
whole of it is era names, phases (初, 中期, 末年, ...; 晚清, 盛唐) and connectives (至, 、, —): 元末明初, 东汉末年,
清末民初, 明清时期, 魏晋南北朝. Anything else (1644年, 20世纪, a person's name) has no eras and is left to the other
rules.

Two eras overlap when they are one era, unless both name different phases of it (明初 and 明末
do not), or when one holds the other (汉 holds 东汉, 东周 holds 春秋): then always, since a phase of
the larger one can hold the smaller (宋末 is the end of 南宋).

A value can also be named at another granularity: 北宋 as 宋朝, 宋朝 as 北宋 where that is what was
meant, 明初 as 明代. A blank whose answer is such a value has more than one right answer.
"""

from __future__ import annotations

import re

from filters.normalize import normalize, value_cache

# Each era, the larger era that holds it (None at the top), and other names it goes by.
_ERAS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "先秦": (None, ()),
    "夏": ("先秦", ()),
    "商": ("先秦", ("殷商", "殷")),
    "周": ("先秦", ()),
    "西周": ("周", ()),
    "东周": ("周", ()),
    "春秋": ("东周", ()),
    "战国": ("东周", ()),
    "秦": (None, ()),
    "汉": (None, ()),
    "西汉": ("汉", ("前汉",)),
    "新": (None, ("新莽",)),
    "东汉": ("汉", ()),
    "三国": (None, ()),
    "曹魏": ("三国", ("魏",)),
    "蜀汉": ("三国", ("蜀",)),
    "东吴": ("三国", ("孙吴", "吴")),
    "晋": (None, ()),
    "西晋": ("晋", ()),
    "东晋": ("晋", ()),
    "十六国": (None, ("五胡十六国",)),
    "南北朝": (None, ()),
    "南朝": ("南北朝", ()),
    "刘宋": ("南朝", ()),
    "南齐": ("南朝", ()),
    "南梁": ("南朝", ()),
    "南陈": ("南朝", ()),
    "北朝": ("南北朝", ()),
    "北魏": ("北朝", ()),
    "东魏": ("北朝", ()),
    "西魏": ("北朝", ()),
    "北齐": ("北朝", ()),
    "北周": ("北朝", ()),
    "隋": (None, ()),
    "唐": (None, ()),
    "五代十国": (None, ()),
    "五代": ("五代十国", ()),
    "十国": ("五代十国", ()),
    "后梁": ("五代", ()),
    "后唐": ("五代", ()),
    "后晋": ("五代", ()),
    "后汉": ("五代", ()),
    "后周": ("五代", ()),
    "宋": (None, ()),
    "北宋": ("宋", ()),
    "南宋": ("宋", ()),
    "辽": (None, ()),
    "西夏": (None, ()),
    "金": (None, ()),
    "元": (None, ()),
    "明": (None, ()),
    "清": (None, ()),
    "民国": (None, ("中华民国", "民")),  # 民 as in 清末民初
}
_NAMES = {alias: era for era, (_, aliases) in _ERAS.items() for alias in (era, *aliases)}
# A phase of an era: the early, middle or late part of it.
_PHASES = {"初": "初", "初期": "初", "初年": "初", "前期": "初", "早期": "初",
           "中": "中", "中期": "中", "中叶": "中",
           "末": "末", "末期": "末", "末年": "末", "后期": "末", "晚期": "末"}
# A phase written before the era: 初唐, 盛唐, 中唐, 晚唐, 晚清.
_PREFIX_PHASES = {"初": "初", "盛": "盛", "中": "中", "晚": "末"}
# Words after an era that add nothing to it: 明代, 唐朝, 战国时期 (康熙年间 is not read: a reign is no era here).
_SUFFIXES = ("代", "朝", "王朝", "时期", "时代", "年间")
_CONNECTIVES = ("至", "到", "、", "与", "和", "及", "—", "－", "-", "~", "～")
_LONGEST = max(len(w) for w in (*_NAMES, *_PHASES, *_SUFFIXES, *_CONNECTIVES))


@value_cache  # called for every candidate of an era gold
def eras(value: str) -> tuple[tuple[str, str], ...]:
    """The eras ``value`` names, each with its phase ("" for the whole era), or () when ``value`` is not
    made of era names alone. 元末明初 gives ((元, 末), (明, 初)); 东汉末年 ((东汉, 末),); 1644年 ()."""
    text = normalize(value)  # simplified, no white space: 東漢 is 东汉
    found: list[list[str]] = []
    before = ""  # a phase written before the next era (晚 of 晚清)
    i = 0
    while i < len(text):
        for size in range(min(_LONGEST, len(text) - i), 0, -1):
            word = text[i:i + size]
            if word in _NAMES:
                found.append([_NAMES[word], before])
                before = ""
            elif word in _PHASES and found and not found[-1][1] and not before:
                found[-1][1] = _PHASES[word]
            elif word in _PREFIX_PHASES and not before:
                before = _PREFIX_PHASES[word]
            elif before or not (found and (word in _SUFFIXES or word in _CONNECTIVES)):
                continue
            i += size
            break
        else:
            return ()  # a character that is no part of an era's name
    return () if before else tuple((era, phase) for era, phase in found)


_HOLDERS = {parent for parent, _ in _ERAS.values() if parent}


def other_granularity(value: str) -> bool:
    """Whether another name of the era(s) ``value`` names is right where it is: a larger era holds one
    of them (北宋 in 宋), one holds smaller eras (宋 holds 北宋 and 南宋), or a phase is named (明初 is
    also 明代). 明代, 唐朝, 明清 have none (明朝 is 明代 written another way: one value key)."""
    return any(phase or _ERAS[era][0] or era in _HOLDERS for era, phase in eras(value))


def _holds(outer: str, inner: str) -> bool:
    era: str | None = inner
    while era is not None:
        era = _ERAS[era][0]
        if era == outer:
            return True
    return False


def eras_overlap(a: str, b: str) -> bool:
    """Whether the two values name overlapping eras (False when either names none)."""
    for era_a, phase_a in eras(a):
        for era_b, phase_b in eras(b):
            if era_a == era_b:
                if not (phase_a and phase_b and phase_a != phase_b):
                    return True
            elif _holds(era_a, era_b) or _holds(era_b, era_a):
                return True
    return False


_FORM_SUFFIXES = ("代", "朝")


def other_forms(value: str) -> tuple[str, ...]:
    """The value's other written forms where it names one era by its name and 代 or 朝 (明朝: 明代; 东汉 has
    none): a blank or a short answer that takes one takes the other."""
    text = value.strip()
    if len(text) < 2 or text[-1] not in _FORM_SUFFIXES or text[:-1] not in _NAMES:
        return ()
    return tuple(text[:-1] + suffix for suffix in _FORM_SUFFIXES if suffix != text[-1])


# Relations whose value is the era a person lived in.
ERA_RELATIONS = frozenset({"所处时代", "朝代", "时代"})
_YEAR = re.compile(r"(公元前)?(\d{1,4})年")


def _years(text: str) -> list[int]:
    return [-int(n) if bc else int(n) for bc, n in _YEAR.findall(text or "")]


_LIFE = re.compile(r"((?:公元前)?\d{1,4}年)[^，。；（）]{0,8}?[—－–~～至-]((?:公元前)?\d{1,4}年)")


def lived_in(triples, era: str, graph, text: str = "") -> bool:
    """Whether a person whose triples (or else the first span of years of their pages' ``text``, 「（1084年—1168年）」)
    give a birth and a death year lived in ``era``, as its page's 存在时间 in the crawl dates it (石锦, 1253–1335,
    lived in 元朝, 1271–1368, as well as in 南宋): a second right answer to 「石锦所处的是哪个时代？」. ``graph``:
    builders.graph.Graph (its relation_values)."""
    born, died = _year_of(triples, "出生日期"), _year_of(triples, "逝世日期")
    life = _LIFE.search(text or "") if died is None else None
    if life and (born is None or _years(life.group(1)) == [born]):
        born, died = _years(life.group(1))[0], _years(life.group(2))[0]
    if born is None or died is None or died < born:
        return False
    for _, existed, _ in graph.relation_values([(era, "存在时间")]).get((era, "存在时间"), ()):
        years = _years(existed)
        if len(years) >= 2 and born <= years[1] and years[0] <= died:
            return True
    return False


def _year_of(triples, relation: str) -> int | None:
    """The year the first value of ``relation`` among the triples names (公元前 years negative), or None."""
    return next((y for t in triples if t.relation == relation for y in _years(t.tail)[:1]), None)


# Born before this year, a person lived before the nation state whose 国籍 the page gives (但丁, 1265: 意大利, or the
# 佛罗伦萨共和国; 莫扎特, 1756: 奥地利, or the 神圣罗马帝国): a short answer on it has two right answers.
NATION_STATES_FROM = 1800


def born_before(triples, year: int) -> bool:
    """Whether the triples' 出生日期 (a year or a date) is before ``year``."""
    born = _year_of(triples, "出生日期")
    return born is not None and born < year
