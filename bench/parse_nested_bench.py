"""Seconds to parse pages nested 500 to 4,000 deep, per shape and backend, so the growth shows.

    python -m bench.parse_nested_bench [--depths 500 1000 2000 4000] [--shapes tables links] [--repeat 3]

Each shape of :data:`bench.pages.NESTED_SHAPES` nests one thing the layouts read (tables, table cells,
paragraphs, infobox values, list items, links, noise) with its content at the bottom only, so the
record stays small and only the tree grows. A parse that is linear in the page takes about twice as
long at twice the depth; the last column gives that factor per doubling, from the first and last
depth. The row "lexbor tree" times building lexbor's tree alone: HTML5's tree construction looks
through the open elements at each tag, so it grows faster than linear on deep nesting of its own.
The last line times the page of the report: 3,001 nested tables in a Baidu entry (17.4 s with the
selectolax backend before the walks of crawlers/parsers/walks.py; the target is 1 s). Best of
``--repeat`` runs; every backend's record must be the lxml backend's.
"""

from __future__ import annotations

import argparse
import math
import time

from selectolax.lexbor import LexborHTMLParser

from bench.pages import NESTED_SHAPES, nested_page
from crawlers.parsers import BACKENDS, parse

TREE_ONLY = "lexbor tree"  # building lexbor's tree alone, no reading: the part of the time that is lexbor's own


def best_seconds(html: str, url: str, backend: str, repeat: int) -> tuple[float, dict | None]:
    best, row = float("inf"), None
    data = html.encode()
    for _ in range(repeat):
        start = time.perf_counter()
        if backend == TREE_ONLY:
            LexborHTMLParser(data)
        else:
            row = parse(html, url, backend=backend).to_row()
        best = min(best, time.perf_counter() - start)
    return best, row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depths", type=int, nargs="+", default=[500, 1000, 2000, 4000])
    parser.add_argument("--shapes", nargs="+", default=list(NESTED_SHAPES), choices=list(NESTED_SHAPES))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    depths = sorted(args.depths)
    print(f"{'shape':22} {'backend':10} " + " ".join(f"{d:>8}" for d in depths) + "   x/doubling")
    for shape in args.shapes:
        pages = {d: nested_page(shape, d) for d in depths}
        rows: dict[int, dict] = {}
        for backend in [*BACKENDS, TREE_ONLY]:
            seconds = []
            for d in depths:
                took, row = best_seconds(*pages[d], backend, args.repeat)
                seconds.append(took)
                if row is not None and rows.setdefault(d, row) != row:
                    raise SystemExit(f"{shape} at depth {d}: the {backend} backend's record differs")
            doublings = math.log2(depths[-1] / depths[0]) or 1.0
            growth = (seconds[-1] / seconds[0]) ** (1 / doublings) if seconds[0] > 0 else float("nan")
            print(f"{shape:22} {backend:10} " + " ".join(f"{s:8.3f}" for s in seconds) + f"   {growth:5.2f}",
                  flush=True)
    html, url = nested_page("tables", 3001)
    print("3,001 nested tables: " + ", ".join(
        f"{backend} {best_seconds(html, url, backend, args.repeat)[0]:.3f} s" for backend in BACKENDS))


if __name__ == "__main__":
    main()
