"""The web beside the encyclopedia: other sites that write about the mirror's entities, as on the real web.

Search validation (CDTP keeps a triple whose head and tail co-occur in the top 10 web results) and answer
evidence (Chinese SimpleQA asks for two sources) need pages beyond the entry itself. :class:`Web` builds
them from the same world of facts the encyclopedia's entries come from, on four sites under hosts RFC 2606
reserves (no real site is named):

* ``openwiki.example`` (开放百科): a second encyclopedia in a Wikipedia-like layout, with its own wording;
* ``news.example`` (示例新闻网): news stories that mention an entity and a fact or two of it;
* ``gazetteer.example`` (方志馆): gazetteer entries for places, events and other history;
* ``museum.example`` (博物馆): collection and biography pages for people, works and natural history.

As on the real web, and labelled on every page (``WebPage.labels``):

* coverage follows fame: a famous entity is on most sites, a long-tail one on few or none (``COVERAGE``);
* each page states a share of the entity's facts (``FACT_SHARE``), written its own way: another date
  notation (1930-12-30), another unit word (公里 for 千米), no 约 (``_written``);
* a few sites disagree: now and then one gives a date another year (``P_CONFLICT``, labelled ``conflicts``);
* the realistic profile's planted false infobox values (``labels["rows"][…]["false"]``) are stated
  nowhere here: the sites state the entity's true facts only;
* pages carry boilerplate (navigation, related articles, advertisements) outside their main text.

Facts: a realistic entry's ``labels["facts"]`` (every fact of the entity, whether or not its infobox has it);
a demo entry's infobox rows. Fame: a realistic entry's tier; for the demo, how long its infobox is.

The rates are set once, a priori, from how the web treats well-known and obscure entries; never tuned
to make a filter score come out at a given figure. Everything depends on (seed, entry key) only.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from html import escape
from typing import Iterable, Iterator
from urllib.parse import quote

from crawlers.mirror.facts import Entry
from crawlers.mirror.render import strip_markup

SITES = {
    "openwiki.example": "开放百科",
    "news.example": "示例新闻网",
    "gazetteer.example": "方志馆",
    "museum.example": "博物馆",
}
# Which reference site writes about which entity types (other types have no reference page).
REFERENCE_SITE = {
    **{t: "gazetteer.example" for t in ("city", "place", "river", "mountain", "lake", "event", "treaty",
                                        "country", "dynasty")},
    **{t: "museum.example" for t in ("person", "book", "film", "work", "plant", "animal", "species",
                                     "compound", "element")},
}
# Chance that a site has a page on an entity, by the entity's fame.
COVERAGE = {
    "openwiki.example": {"famous": 1.0, "mid": 0.7, "long_tail": 0.3},
    "news.example": {"famous": 0.9, "mid": 0.4, "long_tail": 0.1},
    "reference": {"famous": 0.8, "mid": 0.5, "long_tail": 0.25},
}
# Share of the entity's facts a page states (a news story states one to three whatever this says).
FACT_SHARE = {"openwiki.example": 0.7, "reference": 0.5}
NEWS_FACTS = (1, 3)
P_CONFLICT = 0.04        # of dates a page states: it gives another year (sites disagree)
P_DATE_NOTATION = 0.35   # a full date written 1930-12-30
P_UNIT_WORD = 0.4        # 公里 for 千米, 公斤 for 千克 (平方公里 for 平方千米)
P_DROP_APPROXIMATE = 0.5  # 约960万平方千米 written 960万平方千米
RELATED = 4              # related articles listed beside a page

_FULL_DATE = re.compile(r"^(\d{3,4})年(\d{1,2})月(\d{1,2})日$")
_YEAR_IN = re.compile(r"(?<!\d)(\d{3,4})(?=年)")
_UNITS = (("平方千米", "平方公里"), ("千米", "公里"), ("千克", "公斤"))

# How a page states a relation (the entity's name, the value); a relation without its own phrasings
# is named: 「X的面积为…」.
PHRASES = {
    "出生日期": ("{h}生于{v}", "{h}出生于{v}", "{h}的出生日期是{v}"),
    "逝世日期": ("{h}于{v}逝世", "{h}卒于{v}", "{h}逝世于{v}"),
    "出生地": ("{h}出生于{v}", "{h}是{v}人", "{h}的出生地是{v}"),
    "毕业院校": ("{h}毕业于{v}", "{h}早年就读于{v}"),
    "职业": ("{h}是一位{v}", "{h}以{v}的身份为人所知"),
    "国籍": ("{h}的国籍是{v}",),
    "代表作品": ("{h}的代表作品有{v}", "{h}的作品包括{v}"),
    "导演": ("{h}由{v}执导", "{h}的导演是{v}"),
    "主演": ("{h}由{v}主演", "{h}的主演有{v}"),
    "作者": ("{h}的作者是{v}", "{h}由{v}所著"),
    "首都": ("{h}的首都是{v}", "{h}首都为{v}"),
    "面积": ("{h}的面积为{v}", "{h}面积{v}"),
    "长度": ("{h}全长{v}", "{h}的长度为{v}"),
    "海拔": ("{h}海拔{v}", "{h}的海拔高度为{v}"),
    "上映时间": ("{h}于{v}上映", "{h}的上映时间是{v}"),
    "创立时间": ("{h}创立于{v}", "{h}成立于{v}"),
    "成立时间": ("{h}成立于{v}", "{h}的成立时间是{v}"),
    "创办时间": ("{h}创办于{v}", "{h}始建于{v}"),
    "发生时间": ("{h}发生于{v}", "{h}的发生时间是{v}"),
    "签订时间": ("{h}签订于{v}", "{h}于{v}签订"),
    "工作单位": ("{h}曾任职于{v}", "{h}的工作单位是{v}"),
}
_NEWS_LEADS = ("近日，记者走访了解到，", "日前，", "本报讯 ", "据有关方面介绍，")
_FILLER = {
    "openwiki.example": ("本条目的内容来自公开资料。", "相关研究仍在进行中。", "其事迹在多种文献中均有记载。"),
    "news.example": ("活动吸引了不少市民参与。", "相关负责人表示，下一步将继续做好有关工作。",
                     "据悉，有关部门将进一步加强宣传。"),
    "gazetteer.example": ("据旧志记载，当地民风淳朴。", "其沿革见于历代方志。"),
    "museum.example": ("该馆藏品现对公众开放。", "相关资料由馆方整理提供。"),
}
_ADS = ("【广告】暑期特惠，机票低至三折", "【推广】家装节满减活动火热进行中", "【广告】在线课程限时免费试听")


@dataclass(frozen=True, slots=True)
class WebPage:
    site: str                       # the host, e.g. news.example
    url: str                        # https://<site><path>
    path: str
    title: str
    paragraphs: tuple[str, ...]     # the main text (what a search engine's snippet is taken from)
    related: tuple[str, ...]        # titles of related articles listed beside it
    labels: dict = field(hash=False, compare=False)
    # labels: entity (the entry's title), entity_key (title and sense), index (a realistic entry's, else None),
    # site, facts ([relation, true value, as written]), conflicts ([relation, true value, as written])


def _rng(seed: int, *parts: str) -> random.Random:
    digest = hashlib.sha256("\0".join([str(seed), *parts]).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _number(seed: int, *parts: str, digits: int = 6) -> int:
    digest = hashlib.sha256("\0".join(["id", str(seed), *parts]).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % 10 ** digits


def entry_facts(entry: Entry) -> list[tuple[str, str]]:
    """(relation, value) of every fact of the entity but its name: a realistic entry's world facts, a demo
    entry's infobox rows split at 、."""
    if entry.labels.get("facts"):
        return [(r, v) for r, v in entry.labels["facts"] if r != "中文名" and v]
    facts = []
    for name, cell in entry.infobox:
        if name == "中文名":
            continue
        facts += [(name, v.strip()) for v in strip_markup(cell).split("、") if v.strip()]
    return facts


def fame(entry: Entry) -> str:
    """famous, mid or long_tail: a realistic entry's tier; a demo entry's by the length of its infobox."""
    tier = entry.labels.get("tier")
    if tier:
        return tier
    rows = len(entry.infobox)
    return "famous" if rows >= 8 else "mid" if rows >= 4 else "long_tail"


def _written(value: str, rng: random.Random) -> str:
    """The value as another site writes it: other date notation, unit word, no 约; else as it is."""
    date = _FULL_DATE.match(value)
    if date and rng.random() < P_DATE_NOTATION:
        y, m, d = (int(x) for x in date.groups())
        return f"{y}-{m:02d}-{d:02d}"
    for unit, word in _UNITS:
        if value.endswith(unit) and rng.random() < P_UNIT_WORD:
            value = value[: -len(unit)] + word
            break
    if value.startswith("约") and len(value) > 1 and rng.random() < P_DROP_APPROXIMATE:
        value = value[1:]
    return value


def _conflicting(value: str, rng: random.Random) -> str | None:
    """The same date with another year (what a site that disagrees gives), or None for no year in it."""
    found = _YEAR_IN.search(value)
    if not found:
        return None
    year = int(found.group(1)) + rng.choice((-3, -2, -1, 1, 2, 3))
    return value[:found.start()] + str(year) + value[found.end():] if year > 0 else None


def _sentence(relation: str, head: str, value: str, rng: random.Random, news: bool = False,
              pronoun: bool = False) -> str:
    """One sentence stating a relation; after the first, half of them say 其 for the name (其生于…), where
    that reads well (not before 是 or 的)."""
    named = ("据介绍，{h}的{r}是{v}",) if news else ("{h}的{r}为{v}", "{h}{r}为{v}")
    phrasing = rng.choice(PHRASES.get(relation) or named)
    if pronoun and rng.random() < 0.5 and "{h}是" not in phrasing and "{h}的" not in phrasing:
        head = "其"
    return phrasing.format(h=head, r=relation, v=value) + "。"


class Web:
    """The other sites' pages on ``entries``, built once (a few per entry at most), in a stable order."""

    def __init__(self, entries: Iterable[Entry], seed: int = 0):
        self.seed = seed
        self.entries = list(entries)
        self.pages: list[WebPage] = []
        for entry in self.entries:
            self.pages.extend(self._pages_of(entry))
        self.by_path = {(p.site, p.path): p for p in self.pages}
        self.by_entity: dict[str, list[WebPage]] = {}
        for page in self.pages:
            self.by_entity.setdefault(page.labels["entity_key"], []).append(page)

    def __iter__(self) -> Iterator[WebPage]:
        return iter(self.pages)

    def __len__(self) -> int:
        return len(self.pages)

    def page(self, site: str, path: str) -> WebPage | None:
        return self.by_path.get((site, path))

    # -- building ----------------------------------------------------------------------------------

    def _pages_of(self, entry: Entry) -> Iterator[WebPage]:
        facts = entry_facts(entry)
        tier = fame(entry)
        reference = REFERENCE_SITE.get(entry.type)
        for site in ("openwiki.example", "news.example", reference):
            if site is None:
                continue
            rng = _rng(self.seed, site, entry.key)
            coverage = COVERAGE["reference" if site == reference else site][tier]
            if rng.random() >= coverage:
                continue
            if site == "news.example":
                wanted = rng.randint(*NEWS_FACTS)
            else:
                wanted = max(1, round(len(facts) * FACT_SHARE["reference" if site == reference else site]))
            chosen = sorted(rng.sample(range(len(facts)), min(wanted, len(facts)))) if facts else []
            stated, conflicts = [], []
            for k in chosen:
                relation, value = facts[k]
                written = _written(value, rng)
                if rng.random() < P_CONFLICT:
                    other = _conflicting(written, rng)
                    if other is not None and other not in self._false_values(entry):
                        conflicts.append([relation, value, other])
                        written = other
                stated.append([relation, value, written])
            yield self._page(entry, site, stated, conflicts, rng)

    @staticmethod
    def _false_values(entry: Entry) -> set[str]:
        return {r["value"] for r in entry.labels.get("rows", ()) if r.get("false")}

    def _page(self, entry: Entry, site: str, stated: list, conflicts: list, rng: random.Random) -> WebPage:
        head = entry.title
        number = _number(self.seed, site, entry.key)
        grouped: dict[str, list[str]] = {}  # the values of one relation are listed together: 长江、黄河
        for rel, _, written in stated:
            grouped.setdefault(rel, []).append(written)
        sentences = [_sentence(rel, head, "、".join(values), rng, news=site == "news.example", pronoun=n > 0)
                     for n, (rel, values) in enumerate(grouped.items())]
        filler = rng.choice(_FILLER[site])
        if site == "openwiki.example":
            title = f"{head}（{entry.sense}）" if entry.sense else head
            path = "/wiki/" + quote(f"{head}_({entry.sense})" if entry.sense else head, safe="()_")
            lead = f"{head}，{entry.sense}。" if entry.sense else f"{head}。"
            half = (len(sentences) + 1) // 2
            paragraphs = [lead + "".join(sentences[:half]), (head + "的有关情况：" if sentences[half:] else "")
                          + "".join(sentences[half:]) + filler]
        elif site == "news.example":
            year = 2010 + number % 15
            path = f"/{year}/{number % 12 + 1:02d}{number % 28 + 1:02d}/{number}.html"
            title = rng.choice((f"走近{head}", f"{head}：一段值得回顾的往事", f"关注{head}", f"{head}受到各界关注"))
            lead = rng.choice(_NEWS_LEADS) + f"{head}再次引起人们的关注。"
            paragraphs = [lead + "".join(sentences), filler + "（责任编辑：王明）"]
        else:
            kind = "entry" if site == "gazetteer.example" else "collection"
            path = f"/{kind}/{number}.html"
            title = f"{head}_{SITES[site]}"
            intro = "【概况】" if site == "gazetteer.example" else "【简介】"
            paragraphs = [intro + f"{head}。" + "".join(sentences), filler]
        paragraphs = [p for p in paragraphs if p]
        related = tuple(self._related(entry, rng))
        labels = {"entity": head, "entity_key": entry.key, "index": entry.labels.get("index"), "site": site,
                  "facts": stated, "conflicts": conflicts}
        return WebPage(site, f"https://{site}{path}", path, title, tuple(paragraphs), related, labels)

    def _related(self, entry: Entry, rng: random.Random) -> Iterator[str]:
        for _ in range(RELATED):
            other = self.entries[rng.randrange(len(self.entries))]
            if other.title != entry.title:
                yield other.title

    # -- serving -----------------------------------------------------------------------------------

    def render(self, page: WebPage) -> str:
        """The page as its site serves it: navigation, the main text, related articles, advertisements."""
        name = SITES[page.site]
        nav = "".join(f'<a href="https://{escape(host)}/">{escape(label)}</a>' for host, label in SITES.items())
        body = "".join(f"<p>{escape(p)}</p>" for p in page.paragraphs)
        related = "".join(f"<li>{escape(t)}</li>" for t in page.related)
        ad = _ADS[_number(self.seed, "ad", page.url) % len(_ADS)]
        if page.site == "openwiki.example":
            main = (f'<div id="content"><h1 id="firstHeading">{escape(page.title)}</h1>'
                    f'<div id="bodyContent"><div class="mw-parser-output">{body}</div></div></div>')
        else:
            main = f'<article><h1>{escape(page.title)}</h1><div class="content">{body}</div></article>'
        return (f'<!DOCTYPE html>\n<html lang="zh-CN"><head><meta charset="utf-8"><title>{escape(page.title)} - '
                f'{escape(name)}</title><link rel="canonical" href="{escape(page.url)}"></head><body>'
                f'<nav class="site-nav">{nav}</nav>{main}<aside class="related"><h2>相关文章</h2><ul>{related}</ul>'
                f'</aside><div class="ad">{escape(ad)}</div><footer>© {escape(name)} 版权所有 · 本站内容仅供参考'
                "</footer></body></html>")
