"""MinHash near-dedup, end to end, zhbench's Deduplicator side by side with rensa, datatrove and datasketch.

    python -m bench.dedup_bench [--docs 100000] [--rounds 3] [--json bench/data/dedup_bench.json]

Corpus (:func:`planted_corpus`, deterministic from ``--seed``): documents of ~200 characters written
from jieba's dictionary (words drawn by their frequency, clauses of 4-12 words between Chinese commas,
sentences ending in 。), and planted copies of some of them, one copy per source at most:

* near copies: the source with 0-8 character edits (substitutions, insertions, deletions),
* decoys: the source with 12-24 edits, or its first 35-55% followed by new text.

Every planted pair's true Jaccard similarity of character 5-gram sets (after
:func:`filters.normalize.normalize_once`, as the Deduplicator sees them) is computed exactly, and the
pair is labelled by it, not by how it was made: a *duplicate* at or above the threshold, a *decoy*
below 0.5, gray in between (neither counted).

Every engine gets the same input (ids and raw texts, in id order), normalises with the same function,
shingles into the same character 5-grams, uses the same LSH banding (zhbench's for the threshold:
21 bands x 6 rows for 0.6), and is timed end to end (normalising, shingling, signing, LSH, checking
candidates and mapping every dropped document to the document it duplicates) in the same process,
``--rounds`` rounds, engines in a rotated order each round; docs/s is the median. Quality, from the
last round, as duplicate groups (connected components of dropped -> kept):

* recall: planted duplicates whose two documents end up in one group;
* false merges: pairs of documents in one group whose true Jaccard is below 0.5 (every pair in every
  group is checked exactly), also as a rate over all merged pairs;
* groups: how many are exactly a true duplicate group, and how many hold a document they should not.

Engines:

* ``zhbench``: ``filters.dedup.Deduplicator(0.6, num_perm=128)``, ``find`` (exact + near, spilling to
  Parquet and grouping in DuckDB within its default 32MB, one thread);
* ``rensa``: ``RMinHash.from_token_sets`` (126 permutations: rensa needs bands to divide them, and
  126 = 21 x 6 is the banding the others use; zhbench bands the first 126 of its 128 too), then
  ``RMinHashDeduplicator(0.6, 126, use_lsh=True, num_bands=21).add_pairs`` and ``get_duplicate_sets``
  for the dropped ones (the kept documents it matches; the smallest id survives);
* ``datasketch``: ``MinHash.bulk`` (128 permutations), ``MinHashLSH(params=(21, 6))`` filled in an
  ``insertion_session``, a query per document, candidates checked on their signatures with numpy
  (agreement >= 0.6; datasketch's LSH does not check), the first kept candidate survives;
* ``datatrove``: ``MinhashDedupSignature`` -> ``MinhashDedupBuckets`` (one task per bucket) ->
  ``MinhashDedupCluster`` over local files in a temporary directory, 21 buckets x 6 hashes (126), 64-bit
  xxhash, a tokenizer that yields characters and its text simplification off (the texts come
  normalised), so its 5-grams are our character 5-grams (joined by spaces before hashing, as datatrove
  does: the same sets). xxhash 4.1 refuses the str datatrove gives it, so the bench hashes its UTF-8
  bytes instead (the same function on the same bytes). Its steps are run in this process (what
  ``LocalPipelineExecutor`` with one task each does, without the process and logging set-up). It has
  no candidate check: any shared bucket merges.

    python -m bench.dedup_bench --memory 100000 1000000

Memory: for each size a child process writes that many synthetic texts to Parquet, and a second child
streams them through the Deduplicator with its default DuckDB memory limit, counting what it finds
without keeping it, and reports its peak RSS (``ru_maxrss``) and docs/s.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from bench.machine import cpu_reference, machine_line
from filters.dedup import BAND_MISS_WEIGHT, Deduplicator, lsh_bands
from filters.normalize import normalize_once

N = 5  # character n-grams
FALSE_BELOW = 0.5  # a merged pair below this true Jaccard is a false merge


# -- corpus ------------------------------------------------------------------------------------------

def _vocabulary(size: int = 30_000) -> tuple[list[str], np.ndarray]:
    """The ``size`` most frequent Chinese words of jieba's dictionary and their probabilities."""
    import jieba

    entries = []
    with open(Path(jieba.__file__).parent / "dict.txt", encoding="utf-8") as handle:
        for line in handle:
            word, freq, *_ = line.split(" ")
            if all("\u4e00" <= ch <= "\u9fff" for ch in word):
                entries.append((int(freq), word))
    entries.sort(key=lambda e: (-e[0], e[1]))
    entries = entries[:size]
    freqs = np.array([f for f, _ in entries], dtype=np.float64)
    return [w for _, w in entries], freqs / freqs.sum()


class _Writer:
    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.words, p = _vocabulary()
        self.cdf = np.cumsum(p)
        self.chars = sorted({ch for w in self.words[:3000] for ch in w})
        self._drawn: list[int] = []

    def _word(self) -> str:
        if not self._drawn:  # words are drawn 64k at a time: one numpy call instead of one a word
            self._drawn = np.searchsorted(self.cdf, self.rng.random(1 << 16) * self.cdf[-1]).tolist()[::-1]
        return self.words[self._drawn.pop()]

    def text(self, length: int) -> str:
        rng, out, size = self.rng, [], 0
        while size < length:
            words = [self._word() for _ in range(int(rng.integers(4, 13)))]
            clause = "".join(words) + ("。" if rng.random() < 0.3 else "，")
            out.append(clause)
            size += len(clause)
        text = "".join(out)[:length]
        return text[:-1] + "。"

    def edit(self, text: str, edits: int) -> str:
        chars, rng = list(text), self.rng
        for _ in range(edits):
            op, at = rng.integers(3), int(rng.integers(len(chars)))
            if op == 0:
                chars[at] = self.chars[rng.integers(len(self.chars))]
            elif op == 1:
                chars.insert(at, self.chars[rng.integers(len(self.chars))])
            elif len(chars) > N + 1:
                del chars[at]
        return "".join(chars)


def grams(text: str) -> set[str]:
    """The character 5-grams every engine is given, of the normalised text."""
    return {text[i:i + N] for i in range(len(text) - N + 1)} or {text}


def jaccard(a: str, b: str) -> float:
    sa, sb = grams(normalize_once(a)), grams(normalize_once(b))
    return len(sa & sb) / len(sa | sb)


@dataclass
class Corpus:
    docs: list[tuple[str, str]]
    pairs: list[tuple[int, int, float]]  # (source, copy, true Jaccard) of every planted copy
    threshold: float

    @property
    def duplicates(self) -> list[tuple[int, int, float]]:
        return [p for p in self.pairs if p[2] >= self.threshold]

    @property
    def decoys(self) -> list[tuple[int, int, float]]:
        return [p for p in self.pairs if p[2] < FALSE_BELOW]


def planted_corpus(count: int, threshold: float = 0.6, seed: int = 7, near: float = 0.05,
                   decoys: float = 0.03) -> Corpus:
    """``count`` documents, of which ``near`` and ``decoys`` (fractions) are planted copies of others."""
    rng = np.random.default_rng(seed)
    writer = _Writer(rng)
    planted_near, planted_decoy = int(count * near), int(count * decoys)
    base = count - planted_near - planted_decoy
    texts = [writer.text(int(rng.integers(180, 221))) for _ in range(base)]
    sources = rng.choice(base, planted_near + planted_decoy, replace=False)
    pairs = []
    for k, source in enumerate(sources.tolist()):
        text = texts[source]
        if k < planted_near:
            copy = writer.edit(text, int(rng.integers(0, 9)))
        elif rng.random() < 0.5:
            copy = writer.edit(text, int(rng.integers(12, 25)))
        else:
            keep = int(len(text) * rng.uniform(0.35, 0.55))
            copy = text[:keep] + writer.text(len(text) - keep)
        pairs.append((source, len(texts), jaccard(text, copy)))
        texts.append(copy)
    # the copies are spread among the documents: ids are in a shuffled order, engines see id order
    order = rng.permutation(len(texts))
    position = np.empty_like(order)
    position[order] = np.arange(len(order))
    docs = [(f"d{i:07d}", texts[j]) for i, j in enumerate(order.tolist())]
    pairs = [(int(position[s]), int(position[c]), j) for s, c, j in pairs]
    return Corpus(docs, pairs, threshold)


# -- engines: (ids, texts) in id order -> {dropped index: kept index} ----------------------------------

def run_zhbench(docs: list[tuple[str, str]], threshold: float, num_perm: int, bands: int, rows: int) -> dict:
    index = {doc_id: i for i, (doc_id, _) in enumerate(docs)}
    finder = Deduplicator(threshold, num_perm=num_perm, threads=1)
    return {index[d.doc_id]: index[d.duplicate_of] for d in finder.find(docs)}


def _shingled(docs: list[tuple[str, str]]) -> list[list[str]]:
    out = []
    for _, text in docs:
        t = normalize_once(text)
        out.append([t[i:i + N] for i in range(len(t) - N + 1)] or [t])
    return out


def run_rensa(docs: list[tuple[str, str]], threshold: float, num_perm: int, bands: int, rows: int) -> dict:
    from rensa import RMinHash, RMinHashDeduplicator

    perms = bands * rows  # rensa needs num_perm divisible by num_bands
    sketches = RMinHash.from_token_sets(_shingled(docs), perms, 1)
    finder = RMinHashDeduplicator(threshold, perms, True, num_bands=bands, seed=1)
    keep = finder.add_pairs(zip(map(str, range(len(docs))), sketches))
    dropped = [i for i, k in enumerate(keep) if not k]
    matches = finder.get_duplicate_sets([sketches[i] for i in dropped])
    return {i: min(int(k) for k in m) for i, m in zip(dropped, matches) if m}


def run_datasketch(docs: list[tuple[str, str]], threshold: float, num_perm: int, bands: int, rows: int) -> dict:
    from datasketch import MinHash, MinHashLSH

    sets = [[s.encode("utf-8") for s in set(g)] for g in _shingled(docs)]
    sketches = MinHash.bulk(sets, num_perm=num_perm, seed=1)
    signatures = np.stack([m.hashvalues for m in sketches])
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm, params=(bands, rows))
    with lsh.insertion_session() as session:
        for i, m in enumerate(sketches):
            session.insert(i, m, check_duplication=False)
    dropped: dict[int, int] = {}
    for i, m in enumerate(sketches):
        earlier = np.array(sorted(j for j in lsh.query(m) if j < i and j not in dropped), dtype=np.int64)
        if len(earlier):
            close = (signatures[earlier] == signatures[i]).mean(axis=1) >= threshold
            if close.any():
                dropped[i] = int(earlier[close][0])
    return dropped


def run_datatrove(docs: list[tuple[str, str]], threshold: float, num_perm: int, bands: int, rows: int) -> dict:
    import logging
    import os

    import xxhash
    from loguru import logger

    os.environ["TQDM_DISABLE"] = "1"

    from datatrove.data import Document
    from datatrove.pipeline.dedup.minhash import (MinhashConfig, MinhashDedupBuckets, MinhashDedupCluster,
                                                  MinhashDedupSignature)
    from datatrove.utils.text import TextNormConfig
    from datatrove.utils.word_tokenizers import WordTokenizer

    class Characters(WordTokenizer):
        def word_tokenize(self, text: str) -> list[str]:
            return list(text)

        def sent_tokenize(self, text: str) -> list[str]:
            return [text]

        def span_tokenize(self, text: str) -> list[tuple[int, int]]:
            return [(0, len(text))]

    logger.remove()
    logging.disable(logging.INFO)
    off = TextNormConfig(lowercase=False, norm_whitespace=False, remove_punctuation=False,
                         norm_unicode_diacritics=False, norm_numbers=False)
    config = MinhashConfig(n_grams=N, num_buckets=bands, hashes_per_bucket=rows, seed=1, norm_config=off)
    with tempfile.TemporaryDirectory(prefix="datatrove-bench-") as tmp:
        sigs, dups, out = f"{tmp}/sigs", f"{tmp}/dups", f"{tmp}/out"
        signer = MinhashDedupSignature(sigs, config, language=Characters())
        # datatrove hands xxhash a str, which the xxhash here (4.1) refuses: the same hash of its UTF-8
        signer._hash_func = lambda gram: xxhash.xxh64_intdigest(gram.encode("utf-8"))
        signer.run((Document(text=normalize_once(text), id=doc_id) for doc_id, text in docs), 0, 1)
        for bucket in range(bands):
            MinhashDedupBuckets(sigs, dups, config=config).run(None, bucket, bands)
        MinhashDedupCluster(dups, out, config=config, save_cluster_id=True).run(None, 0, 1)
        clusters = Path(out) / "000000.clusters"
        pairs = np.frombuffer(clusters.read_bytes(), dtype=np.uint32).reshape(-1, 2) if clusters.exists() \
            else np.zeros((0, 2), dtype=np.uint32)
    first: dict[int, int] = {}
    dropped = {}
    for doc, cluster in sorted(map(tuple, pairs.tolist())):
        if cluster in first:
            dropped[doc] = first[cluster]
        else:
            first[cluster] = doc
    return dropped


ENGINES: dict[str, Callable] = {"zhbench": run_zhbench, "rensa": run_rensa, "datasketch": run_datasketch,
                                "datatrove": run_datatrove}


# -- quality -----------------------------------------------------------------------------------------

def groups(dropped: dict[int, int]) -> list[list[int]]:
    parent: dict[int, int] = {}

    def root(x: int) -> int:
        while parent.get(x, x) != x:
            parent[x] = parent.get(parent[x], parent[x])
            x = parent[x]
        return x

    for a, b in dropped.items():
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    out: dict[int, list[int]] = {}
    for x in set(dropped) | set(dropped.values()):
        out.setdefault(root(x), []).append(x)
    return sorted(sorted(g) for g in out.values())


def quality(corpus: Corpus, dropped: dict[int, int]) -> dict:
    found = groups(dropped)
    member = {x: k for k, g in enumerate(found) for x in g}
    truth = corpus.duplicates
    recalled = sum(1 for s, c, _ in truth if s in member and member[s] == member.get(c))
    texts = [t for _, t in corpus.docs]
    known = {(min(s, c), max(s, c)): j for s, c, j in corpus.pairs}
    merged = false = 0
    for g in found:
        for x in range(len(g)):
            for y in range(x + 1, len(g)):
                merged += 1
                j = known.get((g[x], g[y]))
                if (j if j is not None else jaccard(texts[g[x]], texts[g[y]])) < FALSE_BELOW:
                    false += 1
    true_groups = {tuple(sorted((s, c))) for s, c, _ in truth}
    exact = sum(1 for g in found if tuple(g) in true_groups)
    wrong = sum(1 for g in found if any(known.get((min(a, b), max(a, b)), 0.0) < FALSE_BELOW
                                        for a in g for b in g if a < b))
    by_band = {}
    for low, high in ((corpus.threshold, 0.7), (0.7, 0.8), (0.8, 1.01)):
        band = [(s, c) for s, c, j in truth if low <= j < high]
        hits = sum(1 for s, c in band if s in member and member[s] == member.get(c))
        by_band[f"{low:.1f}-{min(high, 1.0):.1f}"] = [hits, len(band)]
    return {"recall": recalled / len(truth), "recall_by_true_jaccard": by_band, "duplicates_found": recalled,
            "dropped": len(dropped),
            "groups": len(found), "groups_exact": exact, "groups_with_false_member": wrong,
            "merged_pairs": merged, "false_merges": false, "false_merge_rate": false / merged if merged else 0.0}


# -- the comparison ----------------------------------------------------------------------------------

@dataclass
class Result:
    seconds: list[float] = field(default_factory=list)
    quality: dict = field(default_factory=dict)


def compare(corpus: Corpus, engines: list[str], rounds: int, num_perm: int) -> dict[str, Result]:
    bands, rows = lsh_bands(corpus.threshold, num_perm, BAND_MISS_WEIGHT)
    results = {name: Result() for name in engines}
    for r in range(rounds):
        for name in engines[r % len(engines):] + engines[:r % len(engines)]:
            start = time.perf_counter()
            dropped = ENGINES[name](corpus.docs, corpus.threshold, num_perm, bands, rows)
            results[name].seconds.append(time.perf_counter() - start)
            if r == rounds - 1:
                results[name].quality = quality(corpus, dropped)
            print(f"  round {r + 1} {name}: {results[name].seconds[-1]:.1f} s", file=sys.stderr, flush=True)
    return results


def report(corpus: Corpus, results: dict[str, Result], num_perm: int) -> dict:
    bands, rows = lsh_bands(corpus.threshold, num_perm, BAND_MISS_WEIGHT)
    docs = len(corpus.docs)
    rows_out = {}
    for name, r in results.items():
        median = statistics.median(r.seconds)
        rows_out[name] = {"docs_per_s": docs / median, "seconds": r.seconds, **r.quality}
    if "zhbench" in rows_out and "rensa" in rows_out:
        for row in rows_out.values():
            row["vs_rensa"] = row["docs_per_s"] / rows_out["rensa"]["docs_per_s"]
    lengths = sorted(len(t) for _, t in corpus.docs)
    return {"docs": docs, "median_chars": lengths[len(lengths) // 2], "planted": len(corpus.pairs),
            "planted_duplicates": len(corpus.duplicates), "planted_decoys": len(corpus.decoys),
            "threshold": corpus.threshold, "num_perm": num_perm, "bands": bands, "rows": rows,
            "false_below": FALSE_BELOW, "engines": rows_out}


def print_table(summary: dict) -> None:
    print(f"{summary['docs']} documents (median {summary['median_chars']} characters); {summary['planted']} planted "
          f"copies: {summary['planted_duplicates']} with true Jaccard >= {summary['threshold']}, "
          f"{summary['planted_decoys']} below {summary['false_below']}; character {N}-grams, "
          f"{summary['num_perm']} permutations, LSH {summary['bands']} bands x {summary['rows']} rows")
    print(f"{'engine':<11} {'docs/s':>8} {'x rensa':>8} {'recall':>7} {'false':>6} {'rate':>7} "
          f"{'merged':>7} {'groups':>7} {'exact':>7} {'bad':>5}")
    for name, r in summary["engines"].items():
        print(f"{name:<11} {r['docs_per_s']:>8.0f} {r.get('vs_rensa', float('nan')):>8.2f} {r['recall']:>7.3f} "
              f"{r['false_merges']:>6} {r['false_merge_rate']:>7.2%} {r['merged_pairs']:>7} {r['groups']:>7} "
              f"{r['groups_exact']:>7} {r['groups_with_false_member']:>5}")
    print("recall by true Jaccard: " + "; ".join(
        f"{name} " + ", ".join(f"{band} {hits}/{total}" for band, (hits, total) in r["recall_by_true_jaccard"].items())
        for name, r in summary["engines"].items()))


# -- memory ------------------------------------------------------------------------------------------

def write_texts(count: int, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from crawlers.mirror.facts import load_facts
    from crawlers.mirror.synth import SynthConfig, Synthesizer

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
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--num-perm", type=int, default=128)
    parser.add_argument("--threshold", type=float, default=0.6)
    parser.add_argument("--engines", nargs="+", default=list(ENGINES), choices=list(ENGINES))
    parser.add_argument("--json", type=Path, help="also write the results here (machine-readable)")
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
    reference = cpu_reference()
    corpus = planted_corpus(args.docs, args.threshold, args.seed)
    summary = report(corpus, compare(corpus, args.engines, args.rounds, args.num_perm), args.num_perm)
    print(machine_line(reference))
    print_table(summary)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
