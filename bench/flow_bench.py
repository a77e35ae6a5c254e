"""End to end on the realistic mirror: pages/s, per-stage time and peak memory, and 1 against 2 Dask workers.

    python -m bench.flow_bench [--sizes 2000 10000] [--dask-workers 1 2] [--dir /tmp/zhbench-flow-bench]

Each measurement is one ``zhbench run --profile realistic`` of N mirror entries in a fresh data directory (so
nothing is cached), the mirror on loopback: by default ``zhbench mirror serve --profile realistic --size N`` in a
process of its own, started before the run and crawled with ``--base-url`` and the 20 seeds the bundled mirror
would give (the same pages and seeds as ``--mirror-size N``), its web search indexed before the run starts, as
a search engine's is; ``--mirror-in-run`` lets the run start the mirror
itself (``--mirror-size N``, then its corpus counts as the run's memory). Search validation off as in the
realistic test (BM25 over a long-tail crawl confirms almost nothing), unless ``--search`` keeps it on as a
default run has it. Reported per run:

* wall time of the whole command (Prefect's start-up included), and of each stage from the run's report;
* pages/s: content and other pages fetched, over the whole command's wall time, and per core;
* peak memory: the largest sum of the resident sets of the command and every process under it (the
  temporary Prefect server, the crawler, Dask workers), sampled every 0.2 s from /proc; the largest sample
  taken during each stage (placed by the stage's start in the report), and the peak split by process;
  and the run's own process at each stage's last sample (what the stage leaves held for the next);
* CPU: user and system seconds of the command and the processes it waited for (the crawler, Dask workers),
  over its wall time: how many cores the run kept busy on average.

``--peer`` then runs the end-to-end target's peer right after each run, against the same mirror: ``bench/plain_spider.py
--tuned``, a plain Scrapy spider at its own settings, fetching every URL the run's crawl requested (its fetch
log), with its wall and CPU seconds; the run's wall time over the spider's is "end to end over the crawl alone".

``--prefect-server`` runs the smallest size again against an already-running Prefect server (``prefect server
start`` on 127.0.0.1 with a fresh PREFECT_HOME, started and migrated before the run is timed): the
orchestration's start-up a run pays with its temporary server against one that was already there, each
read from the run's own "engine start-up" figure.

``--dask-workers`` runs the largest size again on a local Dask cluster of that many worker processes
(``--task-runner dask --workers K``) and gives the speed-up of the whole run and of the alignment (the stage
mapped over page parts). A machine with fewer cores than workers shows no speed-up: say which this is.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from bench.localhost import child_pids, free_port
from bench.machine import cpu_reference, machine_line
from warehouse.release import remove_tree

ROOT = Path(__file__).resolve().parent.parent


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def _role(pid: int, root: int) -> str:
    """What a process of the run's tree is, from its command line."""
    if pid == root:
        return "run"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            command = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return "other"
    for marker, role in (("crawlers.crawl", "crawler"), ("prefect", "prefect server"), ("uvicorn", "prefect server"),
                         ("dask", "dask"), ("distributed", "dask")):
        if marker in command:
            return role
    return "other"


def tree_rss(pid: int) -> dict[str, int]:
    """Resident bytes of ``pid`` and every process under it, summed by role (run, crawler, Prefect server...)."""
    roles: dict[str, int] = {}
    stack = [pid]
    while stack:
        current = stack.pop()
        role = _role(current, pid)
        roles[role] = roles.get(role, 0) + _rss_bytes(current)
        stack.extend(child_pids(current))
    return roles


def measure(command: list[str], env: dict) -> dict:
    """Run ``command``; its wall time, exit status, and its process tree's resident memory sampled every 0.2 s
    as (Unix time, bytes by role)."""
    started = time.monotonic()
    before = os.times()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    samples: list[tuple[float, dict[str, int]]] = []

    def sample() -> None:
        while proc.poll() is None:
            samples.append((time.time(), tree_rss(proc.pid)))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    after = os.times()
    sampler.join()
    peak = max(samples, key=lambda s: sum(s[1].values()), default=(0.0, {}))
    # the command's CPU and that of the processes under it it waited for (the crawler, Dask workers); not the
    # shared Prefect server's, which no run waits for
    return {"seconds": time.monotonic() - started, "cpu_s": children_cpu(before, after),
            "peak_rss_mb": sum(peak[1].values()) / 2**20,
            "peak_by_role_mb": {k: round(v / 2**20) for k, v in sorted(peak[1].items(), key=lambda kv: -kv[1])},
            "samples": samples, "stdout": out, "stderr": err, "returncode": proc.returncode}


def stage_memory(samples: list[tuple[float, dict[str, int]]],
                 stages: list[dict]) -> tuple[dict[str, float], dict[str, float]]:
    """Per stage (placed by the report's ``started_at``), in MB: the largest sample of the whole process tree
    taken while it ran, and the run's own process at its last sample (what the stage leaves for the next)."""
    peaks: dict[str, float] = {}
    ends: dict[str, float] = {}
    for stage in stages:
        began = stage.get("started_at")
        if began is None:
            continue
        inside = [r for t, r in samples if began <= t <= began + stage["seconds"]]
        if inside:
            peaks[stage["stage"]] = max(sum(r.values()) for r in inside) / 2**20
            ends[stage["stage"]] = inside[-1].get("run", 0) / 2**20
    return peaks, ends


SEARCH = {"on": False}  # --search: keep CDTP's search validation on
PEER = {"on": False}  # --peer: time the plain spider's crawl of the same pages
MIRROR = {"separate": True}  # --mirror-in-run: the run starts the mirror inside it, as `zhbench run` does
KEEP = {"data": False}  # --keep: leave each run's data directory for a closer look


def plain_spider_crawl(data: Path, work: Path) -> dict:
    """``bench/plain_spider.py`` (a plain Scrapy spider at its own settings, ``--tuned``) fetching, from the same
    mirror, the URLs the run's crawl fetched (each request of its fetch log), right after the run: its wall and
    CPU seconds and the pages it got."""
    urls = []
    for log in sorted((data / "crawls").glob("*/fetched.jsonl")):
        with open(log, encoding="utf-8") as handle:
            urls.extend(json.loads(line).get("request_url") or "" for line in handle if line.strip())
    urls = list(dict.fromkeys(u for u in urls if u))
    listed, out = work / "peer-urls.txt", work / "peer-pages.jsonl"
    listed.write_text("\n".join(urls) + "\n", encoding="utf-8")
    out.unlink(missing_ok=True)
    before, started = os.times(), time.monotonic()
    subprocess.run([sys.executable, "-m", "bench.plain_spider", str(listed), str(out), "--tuned"], cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    seconds, after = time.monotonic() - started, os.times()
    with open(out, encoding="utf-8") as handle:
        pages = sum(1 for line in handle if line.strip())
    return {"urls": len(urls), "pages": pages, "seconds": seconds, "cpu_s": children_cpu(before, after)}


def children_cpu(before: os.times_result, after: os.times_result) -> float:
    """User and system seconds of the child processes waited for between two ``os.times()``."""
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


@contextmanager
def separate_mirror(size: int, work: Path):
    """``zhbench mirror serve --profile realistic --size N`` in its own process, ready on entry: the run's
    arguments that crawl it (``--base-url`` and a seed file of the 20 seeds a run of the bundled mirror
    would start from) and the mirror's pid. The mirror stands in for the web; in its own process its
    memory (its whole corpus, about 9 KB an entry) is not counted as the run's."""
    from crawlers.mirror.realistic import RealisticCorpus
    from flows.crawling import REALISTIC_SEEDS

    seeds = work / f"seeds-{size}.txt"
    seeds.write_text("\n".join(RealisticCorpus(size, 0).seeds(REALISTIC_SEEDS)) + "\n", encoding="utf-8")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    mirror = subprocess.Popen([sys.executable, "-m", "flows.cli", "mirror", "serve", "--profile", "realistic",
                               "--size", str(size), "--port", str(port)], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        ready = mirror.stdout.readline()  # printed once the corpus is built and the port listens
        if not ready.startswith("mirror:"):
            raise SystemExit(f"the mirror did not start (exit {mirror.poll()})")
        # The mirror indexes its web search on the first query; a web search engine's index is there before
        # anyone asks, so it is built now, before the run is timed.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/search?q=%E7%99%BE%E7%A7%91&format=json",
                                    timeout=600) as answer:
            answer.read()
        yield ["--base-url", f"http://127.0.0.1:{port}", "--seeds", str(seeds)], mirror.pid
    finally:
        os.killpg(mirror.pid, 15)  # not SIGINT: a bench started in the background has it ignored, and so its mirror
        mirror.wait(timeout=30)


def run_once(size: int, work: Path, extra: list[str], env_extra: dict | None = None, label: str = "") -> dict:
    data = work / f"data-{size}-{'-'.join(extra) or 'threads'}{'-' + label.replace(' ', '-') if label else ''}"
    remove_tree(data)  # its releases are sealed read-only
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "ZHBENCH_VERIFY__SEARCH": "true" if SEARCH["on"] else "false", **(env_extra or {})}
    command = [sys.executable, "-m", "flows.cli", "run", "--profile", "realistic", "--data-dir", str(data),
               "--quiet", *extra]
    mirror_mb, peer = None, None
    if MIRROR["separate"]:
        with separate_mirror(size, work) as (site, mirror_pid):
            mirror_mb = _rss_bytes(mirror_pid) / 2**20
            # the mirror answers web search too (/search, as SearXNG does): the run searches it, as a run that
            # starts the mirror itself does
            result = measure(command + site, {**env, "ZHBENCH_VERIFY__SEARCH_URL": site[1]})
            if PEER["on"]:
                peer = plain_spider_crawl(data, work)
    else:
        result = measure(command + ["--mirror-size", str(size), "--mirror-port", str(free_port())], env)
    runs = sorted(p for p in (data / "runs").iterdir() if (p / "report.json").is_file()) \
        if (data / "runs").is_dir() else []
    if not runs:  # it failed before its report: nothing to measure
        raise SystemExit(f"{' '.join(command)} failed ({result['returncode']}):\n{result['stderr'][-3000:]}")
    report = json.loads((runs[-1] / "report.json").read_text(encoding="utf-8"))
    pages = sum(report["pages"].values())
    stages = {s["stage"]: s["seconds"] for s in report.get("stages", [])}
    peaks, ends = stage_memory(result["samples"], report.get("stages", []))
    if not KEEP["data"]:
        remove_tree(data)
    import re

    startup = re.search(r"engine start-up ([\d.]+) s", result["stdout"])
    return {"size": size, "runner": label or " ".join(extra) or "threads", "pages": pages,
            "startup_s": float(startup.group(1)) if startup else None, "seconds": result["seconds"],
            "flow_seconds": report.get("seconds"), "pages_per_s": pages / result["seconds"],
            "pages_per_s_per_core": pages / result["seconds"] / (os.cpu_count() or 1),
            "peak_rss_mb": result["peak_rss_mb"], "peak_by_role_mb": result["peak_by_role_mb"],
            "mirror_mb": None if mirror_mb is None else round(mirror_mb),
            "stage_peak_mb": {k: round(v) for k, v in peaks.items()},
            "run_at_stage_end_mb": {k: round(v) for k, v in ends.items()},
            "pairs_kept": report["funnel"]["pairs_kept"], "stages": stages, "cpu_s": result["cpu_s"], "peer": peer,
            # a run whose release the gate refused still ran every stage: its times count, and it is named
            "release": "published" if report.get("release") else (report.get("note") or "").split("\n")[0][:60]}


@contextmanager
def running_prefect_server(home: Path):
    """``prefect server start`` on 127.0.0.1 with its own PREFECT_HOME, ready (database migrated) on entry."""
    import urllib.request

    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    port = free_port()
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "PREFECT_UI_ENABLED": "false"}
    env.pop("PREFECT_API_URL", None)
    server = subprocess.Popen([sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port",
                               str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    api_url = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{api_url}/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the Prefect server did not start") from None
                time.sleep(0.5)
        yield api_url
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10000], help="realistic mirror sizes")
    parser.add_argument("--dask-workers", type=int, nargs="*", default=[1, 2],
                        help="local Dask cluster sizes to run the largest size on (none: skip)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/zhbench-flow-bench"), help="scratch directory")
    parser.add_argument("--search", action="store_true",
                        help="keep the search validation on (BM25 over the crawl), as a default run has it")
    parser.add_argument("--prefect-server", action="store_true",
                        help="also run the smallest size against an already-running Prefect server")
    parser.add_argument("--mirror-in-run", action="store_true",
                        help="let each run start the bundled mirror inside it (--mirror-size N: its corpus then "
                             "counts as the run's memory; sizes up to 50,000) instead of serving it from a separate "
                             "process")
    parser.add_argument("--peer", action="store_true",
                        help="after each run, time the plain spider (bench/plain_spider.py --tuned) fetching the "
                             "URLs the run fetched from the same mirror: end to end over the crawl alone")
    parser.add_argument("--keep", action="store_true",
                        help="keep each run's data directory under --dir (its stages' outputs, to probe one alone)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    SEARCH["on"] = args.search
    MIRROR["separate"] = not args.mirror_in_run
    KEEP["data"] = args.keep
    PEER["on"] = args.peer
    if args.peer and args.mirror_in_run:
        parser.error("--peer needs the mirror in a process of its own (without --mirror-in-run)")
    reference = cpu_reference()
    results = [run_once(size, args.dir, []) for size in args.sizes]
    for workers in args.dask_workers:
        results.append(run_once(max(args.sizes), args.dir, ["--task-runner", "dask", "--workers", str(workers)]))
    if args.prefect_server:
        with running_prefect_server(args.dir / "prefect-home") as api_url:
            results.append(run_once(min(args.sizes), args.dir, [], {"PREFECT_API_URL": api_url},
                                    "running Prefect server"))
    if args.json:
        print(json.dumps({"cpu_reference_s": round(reference, 3), "runs": results}, indent=2))
        return 0
    print(f"{machine_line(reference)}; search validation {'on' if args.search else 'off'}; fresh data directory "
          f"per run; the mirror "
          + ("in the run's process" if args.mirror_in_run else "in a process of its own, not counted in the run's "
             "memory"))
    print(f"{'pages':>7} {'runner':<28} {'wall s':>8} {'start-up':>8} {'flow s':>8} {'pages/s':>8} {'/core':>7} "
          f"{'peak MB':>8} {'pairs':>6}  stages (s)")
    for r in results:
        stages = ", ".join(f"{k} {v:.1f}" for k, v in r["stages"].items())
        startup = "-" if r["startup_s"] is None else f"{r['startup_s']:.1f}"
        print(f"{r['pages']:>7} {r['runner']:<28} {r['seconds']:>8.1f} {startup:>8} {r['flow_seconds'] or 0:>8.1f} "
              f"{r['pages_per_s']:>8.1f} {r['pages_per_s_per_core']:>7.1f} {r['peak_rss_mb']:>8.0f} "
              f"{r['pairs_kept']:>6}  {stages}")
    for r in results:
        print(f"  {r['pages']} pages, {r['runner']}: peak MB by stage: "
              + ", ".join(f"{k} {v}" for k, v in r["stage_peak_mb"].items())
              + "; at the peak: " + ", ".join(f"{k} {v}" for k, v in r["peak_by_role_mb"].items())
              + ("" if r["mirror_mb"] is None else f"; the separate mirror {r['mirror_mb']} MB"))
        print("    the run's process at each stage's end (MB): "
              + ", ".join(f"{k} {v}" for k, v in r["run_at_stage_end_mb"].items()))
    for r in results:
        print(f"  {r['pages']} pages, {r['runner']}: the run's CPU {r['cpu_s']:.1f} s over {r['seconds']:.1f} s wall: "
              f"{r['cpu_s'] / r['seconds']:.2f} cores busy on average")
        if r["peer"]:
            p = r["peer"]
            print(f"    the plain spider, the same {p['urls']} URLs from the same mirror: {p['seconds']:.1f} s wall, "
                  f"{p['cpu_s']:.1f} s CPU, {p['pages']} pages; end to end / its crawl: "
                  f"{r['seconds'] / p['seconds']:.2f}x")
    for r in results:
        if r["release"] != "published":
            print(f"  note: {r['pages']} pages, {r['runner']}: {r['release']}")
    dask = [r for r in results if r["runner"].startswith("--task-runner dask")]
    if len(dask) >= 2:
        one, two = dask[0], dask[-1]
        print(f"speed-up {one['runner'].rsplit(' ', 1)[-1]} -> {two['runner'].rsplit(' ', 1)[-1]} Dask workers: "
              f"run {one['seconds'] / two['seconds']:.2f}x, align "
              f"{one['stages'].get('align', 0) / max(two['stages'].get('align', 0), 1e-9):.2f}x")
    if len(args.sizes) >= 2:
        small, large = results[0], results[len(args.sizes) - 1]
        print(f"from {small['pages']} to {large['pages']} pages: peak memory "
              f"x{large['peak_rss_mb'] / small['peak_rss_mb']:.2f}, "
              f"wall time x{large['seconds'] / small['seconds']:.2f} for x{large['pages'] / small['pages']:.2f} pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
