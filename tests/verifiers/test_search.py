"""Search backends and search validation: local BM25 over crawled pages, a JSON search API, the cache."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pyarrow.parquet as pq
import pytest

from bench.localhost import free_port
from tests.builders.conftest import fact_pages
from verifiers.search import CachedSearch, Hit, HTTPSearch, LocalBM25, SearchError, SearchValidator


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
    with_source = SearchValidator(bm25, exclude_source=False).check("长江", ["扬子江"], "注入", "东海", own)
    assert with_source.ok and own in with_source.urls
    alone = SearchValidator(bm25).check("长江", ["扬子江"], "发源地", "唐古拉山脉各拉丹冬峰", own)
    assert own not in alone.urls
    assert not SearchValidator(bm25).check("长江", [], "发源地", "不存在的地名甲乙丙", own).ok


def test_validation_searches_head_and_relation_and_reads_values_as_other_sites_write_them():
    class Web:
        name, corpus = "web", "x"

        def __init__(self):
            self.asked = []

        def search(self, query, k):
            self.asked.append(query)
            return [Hit("https://baike.example/item/a", "甲河", "甲河全长约6300千米。", 1.0),
                    Hit("https://openwiki.example/wiki/a", "甲河", "甲河全长6300公里，1930-12-30建成。", 0.5)]

    web = Web()
    validator = SearchValidator(web)
    own = "https://baike.example/item/a"
    assert validator.check("甲河", [], "长度", "约6300千米", own).urls == ("https://openwiki.example/wiki/a",)
    assert validator.check("甲河", [], "建成时间", "1930年12月30日", own).ok
    assert not validator.check("甲河", [], "长度", "6400千米", own).ok
    assert web.asked[0] == '"甲河" 长度'


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
        first = cached.search('"长江" 东海', 10)
        cached.close()
        again = CachedSearch(backend, tmp_path / "search.duckdb")  # a rerun opens the same cache
        second = again.search('"长江" 东海', 10)
        backend.close()  # as the verify stage closes it: nothing held open
    finally:
        server.shutdown()
    assert len(first) == 10 and first == second
    assert len(seen) == 1 and "%E9%95%BF%E6%B1%9F" in seen[0]
    assert (again.hits, again.misses) == (1, 0)
    assert SearchValidator(again).check("长江", [], "东海", "东海").urls[0] == "https://example.org/0"


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


def test_the_local_index_caches_passage_positions_and_unreadable_ones_are_asked_again(bm25, tmp_path):
    import duckdb

    catalog = tmp_path / "c.duckdb"
    cached = CachedSearch(bm25, catalog)
    found = cached.search_many(["长江 东海", "黄河"], 10)
    cached.close()
    with duckdb.connect(str(catalog), read_only=True) as con:
        entries = dict(con.execute("SELECT query, hits FROM search_cache").fetchall())
    ranked = json.loads(entries["长江 东海"])
    assert [bm25.passages[p].url for p, _ in ranked] == [h.url for h in found[0]]
    assert [s for _, s in ranked] == [h.score for h in found[0]]
    again = CachedSearch(bm25, catalog)
    assert again.search_many(["长江 东海", "黄河"], 10) == found and (again.hits, again.misses) == (2, 0)
    # Entries that name no passage of this corpus, or are whole hits, are misses, asked and cached anew.
    size = len(bm25.passages)
    for entry in ([[size, 1.0]], [[-1, 1.0]], [["3", 1.0]], [[True, 1.0]], [[3, "1.0"]], [[3]], {"3": 1.0},
                  [{"url": "x", "title": "x", "text": "x", "score": 1.0}]):
        again.cache.put((again.key, "长江 东海", 10), (json.dumps(entry),))
        assert again.search("长江 东海", 10) == found[0]
    assert (again.hits, again.misses) == (2, 8)
    # entries of the earlier format (each hit whole, under the earlier key) are not read
    assert again.key != "bm25-local:public-urls:ties-by-url@" + bm25.corpus


def test_the_local_corpus_is_what_the_index_holds_not_when_it_was_fetched(tmp_path):
    from datetime import datetime, timezone

    from schemas import Page
    from schemas.storage.shards import ShardWriter, iter_records

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
    from schemas.storage.shards import ShardWriter

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
    from schemas.storage.shards import iter_records

    return [(page.title, [], entry.name, entry.value, page.url) for page in iter_records(pages, Page)
            for entry in page.infobox]


def test_batched_search_and_verdicts_are_the_per_query_retrievers(tmp_path):
    from bench.verify_bench import PerQueryBM25, per_query_supports

    pages = fact_pages(tmp_path / "pages")
    local = LocalBM25(pages)
    old = PerQueryBM25(local.passages)
    claims = claims_of(pages)[::8]  # every page's claims take a minute the old way
    queries = [SearchValidator.query(head, relation) for head, _, relation, _, _ in claims]
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
    from schemas.storage.cache import journal_dir

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


QUERIES = ("长江 发源地 唐古拉山脉", "李白 杜甫", "东海", "黄河 渤海 1990")


def results(index) -> list:
    return [index.search(query, 10) for query in QUERIES]


@pytest.fixture
def no_rebuild(monkeypatch):
    """Within it, reading the crawl's pages or segmenting a passage fails the test."""
    import verifiers.passages as passages
    import verifiers.search as search

    def unread(*args, **kwargs):
        raise AssertionError("the crawl was read again")

    def segment(text):
        raise AssertionError("segmented again")

    def forbid(pages: bool = True):
        if pages:
            monkeypatch.setattr(passages.PassageFile, "build", unread)
        monkeypatch.setattr(search, "_segment", segment)
        return monkeypatch.undo

    return forbid


def test_the_index_is_saved_once_and_opened_by_later_indexes_of_the_same_crawl(tmp_path, no_rebuild):
    from verifiers.search import _segmenter

    pages = fact_pages(tmp_path / "pages")
    cache = tmp_path / "cache" / "bm25"
    uncached = LocalBM25(pages)
    first = LocalBM25(pages, cache_dir=cache, work_dir=tmp_path / "tmp")
    assert sorted(f.name.split("-")[0] for f in cache.iterdir()) == [first.corpus, "index", "sources"]
    saved = cache / f"index-{first.corpus}-{_segmenter()}"
    assert {f.name for f in saved.iterdir()} == {"passages.bin", "passages.json", "offsets.npy", "data.npy",
                                                "indices.npy", "indptr.npy", "bound.npy", "vocab.txt", "index.json"}
    assert not list((tmp_path / "tmp").iterdir())  # the passage file moved into the index's directory
    assert results(first) == results(uncached)

    allow = no_rebuild()
    second = LocalBM25(pages, cache_dir=cache)  # the same shards: opened, their pages not read
    allow()
    assert (second.corpus, second.cache_key) == (first.corpus, first.cache_key)
    assert list(second.passages) == list(uncached.passages)
    assert results(second) == results(uncached)
    first.close()
    second.close()
    assert saved.is_dir()  # closing an index opened from the cache leaves it there
    assert results(LocalBM25(pages, cache_dir=cache)) == results(uncached)


def test_a_crawl_written_again_is_read_but_not_indexed_again(tmp_path, no_rebuild):
    import os
    import shutil

    pages = fact_pages(tmp_path / "pages")
    cache = tmp_path / "cache" / "bm25"
    first = LocalBM25(pages, cache_dir=cache)
    copy = tmp_path / "copy" / pages[0].name
    copy.parent.mkdir()
    shutil.copy(pages[0], copy)
    allow = no_rebuild(pages=False)
    again = LocalBM25([copy, *pages[1:]], cache_dir=cache)  # other files, the same passages
    allow()
    assert again.corpus == first.corpus and results(again) == results(first)
    assert len(list(cache.glob("sources-*.json"))) == 2 and len(list(cache.glob("index-*"))) == 1
    # A shard changed in place (here its time) is read again, and its digest decides.
    os.utime(copy, ns=(1, 1))
    allow = no_rebuild(pages=False)
    changed = LocalBM25([copy, *pages[1:]], cache_dir=cache)
    allow()
    assert changed.corpus == first.corpus and len(list(cache.glob("sources-*.json"))) == 3


def test_a_lost_index_is_built_from_the_segments_and_unreadable_segments_are_segmented_again(tmp_path, no_rebuild):
    import shutil

    pages = fact_pages(tmp_path / "pages")
    cache = tmp_path / "cache" / "bm25"
    first = LocalBM25(pages, cache_dir=cache)
    expected = results(first)
    [segments_file] = cache.glob("*.parquet")
    segments = pq.read_table(segments_file).column("segments").to_pylist()
    assert len(segments) == len(first.passages)
    [saved] = cache.glob("index-*")
    shutil.rmtree(saved)
    allow = no_rebuild(pages=False)
    rebuilt = LocalBM25(pages, cache_dir=cache)  # from the segments, not segmented
    allow()
    assert results(rebuilt) == expected
    assert saved.is_dir()
    good = segments_file.read_bytes()
    # An unreadable segments file is segmented again and replaced: one that is not Parquet, and one whose
    # footer is sound but whose data cannot be read back.
    for broken in (b"not parquet", good[:4] + bytes(b ^ 0xFF for b in good[4:200]) + good[200:]):
        shutil.rmtree(saved)
        segments_file.write_bytes(broken)
        assert results(LocalBM25(pages, cache_dir=cache)) == expected
        assert pq.read_table(segments_file).column("segments").to_pylist() == segments
    # The previous version's file of the same segments goes when they are written anew.
    earlier = cache / segments_file.name.replace(".parquet", ".json.gz")
    earlier.write_bytes(b"")
    segments_file.unlink()
    shutil.rmtree(saved)
    LocalBM25(pages, cache_dir=cache)
    assert not earlier.exists() and segments_file.exists()


@pytest.mark.parametrize("damage", ["index.json", "data.npy", "vocab.txt", "offsets.npy", "passages.bin"])
def test_a_damaged_saved_index_is_built_again(tmp_path, damage):
    pages = fact_pages(tmp_path / "pages")
    cache = tmp_path / "cache" / "bm25"
    expected = results(LocalBM25(pages, cache_dir=cache))
    [saved] = cache.glob("index-*")
    target = saved / damage
    if damage == "vocab.txt":
        target.write_text(target.read_text(encoding="utf-8") + "\n多余", encoding="utf-8")
    else:
        target.write_bytes(target.read_bytes()[:-9])
    rebuilt = LocalBM25(pages, cache_dir=cache)
    assert results(rebuilt) == expected
    assert results(LocalBM25(pages, cache_dir=cache)) == expected  # saved anew, whole


def test_the_newest_indexes_stay_and_older_ones_go_with_their_segments(tmp_path):
    import os

    from schemas import Page
    from verifiers.search import _SavedIndexes
    from schemas.storage.shards import ShardWriter

    cache = tmp_path / "cache" / "bm25"
    crawls = []
    for n in range(_SavedIndexes.KEEP + 2):
        with ShardWriter(tmp_path / f"crawl{n}", "pages", Page) as writer:
            writer.write(Page(url=f"http://mirror.invalid/item/{n}", title=f"词条{n}", status="ok", source="baidu",
                              summary=f"第{n}个词条的摘要。"))
        crawls.append(writer.paths)
    corpora = []
    for n, crawl in enumerate(crawls):
        corpora.append(LocalBM25(crawl, cache_dir=cache).corpus)
        for saved in cache.glob(f"index-{corpora[-1]}-*"):  # one second apart in last use
            os.utime(saved / "index.json", (1_000_000 + n, 1_000_000 + n))
    LocalBM25(crawls[0], cache_dir=cache)  # used again: the newest
    left = {p.name.split("-")[1] for p in cache.glob("index-*")}
    assert left == {corpora[0], *corpora[-(_SavedIndexes.KEEP - 1):]}
    assert {p.name.split("-")[0] for p in cache.glob("*.parquet")} == left
    assert len(list(cache.glob("sources-*.json"))) == len(left)


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


def test_an_index_saved_meanwhile_by_another_process_is_used_and_half_written_ones_of_gone_ones_go(tmp_path,
                                                                                                  monkeypatch):
    from verifiers.search import _SavedIndexes

    pages = fact_pages(tmp_path / "pages")
    cache = tmp_path / "cache" / "bm25"
    first = LocalBM25(pages, cache_dir=cache)
    [saved] = cache.glob("index-*")
    marker = saved / "index.json"
    written = marker.read_bytes()
    (cache / ".index-0123456789abcdef.999999999-1.tmp").mkdir()  # a process that died while saving
    for sources in cache.glob("sources-*.json"):
        sources.unlink()
    looked = []
    real = _SavedIndexes.by_digest

    def unseen_once(self, digest):  # the index appears after this process looked for it
        looked.append(digest)
        return None if len(looked) == 1 else real(self, digest)

    monkeypatch.setattr(_SavedIndexes, "by_digest", unseen_once)
    second = LocalBM25(pages, cache_dir=cache)
    monkeypatch.undo()
    assert results(second) == results(first)
    assert [p.name for p in cache.glob("index-*")] == [saved.name] and marker.read_bytes() == written
    assert not list(cache.glob(".index-*"))  # its own copy and the dead process's are gone
