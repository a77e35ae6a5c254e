"""Crawl cost side by side with a plain Scrapy spider on the same pages, in one run.

    python -m bench.crawl_bench [--pages 2000] [--rounds 3]
    python -m bench.crawl_bench --memory-pages 100000 --rounds 1   # peak memory of a long crawl

Pages: synthetic mirror entries (``crawlers.mirror.synth``), exported as static files and served
by nginx on 127.0.0.1 when nginx is installed (so the server costs little CPU), otherwise by the
bundled Python mirror, which the output says. Both crawlers get the same URL list, fetch every page
once (depth 0) with the same settings (16 concurrent requests, robots.txt obeyed, AutoThrottle off,
no delay) and extract every record with zhbench's parser (its default backend):

* zhbench: the crawl child as ``zhbench run`` starts it (``python -m crawlers.crawl``: fetch log,
  raw store, frontier state, Parquet shards);
* the peer: ``bench.plain_spider``, one CrawlerProcess writing JSON lines, with Scrapy's defaults;
* the peer tuned: the same with the two Scrapy settings zhbench's crawl changes for speed
  (``--tuned``: CONCURRENT_ITEMS 1, WARN_ON_GENERATOR_RETURN_VALUE off), so what the settings give
  and what the rest of zhbench costs are told apart.

Each is a child process timed from its start to its exit; CPU seconds and peak RSS are its own
(``os.wait4``). Each contender goes first in turn. Reported: pages/s over the child's wall time,
CPU ms per page, peak RSS, and zhbench's ratios to the peer. The run fails if the two crawls did not
extract the same records (URL, status, title, summary, infobox) for every page.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, fields
from pathlib import Path
from urllib.parse import unquote

from bench.localhost import free_port, wait_port
from bench.machine import machine_line
from crawlers.crawl import CrawlConfig
from crawlers.mirror.site import MirrorServer, Site
from crawlers.mirror.synth import SynthConfig

CONCURRENCY = 16


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


def timed_child(command: list[str], cwd: Path) -> dict:
    """Run a child to its end: wall seconds, CPU seconds (user + system) and peak RSS (MB), its own."""
    started = time.monotonic()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {proc.returncode}: {err[-2000:]}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024}


def zhbench_crawl(urls: list[str], out: Path) -> tuple[dict, dict]:
    config = CrawlConfig(start_urls=urls, out_dir=str(out), max_depth=0, concurrency=CONCURRENCY, autothrottle=False,
                         rows_per_shard=10_000)
    out.mkdir(parents=True)
    path = out / "crawl-config.json"
    path.write_text(json.dumps(asdict(config), ensure_ascii=False), encoding="utf-8")
    cost = timed_child([sys.executable, "-m", "crawlers.crawl", str(path)], out)
    return cost, zhbench_records(out)


def zhbench_records(out: Path) -> dict:
    import pyarrow.parquet as pq

    records = {}
    for shard in sorted(out.rglob("*.parquet")):
        for row in pq.read_table(shard, columns=["canonical_url", "url", "status", "title", "summary",
                                                 "infobox"]).to_pylist():
            records[row["canonical_url"] or row["url"]] = (row["status"], row["title"], row["summary"],
                                                           [[e["name"], e["value"]] for e in row["infobox"]])
    return records


def plain_crawl(urls: list[str], out: Path, tuned: bool = False) -> tuple[dict, dict]:
    out.mkdir(parents=True)
    (out / "urls.txt").write_text("\n".join(urls), encoding="utf-8")
    lines = out / "pages.jsonl"
    cost = timed_child([sys.executable, "-m", "bench.plain_spider", str(out / "urls.txt"), str(lines),
                        "--concurrency", str(CONCURRENCY), *(["--tuned"] if tuned else [])],
                       Path(__file__).resolve().parent.parent)
    records = {}
    with open(lines, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            records[r["url"]] = (r["status"], r["title"], r["summary"], r["infobox"])
    return cost, records


def _default_backend() -> str:
    return next(f.default for f in fields(CrawlConfig) if f.name == "backend")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--memory-pages", type=int, default=0, help="only: one zhbench crawl of this many pages")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args(argv)

    count = args.memory_pages or args.pages
    site = Site(faults=False, synthetic=count, synth_config=SynthConfig(seed=11))
    workdir = Path(tempfile.mkdtemp(prefix="zhbench-crawl-bench-"))
    workdir.chmod(0o755)  # nginx's worker runs as another user and must read the files
    server = mirror = None
    try:
        if shutil.which("nginx"):
            server = StaticSite(site, count, workdir)
            base, paths, served_by = server.url, server.paths, "nginx (static files)"
        else:
            mirror = MirrorServer(site).start()
            base, paths, served_by = mirror.url, [site.synthetic_url(i) for i in range(count)], "the Python mirror"
        urls = [base + p for p in paths]
        print(machine_line())
        print(f"{count} synthetic pages served by {served_by} on 127.0.0.1; {os.cpu_count()} cores; "
              f"{CONCURRENCY} concurrent requests, AutoThrottle off, parser backend {_default_backend()}")
        if args.memory_pages:
            cost, records = zhbench_crawl(urls, workdir / "memory")
            print(f"zhbench: {len(records)} pages, {len(records) / cost['wall_s']:.1f} pages/s, "
                  f"peak RSS {cost['rss_mb']:.0f} MB")
            return 0
        contenders = [("zhbench", zhbench_crawl), ("plain", plain_crawl),
                      ("plain tuned", lambda u, o: plain_crawl(u, o, tuned=True))]
        rows = []
        for round_no in range(1, args.rounds + 1):
            order = contenders[round_no % 3:] + contenders[:round_no % 3]  # each goes first in turn
            results = {name: crawl(urls, workdir / f"{name.replace(' ', '-')}-{round_no}") for name, crawl in order}
            z_records = results["zhbench"][1]
            for name, (_, records) in results.items():
                if records != z_records:
                    differ = sorted(set(z_records) ^ set(records)) or \
                        [u for u in z_records if z_records[u] != records.get(u)]
                    raise SystemExit(f"{name} and zhbench extracted different records ({len(differ)}), e.g. {differ[:3]}")
            n = len(z_records)
            row = {"round": round_no, "pages": n}
            for name, (cost, _) in results.items():
                row[name] = {"pages_s": n / cost["wall_s"], "cpu_ms_page": 1000 * cost["cpu_s"] / n,
                             "rss_mb": cost["rss_mb"], "wall_s": cost["wall_s"]}
            rows.append(row)
            print(f"round {round_no} ({n} identical records): " + " | ".join(
                f"{name} {row[name]['pages_s']:.1f} pages/s, {row[name]['cpu_ms_page']:.2f} CPU-ms/page, "
                f"{row[name]['rss_mb']:.0f} MB" for name, _ in contenders))
        med = {name: {k: statistics.median(r[name][k] for r in rows) for k in ("pages_s", "cpu_ms_page", "rss_mb")}
               for name, _ in contenders}
        z = med["zhbench"]
        print("median:")
        for name, _ in contenders:
            m = med[name]
            ratio = "" if name == "zhbench" else (
                f"   zhbench ÷ this: speed {z['pages_s'] / m['pages_s']:.2f}x, CPU per page "
                f"{z['cpu_ms_page'] / m['cpu_ms_page']:.2f}x, peak RSS {z['rss_mb'] / m['rss_mb']:.2f}x")
            print(f"  {name:<12} {m['pages_s']:7.1f} pages/s {m['cpu_ms_page']:6.2f} CPU-ms/page "
                  f"{m['rss_mb']:5.0f} MB{ratio}")
        if args.json:
            Path(args.json).write_text(json.dumps({"served_by": served_by, "rounds": rows, "median": med}, indent=2),
                                       encoding="utf-8")
    finally:
        if server is not None:
            server.stop()
        if mirror is not None:
            mirror.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
