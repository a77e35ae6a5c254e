"""Parse + extract throughput on a realistic ~80 KB page, every backend side by side in one run.

    python -m bench.parse_bench [--rounds 7] [--seconds 1.0]

Baseline: the same extractors over BeautifulSoup with Python's html.parser
(plain BeautifulSoup). Each backend must give the same record as the baseline;
the run fails otherwise. Reports the median pages/s over rounds, and each
backend's ratio to the baseline.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bs4 import BeautifulSoup

from bench.pages import realistic_page
from crawlers.mirror.site import Site
from crawlers.parsers import parse, tree


def _bs4_html_parser(html: str):
    return tree.BS4Node(BeautifulSoup(html, "html.parser"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per backend per round")
    args = parser.parse_args(argv)

    body, url = realistic_page(Site(faults=False))
    tree.BACKENDS["bs4_html.parser"] = _bs4_html_parser  # the baseline, for this run only
    backends = ["bs4_html.parser", "bs4", "lxml"]
    records = {b: parse(body, url, backend=b).to_row() for b in backends}
    for b in backends[1:]:
        if records[b] != records["bs4_html.parser"]:
            print(f"backend {b} gives a different record from the baseline", file=sys.stderr)
            return 1
    rates: dict[str, list[float]] = {b: [] for b in backends}
    for _ in range(args.rounds):
        for b in backends:  # interleaved, so a noisy moment hits every backend alike
            count, start = 0, time.perf_counter()
            while time.perf_counter() - start < args.seconds:
                parse(body, url, backend=b)
                count += 1
            rates[b].append(count / (time.perf_counter() - start))
    base = statistics.median(rates["bs4_html.parser"])
    print(f"page: {len(body) / 1000:.1f} KB, {len(records['lxml']['infobox'])} infobox rows, "
          f"{len(records['lxml']['links'])} entry links; {args.rounds} rounds of {args.seconds:.1f} s; records identical")
    print(f"{'backend':<18}{'median pages/s':>16}{'min':>9}{'max':>9}{'vs baseline':>13}")
    for b in backends:
        median = statistics.median(rates[b])
        print(f"{b:<18}{median:>16.1f}{min(rates[b]):>9.1f}{max(rates[b]):>9.1f}{median / base:>12.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
