"""Crawl throughput with extraction, side by side with ``scrapy bench``, one and two processes.

    python -m bench.crawl_bench [--pages 5000] [--rounds 3]
    python -m bench.crawl_bench --memory-pages 100000 --rounds 1   # peak memory of a long crawl

Pages: synthetic mirror entries (``crawlers.mirror.synth``), exported as static
files and served by nginx on 127.0.0.1 when nginx is installed, so the server
costs little CPU (as the issue's loopback-nginx measurement did); otherwise by
the bundled Python mirror, which the output says. Each zhbench crawl fetches
every page once (depth 0) and extracts its record with the default parser.

Reported per round, then as medians:
* ``scrapy bench``: Scrapy's own benchmark spider (link following, no extraction);
* one zhbench crawl process: pages/s from the crawl's own elapsed time;
* two zhbench processes sharing a Redis frontier (a redis-server on 127.0.0.1):
  pages/s over the wall time of both, and the speed-up over one process;
* the crawl child's peak RSS.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from datetime import datetime
from pathlib import Path
from urllib.parse import unquote

from bench.localhost import free_port, wait_port
from crawlers.crawl import CrawlConfig, run_crawl
from crawlers.fetchlog import FetchLog
from crawlers.mirror.site import MirrorServer, Site
from crawlers.mirror.synth import SynthConfig


class StaticSite:
    """Synthetic pages as files under a directory, served by nginx."""

    def __init__(self, site: Site, count: int, workdir: Path):
        self.root = workdir / "www"
        self.paths = []
        for index in range(count):
            path = site.synthetic_url(index)
            target = self.root / unquote(path).lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(site.respond(path).body)
            self.paths.append(path)
        (self.root / "robots.txt").write_text("User-agent: *\nDisallow: /usercenter\n", encoding="utf-8")
        self.port = free_port()
        conf = workdir / "nginx.conf"
        conf.write_text(f"""
worker_processes 1;
pid {workdir}/nginx.pid;
error_log {workdir}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    default_type "text/html; charset=utf-8";
    client_body_temp_path {workdir}/tmp; proxy_temp_path {workdir}/tmp; fastcgi_temp_path {workdir}/tmp;
    uwsgi_temp_path {workdir}/tmp; scgi_temp_path {workdir}/tmp;
    server {{ listen 127.0.0.1:{self.port}; root {self.root}; }}
}}
""", encoding="utf-8")
        (workdir / "tmp").mkdir(exist_ok=True)
        self.proc = subprocess.Popen(["nginx", "-c", str(conf), "-g", "daemon off;"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.port)
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def scrapy_bench(seconds: int) -> float:
    """pages/s that `scrapy bench` reports (its best minute-rate line, converted)."""
    proc = subprocess.run([sys.executable, "-m", "scrapy", "bench", "-s", f"CLOSESPIDER_TIMEOUT={seconds}",
                           "-s", "LOGSTATS_INTERVAL=1"], capture_output=True, text=True, cwd=tempfile.gettempdir())
    rates = [int(m) for m in re.findall(r"Crawled \d+ pages \(at (\d+) pages/min\)", proc.stderr)]
    counts = re.findall(r"'item_scraped_count': (\d+)|'response_received_count': (\d+)", proc.stderr)
    elapsed = re.search(r"'elapsed_time_seconds': ([\d.]+)", proc.stderr)
    received = [int(b) for a, b in counts if b]
    if received and elapsed:
        return received[-1] / float(elapsed.group(1))
    return max(rates) / 60 if rates else float("nan")


def crawl_once(urls: list[str], out: Path, redis_url: str = "", key: str = "") -> list[datetime]:
    """Crawl every URL once; returns the fetch times of the pages kept."""
    config = CrawlConfig(start_urls=urls, out_dir=str(out), max_depth=0, concurrency=16, autothrottle=False,
                         redis_url=redis_url, redis_key=key, rows_per_shard=10_000)
    run_crawl(config)
    return [datetime.fromisoformat(e["fetched_at"]) for e in FetchLog(out / "fetched.jsonl").entries()]


def rate(times: list[datetime]) -> float:
    """Pages per second from the first page fetched to the last: start-up and the idle tail
    (a process waits a few seconds for its peers before closing) are the same for every
    crawl size and are left out, so the figure is the steady crawl rate."""
    span = (max(times) - min(times)).total_seconds()
    return (len(times) - 1) / span if span > 0 else float("nan")


def peak_child_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scrapy-bench-seconds", type=int, default=10)
    parser.add_argument("--memory-pages", type=int, default=0, help="only: one crawl of this many pages, peak RSS")
    args = parser.parse_args(argv)

    count = args.memory_pages or args.pages
    site = Site(faults=False, synthetic=count, synth_config=SynthConfig(seed=11))
    workdir = Path(tempfile.mkdtemp(prefix="zhbench-crawl-bench-"))
    workdir.chmod(0o755)  # nginx's worker runs as another user and must read the files
    server = None
    try:
        if shutil.which("nginx"):
            server = StaticSite(site, count, workdir)
            base, paths, served_by = server.url, server.paths, "nginx (static files)"
        else:
            mirror = MirrorServer(site).start()
            base, paths, served_by = mirror.url, [site.synthetic_url(i) for i in range(count)], "Python mirror"
        urls = [base + p for p in paths]
        print(f"{count} synthetic pages served by {served_by}; {os.cpu_count()} cores")
        if args.memory_pages:
            times = crawl_once(urls, workdir / "memory")
            print(f"one process: {len(times)} pages at {rate(times):.1f} pages/s; "
                  f"peak RSS of the crawl process {peak_child_rss_mb():.0f} MB")
            return 0
        redis_bin = shutil.which("redis-server")
        rows = []
        for round_no in range(1, args.rounds + 1):
            sb = scrapy_bench(args.scrapy_bench_seconds)
            one = rate(crawl_once(urls, workdir / f"one-{round_no}"))
            two = float("nan")
            if redis_bin:
                port = free_port()
                redis = subprocess.Popen([redis_bin, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                          "--appendonly", "no"], stdout=subprocess.DEVNULL)
                wait_port(port)
                results: dict[int, list[datetime]] = {}
                def worker(w: int, redis_url: str = f"redis://127.0.0.1:{port}/0", tag: str = f"{round_no}",
                           into: dict = results) -> None:
                    into[w] = crawl_once(urls, workdir / f"two-{tag}-{w}", redis_url, f"bench{tag}")

                threads = [threading.Thread(target=worker, args=(w,)) for w in (1, 2)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                together = results[1] + results[2]
                two = rate(together) if len(together) == count else float("nan")
                redis.terminate()
                redis.wait()
            rows.append((sb, one, two))
            print(f"round {round_no}: scrapy bench {sb:.1f} pages/s | zhbench 1 process {one:.1f} pages/s | "
                  f"2 processes {two:.1f} pages/s ({two / one:.2f}x)")
        sb, one, two = (statistics.median(r[i] for r in rows) for i in range(3))
        print(f"median: scrapy bench {sb:.1f} pages/s | zhbench 1 process {one:.1f} pages/s "
              f"({one / sb:.2f}x scrapy bench) | 2 processes {two:.1f} pages/s ({two / one:.2f}x one) | "
              f"peak RSS of a crawl process {peak_child_rss_mb():.0f} MB")
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
