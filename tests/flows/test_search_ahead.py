"""Searching ahead of the verify stage while the alignment runs (flows/search_ahead.py): the verify stage then
finds every answer in the cache and decides as it would have asked them itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawlers.mirror.site import MirrorServer, Site
from filters.align_stage import align_stage
from flows import caching
from flows.settings import AlignSettings, VerifySettings
from flows.search_ahead import SearchAhead, _NoSearchAhead, search_ahead
from flows.verify import verify_stage
from schemas import Pair
from schemas.storage.shards import iter_records
from tests.builders.conftest import fact_pages


@pytest.fixture(scope="module")
def aligned(tmp_path_factory):
    directory = tmp_path_factory.mktemp("ahead")
    return align_stage(fact_pages(directory / "pages"), AlignSettings(), directory / "pairs")


@pytest.fixture(scope="module")
def mirror():
    with MirrorServer(Site(faults=False)) as server:
        yield server.url


def _verified(aligned, settings: VerifySettings, out: Path, catalog: Path) -> tuple[list[dict], dict]:
    result = verify_stage(aligned.shards, [], settings, aligned.funnel, out, catalog, aligned.rules)
    return [p.to_row() for p in iter_records(result["shards"], Pair)], result["funnel"]


def test_the_verify_stage_after_searching_ahead_asks_nothing_and_decides_the_same(aligned, mirror, tmp_path):
    settings = VerifySettings(search_url=mirror)
    catalog = tmp_path / "ahead" / "catalog.duckdb"
    catalog.parent.mkdir()
    ahead = SearchAhead(settings, catalog)
    for part in range(len(aligned.shards)):
        ahead.feed({"shards": aligned.shards[part:part + 1]})
    ahead.close()
    ahead.close()  # once: the verify stage's start and the block's end both close it
    assert ahead.failed == "" and ahead.asked > 50

    pairs, funnel = _verified(aligned, settings, tmp_path / "after", catalog)
    (tmp_path / "alone").mkdir()
    alone, alone_funnel = _verified(aligned, settings, tmp_path / "alone-out", tmp_path / "alone" / "catalog.duckdb")
    assert funnel["search"]["cache_misses"] == 0 and funnel["search"]["cache_hits"] == funnel["search"]["triples_checked"]
    assert alone_funnel["search"]["cache_misses"] > 0
    assert pairs == alone
    run_only = ("cache_hits", "cache_misses")
    assert {k: v for k, v in funnel["search"].items() if k not in run_only} == \
           {k: v for k, v in alone_funnel["search"].items() if k not in run_only}
    assert {k: v for k, v in funnel.items() if k != "search"} == {k: v for k, v in alone_funnel.items() if k != "search"}


def test_a_search_that_fails_ahead_stops_the_searching_ahead_and_raises_nothing(aligned, tmp_path):
    from bench.localhost import free_port

    settings = VerifySettings(search_url=f"http://127.0.0.1:{free_port()}")  # nothing listens there
    ahead = SearchAhead(settings, tmp_path / "catalog.duckdb")
    ahead.feed({"shards": aligned.shards})
    ahead.feed({"shards": aligned.shards})  # handed over after the failure: dropped, not asked
    ahead.close()
    assert "cannot reach SearXNG" in ahead.failed and ahead.asked == 0


def test_nothing_is_searched_ahead_without_a_search_service_or_for_a_verify_stage_already_done(tmp_path):
    key = "k" * 32
    with search_ahead(VerifySettings(search_backend="crawl"), tmp_path, key) as ahead:
        assert isinstance(ahead, _NoSearchAhead)
    with search_ahead(VerifySettings(search=False), tmp_path, key) as ahead:
        assert isinstance(ahead, _NoSearchAhead)
    done = caching.begin(caching.work_dir(tmp_path, "verify", key))
    caching.finish(done, {"shards": [], "funnel": {}})
    with search_ahead(VerifySettings(search_url="http://127.0.0.1:9"), tmp_path, key) as ahead:
        assert isinstance(ahead, _NoSearchAhead)
    with search_ahead(VerifySettings(search_url="http://127.0.0.1:9"), tmp_path, "other" * 6) as ahead:
        assert isinstance(ahead, SearchAhead)
    assert ahead.failed == "" and ahead.asked == 0  # closed at the end: nothing was handed over


def test_a_block_that_raises_stops_the_searching_ahead_at_once(aligned, tmp_path):
    import time

    with pytest.raises(RuntimeError, match="the alignment failed"):
        with search_ahead(VerifySettings(search_url="http://127.0.0.1:9"), tmp_path, "k" * 32) as ahead:
            process = ahead._process
            raise RuntimeError("the alignment failed")
    started = time.monotonic()
    process.wait(timeout=30)
    assert time.monotonic() - started < 5


def test_the_process_searching_ahead_stops_by_itself_when_the_run_is_gone(tmp_path):
    import subprocess
    import sys
    import textwrap

    # A run's process that starts the searching ahead and is killed: its child must not stay behind.
    script = textwrap.dedent(f"""
        import os, sys
        from pathlib import Path
        from flows.search_ahead import SearchAhead
        from flows.settings import VerifySettings
        ahead = SearchAhead(VerifySettings(search_url="http://127.0.0.1:9"), Path({str(tmp_path)!r}) / "c.duckdb")
        print(ahead._process.pid, flush=True)
        os.kill(os.getpid(), 9)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    child = int(run.stdout.split()[0])
    import os
    import time

    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.2)
    else:
        os.kill(child, 9)
        pytest.fail("the process searching ahead outlived the run's process")


def test_a_wait_for_the_searching_ahead_that_is_cut_short_still_stops_it(aligned, tmp_path, monkeypatch):
    # A SIGTERM or a Ctrl-C while the verify stage waits for the last searches: the block ends with the error,
    # and the process searching ahead does not go on.
    with pytest.raises(KeyboardInterrupt):
        with search_ahead(VerifySettings(search_url="http://127.0.0.1:9"), tmp_path, "k" * 32) as ahead:
            process = ahead._process

            def interrupted(*args, **kwargs):
                raise KeyboardInterrupt

            monkeypatch.setattr(process, "communicate", interrupted)
            ahead.close()
    monkeypatch.undo()
    process.wait(timeout=30)
    assert process.returncode is not None
