"""An offline difficulty estimate for items: how rare the entity and the relation are in the crawl.

No model answers anything here, so this is a proxy, and it is named one wherever it is shown.
Chinese SimpleQA (section 3.2) keeps questions that strong models get wrong; without a model,
the best offline sign of that is obscurity: long-tail entities and rarely stated relations are
what models know least. Three signals, each turned into a percentile rank over the crawl so
the scale does not depend on corpus size:

* **in-links**: how many other pages of the crawl link to the entity's title (a popular entity
  is linked from many pages);
* **page length**: characters of the entity's page (summary and paragraphs; famous entities have
  long pages);
* **relation frequency**: how many pages give the relation (国籍 is everywhere, 湖面海拔 is not).

``difficulty = mean(1 - percentile)`` over the signals that apply, in [0, 1], higher meaning
rarer and so, by the proxy, harder. The same crawl gives the same scores.
"""

from __future__ import annotations

import copy
from collections import Counter, defaultdict
from pathlib import Path
from typing import Iterable

import numpy as np

from schemas import Page
from schemas.storage.shards import iter_records

SIGNALS = ("in_links", "page_length", "relation_frequency")
DESCRIPTION = ("offline proxy, not a measured model accuracy: mean rarity (1 - percentile rank in the crawl) "
               "of the entity's in-links, its page length and the relation's frequency")


class Percentiles:
    """The mid-rank percentile of a value among a sample (ties share one rank), in [0, 1]. The sample, a
    value per page of the crawl, is held as one sorted array, not as a list of Python numbers."""

    def __init__(self, values: Iterable[float]):
        self.values = np.sort(np.fromiter(values, dtype=np.float64))

    def __call__(self, value: float) -> float:
        n = len(self.values)
        if not n:
            return 0.5
        below = int(np.searchsorted(self.values, value, side="left"))
        upto = int(np.searchsorted(self.values, value, side="right"))
        return (below + upto) / (2 * n)


class DifficultyProxy:
    def __init__(self, in_links: dict[str, int], page_length: dict[tuple[str, str], int],
                 relation_pages: dict[str, int]):
        """``in_links``: title -> linking pages; ``page_length``: (title, sense) -> characters;
        ``relation_pages``: relation -> pages giving it."""
        self.in_links, self.page_length, self.relation_pages = in_links, page_length, relation_pages
        self._longest: dict[str, int] = {}
        for (title, _), n in page_length.items():
            self._longest[title] = max(n, self._longest.get(title, 0))
        titles = self._longest
        self._links = Percentiles(in_links.get(t, 0) for t in titles)
        self._length = Percentiles(page_length.values())
        self._relation = Percentiles(relation_pages.values())

    @classmethod
    def from_pages(cls, page_shards: list[Path]) -> "DifficultyProxy":
        """The three signals from a crawl's page records (content pages only).

        In-links are counted for the crawl's own titles only: items are asked about those (a pair's
        entity is its page's title). Most titles a crawl links to have no page in it; counting them
        would hold one entry each for nothing.
        """
        from filters.triples import extract_triples, relation_aliases

        titles, repeated = _titles_and_repeated_sources(page_shards)
        aliases = relation_aliases()
        in_links: Counter = Counter()
        # The linked titles of a page whose URL has several records (fetched twice): a page counts once.
        linked_by: dict[str, set[str]] = defaultdict(set)
        length: dict[tuple[str, str], int] = {}
        relations: Counter = Counter()
        for page in iter_records(page_shards, Page):
            if page.status != "ok" or not page.title:
                continue
            key = (page.title, page.subtitle or "")
            length[key] = max(length.get(key, 0), len(page.summary) + sum(len(p) for p in page.paragraphs))
            targets = {target for target in ((link or {}).get("title") or "" for link in page.links)
                       if target in titles and target != page.title}
            source = page.canonical_url or page.url
            if source in repeated:
                linked_by[source] |= targets
            else:
                in_links.update(targets)
            relations.update({t.relation for t in extract_triples(page, aliases)})
        for targets in linked_by.values():
            in_links.update(targets)
        return cls(dict(in_links), length, dict(relations))

    def restricted(self, heads: Iterable[str]) -> "DifficultyProxy":
        """A proxy that scores the items about ``heads`` as this one does, holding the entries of those
        titles only: the percentiles, which come from every page, are shared. An item build scores the
        entities of the kept pairs only (1,195 pairs of an 84k-page crawl)."""
        wanted = set(heads)
        proxy = copy.copy(self)  # the percentiles and the relations' counts stay shared
        proxy.in_links = {t: n for t, n in self.in_links.items() if t in wanted}
        proxy.page_length = {key: n for key, n in self.page_length.items() if key[0] in wanted}
        proxy._longest = {t: n for t, n in self._longest.items() if t in wanted}
        return proxy

    def signals(self, head: str, sense: str, relation: str) -> dict[str, float]:
        """Each signal's rarity (1 - percentile) for an item about ``head`` (in ``sense``) and ``relation``."""
        out = {"in_links": 1 - self._links(self.in_links.get(head, 0))}
        length = self.page_length.get((head, sense or ""))
        if length is None:  # the pair's sense is not a page's subtitle: the longest page of the title
            length = self._longest.get(head)
        if length is not None:
            out["page_length"] = 1 - self._length(length)
        if relation:
            out["relation_frequency"] = 1 - self._relation(self.relation_pages.get(relation, 0))
        return out

    def score(self, head: str, sense: str, relation: str) -> float:
        values = self.signals(head, sense, relation)
        return round(sum(values.values()) / len(values), 4)


def _titles_and_repeated_sources(page_shards: list[Path]) -> tuple[set[str], set[str]]:
    """The titles of the crawl's content pages, and the page URLs (canonical where known) that more
    than one content page record has; read from four columns, not the records."""
    import pyarrow.parquet as pq

    titles: set[str] = set()
    sources: set[str] = set()
    repeated: set[str] = set()
    for path in page_shards:
        parquet = pq.ParquetFile(path, pre_buffer=False)
        for batch in parquet.iter_batches(columns=["status", "title", "canonical_url", "url"]):
            columns = batch.to_pydict()
            for status, title, canonical, url in zip(columns["status"], columns["title"], columns["canonical_url"],
                                                     columns["url"]):
                if status != "ok" or not title:
                    continue
                titles.add(title)
                source = canonical or url
                if source in sources:
                    repeated.add(source)
                sources.add(source)
    return titles, repeated
