from __future__ import annotations

import socket

import pytest

from crawlers.crawl import CrawlConfig, CrawlError, run_crawl
from crawlers.seeds import seed_url
from schemas import Page
from warehouse.shards import iter_records


def crawl(mirror, out, *titles, **options):
    config = CrawlConfig(start_urls=[seed_url(mirror.url, "baidu", t) for t in titles], out_dir=str(out),
                         concurrency=1, **options)
    result = run_crawl(config)
    return result, list(iter_records(result.shards, Page))


def test_depth_first_crawl_reaches_linked_entries_and_expands_senses(mini_mirror, tmp_path):
    result, pages = crawl(mini_mirror, tmp_path, "李白", "鲁班锁")
    ok = {(p.title, p.subtitle) for p in pages if p.status == "ok"}
    # Both senses of 李白 (from the sense list) and the entries its text links to.
    assert {("李白", "唐代浪漫主义诗人"), ("李白", "李荣浩演唱歌曲"), ("杜甫", "唐代现实主义诗人"),
            ("唐朝", "中国历史朝代"), ("长江", "中国第一长河")} <= ok
    assert result.by_status["not_found"] == 1
    assert result.by_status["disambiguation"] == 1
    # Each entry is stored once although several pages link to it.
    urls = [p.canonical_url for p in pages]
    assert len(urls) == len(set(urls))


def test_blocked_and_cut_off_pages_are_retried_and_never_stored(mini_mirror, tmp_path):
    site = mini_mirror.site
    blocked, = site.block_once
    cut, = site.truncate_once
    result, pages = crawl(mini_mirror, tmp_path, *[k.split("\t")[0] for k in (blocked, cut)], "李白")
    assert result.stats["zhbench/blocked/captcha_redirect"] == 1
    assert result.stats["zhbench/retry/truncated"] == 1
    assert "blocked" not in result.by_status and "truncated" not in result.by_status
    stored = {p.status for p in pages}
    assert stored <= {"ok", "disambiguation", "not_found"}
    titles = {p.title for p in pages if p.status == "ok"}
    assert {k.split("\t")[0] for k in (blocked, cut)} <= titles


def test_max_pages_stops_the_crawl(mini_mirror, tmp_path):
    _, pages = crawl(mini_mirror, tmp_path, "李白", max_pages=2)
    assert sum(p.status == "ok" for p in pages) == 2


def test_depth_zero_fetches_only_the_seeds(mini_mirror, tmp_path):
    _, pages = crawl(mini_mirror, tmp_path, "杜甫", max_depth=0)
    assert [p.title for p in pages] == ["杜甫"]
    assert pages[0].depth == 0


def test_unreachable_site_is_a_clear_error(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    config = CrawlConfig(start_urls=[f"http://127.0.0.1:{port}/item/x"], out_dir=str(tmp_path))
    with pytest.raises(CrawlError, match=rf"site http://127.0.0.1:{port} is unreachable"):
        run_crawl(config)
