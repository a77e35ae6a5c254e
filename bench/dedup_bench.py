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

    python -m bench.dedup_bench --memory 100000 1000000

Memory: for each size a child process writes that many synthetic texts (with the
generator's own near duplicates) to Parquet, and a second child streams them
through the Deduplicator with its default DuckDB memory limit, counting what it
finds without keeping it, and reports its peak RSS (``ru_maxrss``) and docs/s.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

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


def write_texts(count: int, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    schema = pa.schema([("id", pa.string()), ("text", pa.string())])
    entries = Synthesizer(load_facts(), SynthConfig(seed=11)).take(count)
    with pq.ParquetWriter(path, schema) as writer:
        batch: list[str] = []
        for index, entry in enumerate(entries):
            batch.append(entry.summary)
            if len(batch) == 20_000 or index == count - 1:
                first = index + 1 - len(batch)
                writer.write_table(pa.table({"id": [f"d{first + i:08d}" for i in range(len(batch))],
                                             "text": batch}, schema=schema))
                batch = []


def dedup_file(path: Path, work: Path, memory_limit: str, threads: int | None = None) -> dict:
    import pyarrow.parquet as pq

    def docs():
        for batch in pq.ParquetFile(path, pre_buffer=False).iter_batches(20_000):
            yield from zip(batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True)

    start = time.perf_counter()
    finder = Deduplicator(work_dir=work, memory_limit=memory_limit, threads=threads)
    found = {"exact": 0, "near": 0}
    for duplicate in finder.find(docs()):
        found[duplicate.kind] += 1
    seconds = time.perf_counter() - start
    return {"docs": finder.counts["documents"], "seconds": seconds, "candidates": finder.counts["candidates"],
            **found, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def memory(sizes: list[int], root: Path, memory_limit: str, threads: int | None = None) -> int:
    print(f"{'docs':>9} {'exact':>8} {'near':>8} {'candidates':>11} {'docs/s':>8} {'peak RSS':>10}")
    for count in sizes:
        work = root / str(count)
        shutil.rmtree(work, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "bench.dedup_bench", "--child", "texts", "--count", str(count),
                        "--dir", str(work)], check=True)
        done = subprocess.run([sys.executable, "-m", "bench.dedup_bench", "--child", "dedup", "--dir", str(work),
                               "--memory-limit", memory_limit, *(["--threads", str(threads)] if threads else [])],
                              capture_output=True, text=True)
        if done.returncode != 0:
            print(f"dedup failed on {count} documents:\n{done.stderr[-3000:]}", file=sys.stderr)
            return 1
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{r['docs']:>9} {r['exact']:>8} {r['near']:>8} {r['candidates']:>11} "
              f"{r['docs'] / r['seconds']:>8.0f} {r['peak_rss_mb']:>7.0f} MB", flush=True)
        shutil.rmtree(work, ignore_errors=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--num-perm", type=int, default=128)
    parser.add_argument("--threshold", type=float, default=0.6)
    parser.add_argument("--memory", type=int, nargs="+", metavar="DOCS",
                        help="measure peak RSS of the Deduplicator at these corpus sizes instead")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/zhbench-dedup-bench"))
    parser.add_argument("--memory-limit", default="32MB", help="DuckDB's memory limit (the dedup setting's default)")
    parser.add_argument("--threads", type=int, default=1, help="DuckDB threads in the memory children (the default: 1)")
    parser.add_argument("--child", choices=["texts", "dedup"], help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child == "texts":
        write_texts(args.count, args.dir / "texts.parquet")
        return 0
    if args.child == "dedup":
        print(json.dumps(dedup_file(args.dir / "texts.parquet", args.dir / "work", args.memory_limit, args.threads)))
        return 0
    if args.memory:
        return memory(args.memory, args.dir, args.memory_limit, args.threads)
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
