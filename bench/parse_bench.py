"""Parse + extract throughput on a realistic ~80 KB Baidu Baike page: zhbench's parser with each backend, side
by side in one run with a standalone scraper.

    python -m bench.parse_bench [--rounds 7] [--seconds 1.0]

The peer is ``bench/parse_peer.py``: a scraper for this one layout with selectolax and the standard library,
outside zhbench (no layout detection, no checks for blocked, missing or cut-off pages, no backend-neutral
tree). zhbench is ``crawlers.parsers.parse``, the whole of what ``zhbench parse`` and the crawler run per page.
Every contender must give the peer's record (title, subtitle, summary, paragraphs, infobox, entry links,
senses, tags, canonical URL, content hash); the run fails otherwise. Reported per contender: the median
pages/s and CPU milliseconds per page over the rounds, interleaved, and each one's ratio to the peer (above 1:
faster than the peer; for CPU, below 1: cheaper).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench.machine import cpu_reference, machine_line
from bench.pages import realistic_page
from bench.parse_peer import scrape
from crawlers.mirror.site import Site
from crawlers.parsers import parse

PEER = "standalone scraper (peer)"
BACKENDS = ["selectolax", "lxml", "bs4"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per contender per round")
    args = parser.parse_args(argv)

    reference = cpu_reference()
    body, url = realistic_page(Site(faults=False))
    runs = {PEER: lambda: scrape(body, url), **{b: (lambda b=b: parse(body, url, backend=b)) for b in BACKENDS}}
    peer_record = scrape(body, url)
    for b in BACKENDS:
        record = parse(body, url, backend=b).to_row()
        if record["status"] != "ok" or {k: record[k] for k in peer_record} != peer_record:
            print(f"zhbench's parser with {b} gives a different record from the peer's", file=sys.stderr)
            return 1
    rates: dict[str, list[float]] = {name: [] for name in runs}
    cpu_ms: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():  # interleaved, so a noisy moment hits every contender alike
            count, start, cpu = 0, time.perf_counter(), time.process_time()
            while time.perf_counter() - start < args.seconds:
                run()
                count += 1
            rates[name].append(count / (time.perf_counter() - start))
            cpu_ms[name].append(1000 * (time.process_time() - cpu) / count)
    peer, peer_cpu = statistics.median(rates[PEER]), statistics.median(cpu_ms[PEER])
    print(machine_line(reference))
    print(f"page: {len(body) / 1000:.1f} KB, {len(peer_record['infobox'])} infobox rows, "
          f"{len(peer_record['paragraphs'])} paragraphs, {len(peer_record['links'])} entry links; {args.rounds} "
          f"rounds of {args.seconds:.1f} s; records identical")
    print(f"{'contender':<28}{'median pages/s':>16}{'min':>9}{'max':>9}{'vs peer':>10}{'CPU ms/page':>13}{'vs peer':>10}")
    for name in runs:
        median, cpu = statistics.median(rates[name]), statistics.median(cpu_ms[name])
        label = name if name == PEER else f"zhbench parse, {name}"
        print(f"{label:<28}{median:>16.1f}{min(rates[name]):>9.1f}{max(rates[name]):>9.1f}{median / peer:>9.2f}x"
              f"{cpu:>13.2f}{cpu / peer_cpu:>9.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
