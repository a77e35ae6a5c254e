"""Distractor generation speed (KGC and QA items) with the embedding cache cold and then warm.

    python -m bench.items_bench [--pairs 100000] [--embedder char-ngram] [--dir /tmp/zhbench-items-bench]

Kept pairs are made directly from synthetic entries (crawlers.mirror.synth: every
infobox row a kept triple, the entry's domain as the pair's), written as pair
shards; then ``flows.items.items_stage`` builds KGC and QA items twice with the
same cache directory: the first run embeds every text (cold), the second finds
them all in the cache (warm). Reported: multiple-choice items per second (built
or dropped for too few distractors), the stage's seconds, and the cache's hits
and misses. ``--embedder sentence-transformers:<model dir>`` measures a real model;
char-ngram vectors are not cached (computed faster than read back), so both of its
rounds compute them and show no hits or misses.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path


def write_pairs(count: int, out_dir: Path) -> list[Path]:
    from crawlers.mirror.facts import load_facts
    from crawlers.mirror.synth import SynthConfig, Synthesizer
    from filters.triples import pair_id
    from schemas import Pair, Triple
    from schemas.storage.shards import ShardWriter

    with ShardWriter(out_dir, "pairs", Pair) as writer:
        for index, entry in enumerate(Synthesizer(load_facts(), SynthConfig(seed=9)).take(count)):
            url = f"http://bench.invalid/item/{entry.title}/{index}"
            triples = [Triple(head=entry.title, relation=name, tail=value, decision="kept")
                       for name, value in entry.infobox if name != "中文名"]
            writer.write(Pair(pair_id=pair_id(url), entity=entry.title, sense=entry.sense, url=url, text=entry.summary,
                              triples=triples, domain=entry.domain, position_index=1.0, decision="kept"))
    return writer.paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--embedder", default="char-ngram")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/zhbench-items-bench"))
    args = parser.parse_args(argv)

    from flows.items import items_stage
    from flows.settings import ItemsSettings

    shutil.rmtree(args.dir, ignore_errors=True)
    started = time.perf_counter()
    shards = write_pairs(args.pairs, args.dir / "pairs")
    print(f"{args.pairs} pairs written in {time.perf_counter() - started:.0f} s; embedder {args.embedder}")
    settings = ItemsSettings(kinds=["kgc", "qa"], embedder=args.embedder)
    print(f"{'cache':>6} {'MCQ items':>10} {'seconds':>8} {'items/s':>8} {'hits':>9} {'misses':>9}")
    for label in ("cold", "warm"):
        start = time.perf_counter()
        result = items_stage(shards, settings, args.dir / label, cache_dir=args.dir / "cache")
        seconds = time.perf_counter() - start
        report = result["report"]
        built = sum(report["items_kept"].values()) + sum(
            v for k, v in report["items_dropped"].items() if k.endswith("too_few_distractors"))
        cache = report.get("embedding_cache", {})
        print(f"{label:>6} {built:>10} {seconds:>8.1f} {built / seconds:>8.0f} {cache.get('hits', 0):>9} "
              f"{cache.get('misses', 0):>9}", flush=True)
    shutil.rmtree(args.dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
