"""Search backends behind one interface, a result cache, and CDTP's search validation of triples.

* :class:`LocalBM25`: BM25 (bm25s's index, searched by verifiers.bm25) across every
  page of a crawl, one passage per summary or paragraph, Chinese segmented with jieba
  (bm25s's tokeniser takes a run of Chinese characters as one word). The offline
  default; it answers a batch of queries in one call (``search_many``), at a cost per
  query that does not grow with the corpus. Given a cache directory, the segmented passages
  are kept there under the corpus digest, so every stage that searches a crawl segments it once.
* :class:`HTTPSearch`: any JSON search API, e.g. a self-hosted SearxNG
  (``https://searx.example/search?q={query}&format=json``): results are read from
  ``results_key`` with ``url``, ``title`` and ``content`` fields.
* :class:`CachedSearch`: top-k results per (backend and corpus, query, k) in the
  catalog's ``search_cache`` table (warehouse.cache), so a rerun asks nothing twice.
  A backend's ``corpus`` says what its results depend on besides the query: for the
  local index, a digest of the passages it indexes (URL, title and text of each, read
  from the crawl's page shards); for a search API, its URL template and results field.
  A run over another corpus asks again; entries cached under an older key simply miss.

:class:`SearchValidator` keeps a triple when its head (or one of the head's
aliases) and its tail occur together in at least one of the top-k results for
``"<head> <tail>"``; with ``exclude_source`` the pair's own page does not count
(on a local index it would always agree: the triple was grounded in it).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import urllib.parse
import urllib.request
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Protocol

from filters.normalize import normalize
from warehouse.shards import iter_records


class SearchError(RuntimeError):
    """A search backend cannot be used; the message says what to fix."""


@dataclass(frozen=True, slots=True)  # one per passage of a crawl: no __dict__ each
class Hit:
    url: str
    title: str
    text: str
    score: float


class SearchBackend(Protocol):
    name: str
    corpus: str  # what the results depend on besides the query (part of the cache key)

    def search(self, query: str, k: int) -> list[Hit]:
        ...


def corpus_digest(passages: Iterable[Hit]) -> str:
    """What a local index holds, as a digest: every passage's URL, title and text. Fetch times, shard
    names and the order pages came in (concurrent crawls vary it) do not count, so a crawl that found the
    same pages again keeps its cached results, and any page added, removed or changed starts afresh."""
    digest = hashlib.sha256()
    for line in sorted(json.dumps([h.url, h.title, h.text], ensure_ascii=False) for h in passages):
        digest.update(line.encode("utf-8") + b"\n")
    return digest.hexdigest()[:16]


def _segment(text: str) -> str:
    from filters.align import _jieba

    return " ".join(w for w in _jieba().cut_for_search(text) if w.strip())


def _segmenter() -> str:
    """What segmented texts depend on besides the texts: the segmenter and its dictionary's version."""
    import jieba

    return f"jieba-{jieba.__version__}-cut_for_search-v1"


def _segments(texts: list[str], corpus: str, cache_dir: Path | None) -> list[str]:
    """``texts`` segmented for the index; with ``cache_dir``, read from (or written to) a file named by
    the corpus digest, so the stages of a run (and reruns) that search the same crawl segment it once:
    segmenting is most of an index build."""
    if cache_dir is None:
        return [_segment(t) for t in texts]
    import gzip

    path = Path(cache_dir) / f"{corpus}-{_segmenter()}.json.gz"
    try:
        cached = json.loads(gzip.decompress(path.read_bytes()))
        if isinstance(cached, list) and len(cached) == len(texts):
            return cached
    except (OSError, EOFError, ValueError):
        pass  # not there yet, or unreadable: segmented again and written anew
    segments = [_segment(t) for t in texts]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    tmp.write_bytes(gzip.compress(json.dumps(segments, ensure_ascii=False).encode("utf-8"), compresslevel=1))
    tmp.replace(path)
    return segments


class LocalBM25:
    """BM25 over the passages of crawled pages (page shards of the Page schema)."""

    def __init__(self, page_shards: list[Path], max_passages_per_page: int = 20, cache_dir: Path | None = None):
        from crawlers.urls import public_url
        from schemas import Page
        from verifiers.bm25 import BM25Index

        self.passages: list[Hit] = []
        for page in iter_records(page_shards, Page):
            if page.status != "ok":
                continue
            for text in [page.summary, *page.paragraphs][:max_passages_per_page]:
                if not text.strip():
                    continue
                # Public URLs, as pairs carry them: the source page is excluded by its pair's URL.
                url = public_url(page.canonical_url or page.url, page.source)
                self.passages.append(Hit(url, page.title, text, 0.0))
        if not self.passages:
            raise SearchError("the local search index is empty: the crawl has no content pages")
        # Indexed in one order whatever order the crawl met the pages in: passages of equal score come
        # back in this order (see search), so the results depend on the corpus only.
        self.passages.sort(key=lambda h: (h.url, h.text, h.title))
        self.name = "bm25-local"
        self.corpus = corpus_digest(self.passages)
        # Hits cached while passages carried fetch URLs (the mirror's port) would not match pairs' public URLs;
        # hits cached before ties were ordered came in the order of the crawl.
        self.cache_key = f"bm25-local:public-urls:ties-by-url@{self.corpus}"
        self._index = BM25Index(_segments([h.title + "。" + h.text for h in self.passages], self.corpus, cache_dir))

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many([query], k)[0]

    def search_many(self, queries: list[str], k: int) -> list[list[Hit]]:
        """The top k passages for each query, by BM25 score and then passage order (ties at the k-th
        place all weighed, see verifiers.bm25)."""
        if k < 1:
            return [[] for _ in queries]
        found = []
        for query in queries:
            ranked = self._index.top_k(self._index.tokens(_segment(query)), k)
            found.append([Hit(self.passages[index].url, self.passages[index].title, self.passages[index].text,
                              round(score, 6)) for index, score in ranked])
        return found


class HTTPSearch:
    """A JSON search API; url_template holds {query} (URL-encoded) and may hold {k}."""

    def __init__(self, url_template: str, results_key: str = "results", timeout_s: float = 20.0):
        if "{query}" not in url_template:
            raise SearchError(f"search URL {url_template!r} has no {{query}} placeholder")
        self.url_template, self.results_key, self.timeout_s = url_template, results_key, timeout_s
        self.name = f"http:{urllib.parse.urlsplit(url_template).netloc}"
        self.corpus = hashlib.sha256(f"{url_template}\0{results_key}".encode()).hexdigest()[:16]
        self.cache_key = f"{self.name}@{self.corpus}"

    def search(self, query: str, k: int) -> list[Hit]:
        url = self.url_template.replace("{query}", urllib.parse.quote(query)).replace("{k}", str(k))
        request = urllib.request.Request(url, headers={"Accept": "application/json", "User-Agent": "zhbench"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                data = json.loads(response.read().decode("utf-8"))
        except (OSError, ValueError) as exc:
            raise SearchError(f"search at {self.name} failed for {query!r}: {exc}") from exc
        results = data.get(self.results_key) if isinstance(data, dict) else None
        if not isinstance(results, list):
            raise SearchError(f"search at {self.name} answered without a {self.results_key!r} list; "
                              "set search.results_key to the field that holds the results")
        return [Hit(str(r.get("url", "")), str(r.get("title", "")), str(r.get("content") or r.get("snippet") or ""),
                    float(r.get("score") or 0.0)) for r in results[:k] if isinstance(r, dict)]


def search_many(backend: SearchBackend, queries: list[str], k: int) -> list[list[Hit]]:
    """Each query's top k: in one call where the backend answers many at once, else one by one."""
    many = getattr(backend, "search_many", None)
    return many(queries, k) if many is not None else [backend.search(q, k) for q in queries]


class CachedSearch:
    def __init__(self, backend: SearchBackend, catalog_path: Path):
        from warehouse.cache import SEARCH_CACHE, CatalogCache

        self.backend, self.name = backend, backend.name
        # the cache's backend column: what the results depend on besides the query and k
        self.key = getattr(backend, "cache_key", None) or f"{backend.name}@{getattr(backend, 'corpus', '')}"
        self.cache = CatalogCache(catalog_path, SEARCH_CACHE)
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def prefetch(self, queries: Iterable[str], k: int) -> None:
        """Read the cached results of a batch of queries at once (see CatalogCache.prefetch)."""
        self.cache.prefetch((self.key, q, k) for q in queries)

    def _cached(self, query: str, k: int) -> list[Hit] | None:
        cached = self.cache.get((self.key, query, k))
        try:
            return [Hit(**h) for h in json.loads(cached[0])] if cached is not None else None
        except (ValueError, TypeError):
            return None  # an entry this code cannot read: ask again

    @staticmethod
    def _entry(found: list[Hit]) -> tuple[str]:
        return (json.dumps([{"url": h.url, "title": h.title, "text": h.text, "score": h.score} for h in found],
                           ensure_ascii=False),)

    def search(self, query: str, k: int) -> list[Hit]:
        found = self._cached(query, k)
        if found is not None:
            with self._lock:
                self.hits += 1
            return found
        with self._lock:
            self.misses += 1
        found = self.backend.search(query, k)
        self.cache.put((self.key, query, k), self._entry(found))
        return found

    def search_many(self, queries: list[str], k: int) -> list[list[Hit]]:
        """search() for a batch: one catalog read for the cached results, the others asked of the backend
        at once where it can answer many (one journal append for them all), else one by one (each journaled
        as it arrives). Counted as search() one query after the other would count them: a query that comes
        again in the batch is a cache hit."""
        self.prefetch(queries, k)
        answers: dict[str, list[Hit]] = {}
        for query in dict.fromkeys(queries):
            found = self._cached(query, k)
            if found is not None:
                answers[query] = found
        missing = [q for q in dict.fromkeys(queries) if q not in answers]
        if missing and hasattr(self.backend, "search_many"):
            answers.update(zip(missing, self.backend.search_many(missing, k)))
            self.cache.put_many({(self.key, q, k): self._entry(answers[q]) for q in missing})
        else:
            for query in missing:
                answers[query] = self.backend.search(query, k)
                self.cache.put((self.key, query, k), self._entry(answers[query]))
        with self._lock:
            self.misses += len(missing)
            self.hits += len(queries) - len(missing)
        return [answers[q] for q in queries]

    def close(self) -> None:
        self.cache.close()


@dataclass(frozen=True)
class Support:
    ok: bool
    urls: tuple[str, ...]


class SearchValidator:
    def __init__(self, backend: SearchBackend, k: int = 10, exclude_source: bool = True):
        self.backend, self.k, self.exclude_source = backend, k, exclude_source
        # A passage comes back for many queries (every triple of its page, of pages naming it): normalised once.
        self._text = lru_cache(maxsize=1 << 16)(lambda title, text: normalize(title + "。" + text))

    @staticmethod
    def query(head: str, tail: str) -> str:
        return f"{head} {tail}"

    def check(self, head: str, aliases: Iterable[str], tail: str, source_url: str = "") -> Support:
        return self.check_many([(head, aliases, tail, source_url)])[0]

    def check_many(self, claims: list[tuple[str, Iterable[str], str, str]]) -> list[Support]:
        """check() for each (head, aliases, tail, source URL), the searches made in one batch."""
        results = search_many(self.backend, [self.query(head, tail) for head, _, tail, _ in claims], self.k)
        return [self._support(hits, *claim) for hits, claim in zip(results, claims)]

    def _support(self, hits: list[Hit], head: str, aliases: Iterable[str], tail: str, source_url: str) -> Support:
        names = [normalize(n) for n in (head, *aliases) if n]
        value = normalize(tail)
        urls = []
        for hit in hits:
            if self.exclude_source and source_url and hit.url == source_url:
                continue
            text = self._text(hit.title, hit.text)
            if value and value in text and any(n in text for n in names):
                if hit.url not in urls:
                    urls.append(hit.url)
        return Support(bool(urls), tuple(urls))
