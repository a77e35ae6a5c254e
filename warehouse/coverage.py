"""The audit's own reading of what a shipped text states, and whether the shipped triples cover it.

Written apart from the pipeline's mention finder (filters.mentions) on purpose: the audit must not share
the code whose promise it checks. A mention here is

* a value of the entry's infobox, any row (what the crawl's page gives, what the release ships, what it
  dropped);
* a date or year, a number with a unit, a title in 《》; the plot a work's text tells (「写…的故事」);
* a name the crawled page links that the text writes;
* on a release of the realistic mirror, a fact the mirror planted in the entry (its labelled rows and
  extra facts), read from the mirror's own corpus.

Values and names count where the text writes them as words (jieba's segmentation has a boundary at both
ends, and no digit runs on); dates, numbers and titles wherever they stand. A mention is covered when a
shipped triple's value holds it, or when it is the entity's title (its other names are facts a triple must
state).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable
from urllib.parse import unquote, urlsplit

from filters.normalize import normalize

_DATE = re.compile(r"(?:公元前)?\d+年(?:\d+月(?:\d+日)?)?|\d+月\d+日|\d+世纪|\d+年代")
_UNITS = ("平方千米", "平方米", "平方公里", "千米", "公里", "厘米", "米", "公顷", "亩", "千克", "公斤", "吨", "克",
          "万人", "人", "名", "个", "次", "届", "座", "条", "种", "部", "首", "篇", "集", "卷", "回", "章", "字",
          "元", "岁", "层", "项", "家", "所", "倍", "%", "℃")
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:万|亿)?(?:" + "|".join(map(re.escape, _UNITS)) + ")")
_TITLE = re.compile(r"《([^《》]+)》")
# A plot: 讲述/描写/写 … 的故事 (or 经历, 爱情 …) inside one clause.
_PLOT = re.compile(r"(?:讲述|描写|描述|叙述|记叙|记述|写)了?([^，,。；;！!？?]+?)的(?:故事|经历|爱情|遭遇|命运|生活)")


@lru_cache(maxsize=1)
def _segmenter():
    import jieba

    jieba.setLogLevel(60)
    return jieba


def _cuts(text: str) -> set[int]:
    """Offsets between two words of the text (and its two ends)."""
    at, cuts = 0, {0}
    for word in _segmenter().cut(text, HMM=False):
        at += len(word)
        cuts.add(at)
    return cuts


@dataclass
class Written:
    """A normalised text with its word boundaries."""

    text: str
    cuts: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, text: str) -> "Written":
        normal = normalize(text)
        return cls(normal, _cuts(normal))

    def as_words(self, needle: str) -> list[tuple[int, int]]:
        """Where the text writes needle as words of its own."""
        found = []
        if not needle:
            return found
        start = self.text.find(needle)
        while start != -1:
            end = start + len(needle)
            before = self.text[start - 1] if start else ""
            after = self.text[end] if end < len(self.text) else ""
            digits = needle[0].isdigit() and before.isdigit() or needle[-1].isdigit() and after.isdigit()
            latin = needle[0].isascii() and needle[0].isalnum() and before.isascii() and before.isalnum() \
                or needle[-1].isascii() and needle[-1].isalnum() and after.isascii() and after.isalnum()
            if not digits and not latin and start in self.cuts and end in self.cuts:
                found.append((start, end))
            start = self.text.find(needle, start + 1)
        return found


def mentions(text: str, values: Iterable[str], links: Iterable[str], planted: Iterable[str]) -> list[tuple[str, str]]:
    """(kind, what) for every mention in a text (see the module docstring)."""
    written = Written.of(text)
    found: dict[str, str] = {}
    for kind, needles in (("value", values), ("link", links), ("planted", planted)):
        for needle in {normalize(n) for n in needles if n}:
            if len(needle) >= 2 and written.as_words(needle):
                found.setdefault(needle, kind)
    for kind, pattern in (("date", _DATE), ("number", _NUMBER)):
        for match in pattern.finditer(written.text):
            before = written.text[match.start() - 1] if match.start() else ""
            if not before.isdigit() and not before == ".":
                found.setdefault(match.group(0), kind)
    for match in _TITLE.finditer(written.text):
        found.setdefault(match.group(1), "title")
    for match in _PLOT.finditer(written.text):
        found.setdefault(match.group(0), "plot")
    return sorted((kind, what) for what, kind in found.items())


def covered(what: str, tails: Iterable[str], names: Iterable[str], relations: Iterable[str] = ()) -> bool:
    """Whether a shipped value holds the mention, or it is one of the entity's names, or a word of a shipped
    triple's relation name (地球 of 与地球平均距离)."""
    what = what.strip("《》")
    if len(what) >= 2 and any(what in normalize(r) for r in relations):
        return True
    for value in list(tails) + list(names):
        value = normalize(value).strip("《》")
        if value and (what in value or _place(what) in _place(value)):
            return True
    return False


def _place(value: str) -> str:
    """A place name without its administrative words: 山西南鹿 is 山西省南鹿市."""
    return re.sub("[省市县]", "", value)


def uncovered(text: str, tails: list[str], names: list[str], values: Iterable[str] = (), links: Iterable[str] = (),
              planted: Iterable[str] = (), relations: Iterable[str] = ()) -> list[tuple[str, str]]:
    relations = list(relations)
    return [(kind, what) for kind, what in mentions(text, values, links, planted)
            if not covered(what, tails, names, relations)]


# --- the realistic mirror's planted facts -----------------------------------------------------------

class Planted:
    """The facts the realistic mirror planted in each entry, for a release crawled from it."""

    def __init__(self, size: int, seed: int):
        from crawlers.mirror.realistic import RealisticCorpus

        self.corpus = RealisticCorpus(size, seed)

    @classmethod
    def of(cls, crawl_config: dict) -> "Planted | None":
        """For a release whose crawl was the bundled realistic mirror (its manifest's crawl settings)."""
        if (crawl_config or {}).get("mirror_profile") != "realistic" or (crawl_config or {}).get("base_url"):
            return None
        try:
            return cls(int(crawl_config["mirror_size"]), int(crawl_config.get("mirror_seed") or 0))
        except (KeyError, TypeError, ValueError):
            return None

    def facts(self, url: str) -> list[str]:
        """The values of an entry's labelled rows and extra facts, by the entry's public URL."""
        from crawlers.mirror.realistic import REALISTIC_ID_BASE

        last = unquote(urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1])
        if not last.isdigit():
            return []
        index = int(last) - REALISTIC_ID_BASE
        if not 0 <= index < self.corpus.size:
            return []
        labels = self.corpus.entry(index).labels or {}
        return [r["value"] for r in labels.get("rows", [])] + [x["value"] for x in labels.get("extra_facts", [])]
