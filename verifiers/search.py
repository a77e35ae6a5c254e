"""Search backends behind one interface, a result cache, and CDTP's search validation of triples.

* :class:`LocalBM25`: BM25 (bm25s's index, searched by verifiers.bm25) across every
  page of a crawl, one passage per summary or paragraph, Chinese segmented with jieba
  (bm25s's tokeniser takes a run of Chinese characters as one word). The offline
  default; it answers a batch of queries in one call (``search_many``), at a cost per
  query that does not grow with the corpus. Given a cache directory, the segmented passages
  are kept there under the corpus digest, so every stage that searches a crawl segments it once.
* :class:`verifiers.searxng.SearxNG`: a SearXNG instance (the self-hosted meta-search engine), given its
  root address: a real one, or the bundled mirror's ``/search``, which answers in the same JSON.
* :class:`HTTPSearch`: any other JSON search API, by a URL template
  (``https://search.example/api?q={query}&n={k}``): results are read from
  ``results_key`` with ``url``, ``title`` and ``content`` fields.
* :class:`CachedSearch`: top-k results per (backend and corpus, query, k) in the
  catalog's ``search_cache`` table (schemas.storage.cache), so a rerun asks nothing twice:
  each hit whole, or for the local index, each passage's position in its corpus
  and its score (a tenth of the size: the passages are in the index).
  A backend's ``corpus`` says what its results depend on besides the query: for the
  local index, a digest of the passages it indexes (URL, title and text of each, read
  from the crawl's page shards); for a search API, its URL template and results field;
  for SearXNG, what the caller says it searches, else its address.
  A run over another corpus asks again; entries cached under an older key simply miss.

:class:`SearchValidator` keeps a triple when one of the top-k results for ``"<head>" <relation>`` is about the
head and holds the tail: a page titled by the head (or an alias), or a sentence that names the head, holds the tail
and expresses the relation; with ``exclude_source`` the pair's own page does not count (on a local index it would
always agree: the triple was grounded in it).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import urllib.parse
import urllib.request
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator, Protocol, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from filters.normalize import normalize, value_forms
from filters.statements import sentences
from filters.text import segmenter
from schemas.records import Hit


_SEGMENTS = pa.schema([("segments", pa.string())])  # a local index's segmented passages, as cached


class SearchError(RuntimeError):
    """A search backend cannot be used; the message says what to fix."""


class SearchBackend(Protocol):
    name: str
    corpus: str  # what the results depend on besides the query (part of the cache key)

    def search(self, query: str, k: int) -> list[Hit]:
        ...


def corpus_digest(passages: Iterable[Hit]) -> str:
    """What a local index holds, as a digest: every passage's URL, title and text. Fetch times, shard
    names and the order pages came in (concurrent crawls vary it) do not count, so a crawl that found the
    same pages again keeps its cached results, and any page added, removed or changed starts afresh.
    (The definition; LocalBM25 computes the same digest out of core, see verifiers.passages.)"""
    from verifiers.passages import digest_line

    digest = hashlib.sha256()
    for line in sorted(digest_line(h.url, h.title, h.text) for h in passages):
        digest.update(line.encode("utf-8") + b"\n")
    return digest.hexdigest()[:16]


def _segment(text: str) -> str:
    return " ".join(w for w in segmenter().cut_for_search(text) if w.strip())


def _segmenter() -> str:
    """What segmented texts depend on besides the texts: the segmenter and its dictionary's version."""
    import jieba

    return f"jieba-{jieba.__version__}-cut_for_search-v1"


class _UnreadableCache(Exception):
    """The cached segments could not be read to their end."""


def _cached_segments(path: Path, count: int) -> Iterator[str] | None:
    """The segmented passages kept at ``path``, read a batch at a time; None when the file is missing or
    is not ``count`` of them."""
    try:
        parquet = pq.ParquetFile(path, pre_buffer=False)
        if parquet.metadata.num_rows != count or parquet.schema_arrow != _SEGMENTS:
            return None
    except (OSError, pa.ArrowException):
        return None

    def read() -> Iterator[str]:
        try:
            for batch in parquet.iter_batches(batch_size=4096):
                yield from batch.column(0).to_pylist()
        except (OSError, pa.ArrowException) as error:
            raise _UnreadableCache(f"{path}: {error}") from error

    return read()


def _segmenting(texts: Iterable[str], path: Path | None) -> Iterator[str]:
    """Each text segmented for the index; with ``path``, also written there (whole or not at all) for the
    stages of a run, and reruns, that search the same crawl: segmenting is most of an index build."""
    if path is None:
        for text in texts:
            yield _segment(text)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        with pq.ParquetWriter(tmp, _SEGMENTS, compression="zstd") as writer:
            batch: list[str] = []
            for text in texts:
                batch.append(_segment(text))
                yield batch[-1]
                if len(batch) == 4096:
                    writer.write_batch(pa.record_batch([pa.array(batch, pa.string())], schema=_SEGMENTS))
                    batch = []
            if batch:
                writer.write_batch(pa.record_batch([pa.array(batch, pa.string())], schema=_SEGMENTS))
        tmp.replace(path)
        # The same segments in the format of earlier versions (one gzip'd JSON list), read by none now.
        path.with_name(path.name.removesuffix(".parquet") + ".json.gz").unlink(missing_ok=True)
    finally:
        tmp.unlink(missing_ok=True)


class Passages(Sequence[Hit]):
    """A local index's passages as hits of score 0, read from its passage file by position."""

    def __init__(self, store):
        self._store = store

    def __len__(self) -> int:
        return len(self._store)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return Hit(*self._store[index], 0.0)

    def __iter__(self) -> Iterator[Hit]:
        return (Hit(url, title, text, 0.0) for url, title, text in self._store)


class LocalBM25:
    """BM25 over the passages of crawled pages (page shards of the Page schema).

    Without ``cache_dir``, the index is built in memory and its passages kept in a file under ``work_dir``
    (the system's temporary directory when None), removed by :meth:`close`; sorting them holds DuckDB to
    ``memory_limit``. With ``cache_dir``, the index is kept there: see :class:`_SavedIndexes`."""

    def __init__(self, page_shards: list[Path], max_passages_per_page: int = 20, cache_dir: Path | None = None,
                 work_dir: Path | None = None, memory_limit: str = "64MB"):
        from verifiers.bm25 import BM25Index
        from verifiers.passages import PassageFile

        saved = _SavedIndexes(Path(cache_dir)) if cache_dir is not None else None
        opened = saved.by_sources(page_shards, max_passages_per_page) if saved else None
        if opened is None:
            store = PassageFile.build(page_shards, max_passages_per_page, work_dir, memory_limit)
            if store is None:
                raise SearchError("the local search index is empty: the crawl has no content pages")
            opened = saved.by_digest(store.digest) if saved else None
            if opened is not None:
                store.close()
            else:
                path = saved.segments(store.digest) if saved else None
                index = None
                cached = _cached_segments(path, len(store)) if path is not None else None
                if cached is not None:
                    try:
                        index = BM25Index(cached)
                    except _UnreadableCache:
                        pass  # segmented again below, and the file replaced
                if index is None:
                    index = BM25Index(_segmenting((title + "。" + text for _, title, text in store), path))
                opened = saved.save(store, index) if saved else (store, index)
            if saved:
                saved.remember(page_shards, max_passages_per_page, opened[0].digest)
        # Sorted by (URL, text, title) whatever order the crawl met the pages in: passages of equal score
        # come back in this order (see search), so the results depend on the corpus only.
        self._store, self._index = opened
        self.passages = Passages(self._store)
        self.name = "bm25-local"
        self.corpus = self._store.digest
        # Hits cached while passages carried fetch URLs (the mirror's port) would not match pairs' public URLs;
        # hits cached before ties were ordered came in the order of the crawl; hits cached whole (each
        # passage's text, 2.2 KB an entry) before entries named passages by their place in the corpus.
        self.cache_key = f"bm25-local:public-urls:ties-by-url:positions@{self.corpus}"

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many([query], k)[0]

    def search_many(self, queries: list[str], k: int) -> list[list[Hit]]:
        """The top k passages for each query, by BM25 score and then passage order (ties at the k-th
        place all weighed, see verifiers.bm25)."""
        return [self.hits(ranked) for ranked in self.ranked_many(queries, k)]

    def ranked_many(self, queries: list[str], k: int) -> list[list[tuple[int, float]]]:
        """search_many's answers as (passage position, score) pairs: what the cache keeps of them, since the
        corpus digest in its key fixes every passage's position."""
        if k < 1:
            return [[] for _ in queries]
        return [[(index, round(score, 6)) for index, score in self._index.top_k(self._index.tokens(_segment(q)), k)]
                for q in queries]

    def hits(self, ranked) -> list[Hit]:
        """The passages at the positions of ``ranked`` ((position, score) pairs); ValueError for a pair that is
        not one (a position out of the corpus, a score that is not a number)."""
        found = []
        for position, score in ranked:
            if type(position) is not int or not 0 <= position < len(self._store) \
                    or type(score) not in (int, float):
                raise ValueError(f"not a passage of this corpus and its score: {position!r}, {score!r}")
            found.append(Hit(*self._store[position], float(score)))
        return found

    def close(self) -> None:
        """Removes the passage file; the index answers no more searches."""
        self._store.close()


class _SavedIndexes:
    """Local indexes kept in a cache directory, each in ``index-<corpus digest>-<segmenter>/``: the passage
    file, the postings (memory-mapped when opened) and the vocabulary. The stages of a run that search the
    same crawl (verify, then the items' evidence check) and its reruns build it once; the ones after open
    it, and read from disk only the postings their queries need.

    * ``sources-<key>.json`` names the corpus digest of a list of page shards, by their paths, sizes and
      modification times: an unchanged crawl is opened without reading its pages again. A crawl whose files
      changed is read again, and its digest decides whether its index is already here.
    * ``<digest>-<segmenter>.parquet``: the segmented passages, from which a lost index is built again
      without segmenting.
    * The newest :data:`KEEP` indexes (by last use) stay; older ones go, their segments with them.
    * A directory is written under a temporary name and renamed whole: a reader sees all of it or none,
      and of two processes saving the same index, the second uses the first's."""

    KEEP = 3
    SOURCES_FORMAT = 1  # bump when page_passages changes what a crawl's passages are

    def __init__(self, directory: Path):
        self.directory = directory

    def _index_dir(self, digest: str) -> Path:
        return self.directory / f"index-{digest}-{_segmenter()}"

    def segments(self, digest: str) -> Path:
        return self.directory / f"{digest}-{_segmenter()}.parquet"

    def _sources_path(self, page_shards: list[Path], max_per_page: int) -> Path | None:
        try:
            shards = [[str(Path(p).resolve()), (st := Path(p).stat()).st_size, st.st_mtime_ns] for p in page_shards]
        except OSError:
            return None  # a shard that cannot be read: the build says which
        key = json.dumps([self.SOURCES_FORMAT, max_per_page, shards], ensure_ascii=False)
        return self.directory / f"sources-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:16]}.json"

    def by_sources(self, page_shards: list[Path], max_per_page: int):
        path = self._sources_path(page_shards, max_per_page)
        try:
            digest = json.loads(path.read_text(encoding="utf-8"))["digest"] if path else None
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return self.by_digest(digest) if isinstance(digest, str) else None

    def remember(self, page_shards: list[Path], max_per_page: int, digest: str) -> None:
        path = self._sources_path(page_shards, max_per_page)
        if path is None:
            return
        tmp = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
        try:
            tmp.write_text(json.dumps({"digest": digest}), encoding="utf-8")
            tmp.replace(path)
        except OSError:
            tmp.unlink(missing_ok=True)  # only a later run's shortcut is lost

    def by_digest(self, digest: str):
        """(passages, index) kept for ``digest``, or None."""
        from verifiers.bm25 import BM25Index
        from verifiers.passages import PassageFile

        directory = self._index_dir(digest)
        if not directory.is_dir():
            return None
        try:
            store = PassageFile.open(directory)
            index = BM25Index.open(directory)
        except ValueError:
            return None  # built again and saved anew
        if store.digest != digest or index.size != len(store):
            store.close()
            return None
        try:
            os.utime(directory / "index.json")  # last used, for pruning
        except OSError:
            pass
        return store, index

    def save(self, store, index):
        """Keeps a freshly built index, and returns it as opened from here (the built one's arrays freed),
        or as built when it cannot be kept."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self._remove_orphans()
        final = self._index_dir(store.digest)
        tmp = self.directory / f".index-{store.digest}.{os.getpid()}-{threading.get_ident()}.tmp"
        moved = False
        try:
            tmp.mkdir()
            index.save(tmp)
            store.keep(tmp)
            moved = True
            tmp.rename(final)
        except OSError:
            opened = self.by_digest(store.digest)  # saved by another process meanwhile
            if opened is not None:
                store.close()
            if opened is not None or not moved:
                shutil.rmtree(tmp, ignore_errors=True)
            # Else the passages are read from tmp, removed once this process is gone (_remove_orphans).
            return opened or (store, index)
        opened = self.by_digest(store.digest)
        if opened is None:
            return store, index
        store.close()
        self._prune(keep=final)
        return opened

    def _prune(self, keep: Path) -> None:
        def used(path: Path) -> float:
            try:
                return (path / "index.json").stat().st_mtime
            except OSError:
                return 0.0

        indexes = sorted((p for p in self.directory.glob("index-*") if p.is_dir() and p != keep), key=used,
                         reverse=True)
        gone = {old.name.split("-")[1]: old for old in indexes[self.KEEP - 1:]}  # digest -> its directory
        for digest, old in gone.items():
            shutil.rmtree(old, ignore_errors=True)
            for segments in self.directory.glob(f"{digest}-*.parquet"):
                segments.unlink(missing_ok=True)
        for sources in self.directory.glob("sources-*.json") if gone else ():
            try:
                stale = json.loads(sources.read_text(encoding="utf-8")).get("digest") in gone
            except (OSError, ValueError, AttributeError):
                stale = True
            if stale:
                sources.unlink(missing_ok=True)

    def _remove_orphans(self) -> None:
        """Half-written index directories of processes that are gone."""
        from schemas.storage.catalog import process_alive

        for tmp in self.directory.glob(".index-*.tmp"):
            pid = tmp.name.rsplit(".", 2)[-2].split("-")[0]
            if pid.isdigit() and not process_alive(int(pid)):
                shutil.rmtree(tmp, ignore_errors=True)


def asked_at_once(search, queries: list[str], k: int, concurrency: int) -> list[list[Hit]]:
    """``search(query, k)`` for each query, up to ``concurrency`` of them in flight (a web search answers in
    tens of milliseconds to seconds, most of it waiting): the answers in the queries' order. The first error
    (in the queries' order) raises once the searches in flight have ended; those not started are not asked.
    The searching threads are daemons: a Ctrl-C or SIGTERM meanwhile ends the wait at once, and the process
    does not wait for a search service that hangs before it exits."""
    if concurrency <= 1 or len(queries) <= 1:
        return [search(q, k) for q in queries]
    answers: list = [None] * len(queries)
    errors: dict[int, BaseException] = {}
    upcoming = iter(range(len(queries)))
    lock, failed = threading.Lock(), threading.Event()

    def work() -> None:
        while not failed.is_set():
            with lock:
                index = next(upcoming, None)
            if index is None:
                return
            try:
                answers[index] = search(queries[index], k)
            except Exception as exc:  # noqa: BLE001 - raised in the caller's thread below
                errors[index] = exc
                failed.set()

    workers = [threading.Thread(target=work, name="zhbench-search", daemon=True)
               for _ in range(min(concurrency, len(queries)))]
    for worker in workers:
        worker.start()
    try:
        for worker in workers:
            worker.join()
    except BaseException:
        failed.set()  # the searches not started are not asked; those in flight end on their own
        raise
    if errors:
        raise errors[min(errors)]
    return answers


class HTTPSearch:
    """A JSON search API; url_template holds {query} (URL-encoded) and may hold {k}."""

    def __init__(self, url_template: str, results_key: str = "results", timeout_s: float = 20.0,
                 concurrency: int = 1):
        if "{query}" not in url_template:
            raise SearchError(f"search URL {url_template!r} has no {{query}} placeholder")
        if concurrency < 1:
            raise ValueError(f"concurrency must be 1 or more, got {concurrency}")
        self.url_template, self.results_key, self.timeout_s = url_template, results_key, timeout_s
        self.concurrency = concurrency
        self.name = f"http:{urllib.parse.urlsplit(url_template).netloc}"
        self.corpus = hashlib.sha256(f"{url_template}\0{results_key}".encode()).hexdigest()[:16]
        self.cache_key = f"{self.name}@{self.corpus}"

    def close(self) -> None:
        """Nothing is held open between searches."""

    def search_many(self, queries: list[str], k: int) -> list[list[Hit]]:
        """search() for each query, ``concurrency`` at a time."""
        return asked_at_once(self.search, queries, k, self.concurrency)

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
    WEB_PART = 64  # queries to a web search journaled together

    def __init__(self, backend: SearchBackend, catalog_path: Path):
        from schemas.storage.cache import SEARCH_CACHE, CatalogCache

        self.backend, self.name = backend, backend.name
        # the cache's backend column: what the results depend on besides the query and k
        self.key = getattr(backend, "cache_key", None) or f"{backend.name}@{getattr(backend, 'corpus', '')}"
        self.cache = CatalogCache(catalog_path, SEARCH_CACHE)
        self._ranked = callable(getattr(backend, "ranked_many", None)) and callable(getattr(backend, "hits", None))
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def prefetch(self, queries: Iterable[str], k: int) -> None:
        """Read the cached results of a batch of queries at once (see CatalogCache.prefetch)."""
        self.cache.prefetch((self.key, q, k) for q in queries)

    def _cached(self, query: str, k: int) -> list[Hit] | None:
        cached = self.cache.get((self.key, query, k))
        if cached is None:
            return None
        try:
            entry = json.loads(cached[0])
            return self.backend.hits(entry) if self._ranked else [Hit(**h) for h in entry]
        except (ValueError, TypeError):
            return None  # an entry this code cannot read: ask again

    def _ask(self, queries: list[str], k: int) -> dict[str, tuple[list[Hit], tuple[str]]]:
        """The backend's answers to ``queries``, each with its cache entry: the hits whole, or for a backend
        that ranks passages it holds (the local index), their positions and scores."""
        if self._ranked:
            ranked = self.backend.ranked_many(queries, k)
            return {q: (self.backend.hits(r), (json.dumps(r),)) for q, r in zip(queries, ranked)}
        found = search_many(self.backend, queries, k)
        return {q: (hits, (json.dumps([{"url": h.url, "title": h.title, "text": h.text, "score": h.score}
                                       for h in hits], ensure_ascii=False),)) for q, hits in zip(queries, found)}

    def search(self, query: str, k: int) -> list[Hit]:
        found = self._cached(query, k)
        if found is not None:
            with self._lock:
                self.hits += 1
            return found
        with self._lock:
            self.misses += 1
        found, entry = self._ask([query], k)[query]
        self.cache.put((self.key, query, k), entry)
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
        if missing and (self._ranked or hasattr(self.backend, "search_many")):
            # The local index at once; a web search (asked several at a time) a part at a time, each part
            # journaled as it is answered, so a run stopped midway keeps what it was told.
            step = len(missing) if self._ranked else self.WEB_PART
            for start in range(0, len(missing), step):
                asked = self._ask(missing[start:start + step], k)
                answers.update((q, found) for q, (found, _) in asked.items())
                self.cache.put_many({(self.key, q, k): entry for q, (_, entry) in asked.items()})
        else:
            for query in missing:
                answers[query], entry = self._ask([query], k)[query]
                self.cache.put((self.key, query, k), entry)
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
    """CDTP's search validation: a triple is kept when its head (or an alias) and its tail occur together in one
    of the top-k results of a search for the head and the relation (``"李白" 出生日期``), in a result about the head
    (titled by it, or in a sentence that names it and expresses the relation), the entry's own page
    left out (``exclude_source``: on the crawl's own index it would always agree). The tail is matched
    normalised (filters.normalize: 1930-12-30 is 1930年12月30日, 公里 is 千米) and without 约 or book-title marks,
    so another site's way of writing a value counts."""

    def __init__(self, backend: SearchBackend, k: int = 10, exclude_source: bool = True):
        self.backend, self.k, self.exclude_source = backend, k, exclude_source
        # A passage comes back for many queries (every triple of its page, of pages naming it): normalised once
        # while it is among the recent ones. An entry keeps the passage and its normalised copy: 2**16 of them
        # held about 30 MB more at the verify stage's peak on an 84k-page crawl, for the same supports.
        self._text = lru_cache(maxsize=1 << 12)(lambda title, text: normalize(title + "。" + text))

    @staticmethod
    def query(head: str, relation: str) -> str:
        """The head quoted, as search engines take a name that must occur, and the relation's words."""
        return f'"{head}" {relation}'

    def check(self, head: str, aliases: Iterable[str], relation: str, tail: str, source_url: str = "") -> Support:
        return self.check_many([(head, aliases, relation, tail, source_url)])[0]

    def check_many(self, claims: list[tuple[str, Iterable[str], str, str, str]]) -> list[Support]:
        """check() for each (head, aliases, relation, tail, source URL), the searches made in one batch (the
        triples of one head and relation share theirs)."""
        queries = [self.query(head, relation) for head, _, relation, _, _ in claims]
        results = search_many(self.backend, queries, self.k)
        return [self._support(hits, head, aliases, tail, source, relation)
                for hits, (head, aliases, relation, tail, source) in zip(results, claims)]

    def _support(self, hits: list[Hit], head: str, aliases: Iterable[str], tail: str, source_url: str,
                 relation: str = "") -> Support:
        """The results that confirm the claim: about the head, by their title (a page on the entity that holds the
        tail), or by a sentence that names the head, holds the tail and expresses the relation (filters.statements:
        「赵善，南鹿市人…早年曾师从吴远建」 names 吴远建 and 南鹿市 but says nothing of 吴远建's death, so it
        confirms no 逝世地)."""
        aliases = tuple(aliases)
        names = [normalize(n) for n in (head, *aliases) if n]
        forms = value_forms(tail)
        urls = []
        for hit in hits:
            if self.exclude_source and source_url and hit.url == source_url:
                continue
            text = self._text(hit.title, hit.text)
            if not (any(f in text for f in forms) and any(n in text for n in names)):
                continue
            about = any(n in normalize(hit.title) for n in names)
            if about or any(any(f in sentence for f in forms)
                            for _, sentence, _ in sentences([hit], head, aliases, relation)):
                if hit.url not in urls:
                    urls.append(hit.url)
        return Support(bool(urls), tuple(urls))

