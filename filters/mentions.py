"""Every factual mention in a pair's text, and which of them the pair's triples cover.

A pair promises that its text states nothing its triples lack. This module finds what a
text states, in its normalised form (:class:`filters.text.AlignedText`), as spans:

* ``value``: a value of any infobox row of the entry, kept, dropped or filtered out;
* ``date``: dates, years, months, centuries (1930年12月30日, 公元前221年, 19世纪);
* ``number``: numbers with a unit or a counter (6397千米, 180万平方千米, 四次, 第26届, 15%);
* ``title``: a title in 《》; ``latin``: a name in Latin letters (Libellula maculata);
* ``place``: a place and where within it (湖南省东部);
* ``link``: a name the page links from its text;
* ``lexicon``: a value that infobox rows of the crawl give on several pages (杜鹃花目, 萤科), the
  facts a text may state that its own infobox lacks;
* ``named``: what follows a relation's name of the crawl (司马谈 of 「父亲司马谈」), and a name in quotes that a verb
  of naming gives (临川四梦 of 「合称“临川四梦”」);
* ``enumeration``: an item of an enumeration in the text (CDTP's rule: every item covered);
* ``story``: what a work tells (「讲述孙悟空……取回真经的故事」, 「塑造了……农民阿Q的形象」): its plot is a fact of
  its own, whichever characters a triple names in it.

Every mention is standalone: never inside a longer number, and a name never inside a longer word
(中国 in 中国人民银行). A mention is covered when it lies inside a written value of a kept triple, or
inside the text's mention that supports one; the entity's title is no fact about it (its other names are:
「又称上元节、灯节」 states 别名).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Iterable

from filters.enumerations import enumeration_spans
from filters.normalize import is_cjk, normalize
from filters.text import tagger

KINDS = ("value", "date", "number", "title", "latin", "place", "link", "lexicon", "named", "enumeration", "story")
# Shorter names and values are too often part of an ordinary word to be a fact on their own.
MIN_NAME_CHARS = 2
# Longer ones are no relation name or infobox value but a paragraph or garbage (Baike's longest infobox names
# run to a dozen characters, its values to a few dozen): their triples are dropped (filters/rules/length.py)
# and they stay out of the automata, whose construction costs the square of a repetitive name's length
# (a 16,000-character name took 100 s).
MAX_RELATION_CHARS = 64
MAX_VALUE_CHARS = 500
# Relation names that are ordinary words too: alone they mention no relation (「造成了一定影响」,
# 「一项条约」); after them a value must start (其影响为…, 国家：…). Reviewable; our choice.
ORDINARY_WORDS = frozenset({"影响", "国家", "条约", "和约", "地区", "地点", "时间", "作用", "意义", "结果", "原因", "特点", "关系",
                            "内容", "方式", "目的", "形式", "领域", "环境", "问题", "情况", "水平", "成就", "贡献",
                            "作品", "音乐", "文字", "语言", "历史", "文化", "地位", "荣誉", "称号"})
VALUE_STARTS = frozenset("为是:：有达约在于共计“\"《(（0123456789")

# What a work tells: a verb of telling, and what it tells up to 故事 (or 经历, 生活 …), within a clause.
_STORY = re.compile(r"(?:讲述|讲的是|描写|描述|叙述|记述|记叙|反映|表现|写)了?[^,，。;；!！?？]{2,60}?的"
                    r"(?:故事|经历|生活|历程|遭遇|爱情|传奇|命运)"
                    r"|塑造了?[^,，。;；!！?？]{2,60}?的形象")
# A name given after a verb of naming (「合称“临川四梦”」, 「被誉为“东方的莎士比亚”」): a fact, unless a triple gives it.
_GIVEN_NAME = re.compile(r"(?:合称|并称|统称|誉为|称为|称作|号称|史称|世称|人称|尊称|美称|俗称|又称|简称|古称|旧称|别称|"
                         r"又名|别名)(?:为|是)?[“\"「『]([^”\"」』]{2,16})[”\"」』]")

# The ranks a taxon's name ends with.
TAXON_RANKS = "界门纲目科属种"

# One date each: the two ends of a range (a lifespan) are two facts, each covered by its own triple.
_DATE = re.compile(
    r"(?:公元前|公元)?\d{1,2}世纪(?:\d0年代)?(?:初|中叶|中期|末|末期|上半叶|下半叶)?|\d{1,4}0年代"
    r"|\d{1,2}[—\-–~至到]\d{1,2}月"
    r"|(?:约|公元前|公元|前)*\d{1,4}年(?:\d{1,2}月(?:\d{1,2}日)?)?"
    r"|\d{1,2}月(?:\d{1,2}日|上旬|中旬|下旬)?")
# Units and counters a number states a fact with (its length, area, count, rank ...).
UNITS = ("平方千米", "平方公里", "平方米", "立方米", "千米", "公里", "厘米", "毫米", "米", "公顷", "亩", "千克", "公斤",
         "克", "吨", "毫升", "升", "千瓦", "瓦", "摄氏度", "℃", "%", "％", "倍", "岁", "周岁", "小时", "分钟", "秒",
         "天", "个月", "年", "人次", "人", "名", "位", "个", "次", "届", "座", "条", "种", "部", "首", "篇", "集", "卷",
         "回", "章", "字", "元", "美元", "欧元", "英镑", "日元", "层", "项", "家", "所", "场", "枚", "颗", "册", "期",
         "季", "节", "轮", "号", "支", "只", "株", "户", "栋", "间", "台", "辆", "架", "艘", "款", "门", "座", "处",
         "件", "幅", "对", "亿", "万")
_UNIT = "|".join(re.escape(u) for u in sorted(set(UNITS), key=len, reverse=True))
_NUMBER = re.compile(
    rf"(?:约|近|逾|超过)?(?:第)?\d+(?:\.\d+)?(?:多|余)?(?:万|亿|千|百)*(?:多|余)?(?:{_UNIT})"
    rf"|第\d+|\d+(?:\.\d+)?%"
    # written in characters: two or more (一 alone is an article: 一部小说, 一种植物)
    rf"|(?:第)?(?:[二两三四五六七八九十百千万]|一[十百千万])[一二三四五六七八九十百千万零]*(?:多|余)?(?:{_UNIT})")
_TITLE = re.compile(r"《[^《》]+》")
# A name written in Latin letters (a Latin binomial, a foreign name: the normalised text has no spaces).
_LATIN = re.compile(r"[a-z][a-z.'\-]{3,}[a-z.]")
# Where a place lies within another (湖南省东部, 南鹿市西北部): the place word before the direction, and it.
_DIRECTION = re.compile(r"(?:东北|东南|西北|西南|东|西|南|北|中)部")


@dataclass(frozen=True, slots=True)
class Mention:
    start: int  # in the normalised text
    end: int
    kind: str
    text: str


class Lexicon:
    """Values the crawl's infobox rows give on several pages, found in a text in one pass."""

    def __init__(self, values: Iterable[str] = ()):
        import ahocorasick_rs

        self.values = sorted({v for v in (normalize(x) for x in values) if MIN_NAME_CHARS <= len(v) <= MAX_VALUE_CHARS})
        self._automaton = ahocorasick_rs.AhoCorasick(self.values) if self.values else None

    def find(self, text: str) -> Iterable[tuple[int, int]]:
        if self._automaton is None:
            return ()
        # overlapping: 杜鹃花目 and 杜鹃花 both, the standalone test then picks
        return [(start, end) for _, start, end in self._automaton.find_matches_as_indexes(text, overlapping=True)]


def occurrences(aligned, needle: str, standalone: bool = True) -> Iterable[tuple[int, int]]:
    """Every (start, end) of needle in the aligned text: never inside a longer number or Latin word, and
    with ``standalone`` never inside a longer word."""
    text = aligned.text
    start = text.find(needle) if needle else -1
    while start != -1:
        end = start + len(needle)
        if not aligned.inside_number(start, end, needle) and (not standalone or aligned.standalone(start, end, needle)
                                                              or _taxon(aligned, start, end, needle)):
            yield start, end
        start = text.find(needle, start + 1)


def _taxon(aligned, start: int, end: int, needle: str) -> bool:
    """A taxon written before another (蛙科 of 「是蛙科蛙属的动物」, which the segmenter cuts 蛙|科蛙|属): its rank
    ends it, whatever the words."""
    return len(needle) >= 2 and needle[-1] in TAXON_RANKS and start in aligned.bounds and (
        end == len(aligned.text) or not is_cjk(aligned.text[end]) or aligned.text[end] in "的、和与及"
        or any(aligned.text.find(ch, end, end + 8) != -1 for ch in TAXON_RANKS))


class RelationNames:
    """The crawl's relation names, found in a text in one pass: a name with a value right after it (「父亲
    司马谈」, 「首都为北京」) states that relation whatever the infobox holds."""

    def __init__(self, names: Iterable[str] = ()):
        import ahocorasick_rs

        self.names = sorted({n for n in (normalize(x) for x in names) if MIN_NAME_CHARS <= len(n) <= MAX_RELATION_CHARS})
        self._automaton = ahocorasick_rs.AhoCorasick(self.names) if self.names else None

    def values(self, aligned) -> list[tuple[int, int]]:
        """(start, end) of each value a relation name introduces: its first word after the name (and a 为, 是,
        有 or colon), a name the segmenter cut into characters whole; a noun, a name, a title or a number."""
        if self._automaton is None:
            return []
        text, out = aligned.text, []
        words = _words_from(aligned)
        for _, start, end in self._automaton.find_matches_as_indexes(text):
            name = text[start:end]
            if start not in aligned.bounds or end not in aligned.bounds:
                continue  # inside a word (父亲节 names no father)
            if name in ORDINARY_WORDS and text[end:end + 1] not in VALUE_STARTS:
                continue
            at = end
            while at < len(text) and text[at] in "为是有:：" and at - end < 2:
                at += 1
            value = _value_at(text, at, words)
            if value is not None:
                out.append(value)
        return out


def _words_from(aligned) -> dict[int, tuple[int, str]]:
    """start -> (end, part of speech) of each jieba word of the aligned text."""
    out, at = {}, 0
    for word in tagger().cut(aligned.text, HMM=False):
        out[at] = (at + len(word.word), word.flag)
        at += len(word.word)
    return out


def _value_at(text: str, at: int, words: dict[int, tuple[int, str]]) -> tuple[int, int] | None:
    if at >= len(text):
        return None
    if text[at] == "《":
        close = text.find("》", at)
        return (at, close + 1) if close != -1 else None
    if at not in words:
        return None
    end, flag = words[at]
    if end - at >= 2:
        return (at, end) if flag.startswith(("n", "x", "eng", "m")) or text[at].isdigit() else None
    # one character at a time while they are a name the segmenter cut up (司/马/谈), at most four
    stop = at
    while stop in words and words[stop][0] - stop == 1 and stop - at < 4 and is_cjk(text[stop]) \
            and text[stop] not in "的之和与及了在于是为有等也都":
        stop += 1
    return (at, stop) if stop - at >= 2 else None


def find_mentions(aligned, values: Iterable[str] = (), links: Iterable[str] = (), lexicon: Lexicon | None = None,
                  enumerations: bool = True, relations: RelationNames | None = None) -> list[Mention]:
    """The factual mentions of a normalised text (see the module docstring), ordered by position; where two
    overlap, both are kept (the cut takes the larger)."""
    text = aligned.text
    found: dict[tuple[int, int, str], Mention] = {}

    def add(start: int, end: int, kind: str) -> None:
        key = (start, end, kind)
        if key not in found:
            found[key] = Mention(start, end, kind, text[start:end])

    for value in {normalize(v) for v in values if v}:
        if len(value) > MAX_VALUE_CHARS:
            continue  # no value of a row (its triple is dropped): its overlapping matches would cost the square
        if len(value) < MIN_NAME_CHARS and not value.isdigit():
            # one character (男, 角) counts where the segmentation makes it a word of its own
            for start, end in occurrences(aligned, value):
                if start in aligned.bounds and end in aligned.bounds and is_cjk(value):
                    add(start, end, "value")
            continue
        for start, end in occurrences(aligned, value):
            add(start, end, "value")
    for name in {normalize(n) for n in links if n}:
        if len(name) >= MIN_NAME_CHARS:
            for start, end in occurrences(aligned, name):
                add(start, end, "link")
    if lexicon is not None:
        for start, end in lexicon.find(text):
            needle = text[start:end]
            if not aligned.inside_number(start, end, needle) and aligned.standalone(start, end, needle):
                add(start, end, "lexicon")
    for match in _DIRECTION.finditer(text):
        start = max((b for b in aligned.bounds if b < match.start() and match.start() - b <= 8
                     and b in aligned.bounds), default=match.start())
        before = [b for b in sorted(aligned.bounds) if b < match.start()]
        if len(before) >= 1 and match.start() in aligned.bounds:
            start = before[-1]  # the word before the direction: 湖南省 of 湖南省东部
            if match.start() - start >= 2:
                add(start, match.end(), "place")
    for pattern, kind in ((_DATE, "date"), (_NUMBER, "number"), (_TITLE, "title"), (_LATIN, "latin"),
                          (_STORY, "story")):
        for match in pattern.finditer(text):
            start, end = match.span()
            if not aligned.inside_number(start, end, match.group(0)):
                add(start, end, kind)
    if relations is not None:
        for start, end in relations.values(aligned):
            add(start, end, "named")
    for match in _GIVEN_NAME.finditer(text):
        add(match.start(1), match.end(1), "named")
    if enumerations:
        for start, end in enumeration_spans(text):
            add(start, end, "enumeration")
    return sorted(found.values(), key=lambda m: (m.start, -m.end, m.kind))


# How far before a supporting mention the words of its relation's name may stand.
RELATION_WINDOW = 12
# At most this much may stand before a kept value at the end of a list item for the item to be the value
# (男歌手 is a 歌手).
HEAD_FINAL_PREFIX = 2
# A supporting mention longer than its value by more than this holds words the value lacks (「设立了自1901年起每年
# 颁发的诺贝尔奖」 for 设立诺贝尔奖): what stands inside it is not covered for that.
SUPPORT_SLACK = 4


def covering_spans(aligned, tails: Iterable[str], supports: Iterable[tuple[int, int]] = (),
                   relations: Iterable[str] = ()) -> list[tuple[int, int]]:
    """Where the text writes what kept triples state: every occurrence of a kept value (standalone or not:
    a mention inside one is part of it) and each supporting mention the grounding found, where it writes the
    value with no more than a few other characters (another date form, a word inserted); and, right before a
    supporting mention, the relation's own name said in words (地球 of 「与地球的平均距离约38.44万千米」 for
    与地球平均距离)."""
    tails, supports = list(tails), list(supports)
    spans = [(s, e) for (s, e), tail in zip(supports, tails) if e - s <= len(normalize(tail)) + SUPPORT_SLACK]
    text = aligned.text
    for (s, e), relation in zip(supports, relations):
        name = normalize(relation)
        window = max(s - RELATION_WINDOW, 0)
        for word in {name[i:j] for i in range(len(name)) for j in range(i + 2, len(name) + 1)}:
            at = text.find(word, window)
            if at != -1 and at + len(word) <= s and not any(ch in "。；;!！?？" for ch in text[at:s]):
                spans.append((at, at + len(word)))
    for tail in {normalize(t) for t in tails if t}:
        spans.extend(occurrences(aligned, tail, standalone=False))
        bare = tail.strip("《》")
        if bare != tail and bare:
            spans.extend(occurrences(aligned, bare, standalone=False))
    return spans


_ENCLOSING = {"《": "》", "“": "”", "「": "」", "『": "』", "\"": "\"", "(": ")"}


def uncovered(mentions: Iterable[Mention], covering: list[tuple[int, int]],
              names: list[tuple[int, int]]) -> list[Mention]:
    """The mentions no covering span holds and that are not inside a mention of the entity's own names."""
    out = []
    covered, named = _Spans(covering), _Spans(names)
    for m in mentions:
        inner = m
        while len(inner.text) > 2 and _ENCLOSING.get(inner.text[0]) == inner.text[-1]:
            inner = Mention(inner.start + 1, inner.end - 1, inner.kind, inner.text[1:-1])
        if inner is not m and covered.holds(inner.start, inner.end):
            continue  # 「全称《…》」: the title inside the marks is the value
        if m.kind == "enumeration":  # an item opening with a covered value is the rest (战国时期|思想家)
            for s, e in covering:
                if s <= m.start < e < m.end:
                    m = Mention(e, m.end, m.kind, m.text[e - m.start:])
        if covered.holds(m.start, m.end):
            continue
        if m.kind == "enumeration" and any(m.start <= s and e == m.end and s - m.start <= HEAD_FINAL_PREFIX
                                           for s, e in covering):
            continue  # an item ending with a kept value is a mention of it (男歌手 for 歌手; 陶瓷砖 is no 陶瓷,
            # and 红银牌数控机床 is a product, no 数控机床)
        if named.holds(m.start, m.end):
            continue
        out.append(m)
    return out


class _Spans:
    """Whether one of many spans holds a span, in log time: a repetitive value overlaps itself thousands of
    times in a repetitive text, and mentions times spans would cost the square of that."""

    def __init__(self, spans: Iterable[tuple[int, int]]):
        ordered = sorted(spans)
        self.starts = [s for s, _ in ordered]
        self.reach, furthest = [], -1  # the furthest end of the spans up to each
        for _, end in ordered:
            furthest = max(furthest, end)
            self.reach.append(furthest)

    def holds(self, start: int, end: int) -> bool:
        last = bisect.bisect_right(self.starts, start) - 1
        return last >= 0 and self.reach[last] >= end
