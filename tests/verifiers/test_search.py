"""Search backends and search validation: local BM25 over crawled pages, a JSON search API, the cache."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pyarrow.parquet as pq
import pytest

from bench.localhost import free_port
from tests.builders.conftest import fact_pages
from verifiers.search import CachedSearch, HTTPSearch, LocalBM25, SearchError, SearchValidator


@pytest.fixture(scope="module")
def bm25(tmp_path_factory):
    return LocalBM25(fact_pages(tmp_path_factory.mktemp("pages")))


def test_local_bm25_finds_chinese_pages_by_their_words(bm25):
    hits = bm25.search("长江 发源地 唐古拉山脉", 10)
    assert len(hits) == 10
    assert hits[0].title == "长江"
    assert hits == sorted(hits, key=lambda h: -h.score)


def test_validation_needs_another_page_when_the_source_is_excluded(bm25):
    own = next(h.url for h in bm25.search("长江", 10) if h.title == "长江")
    with_source = SearchValidator(bm25, exclude_source=False).check("长江", ["扬子江"], "东海", own)
    assert with_source.ok and own in with_source.urls
    alone = SearchValidator(bm25).check("长江", ["扬子江"], "唐古拉山脉各拉丹冬峰", own)
    assert own not in alone.urls
    assert not SearchValidator(bm25).check("长江", [], "不存在的地名甲乙丙", own).ok


def serve(payload):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):  # noqa: N802
            body = json.dumps(payload(self.path), ensure_ascii=False).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_http_search_reads_a_searxng_style_api_and_the_cache_answers_reruns(tmp_path):
    seen = []

    def results(path):
        seen.append(path)
        return {"results": [{"url": f"https://example.org/{i}", "title": "长江", "content": "长江注入东海。"}
                            for i in range(12)]}

    server = serve(results)
    try:
        backend = HTTPSearch(f"http://127.0.0.1:{server.server_port}/search?q={{query}}&format=json")
        cached = CachedSearch(backend, tmp_path / "search.duckdb")
        first = cached.search("长江 东海", 10)
        cached.close()
        again = CachedSearch(backend, tmp_path / "search.duckdb")  # a rerun opens the same cache
        second = again.search("长江 东海", 10)
    finally:
        server.shutdown()
    assert len(first) == 10 and first == second
    assert len(seen) == 1 and "%E9%95%BF%E6%B1%9F" in seen[0]
    assert (again.hits, again.misses) == (1, 0)
    assert SearchValidator(again).check("长江", [], "东海").urls[0] == "https://example.org/0"


def test_http_search_errors_say_what_to_fix(tmp_path):
    with pytest.raises(SearchError, match="no {query} placeholder"):
        HTTPSearch("http://127.0.0.1/search")
    server = serve(lambda path: {"hits": []})
    try:
        with pytest.raises(SearchError, match="results_key"):
            HTTPSearch(f"http://127.0.0.1:{server.server_port}/?q={{query}}").search("长江", 10)
    finally:
        server.shutdown()


def test_the_cache_key_holds_the_corpus_and_older_or_unreadable_entries_miss(bm25, tmp_path):
    seen = []

    def results(path):
        seen.append(path)
        return {"results": [{"url": "https://example.org/1", "title": "长江", "content": "长江注入东海。"}]}

    server = serve(results)
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        one, other = HTTPSearch(base + "/search?q={query}"), HTTPSearch(base + "/other?q={query}")
        assert one.name == other.name and one.corpus != other.corpus
        CachedSearch(one, tmp_path / "c.duckdb").search("长江", 5)
        cached = CachedSearch(other, tmp_path / "c.duckdb")
        cached.search("长江", 5)
        assert (cached.hits, cached.misses, len(seen)) == (0, 1, 2)  # another API: asked again
        # an entry under the key without the corpus, and one this code cannot read, are misses
        local = CachedSearch(bm25, tmp_path / "c.duckdb")
        local.cache.put(("bm25-local", "长江", 5), (json.dumps([{"url": "x", "title": "x", "text": "x", "score": 1}]),))
        local.cache.put((local.key, "黄河", 5), ("[{\"no\": 1}]",))
        assert local.search("长江", 5) == bm25.search("长江", 5) and local.search("黄河", 5) == bm25.search("黄河", 5)
        assert (local.hits, local.misses) == (0, 2)
    finally:
        server.shutdown()


def test_the_local_corpus_is_what_the_index_holds_not_when_it_was_fetched(tmp_path):
    from datetime import datetime, timezone

    from schemas import Page
    from warehouse.shards import ShardWriter, iter_records

    pages = fact_pages(tmp_path / "a")

    def rewritten(name, change):
        with ShardWriter(tmp_path / name, "pages", Page) as writer:
            writer.write_all(change(list(iter_records(pages, Page))))
        return writer.paths

    def refetched(found):
        for page in found:
            page.fetched_at = datetime(2026, 6, 1, tzinfo=timezone.utc)
        return found

    again = rewritten("again", lambda found: refetched(found[::-1]))  # fetched later, in another order
    assert again[0].name != pages[0].name
    assert LocalBM25(again).corpus == LocalBM25(pages).corpus
    assert LocalBM25(rewritten("fewer", lambda found: found[1:])).corpus != LocalBM25(pages).corpus

    def edited(found):
        found[0].summary += "又名某某。"
        return found

    assert LocalBM25(rewritten("edited", edited)).corpus != LocalBM25(pages).corpus


def test_hits_of_equal_score_come_in_url_order_whatever_order_the_pages_were_crawled_in(tmp_path):
    from schemas import Page
    from warehouse.shards import ShardWriter

    def page(title: str, n: int, summary: str) -> Page:
        url = f"http://127.0.0.1:8800/item/{title}/{n}"
        return Page(url=url, canonical_url=url, title=title, status="ok", source="baidu", summary=summary)

    def index(name, ids):
        with ShardWriter(tmp_path / name, "pages", Page) as writer:
            writer.write_all(page("长江", i, "长江注入东海。") for i in ids)
            writer.write(page("黄河", 9, "黄河注入渤海。"))
        return LocalBM25(writer.paths)

    forward, backward = index("forward", range(1, 6)), index("backward", reversed(range(1, 6)))
    hits = forward.search("长江 东海", 3)
    assert hits == backward.search("长江 东海", 3)
    assert len({h.score for h in hits}) == 1  # a tie, broken by URL
    assert [h.url.rsplit("/", 1)[1] for h in hits] == ["1", "2", "3"]


def claims_of(pages) -> list[tuple[str, list[str], str, str]]:
    """Every infobox value of every page as a claim about the page's title, from its own page."""
    from schemas import Page
    from warehouse.shards import iter_records

    return [(page.title, [], entry.value, page.url) for page in iter_records(pages, Page) for entry in page.infobox]


def test_batched_search_and_verdicts_are_the_per_query_retrievers(tmp_path):
    from bench.verify_bench import PerQueryBM25, per_query_supports

    pages = fact_pages(tmp_path / "pages")
    local = LocalBM25(pages)
    old = PerQueryBM25(local.passages)
    claims = claims_of(pages)[::8]  # every page's claims take a minute the old way
    queries = [SearchValidator.query(head, tail) for head, _, tail, _ in claims]
    # ties, repeats, English stop words, words the index lacks, fewer than k passages with a word of the query
    odd = ["长江 东海", "长江 长江 东海", "the of and", "不存在的地名甲乙丙", "", "长江 the 1990年", "注入"]
    for k in (1, 3, 10):
        assert local.search_many(queries + odd, k) == [old.search(q, k) for q in queries + odd], k
    everything = len(local.passages) + 5
    assert local.search_many(odd, everything) == [old.search(q, everything) for q in odd]
    assert SearchValidator(local).check_many(claims) == per_query_supports(old, claims)
    assert SearchValidator(local, exclude_source=False).check_many(claims) == \
        per_query_supports(old, claims, exclude_source=False)
    # the pruned path answered (not only bm25s's dense one), and the claims are not all of one verdict
    index = local._index
    assert index._pruned(index.tokens("长江 东海"), 3, 3) is not None
    assert {s.ok for s in SearchValidator(local).check_many(claims)} == {True, False}


def test_a_batch_of_searches_is_cached_with_one_journal_append_and_counted_as_one_by_one(bm25, tmp_path):
    from warehouse.cache import journal_dir

    catalog = tmp_path / "catalog.duckdb"
    cached = CachedSearch(bm25, catalog)
    cached.cache.flush_every = 10_000  # keep the journal to look at
    found = cached.search_many(["长江 东海", "黄河", "长江 东海"], 10)
    assert found == [bm25.search("长江 东海", 10), bm25.search("黄河", 10), bm25.search("长江 东海", 10)]
    assert (cached.hits, cached.misses) == (1, 2)  # the repeat is a hit, as it was searched one by one
    [journal] = journal_dir(catalog).glob("search_cache-*.jsonl")
    assert len(journal.read_text(encoding="utf-8").splitlines()) == 2
    cached.close()
    again = CachedSearch(bm25, catalog)
    assert again.search_many(["黄河", "长江 东海"], 10) == found[1::-1] and (again.hits, again.misses) == (2, 0)


def test_the_segmented_corpus_is_cached_by_its_digest_and_shared_by_later_indexes(tmp_path, monkeypatch):
    import verifiers.search as search

    pages = fact_pages(tmp_path / "pages")
    cache = tmp_path / "cache" / "bm25"
    first = LocalBM25(pages, cache_dir=cache)
    files = list(cache.iterdir())
    assert [f.name.split("-", 1)[0] for f in files] == [first.corpus]

    def segment(text):  # the second index must not segment a single passage
        raise AssertionError("segmented again")

    monkeypatch.setattr(search, "_segment", segment)
    second = LocalBM25(pages, cache_dir=cache)
    monkeypatch.undo()
    uncached = LocalBM25(pages)  # the same queries against an index built without the cache
    for query in ("长江 发源地 唐古拉山脉", "李白 杜甫", "东海"):
        assert second.search(query, 10) == first.search(query, 10) == uncached.search(query, 10)
    assert [f.name for f in cache.iterdir()] == [files[0].name]  # the passage files went with their indexes
    segments = pq.read_table(files[0]).column("segments").to_pylist()
    assert len(segments) == len(first.passages)
    good = files[0].read_bytes()
    # An unreadable cache file is segmented again and replaced: one that is not Parquet, and one whose
    # footer is sound but whose data cannot be read back.
    for broken in (b"not parquet", good[:4] + bytes(b ^ 0xFF for b in good[4:200]) + good[200:]):
        files[0].write_bytes(broken)
        assert LocalBM25(pages, cache_dir=cache).search("长江", 5) == first.search("长江", 5)
        assert pq.read_table(files[0]).column("segments").to_pylist() == segments
    # The previous version's file of the same segments goes when they are written anew.
    earlier = cache / files[0].name.replace(".parquet", ".json.gz")
    earlier.write_bytes(b"")
    files[0].unlink()
    LocalBM25(pages, cache_dir=cache)
    assert sorted(cache.iterdir()) == [files[0]]


def test_the_index_is_the_one_bm25s_builds_from_its_own_tokenizer():
    import bm25s
    import numpy as np

    from verifiers.bm25 import TOKEN_PATTERN, BM25Index

    texts = ["长江 发源 于 青藏高原", "", "The Yangtze AND the 长江 长江", "of the", "黄河 长江 1990 年 1990",
             "Ünïcode ǅ 中国 中国 中国 河流", "   ", "黄河"]
    ours = BM25Index(texts)._bm25
    theirs = bm25s.BM25()
    theirs.index(bm25s.tokenize(texts, stopwords="en", token_pattern=TOKEN_PATTERN, show_progress=False),
                 show_progress=False)
    assert ours.vocab_dict == theirs.vocab_dict
    assert list(ours.vocab_dict) == list(theirs.vocab_dict)  # ids numbered in the same order
    for name in ("data", "indices", "indptr"):
        assert ours.scores[name].dtype == theirs.scores[name].dtype, name
        assert np.array_equal(ours.scores[name], theirs.scores[name]), name
    assert ours.scores["num_docs"] == theirs.scores["num_docs"] == len(texts)


@pytest.mark.parametrize("block_tokens", [1, 7, 1000, 1 << 18])
def test_the_index_built_a_block_at_a_time_is_bm25s_own_to_the_last_bit(block_tokens):
    """Random documents of repeated words, English stop words and empty ones, in blocks of every size."""
    import random

    import bm25s
    import numpy as np

    from verifiers.bm25 import TOKEN_PATTERN, BM25Index

    rng = random.Random(5)
    words = [f"w{i}" for i in range(2000)] + ["长江", "the", "of", "中国"]
    texts = [" ".join(rng.choice(words[:rng.choice([10, 300, len(words)])])
                      for _ in range(rng.choice([0, 1, 2, 5, 20, 80]))) for _ in range(4000)]
    theirs = bm25s.BM25()
    theirs.index(bm25s.tokenize(texts, stopwords="en", token_pattern=TOKEN_PATTERN, show_progress=False),
                 show_progress=False)
    ours = BM25Index(texts, block_tokens=block_tokens)._bm25
    assert list(ours.vocab_dict.items()) == list(theirs.vocab_dict.items())
    for name in ("data", "indices", "indptr"):
        assert ours.scores[name].dtype == theirs.scores[name].dtype, name
        assert np.array_equal(ours.scores[name], theirs.scores[name]), name
    assert ours.get_scores_from_ids([5, 9, 5]).tolist() == theirs.get_scores_from_ids([5, 9, 5]).tolist()
