"""A run killed at any stage resumes where it stopped, and a run on a Dask cluster publishes what a run on
one process publishes: the same release, byte for byte (checked by the manifests' checksums)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.localhost import free_port, wait_port
from tests.flows.test_cli import ROOT, zhbench

EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}  # created_at fixed: two runs give the same bytes


def release_files(data: Path, version: str = "0.1.0") -> dict[str, str]:
    manifest = json.loads((data / "releases" / "cdtp" / version / "manifest.json").read_text(encoding="utf-8"))
    return {f["path"]: f["sha256"] for f in manifest["files"]}


def last_report(data: Path) -> dict:
    runs = sorted(p for p in (data / "runs").iterdir() if (p / "report.json").is_file())
    return json.loads((runs[-1] / "report.json").read_text(encoding="utf-8"))


def run_command(data: Path, port: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "flows.cli", "run", "--data-dir", str(data), "--mirror-port", str(port), *extra]


SHARDED = {"ZHBENCH_ENGINE__SHARD_PAGES": "100"}  # the demo's 382 pages aligned in 4 parts


def environment() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_SERVER_ANALYTICS_ENABLED": "false", **EPOCH, **SHARDED}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, str]:
    """The release of an uninterrupted run on threads (the default)."""
    data = tmp_path_factory.mktemp("reference") / "data"
    result = zhbench("run", "--data-dir", str(data), "--mirror-port", str(free_port()), "--quiet", env=EPOCH)
    assert result.returncode == 0, result.stderr[-2000:]
    return release_files(data)


def kill_when(command: list[str], ready, timeout: float = 300) -> None:
    """Start ``command`` and SIGKILL it (the run's process only: what it started must stop by itself) as soon
    as ``ready()`` is true."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment())
    try:
        deadline = time.monotonic() + timeout
        while not ready():
            assert proc.poll() is None, "the run ended before the point where it was to be killed"
            assert time.monotonic() < deadline, "the run never reached the point where it was to be killed"
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)


def fetched_lines(data: Path) -> int:
    return sum(1 for log in (data / "crawls").glob("run-*/fetched.jsonl") for _ in open(log, encoding="utf-8"))


def started(data: Path, stage: str) -> bool:
    return any((data / "work" / stage).glob("*")) if (data / "work" / stage).is_dir() else False


def done(data: Path, stage: str) -> bool:
    return any((data / "work" / stage).glob("*/.done")) if (data / "work" / stage).is_dir() else False


@pytest.mark.slow
def test_a_run_killed_at_three_stages_resumes_to_the_same_release(reference, tmp_path):
    data, port = tmp_path / "data", free_port()
    command = run_command(data, port, "--quiet")
    # 1. in the crawl, after some pages and before the end;
    kill_when(command, lambda: fetched_lines(data) >= 60)
    fetched_before = fetched_lines(data)
    assert not (data / "work").exists()
    # 2. in the alignment, after its first part (the crawl resumed and finished);
    kill_when(command, lambda: done(data, "align"))
    assert not started(data, "dedup")
    finished_parts = {p.parent.name: p.stat().st_mtime_ns for p in (data / "work" / "align").glob("*/.done")}
    # 3. in the item stage.
    kill_when(command, lambda: started(data, "items"))
    assert done(data, "verify") and not done(data, "items")
    # The parts finished before the second kill were taken as they were, not aligned again.
    parts = {p.parent.name: p.stat().st_mtime_ns for p in (data / "work" / "align").glob("*/.done")}
    assert len(parts) == 4 and all(parts[name] == when for name, when in finished_parts.items())

    result = subprocess.run(command, capture_output=True, text=True, env=environment(), timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert release_files(data) == reference
    stages = {s["stage"]: s for s in last_report(data)["stages"]}
    # What earlier attempts finished is taken from the cache; the stage killed last is computed.
    assert [stages[s]["cached"] for s in ("crawl", "align", "dedup", "verify", "items")] == [True] * 4 + [False]
    # The crawl resumed from its fetch log instead of starting again: one crawl directory, no URL fetched twice.
    crawls = list((data / "crawls").glob("run-*"))
    assert len(crawls) == 1
    urls = [json.loads(line)["url"] for line in open(crawls[0] / "fetched.jsonl", encoding="utf-8")]
    assert fetched_before < len(urls) and len(urls) == len(set(urls))
    from schemas.storage.catalog import Catalog

    statuses = [r["status"] for r in Catalog(data / "catalog.duckdb").runs()]
    assert statuses[-1] == "published" and len(statuses) == 4


@pytest.mark.slow
def test_a_second_run_reuses_the_crawl_and_a_due_recrawl_asks_conditionally(tmp_path):
    """Run, run again (the finished crawl reused, nothing fetched, every stage up to dedup cached), then with
    crawl.recrawl_after = 0s: every page asked again with its validators, the unchanged site answering 304,
    so the snapshot is the same and no release is published."""
    data, port = tmp_path / "data", str(free_port())

    def run(**env: str) -> dict:
        result = zhbench("run", "--data-dir", str(data), "--mirror-port", port, "--quiet", env={**EPOCH, **env})
        assert result.returncode == 0, result.stderr[-2000:]
        report = last_report(data)
        return {s["stage"]: s for s in report["stages"]} | {"note": report["note"]}

    run()
    again = run()
    assert again["crawl"]["cached"] and again["align"]["cached"]
    assert "already in earlier cdtp releases" in again["note"]
    assert len(list((data / "crawls").glob("run-*"))) == 1
    recrawled = run(ZHBENCH_CRAWL__RECRAWL_AFTER="0s")
    crawls = sorted((data / "crawls").glob("run-*"))
    assert len(crawls) == 2 and not recrawled["crawl"]["cached"]
    changes = [json.loads(line)["change"] for line in open(crawls[1] / "fetched.jsonl", encoding="utf-8")]
    assert changes.count("unchanged") >= 0.95 * len(changes)  # answered 304 (the missing seed is asked again)
    assert recrawled["align"]["cached"] and len(list((data / "snapshots").iterdir())) == 1
    assert "already in earlier cdtp releases" in recrawled["note"]
    assert not (data / "releases" / "cdtp" / "0.2.0").exists()


@pytest.mark.slow
def test_a_run_on_a_dask_cluster_publishes_the_same_release(reference, tmp_path):
    scheduler_port = free_port()
    dask = str(Path(sys.executable).with_name("dask"))
    env = {k: v for k, v in environment().items() if k != "PREFECT_API_URL"}
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(scheduler_port),
                                  "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    workers = None
    try:
        wait_port(scheduler_port, timeout=60)
        # Two worker processes, from another directory: they see the data directory by its absolute path.
        workers = subprocess.Popen([dask, "worker", f"tcp://127.0.0.1:{scheduler_port}", "--nworkers", "2",
                                    "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd="/")
        data = tmp_path / "data"
        result = zhbench("run", "--data-dir", str(data), "--mirror-port", str(free_port()), "--quiet",
                         "--task-runner", "dask", "--dask-address", f"tcp://127.0.0.1:{scheduler_port}",
                         env={**EPOCH, **SHARDED})
        assert result.returncode == 0, result.stderr[-2000:]
        assert release_files(data) == reference
        assert "distributed" not in result.stderr  # the cluster's INFO log stays out of the user's terminal
        # The release does not say how the run ran: its config has no engine section.
        manifest = json.loads((data / "releases" / "cdtp" / "0.1.0" / "manifest.json").read_text(encoding="utf-8"))
        assert "engine" not in manifest["config"]
    finally:
        for proc in (workers, scheduler):
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
