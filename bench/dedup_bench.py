"""MinHash dedup throughput and quality, side by side with a plain datasketch update() loop.

    python -m bench.dedup_bench [--docs 20000] [--rounds 3]

Corpus: synthetic pair texts (crawlers.mirror.synth, ~100-200 characters) plus
planted near duplicates (two characters changed, punctuation changed, or two
clauses swapped). Reported: docs/s of signing documents the plain way (one
datasketch MinHash per document, update() per shingle) and of the whole
Deduplicator (normalising, vectorised signing, spilling, DuckDB grouping and
candidate checks), the ratio, the recall of planted duplicates, and the merges
of documents that were not planted: split by their exact character 5-gram
Jaccard similarity into real near duplicates the generator made (at or above
the threshold) and false merges (below it).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from datasketch import MinHash

from crawlers.mirror.facts import load_facts
from crawlers.mirror.synth import SynthConfig, Synthesizer
from filters.dedup import Deduplicator, shingles
from filters.normalize import normalize


def planted_corpus(count: int, seed: int = 7) -> tuple[list[tuple[str, str]], dict[str, str]]:
    facts = load_facts()
    docs = [(f"s{i:06d}", e.summary) for i, e in enumerate(
        Synthesizer(facts, SynthConfig(seed=seed, near_duplicate_rate=0)).take(count))]
    rng = random.Random(seed)
    planted: dict[str, str] = {}
    for k in range(count // 20):
        source, text = docs[rng.randrange(count)]
        kind = rng.choice(["char", "punct", "reorder"])
        if kind == "char":
            chars = list(text)
            for _ in range(2):
                chars[rng.randrange(len(chars))] = rng.choice("的了是在和有")
            text = "".join(chars)
        elif kind == "punct":
            text = text.replace("，", "；", 1).replace("。", "！", 1)
        else:
            parts = text.rstrip("。").split("，")
            if len(parts) > 2:
                i = rng.randrange(1, len(parts) - 1)
                parts[i], parts[i + 1] = parts[i + 1], parts[i]
            text = "，".join(parts) + "。"
        planted[f"z{k:06d}"] = source
        docs.append((f"z{k:06d}", text))
    return docs, planted


def plain_loop(docs: list[tuple[str, str]], num_perm: int) -> float:
    start = time.perf_counter()
    for _, text in docs:
        m = MinHash(num_perm=num_perm, seed=1)
        for s in shingles(normalize(text), "char", 5):
            m.update(s)
    return len(docs) / (time.perf_counter() - start)


def dedup(docs: list[tuple[str, str]], num_perm: int, threshold: float) -> tuple[float, dict]:
    start = time.perf_counter()
    found = {d.doc_id: d for d in Deduplicator(threshold, num_perm=num_perm, threads=1).find(docs)}
    return len(docs) / (time.perf_counter() - start), found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--num-perm", type=int, default=128)
    parser.add_argument("--threshold", type=float, default=0.6)
    args = parser.parse_args(argv)
    docs, planted = planted_corpus(args.docs)
    lengths = sorted(len(t) for _, t in docs)
    print(f"{len(docs)} documents (median {lengths[len(lengths) // 2]} characters), {len(planted)} planted "
          f"near duplicates, {args.num_perm} permutations, threshold {args.threshold}, character 5-grams")
    plain, ours = [], []
    found: dict = {}
    for _ in range(args.rounds):
        plain.append(plain_loop(docs, args.num_perm))
        rate, found = dedup(docs, args.num_perm, args.threshold)
        ours.append(rate)
    recall = sum(1 for z in planted if z in found) / len(planted)
    texts = dict(docs)
    real = false = 0
    for d in found.values():
        if d.doc_id in planted:
            continue
        a, b = shingles(normalize(texts[d.doc_id])), shingles(normalize(texts[d.duplicate_of]))
        if len(a & b) / len(a | b) >= args.threshold:
            real += 1
        else:
            false += 1
    p, o = statistics.median(plain), statistics.median(ours)
    print(f"plain datasketch MinHash.update() loop (signing only): {p:9.0f} docs/s   (median of {args.rounds})")
    print(f"Deduplicator (whole exact + near dedup):               {o:9.0f} docs/s   ({o / p:.1f}x)")
    print(f"recall of planted near duplicates: {recall:.3f}")
    print(f"merges of unplanted documents: {real} with exact Jaccard >= {args.threshold} (near duplicates the "
          f"generator made), {false} below it (false merges: {false / len(docs):.3%} of documents)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
