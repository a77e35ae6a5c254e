"""Web search on the bundled mirror, answered exactly as a SearXNG instance answers ``/search?format=json``.

The pipeline's search backend (verifiers.searxng.SearxNG) talks to any SearXNG instance; the mirror plays one,
so an offline run exercises the same client, URL form and JSON reply as a run against a real instance.

What it searches: :class:`Document`\\ s, the main text of the pages of the fictional web sites the mirror
hosts, each under its public URL (``https://baike.example/item/…``). They come from a callable and are read
on the first query, so the server starts at once.

How it ranks: one passage per paragraph, ``title + "。" + paragraph`` (as verifiers.search.LocalBM25 indexes a
crawl), segmented with jieba's ``cut_for_search`` (bm25s's own tokeniser would take a run of Chinese characters
as one word) and scored with BM25 by bm25s (its default Lucene variant). A page is one result, at its best
passage's score; pages of equal score come in passage order, so a corpus and a query always give the same
results. Passages that share no word with the query (score 0) are never returned. A result's ``content`` is its
best paragraph, or for a long one a window of about :data:`SNIPPET_CHARS` characters around the query's first
word found in it, as a search engine's snippet is. A quoted part of the query ("李白" 出生日期) must occur in a
passage for it to be found, as search engines take quotes (a name cut into single characters by the
segmenter would otherwise weigh less than a common word beside it).
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from dataclasses import dataclass
from typing import Callable, Iterable
from urllib.parse import urlparse

ENGINE = "mirror-bm25"  # the engine name every result carries, as SearXNG names the engine that found it
PAGE_SIZE = 10  # results per page, as SearXNG's general engines return them
SNIPPET_CHARS = 300  # about the longest content a result carries

# What bm25s's tokeniser keeps of a text (verifiers.bm25.TOKEN_PATTERN): jieba's punctuation and spaces go.
_TOKEN = re.compile(r"(?u)\b\w+\b")
# A number a snippet must not cut: 701, 1,234.5, 3.14, 12:30 (full-width digits and separators too).
_NUMBER = re.compile(r"\d+(?:[.,:．，：]\d+)*")
# A quoted part of a query ("李白" 出生日期, or in Chinese quotes): results must hold it, as engines require.
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
# Where a sentence ends: a snippet of a long paragraph starts after one when it can.
_SENTENCE_END = re.compile(r"[。！？；!?;]")


@dataclass(frozen=True, slots=True)
class Document:
    """One web page: its public URL, title, the site's host and its main-text paragraphs (no navigation, ads)."""

    url: str
    title: str
    site: str
    paragraphs: tuple[str, ...]


def _jieba():
    import jieba

    jieba.setLogLevel(60)  # it reports loading its dictionary on stderr otherwise
    jieba.initialize()
    return jieba


def _tokens(text: str) -> list[str]:
    """The index's words of ``text``: jieba's search-engine segmentation (whole words and their parts), lower
    case, punctuation dropped."""
    segmented = " ".join(w for w in _jieba().cut_for_search(text) if w.strip())
    return _TOKEN.findall(segmented.lower())


def snippet(paragraph: str, words: Iterable[str], limit: int = SNIPPET_CHARS) -> str:
    """``paragraph`` whole when it is at most ``limit`` characters, else a window of about ``limit`` around the
    first of ``words`` found in it (its start when none is): the word kept whole, starting after a sentence end
    where one is near before it, and widened rather than cutting a number in two."""
    if len(paragraph) <= limit:
        return paragraph
    at, length = 0, 0
    for word in words:
        found = re.search(re.escape(word), paragraph, re.IGNORECASE)
        if found:
            at, length = found.start(), found.end() - found.start()
            break
    lead = limit // 3  # context before the word
    start = max(0, at - lead)
    sentence_ends = [m.end() for m in _SENTENCE_END.finditer(paragraph, max(0, at - 2 * lead), at)]
    if sentence_ends:
        start = sentence_ends[-1]
    end = min(len(paragraph), max(start + limit, at + length))
    if end - start < limit:  # near the paragraph's end: show more of what comes before
        start = max(0, end - limit)
    for number in _NUMBER.finditer(paragraph):
        if number.start() < start < number.end():
            start = number.start()
        if number.start() < end < number.end():
            end = number.end()
    return paragraph[start:end]


class _Index:
    """The BM25 index of a set of documents, one passage per paragraph."""

    def __init__(self, documents: Iterable[Document]):
        import bm25s

        logging.getLogger("bm25s").setLevel(logging.WARNING)  # bm25s sets it to DEBUG when imported

        self.urls: list[str] = []  # each page's URL, by page number
        self.pages: list[Document] = []
        self.passages: list[tuple[int, str]] = []  # (page number, paragraph), in document order
        seen: dict[str, int] = {}
        for document in documents:
            page = seen.setdefault(document.url, len(self.pages))
            if page == len(self.pages):
                self.pages.append(document)
            self.passages.extend((page, p) for p in document.paragraphs if p.strip())
        self.model = None
        self.texts = [(self.pages[page].title + "。" + paragraph).lower() for page, paragraph in self.passages]
        if self.passages:
            tokens = [_tokens(text) for text in self.texts]
            self.model = bm25s.BM25()
            self.model.index(tokens, show_progress=False)

    def ranked(self, words: list[str], phrases: tuple[str, ...] = ()) -> list[tuple[int, float]]:
        """(passage number, score) of each page's best passage for the query ``words``, best first, pages of
        equal score in passage order; passages of score 0 left out, and passages without every one of
        ``phrases`` (the query's quoted parts, as a search engine requires them)."""
        import numpy as np

        ids = self.model.get_tokens_ids(words) if self.model is not None else []
        if not ids:
            return []
        scores = self.model.get_scores_from_ids(ids)
        found = np.flatnonzero(scores > 0)
        if phrases:  # looked for in the passages that score only: a scan of every passage cost most of a query
            texts, kept = self.texts, found.tolist()
            for phrase in phrases:
                kept = [i for i in kept if phrase in texts[i]]
            found = np.array(kept, dtype=found.dtype)
        order = found[np.lexsort((found, -scores[found]))]  # score descending, then passage number
        best: dict[int, tuple[int, float]] = {}
        for passage in order.tolist():
            best.setdefault(self.passages[passage][0], (passage, float(scores[passage])))
        return list(best.values())


class MirrorSearch:
    """SearXNG's ``/search`` JSON API over the documents ``documents()`` yields, indexed on the first query.

    The index is built once, under a lock (the mirror serves requests on many threads); documents changed after
    that (Site.edit) are searched as they were.
    """

    def __init__(self, documents: Callable[[], Iterable[Document]]):
        if not callable(documents):
            raise ValueError(f"documents must be a callable that returns the documents, got {documents!r}")
        self._documents = documents
        self._index: _Index | None = None
        self._lock = threading.Lock()
        # A query's ranking is kept for its next pages: a client pages through the same ranking.
        self._ranked = functools.lru_cache(maxsize=256)(self._rank)

    def index(self) -> _Index:
        """The index, built on first use."""
        if self._index is None:
            with self._lock:
                if self._index is None:
                    self._index = _Index(self._documents())
        return self._index

    def _rank(self, query: str) -> tuple[tuple[int, float], ...]:
        phrases = tuple(p.lower() for found in _QUOTED.findall(query) for p in found if p.strip())
        return tuple(self.index().ranked(_tokens(query), phrases))

    def _result(self, passage: int, score: float, words: list[str], position: int) -> dict:
        """A result object as SearXNG's JSON holds one (2024: its fields, their names and types)."""
        index = self.index()
        page, paragraph = index.passages[passage]
        document = index.pages[page]
        return {
            "url": document.url,
            "title": document.title,
            "content": snippet(paragraph, words),
            "engine": ENGINE,
            "parsed_url": list(urlparse(document.url)),
            "template": "default.html",
            "engines": [ENGINE],
            "positions": [position],  # SearXNG numbers an engine's results within the page it answered
            "publishedDate": None,
            "score": round(score, 6),
            "category": "general",
        }

    def answer(self, query: dict[str, list[str]]) -> tuple[int, dict]:
        """The status and JSON object of ``GET /search`` with the parameters ``query`` (as parse_qs gives them).

        ``q`` is required and ``format`` must be ``json``; ``pageno`` (1-based, :data:`PAGE_SIZE` results a page)
        picks the page, past the last one an empty list. ``language``, ``categories``, ``safesearch`` and
        ``time_range`` are accepted and change nothing. Errors are 400 with ``{"error": …}``, as SearXNG's."""
        output = (query.get("format") or [""])[0]
        if output != "json":
            asked = f"format={output}" if output else "no format parameter"
            return 400, {"error": f"this mirror answers format=json only (the request has {asked}): "
                                  "add format=json to the query string"}
        text = (query.get("q") or [""])[0]
        if not text.strip():
            return 400, {"error": "No query: pass the search words in the q parameter (/search?q=…&format=json)"}
        page_text = (query.get("pageno") or ["1"])[0]
        if not (page_text.isascii() and page_text.isdigit()) or int(page_text) < 1:
            return 400, {"error": f'Invalid value "{page_text}" for parameter pageno (a page number from 1)'}
        page = int(page_text)
        ranked = self._ranked(text)
        words = _tokens(text)
        shown = ranked[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
        return 200, {
            "query": text,
            "number_of_results": len(ranked),
            "results": [self._result(passage, score, words, position)
                        for position, (passage, score) in enumerate(shown, 1)],
            "answers": [],
            "corrections": [],
            "infoboxes": [],
            "suggestions": [],
            "unresponsive_engines": [],
        }
