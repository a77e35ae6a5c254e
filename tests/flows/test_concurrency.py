"""Runs side by side and runs again: two `zhbench run` in one data directory never both publish (the
second refuses, or waits and finds nothing new), a run killed after publishing is settled by the next
start, and two clean runs of one input publish the same bytes in every release file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from datetime import datetime, timezone

import pyarrow.parquet as pq
import pytest

from bench.localhost import free_port
from crawlers.snapshot import crawl_digest, snapshot_stage
from warehouse.publish import release_counts
from schemas import Page
from tests.builders.conftest import fact_pages
from tests.flows.test_cli import ROOT, zhbench
from tests.warehouse.test_lock import hold
from warehouse.release import list_versions
from schemas.storage.shards import ShardWriter, iter_records, sha256_file

EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}  # 2026-01-01: the manifests' created_at


def refetched(pages, directory, origin: str, order=lambda found: found[::-1]):
    """The same pages as fetched again from ``origin``, later, deeper and in another order."""
    found = order(list(iter_records(pages, Page)))
    for page in found:
        page.url = page.url.replace("http://mirror.invalid", origin)
        page.canonical_url = page.canonical_url.replace("http://mirror.invalid", origin)
        page.fetched_at = datetime(2026, 6, 1, tzinfo=timezone.utc)
        page.depth += 3
    with ShardWriter(directory, "pages", Page, rows_per_shard=7) as writer:
        writer.write_all(found)
    return writer.paths


def test_a_crawl_met_in_another_order_at_another_port_and_time_is_one_snapshot(tmp_path):
    pages = fact_pages(tmp_path / "a")
    again = refetched(pages, tmp_path / "b", "http://127.0.0.1:8899")
    first = snapshot_stage(pages, tmp_path / "data", "http://mirror.invalid")
    second = snapshot_stage(again, tmp_path / "data", "http://127.0.0.1:8899/")
    assert first.digest == second.digest and first.shards == second.shards  # the first one's, reused
    assert first.shards[0].relative_to(tmp_path / "data").as_posix() == f"snapshots/crawl-{first.digest}/pages.parquet"
    urls = [u.split("/item/", 1)[1] for u in pq.read_table(first.shards[0]).column("canonical_url").to_pylist()]
    assert urls == sorted(urls)  # by path, whatever host and port fetched them
    other = snapshot_stage(refetched(pages, tmp_path / "c", "http://127.0.0.1:8899", lambda found: found[1:]),
                           tmp_path / "data", "http://127.0.0.1:8899")
    assert other.digest != first.digest
    assert sorted(p.name for p in (tmp_path / "data" / "snapshots").iterdir()) == sorted(
        [f"crawl-{first.digest}", f"crawl-{other.digest}"])


def test_the_crawl_digest_sees_a_page_parsed_differently(tmp_path):
    pages = fact_pages(tmp_path / "a")

    def edited(found):
        found[0].infobox = found[0].infobox[1:]
        return found

    changed = refetched(pages, tmp_path / "b", "http://mirror.invalid", edited)
    first = snapshot_stage(pages, tmp_path / "data", "http://mirror.invalid")
    assert crawl_digest(first.shards[0], "http://mirror.invalid")[:16] == first.digest
    assert snapshot_stage(changed, tmp_path / "data", "http://mirror.invalid").digest != first.digest


def test_the_release_counts_leave_out_what_the_run_s_caches_answered():
    funnel = {"pairs_kept": 3, "search": {"backend": "bm25-local", "k": 10, "cache_hits": 4, "cache_misses": 2},
              "items": {"items_kept": {"qa": 1}, "embedding_cache": {"hits": 7, "misses": 1}}}
    assert release_counts(funnel) == {"pairs_kept": 3, "search": {"backend": "bm25-local", "k": 10},
                                      "items": {"items_kept": {"qa": 1}}}
    assert funnel["search"]["cache_hits"] == 4  # the run's own funnel (for the catalog) keeps them


def test_a_run_in_a_data_directory_in_use_refuses_at_once_in_one_line(tmp_path):
    data = tmp_path / "data"
    child = hold(data)
    try:
        started = time.monotonic()
        result = zhbench("run", "--data-dir", str(data), "--mirror-port", str(free_port()), cwd=tmp_path)
        took = time.monotonic() - started
    finally:
        child.kill()
        child.wait()
    assert result.returncode == 1 and took < 60
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"zhbench: error: the data directory {data} is in use by pid {child.pid} on ")
    assert "(zhbench run --data-dir test)" in line and "rerun with --wait" in line
    assert not (data / "runs").exists()


def release_files(release) -> dict[str, str]:
    return {p.relative_to(release).as_posix(): sha256_file(p) for p in sorted(release.rglob("*")) if p.is_file()}


def start(data, port: int, *args: str, cwd, env: dict | None = None) -> subprocess.Popen:
    import os

    return subprocess.Popen([sys.executable, "-m", "flows.cli", "run", "--data-dir", str(data), "--mirror-port",
                             str(port), *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def finish(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=900)
    return process.returncode, out, err


@pytest.mark.slow
def test_two_clean_runs_publish_the_same_bytes_in_every_release_file(tmp_path):
    ports = free_port(), free_port()
    runs = [start(tmp_path / f"data{n}", port, cwd=tmp_path, env=EPOCH) for n, port in enumerate(ports)]
    for code, out, err in map(finish, runs):
        assert code == 0, err[-2000:]
    first, second = (tmp_path / f"data{n}" / "releases" / "cdtp" / "0.1.0" for n in range(2))
    digests = release_files(first)
    assert len(digests) >= 10 and digests == release_files(second)
    for path in first.rglob("*"):  # where the run fetched from stays out of the release
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace") if path.suffix != ".parquet" else json.dumps(
                pq.read_table(path).to_pylist(), ensure_ascii=False, default=str)
            # the port as an address has it (host:port); its digits alone also turn up in numbers (0.434367)
            assert all(f":{port}" not in text for port in ports) and "127.0.0.1" not in text, path


@pytest.mark.slow
def test_two_runs_started_together_in_one_data_directory_never_both_publish(tmp_path):
    data = tmp_path / "data"
    runs = [start(data, free_port(), cwd=tmp_path) for _ in range(2)]
    results = sorted(map(finish, runs))  # the refused one (exit 1) after the one that ran (exit 0)
    (ok, out, _), (refused, _, err) = results
    assert (ok, refused) == (0, 1) and "release         " + str(data / "releases" / "cdtp" / "0.1.0") in out
    assert len(err.strip().splitlines()) == 1 and "is in use by pid" in err and "--wait" in err
    assert list_versions(data, "cdtp") == ["0.1.0"]

    # With --wait the second runs after the first, and finds everything released already.
    data = tmp_path / "waiting"
    runs = [start(data, free_port(), "--wait", cwd=tmp_path) for _ in range(2)]
    results = [finish(r) for r in runs]
    assert [code for code, _, _ in results] == [0, 0], "".join(err[-2000:] for _, _, err in results)
    waited = [n for n, (_, _, err) in enumerate(results) if "waiting for it to finish" in err]
    assert len(waited) == 1
    out_first, out_second = results[1 - waited[0]][1], results[waited[0]][1]
    assert f"release         {data / 'releases' / 'cdtp' / '0.1.0'}" in out_first
    assert "release         none published: all" in out_second and "already in earlier cdtp releases" in out_second
    assert list_versions(data, "cdtp") == ["0.1.0"]
    from schemas.storage.catalog import Catalog

    catalog = Catalog(data / "catalog.duckdb")
    assert [r["status"] for r in catalog.runs()] == ["published", "nothing_new"]
    assert [r["version"] for r in catalog.releases("cdtp")] == ["0.1.0"]


KILLED_AFTER_PUBLISHING = """
import os, sys
from review.store import ReviewStore
from schemas.storage.catalog import Catalog
# killed between the release's rename and the catalog, or in the review stage, before the queue is written
setattr({"Catalog": Catalog, "ReviewStore": ReviewStore}[sys.argv[1]], sys.argv[2], lambda *args: os._exit(9))
from flows.cli import main
main(sys.argv[3:])
"""


def killed_run(tmp_path, data, kill_at: str) -> None:
    """``zhbench run`` in ``data``, killed at ``kill_at`` (Class.method, in the run's own process)."""
    import os
    import signal

    # In a session of its own, so that what the killed run started (Prefect's server) goes with it; its output
    # to files, which the server, orphaned by the kill, does not hold open as it would a pipe.
    with open(tmp_path / "killed.log", "w") as log:
        killed = subprocess.Popen([sys.executable, "-c", KILLED_AFTER_PUBLISHING, *kill_at.split("."), "run",
                                   "--data-dir", str(data), "--mirror-port", str(free_port())], cwd=tmp_path,
                                  stdout=log, stderr=log, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                  start_new_session=True)
        try:
            killed.wait(timeout=900)
        finally:
            try:
                os.killpg(killed.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert killed.returncode == 9, (tmp_path / "killed.log").read_text()[-2000:]
    assert list_versions(data, "cdtp") == ["0.1.0"]


def review_queue(data) -> tuple[set, set]:
    """The items of cdtp 0.1.0 in the review queue, and those the run's [review] policy chose for it."""
    import sqlite3

    from flows.settings import ReviewSettings
    from review.queue import Policy, select

    review = ReviewSettings()
    chosen = select(data / "releases" / "cdtp" / "0.1.0", Policy(tuple(review.all_configs),
                                                                   tuple(review.sampled_configs),
                                                                   review.sample_per_domain, review.seed))
    found = set()
    if (data / "review.sqlite").is_file():
        with sqlite3.connect(data / "review.sqlite") as con:
            found = set(con.execute("SELECT config, item_id FROM queue WHERE release_version = '0.1.0'").fetchall())
    return found, {(config, i) for config, ids in chosen.items() for i in ids}


@pytest.mark.slow
def test_a_run_killed_after_publishing_is_registered_by_the_next_start(tmp_path):
    data = tmp_path / "data"
    killed_run(tmp_path, data, "Catalog.set_published")
    assert review_queue(data)[0] == set()

    again = zhbench("run", "--data-dir", str(data), "--mirror-port", str(free_port()), cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]
    (run,) = re.findall(r"published by run (\S+) killed before the catalog recorded it", again.stdout)
    assert "repaired        registered cdtp 0.1.0 (releases/cdtp/0.1.0)" in again.stdout
    assert "already in earlier cdtp releases" in again.stdout  # deduplicated against the registered one
    from schemas.storage.catalog import Catalog

    catalog = Catalog(data / "catalog.duckdb")
    assert [(r["version"], r["run_id"]) for r in catalog.releases("cdtp")] == [("0.1.0", run)]
    assert [(r["run_id"], r["status"]) for r in catalog.runs()][0] == (run, "published")
    assert [r["status"] for r in catalog.runs()] == ["published", "nothing_new"]
    # The review queue is part of the release's commit: the next start queued what the killed run would have.
    queued, chosen = review_queue(data)
    assert queued == chosen and chosen
    assert f"repaired        queued cdtp 0.1.0 for review, which run {run} was killed before it finished: " \
           f"{len(chosen)} items added to the queue" in again.stdout


@pytest.mark.slow
def test_a_run_killed_in_its_review_stage_has_its_release_queued_by_the_next_start(tmp_path):
    data = tmp_path / "data"
    killed_run(tmp_path, data, "ReviewStore.enqueue")
    assert review_queue(data)[0] == set()

    again = zhbench("run", "--data-dir", str(data), "--mirror-port", str(free_port()), cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]
    from schemas.storage.catalog import Catalog

    catalog = Catalog(data / "catalog.duckdb")
    run = catalog.runs()[0]["run_id"]
    queued, chosen = review_queue(data)
    assert queued == chosen and chosen
    assert f"repaired        queued cdtp 0.1.0 for review, which run {run} was killed before it finished: " \
           f"{len(chosen)} items added to the queue" in again.stdout
    assert f"repaired        marked run {run} published: it published cdtp 0.1.0 and stopped before it finished" \
        in again.stdout
    assert [r["status"] for r in catalog.runs()] == ["published", "nothing_new"]
