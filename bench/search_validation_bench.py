"""Search validation against the realistic mirror's planted labels: what it drops, what it keeps, what yield is left.

Reads a finished run's data directory (a crawl of the realistic mirror, ``zhbench run --profile realistic``)
and the mirror's labels for the same size and seed:

* **planted false triples**: infobox values the page states wrongly (``labels["rows"][…]["false"]``: the text
  says the same wrong value, so only other sites can tell) and stale rows (``how == "contradicted"``: the
  text gives the true value). Share dropped by the whole pipeline, and by search validation of those that
  reached it.
* **true triples another site states**: a triple whose value (value_key) is a true fact of the entity that a
  page of another site (crawlers.mirror.web) states. Share kept by search validation of those that reached it.
* **yield**: pairs kept after search validation, of the content entries crawled.

    python -m bench.search_validation_bench --data-dir DIR --size 1500 [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pyarrow.parquet as pq

from crawlers.mirror.realistic import REALISTIC_ID_BASE, RealisticCorpus
from crawlers.mirror.web import Web
from filters.normalize import value_key


def _newest(directory: Path) -> list[Path]:
    runs = sorted((p for p in directory.iterdir() if p.is_dir() and list(p.glob("pairs-*.parquet"))),
                  key=lambda p: p.stat().st_mtime)
    if not runs:
        raise SystemExit(f"no pair shards under {directory}: run the pipeline with this data directory first")
    return sorted(runs[-1].glob("pairs-*.parquet"))


def _pairs(paths: list[Path]) -> list[dict]:
    return [row for path in paths for row in pq.read_table(path, columns=["url", "decision", "reason", "triples"])
            .to_pylist()]


def _index(url: str) -> int | None:
    last = url.rstrip("/").rsplit("/", 1)[-1]
    return int(last) - REALISTIC_ID_BASE if last.isdigit() and int(last) >= REALISTIC_ID_BASE else None


def measure(data_dir: Path, size: int, seed: int = 0) -> dict:
    corpus = RealisticCorpus(size, seed)
    entries = list(corpus.take(size))
    web = Web(entries)
    elsewhere: dict[int, set[str]] = {}
    for page in web:
        elsewhere.setdefault(page.labels["index"], set()).update(value_key(w) for _, _, w in page.labels["facts"])
    false: dict[int, set[str]] = {}
    for entry in entries:
        for row in entry.labels["rows"]:
            if row["false"] or row["how"] == "contradicted":
                false.setdefault(entry.labels["index"], set()).add(value_key(row["value"]))

    before = _pairs(_newest(data_dir / "work" / "dedup"))
    after = {p["url"]: p for p in _pairs(_newest(data_dir / "work" / "verify"))}
    aligned = _pairs([p for d in (data_dir / "work" / "align").iterdir() for p in sorted(d.glob("pairs-*.parquet"))])
    counts = {"false_candidates": 0, "false_kept": 0, "false_at_search": 0, "false_dropped_by_search": 0,
              "true_elsewhere_at_search": 0, "true_elsewhere_kept": 0, "true_alone_at_search": 0,
              "true_alone_kept": 0}
    seen = set()
    for pair in aligned:  # every infobox triple of a crawled entry, whatever became of it
        index = _index(pair["url"])
        for triple in pair["triples"] or ():
            key = (pair["url"], triple["tail"])
            if index in false and value_key(triple["tail"]) in false[index] and key not in seen:
                seen.add(key)
                counts["false_candidates"] += 1
    for pair in before:
        if pair["decision"] != "kept":
            continue
        index = _index(pair["url"])
        verified = after.get(pair["url"])
        result = {(t["relation"], t["tail"]): t for t in (verified or {}).get("triples") or ()}
        for triple in pair["triples"] or ():
            if triple["decision"] != "kept":
                continue
            key = value_key(triple["tail"])
            checked = result.get((triple["relation"], triple["tail"]))
            kept = bool(checked and checked["decision"] == "kept" and verified["decision"] == "kept")
            search_kept = bool(checked and checked.get("reason") != "search:no_cooccurrence")
            if index in false and key in false[index]:
                counts["false_at_search"] += 1
                counts["false_dropped_by_search"] += not search_kept
                counts["false_kept"] += kept
            elif key in elsewhere.get(index, ()):
                counts["true_elsewhere_at_search"] += 1
                counts["true_elsewhere_kept"] += search_kept
            else:
                counts["true_alone_at_search"] += 1
                counts["true_alone_kept"] += search_kept
    # SimpleQA items the evidence check judged: disputed (sites disagree on a year) against the planted conflicts
    conflicts = {(page.labels["index"], rel) for page in web for rel, _, _ in page.labels["conflicts"]}
    items = [row for path in (data_dir / "work" / "items").glob("*/items/*.parquet")
             for row in pq.read_table(path, columns=["kind", "decision", "reason", "relation", "urls"]).to_pylist()
             if row["kind"] == "simpleqa" and row["urls"]]
    for row in items:
        planted = (_index(row["urls"][0]), row["relation"]) in conflicts
        disputed = row["reason"] == "evidence:disputed"
        key = ("disputed" if disputed else "not_disputed") + ("_planted" if planted else "_unplanted")
        counts[f"simpleqa_{key}"] = counts.get(f"simpleqa_{key}", 0) + 1
        if row["reason"] == "evidence:single_source":
            counts["simpleqa_single_source"] = counts.get("simpleqa_single_source", 0) + 1
    entries_crawled = len({p["url"] for p in aligned})
    pairs_kept = sum(p["decision"] == "kept" for p in after.values())

    def share(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    return {**counts, "entries": entries_crawled, "pairs_kept": pairs_kept,
            "false_dropped_share": share(counts["false_candidates"] - counts["false_kept"], counts["false_candidates"]),
            "false_dropped_by_search_share": share(counts["false_dropped_by_search"], counts["false_at_search"]),
            "true_elsewhere_kept_share": share(counts["true_elsewhere_kept"], counts["true_elsewhere_at_search"]),
            "true_alone_kept_share": share(counts["true_alone_kept"], counts["true_alone_at_search"]),
            "yield": share(pairs_kept, entries_crawled)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--size", type=int, required=True, help="the realistic mirror's size the run crawled")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.data_dir, args.size, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print("| measure | count | share |\n|---|---|---|")
    print(f"| planted false triples dropped (whole pipeline) | {result['false_candidates'] - result['false_kept']} of "
          f"{result['false_candidates']} | {result['false_dropped_share']} |")
    print(f"| planted false triples dropped by search validation | {result['false_dropped_by_search']} of "
          f"{result['false_at_search']} | {result['false_dropped_by_search_share']} |")
    print(f"| true triples another site states, kept by search validation | {result['true_elsewhere_kept']} of "
          f"{result['true_elsewhere_at_search']} | {result['true_elsewhere_kept_share']} |")
    print(f"| true triples no other site states, kept by search validation | {result['true_alone_kept']} of "
          f"{result['true_alone_at_search']} | {result['true_alone_kept_share']} |")
    print(f"| pairs kept of content entries | {result['pairs_kept']} of {result['entries']} | {result['yield']} |")
    print(f"| SimpleQA items disputed, of those with a planted conflict on their relation | "
          f"{result.get('simpleqa_disputed_planted', 0)} of "
          f"{result.get('simpleqa_disputed_planted', 0) + result.get('simpleqa_not_disputed_planted', 0)} | |")
    print(f"| SimpleQA items disputed without a planted conflict | {result.get('simpleqa_disputed_unplanted', 0)} of "
          f"{result.get('simpleqa_disputed_unplanted', 0) + result.get('simpleqa_not_disputed_unplanted', 0)} | |")
    print(f"| SimpleQA items dropped as evidence:single_source | {result.get('simpleqa_single_source', 0)} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
