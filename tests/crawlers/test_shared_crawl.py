"""Two crawler processes sharing one crawl through a real redis-server on 127.0.0.1."""

from __future__ import annotations

import shutil
import subprocess
import threading

import pytest

from bench.localhost import free_port, wait_port

from crawlers.crawl import CrawlConfig, run_crawl
from crawlers.mirror.facts import load_facts
from crawlers.mirror.site import MirrorServer, Site
from crawlers.seeds import bundled_seed_files, read_seeds, seed_url
from schemas import Page
from schemas.storage.shards import iter_records

REDIS = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed (.ci/run installs it)")


@pytest.fixture()
def redis_url():
    port = free_port()
    proc = subprocess.Popen([REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_port(port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_two_processes_share_the_frontier_and_fetch_no_page_twice(tmp_path, redis_url):
    site = Site(entries=load_facts(), faults=False)
    seeds = [t for f in bundled_seed_files() for t in read_seeds(f)]
    with MirrorServer(site) as mirror:
        def config(worker: int) -> CrawlConfig:
            return CrawlConfig(start_urls=[seed_url(mirror.url, "baidu", t) for t in seeds],
                               out_dir=str(tmp_path / f"worker-{worker}"), max_depth=1000, concurrency=4,
                               redis_url=redis_url, redis_key="shared-test")

        results = {}
        threads = [threading.Thread(target=lambda w=w: results.__setitem__(w, run_crawl(config(w))))
                   for w in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        single = run_crawl(CrawlConfig(start_urls=[seed_url(mirror.url, "baidu", t) for t in seeds],
                                       out_dir=str(tmp_path / "single"), max_depth=1000, concurrency=4))
    per_worker = [[p.canonical_url for p in iter_records(results[w].shards, Page)] for w in (1, 2)]
    assert all(len(urls) > 20 for urls in per_worker), "both processes did a share of the work"
    together = per_worker[0] + per_worker[1]
    assert len(together) == len(set(together)), "a page was fetched by both processes"
    expected = [p.canonical_url for p in iter_records(single.shards, Page)]
    assert sorted(together) == sorted(expected)
