"""One writer per crawl directory: a second `zhbench crawl` of one name, a second --resume, a reparse or a run's
crawl meanwhile is refused in one line naming the first; a killed crawl's lock is free once its crawler stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from crawlers.crawl import CrawlLocked, crawl_lock
from tests.crawlers.test_crawl_faults import _crawler_child, _gone, slow_site  # noqa: F401 - a fixture
from tests.flows.test_cli import zhbench


def crawl_args(base: str, tmp_path, *more: str) -> list[str]:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("慢\n", encoding="utf-8")
    # One request at a time to a site of a second a page: the crawl lasts until it is stopped.
    return ["crawl", "--site", "baidu", "--base-url", base, "--seeds", str(seeds), "--data-dir",
            str(tmp_path / "data"), "--name", "slow", "--concurrency", "1", *more]


def start(args: list[str]) -> tuple[subprocess.Popen, int]:
    """A `zhbench` command, and its crawler child once it has started (the crawl's lock is held by then)."""
    command = subprocess.Popen([sys.executable, "-m", "flows.cli", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    return command, _crawler_child(command.pid)


def stop(command: subprocess.Popen, child: int) -> None:
    command.send_signal(signal.SIGTERM)
    command.communicate(timeout=60)
    assert _gone(child)


def refusal(result: subprocess.CompletedProcess, holder: int, data) -> str:
    """The one line a refused command printed, checked to name the holder: pid, since when, command."""
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1 and len(lines) == 1, result.stderr
    assert lines[0].startswith(f"zhbench: error: crawl slow in {data}/crawls/slow is in use by pid {holder} on ")
    assert ", since 20" in lines[0] and "(zhbench crawl --site baidu --base-url " in lines[0]
    assert lines[0].endswith("one process writes a crawl at a time: wait for it to end, or stop it and "
                             "continue with --resume")
    return lines[0]


def fetched_urls(data) -> list[str]:
    log = data / "crawls" / "slow" / "fetched.jsonl"
    return [json.loads(line)["canonical_url"] for line in log.read_text(encoding="utf-8").splitlines() if line]


def test_two_crawls_of_one_name_one_refuses_in_one_line_naming_the_other(slow_site, tmp_path):
    data = tmp_path / "data"
    first, child = start(crawl_args(slow_site, tmp_path))
    try:
        second = zhbench(*crawl_args(slow_site, tmp_path))
    finally:
        stop(first, child)
    line = refusal(second, first.pid, data)
    assert "--name slow --concurrency 1)" in line
    urls = fetched_urls(data)
    assert urls and len(urls) == len(set(urls))  # each page stored once: by the first crawl alone


@pytest.mark.slow  # four commands, a kill and two crawler stops: about 30 s
def test_a_killed_crawls_lock_is_free_once_its_crawler_stopped_and_of_two_resumes_one_refuses(slow_site, tmp_path):
    data = tmp_path / "data"
    first, child = start(crawl_args(slow_site, tmp_path))
    time.sleep(2.5)
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=30)
    # The crawler outlives its killed parent for a moment, finishing what it fetched: it holds the lock meanwhile.
    os.kill(child, 0)
    with pytest.raises(CrawlLocked) as held:
        with crawl_lock(data / "crawls" / "slow"):
            pass
    assert f"in use by pid {first.pid} " in str(held.value) and "(gone: its crawler process is stopping)" in str(
        held.value)
    assert _gone(child)

    resumed, resumed_child = start(crawl_args(slow_site, tmp_path, "--resume"))  # the dead one's lock taken over
    try:
        again = zhbench(*crawl_args(slow_site, tmp_path, "--resume"))
        reparse = zhbench("reparse", "slow", "--data-dir", str(data))
    finally:
        stop(resumed, resumed_child)
    assert "--resume)" in refusal(again, resumed.pid, data)
    refusal(reparse, resumed.pid, data)
    urls = fetched_urls(data)
    assert len(urls) == len(set(urls))  # each page stored once: the killed crawl and the one resume


HOLDER = textwrap.dedent("""
    import sys, time
    from crawlers.crawl import crawl_lock

    with crawl_lock(sys.argv[1], command="zhbench crawl --resume --name run-x"):
        print("held", flush=True)
        time.sleep(60)
""")


def test_a_runs_crawl_is_refused_while_another_process_writes_it(tmp_path):
    from flows.crawling import KIND, _crawl_into
    from flows.settings import Settings

    out = tmp_path / "data" / "crawls" / "run-x"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(out)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": os.getcwd()})
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(CrawlLocked) as refused:
            _crawl_into(Settings.load(None, {"data_dir": tmp_path / "data"}), tmp_path / "data",
                        "http://127.0.0.1:9", out, "full", resume=True)
    finally:
        holder.kill()
        holder.wait()
    assert f"in use by pid {holder.pid} " in str(refused.value)
    assert "(zhbench crawl --resume --name run-x)" in str(refused.value)
    assert not (out / KIND).exists()  # nothing of the run's crawl was written
