"""Crawl engine behaviour against the mirror on 127.0.0.1: backoff, resume after kill -9, recrawl, reparse."""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from crawlers.crawl import CrawlConfig, reparse, run_crawl
from crawlers.fetchlog import FetchLog
from crawlers.mirror.facts import load_facts
from crawlers.mirror.site import MirrorServer, Site
from crawlers.seeds import bundled_seed_files, read_seeds, seed_url
from schemas import Page
from tests.conftest import MINI_FACTS
from schemas.storage.shards import iter_records

ROOT = Path(__file__).resolve().parents[2]


def config_for(mirror, out: Path, titles, **options) -> CrawlConfig:
    # A depth limit that never binds: which pages a depth-limited walk reaches depends on the order it
    # meets them in, and these tests compare walks taken in different orders.
    options.setdefault("max_depth", 1000)
    return CrawlConfig(start_urls=[seed_url(mirror.url, "baidu", t) for t in titles], out_dir=str(out), **options)


def stored_urls(out: Path) -> list[str]:
    return [p.canonical_url for p in iter_records(sorted((out / "pages").glob("pages-*.parquet")), Page)]


def test_429_and_captcha_redirects_back_off_and_lose_nothing(tmp_path):
    site = Site(facts_dir=MINI_FACTS, faults=False, rate_limit=4)
    with MirrorServer(site) as mirror:
        result = run_crawl(config_for(mirror, tmp_path, ["李白", "二氧化碳"], concurrency=4,
                                      backoff_base_s=0.2, backoff_max_s=1.0, max_block_retries=20))
    blocks = {k: v for k, v in result.stats.items() if k.startswith("zhbench/blocked/")}
    assert set(blocks) <= {"zhbench/blocked/http_429", "zhbench/blocked/captcha_redirect"}
    assert sum(blocks.values()) >= 1
    assert site._refusals == sum(blocks.values())  # every refusal the site made was recognised
    assert result.stats["zhbench/backoff/max_delay_s"] <= 1.0
    # Every entry reachable from the seeds arrived whole, none stored as a block.
    assert result.by_status == {"disambiguation": 1, "ok": 6}
    assert sorted(set(stored_urls(tmp_path))) == sorted(stored_urls(tmp_path))


def test_robots_txt_is_obeyed(mini_mirror, tmp_path):
    config = config_for(mini_mirror, tmp_path, ["杜甫"], max_depth=0)
    config.start_urls.append(mini_mirror.url + "/wiki/Special:随机页面")
    result = run_crawl(config)
    assert result.stats.get("robotstxt/forbidden", 0) == 1
    # The forbidden page is not fetched, and says why in the fetch log.
    assert result.by_status == {"ok": 1, "refused": 1}
    refused = [e for e in FetchLog(tmp_path / "fetched.jsonl").entries() if e["page_status"] == "refused"]
    assert refused[0]["reason"].startswith("robots_txt:")


@pytest.fixture(scope="module")
def bundled_seeds() -> list[str]:
    return [t for f in bundled_seed_files() for t in read_seeds(f)]


def test_resume_after_kill_9_loses_nothing_and_fetches_nothing_twice(tmp_path, bundled_seeds):
    site = Site(entries=load_facts(), faults=False)
    hits: collections.Counter = collections.Counter()
    respond = site.respond

    def counting(target, headers=None):
        hits[target.split("?")[0]] += 1
        return respond(target, headers)

    site.respond = counting
    with MirrorServer(site) as mirror:
        full = run_crawl(config_for(mirror, tmp_path / "full", bundled_seeds, concurrency=4))
        expected = sorted(stored_urls(tmp_path / "full"))

        out = tmp_path / "killed"
        config = config_for(mirror, out, bundled_seeds, concurrency=4)
        out.mkdir()
        (out / "crawl-config.json").write_text(json.dumps(asdict(config)), encoding="utf-8")
        proc = subprocess.Popen([sys.executable, "-m", "crawlers.crawl", str(out / "crawl-config.json")],
                                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        log = out / "fetched.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 120):
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        before = {e["url"].removeprefix(mirror.url).split("?")[0] for e in FetchLog(log).entries()}
        assert 120 <= len(before) < len(expected)
        hits.clear()
        config.resume = True
        resumed = run_crawl(config)
    refetched = [path for path in before if hits.get(path)]
    assert refetched == []
    got = stored_urls(out)
    assert len(got) == len(set(got)), "a page is stored twice"
    assert sorted(got) == expected
    assert resumed.by_status == full.by_status


def test_recrawl_asks_conditionally_and_records_what_changed(tmp_path):
    site = Site(facts_dir=MINI_FACTS, faults=False)
    with MirrorServer(site) as mirror:
        first = run_crawl(config_for(mirror, tmp_path / "first", ["李白", "二氧化碳"]))
        known = {e["canonical_url"]: {k: e[k] for k in ("etag", "last_modified", "record_hash", "content_hash")}
                 for e in FetchLog(tmp_path / "first" / "fetched.jsonl").entries()}
        site.edit("杜甫", "杜甫（712年－770年），字子美，唐朝现实主义诗人，后世尊为“诗圣”。")
        config = config_for(mirror, tmp_path / "second", [], known=known, follow_known=False)
        config.start_urls = list(known)
        second = run_crawl(config)
    assert first.changes == {"new": 7}
    assert second.changes == {"changed": 1, "unchanged": 6}
    changed = [e for e in FetchLog(tmp_path / "second" / "fetched.jsonl").entries() if e["change"] == "changed"]
    assert [e["title"] for e in changed] == ["杜甫"]
    assert second.stats["zhbench/status/unchanged"] == 6  # answered 304, nothing downloaded again


def test_reparse_rebuilds_identical_records_from_stored_html(mini_mirror, tmp_path):
    run_crawl(config_for(mini_mirror, tmp_path, ["李白"]))
    before = [p.to_row() for p in iter_records(sorted((tmp_path / "pages").glob("pages-*.parquet")), Page)]
    shards = reparse(tmp_path, backend="bs4")
    after = [p.to_row() for p in iter_records(shards, Page)]
    assert after == before
    assert sum(pq.ParquetFile(s).metadata.num_rows for s in shards) == len(before)
