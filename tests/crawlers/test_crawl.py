from __future__ import annotations

import signal
import subprocess

import pytest

from bench.localhost import free_port

from crawlers.crawl import CrawlConfig, CrawlError, run_crawl
from crawlers.seeds import seed_url
from schemas import Page
from schemas.storage.shards import iter_records


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
    port = free_port()  # nothing listens there
    config = CrawlConfig(start_urls=[f"http://127.0.0.1:{port}/item/x"], out_dir=str(tmp_path))
    with pytest.raises(CrawlError, match=rf"site http://127.0.0.1:{port} is unreachable"):
        run_crawl(config)


def expected_order(site, seed: str, base: str) -> list[str]:
    """The order a one-request-at-a-time crawl with a LIFO queue visits pages.

    Two details of Scrapy are modelled: a request is marked seen when it is queued, and the
    next request leaves the queue as soon as a download completes, before that page's
    callback has queued its links (a one-step lookahead on plain depth-first order).
    """
    from crawlers.parsers import parse as parse_page
    from crawlers.urls import canonicalize

    seen = {canonicalize(base + seed)}
    stack: list[str] = []
    order: list[str] = []
    current: str | None = base + seed
    while current is not None:
        response = site.respond(current.removeprefix(base))
        if response.status in (301, 302):
            children = [base + response.headers["Location"]]
            following = None
        else:
            page = parse_page(response.body, current, http_status=response.status)
            order.append(page.canonical_url)
            children = [l["url"] for l in page.links] + [s["url"] for s in page.senses]
            following = stack.pop() if stack else None
        for child in reversed(children):
            child = canonicalize(child)
            if child not in seen:
                seen.add(child)
                stack.append(child)
        current = following if following is not None else (stack.pop() if stack else None)
    return order


def test_pages_are_visited_depth_first(tmp_path):
    from crawlers.mirror.site import MirrorServer, Site
    from tests.conftest import MINI_FACTS

    site = Site(facts_dir=MINI_FACTS, faults=False)
    with MirrorServer(site) as mirror:
        # One request at a time, so the order is exact (with more in flight it is depth-first
        # only approximately: Scrapy sends a queued request while a response awaits its callback).
        config = CrawlConfig(start_urls=[seed_url(mirror.url, "baidu", "杜甫")],
                             out_dir=str(tmp_path), concurrency=1, autothrottle=False)
        result = run_crawl(config)
        expected = expected_order(site, "/item/杜甫", mirror.url)
    from crawlers.fetchlog import FetchLog

    visited = [e["canonical_url"] for e in FetchLog(tmp_path / "fetched.jsonl").entries()]
    assert visited == expected
    # 杜甫 links 唐朝 first, and 唐朝 links 李白 before 杜甫's next link: the walk goes deep first.
    titles = [e["title"] for e in FetchLog(tmp_path / "fetched.jsonl").entries()]
    assert titles.index("唐朝") < titles.index("长江")
    assert result.by_status["ok"] == 5


def test_a_page_with_hundreds_of_links_is_expanded_in_link_order(tmp_path):
    """Every link of a page is queued at once: with one request at a time the children come in the
    order the page links them, however many there are (the spider's output is no longer handed to
    Scrapy's parallel workers, which let the downloader take requests between two of them)."""
    from crawlers.fetchlog import FetchLog
    from crawlers.mirror.facts import Entry, _assign_ids
    from crawlers.mirror.site import MirrorServer, Site
    from crawlers.parsers import parse as parse_page

    leaves = [f"第{n:03d}号词条" for n in range(300)]
    hub = Entry("枢纽词条", "", "humanities_society", "concept", "本词条链接" + "、".join(f"[[{t}]]" for t in leaves) + "。",
                [("中文名", "枢纽词条")], [])
    entries = [hub] + [Entry(t, "", "humanities_society", "concept", f"{t}是一个测试词条。", [("中文名", t)], []) for t in leaves]
    _assign_ids(entries)
    site = Site(entries=entries, faults=False)
    with MirrorServer(site) as mirror:
        hub_url = seed_url(mirror.url, "baidu", "枢纽词条")
        page_path = site.respond(hub_url.removeprefix(mirror.url)).headers["Location"]  # search -> entry
        linked = [link["title"] for link in parse_page(site.respond(page_path).body, mirror.url + page_path).links]
        assert linked == leaves  # the page itself links all 300 in this order
        run_crawl(CrawlConfig(start_urls=[hub_url], out_dir=str(tmp_path), concurrency=1, autothrottle=False,
                              max_depth=1))
    titles = [e["title"] for e in FetchLog(tmp_path / "fetched.jsonl").entries()]
    assert titles == ["枢纽词条"] + leaves


class _SignalledWhileStarting(subprocess.Popen):
    """A Popen that gets ``signum`` once the child runs and before the constructor returns: a Ctrl-C (or a
    SIGTERM) in that window, which a loaded machine makes wider."""

    signum = signal.SIGINT
    started: list[subprocess.Popen] = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        type(self).started.append(self)
        signal.raise_signal(self.signum)  # its handler runs here, inside the constructor


class _Terminated(Exception):
    """What a SIGTERM handler raises, as Prefect's inside a flow."""


def _terminated(signum, frame):
    raise _Terminated()


@pytest.mark.parametrize(("signum", "handler", "raised"), [
    (signal.SIGINT, signal.default_int_handler, KeyboardInterrupt),
    (signal.SIGTERM, _terminated, _Terminated),
])
def test_a_signal_while_the_child_starts_stops_the_child(mini_mirror, tmp_path, monkeypatch, signum, handler,
                                                         raised):
    monkeypatch.setattr(_SignalledWhileStarting, "signum", signum)
    monkeypatch.setattr(_SignalledWhileStarting, "started", [])
    monkeypatch.setattr("crawlers.crawl.subprocess.Popen", _SignalledWhileStarting)
    previous = signal.signal(signum, handler)
    try:
        with pytest.raises(raised):
            crawl(mini_mirror, tmp_path, "李白")
        assert signal.getsignal(signum) is handler  # held only while the child started
    finally:
        signal.signal(signum, previous)
    child, = _SignalledWhileStarting.started
    stopped = child.poll() is not None  # stopped and waited for, not left running
    if not stopped:
        child.kill()
        child.wait()
    assert stopped
