"""Search validation at scale: the previous per-query path beside the batched one, on realistic corpora.

    python -m bench.verify_bench [--sizes 2000 10000 40000] [--old-sample 2000] [--dir /tmp/zhbench-verify-bench]

For each size, pages of the realistic profile are rendered and parsed as a crawl would hold them
(bench.realistic_bench.pages) and aligned into pairs (kept in ``--dir`` for the next run); the kept
triples are the claims to validate. Both paths validate them against a local BM25 index of the pages,
caching results in a fresh catalog each:

* old: the previous code, kept here as the reference (:class:`PerQueryBM25`, :func:`per_query_supports`):
  llama-index's retriever, one query at a time under a lock, each hit normalised again, each result
  journaled and pushed to the kernel on its own;
* new: ``SearchValidator.check_many`` over ``CachedSearch(LocalBM25)``, a batch per 2048 pairs as the
  verify stage runs it.

The new path also runs without a cache (retrieval and validation alone). The old path runs on the first ``--old-sample`` claims (its total is that rate times the claims, marked
"est."); the new path on all of them. Both answer the sampled claims identically (checked, the run fails
otherwise). Reported: index build, ms per claim, total, and the ratio of ms/claim at the largest size to
the smallest (flat: about 1).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from verifiers.search import CachedSearch, Hit, LocalBM25, SearchValidator, Support, _segment


class PerQueryBM25:
    """The previous LocalBM25, verbatim but for its name: llama-index's BM25Retriever, one query at a time."""

    def __init__(self, passages: list[Hit]):
        import logging

        from llama_index.core.schema import TextNode
        from llama_index.retrievers.bm25 import BM25Retriever

        logging.getLogger("bm25s").setLevel(logging.WARNING)
        self.passages = passages  # sorted as LocalBM25 sorts them
        nodes = [TextNode(id_=str(index), text=_segment(h.title + "。" + h.text))
                 for index, h in enumerate(self.passages)]
        self.name = "bm25-local"
        self._retriever = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=10, skip_stemming=True,
                                                      token_pattern=r"(?u)\b\w+\b")
        self._lock = threading.Lock()

    def search(self, query: str, k: int) -> list[Hit]:
        if k < 1:
            return []
        tokens, want = _segment(query), min(k, len(self.passages))
        with self._lock:
            while True:
                self._retriever.similarity_top_k = want
                found = self._retriever.retrieve(tokens)
                scores = sorted((float(node.score or 0.0) for node in found), reverse=True)
                if want == len(self.passages) or len(scores) < want or scores[-1] < scores[k - 1] or not scores[-1]:
                    break
                want = min(2 * want, len(self.passages))
        ranked = sorted((-float(node.score or 0.0), int(node.node.node_id)) for node in found)[:k]
        return [Hit(self.passages[index].url, self.passages[index].title, self.passages[index].text,
                    round(-score, 6)) for score, index in ranked]


def per_query_supports(backend, claims: list[tuple], k: int = 10, exclude_source: bool = True,
                       cache=None, cache_key: str = "") -> list[Support]:
    """The previous SearchValidator.check over each claim in turn, through the previous CachedSearch.search
    when ``cache`` (a CatalogCache) is given: one catalog read for the batch's cached results (the previous
    prefetch), then one search and one journal append per claim."""

    if cache is not None:
        cache.prefetch((cache_key, SearchValidator.query(head, relation), k) for head, _, relation, _, _ in claims)
    supports = []
    judge = SearchValidator(backend, k, exclude_source)
    for head, aliases, relation, tail, source_url in claims:
        query = SearchValidator.query(head, relation)
        cached = cache.get((cache_key, query, k)) if cache is not None else None
        if cached is not None:
            hits = [Hit(**h) for h in json.loads(cached[0])]
        else:
            hits = backend.search(query, k)
            if cache is not None:
                cache.put((cache_key, query, k), (json.dumps([h.__dict__ for h in hits], ensure_ascii=False),))
        # the verdict is the validator's (a result about the head: its title, or a sentence naming it that
        # expresses the relation); what this path keeps of the previous one is a search per claim
        urls = list(judge._support(hits, head, aliases, tail, source_url, relation).urls)
        supports.append(Support(bool(urls), tuple(urls)))
    return supports


def corpus(size: int, directory: Path) -> tuple[list[Path], list[list[tuple]]]:
    """Page shards of a realistic corpus of ``size`` entries and its claims, by batch of 2048 pairs."""
    from bench.realistic_bench import pages
    from filters.align_stage import align_stage
    from flows.settings import AlignSettings
    from flows.verify import batched
    from schemas import Pair
    from schemas.storage.shards import iter_records

    here = directory / f"realistic-{size}"
    if not (here / ".done").exists():
        shards, _ = pages(size, 0, here / "pages")
        align_stage(shards, AlignSettings(), here / "pairs")
        (here / ".done").touch()
    page_shards = sorted((here / "pages").glob("*.parquet"))
    batches = [[(p.entity, p.aliases, t.relation, t.tail, p.url)
                for p in batch if p.decision == "kept" for t in p.kept_triples()]
               for batch in batched(iter_records(sorted((here / "pairs").glob("*.parquet")), Pair), 2048)]
    return page_shards, batches


def measure(size: int, directory: Path, old_sample: int) -> dict:
    from schemas.storage.cache import SEARCH_CACHE, CatalogCache

    page_shards, batches = corpus(size, directory)
    claims = [c for batch in batches for c in batch]
    started = time.perf_counter()
    local = LocalBM25(page_shards)
    new_index_s = time.perf_counter() - started
    started = time.perf_counter()
    old = PerQueryBM25(local.passages)
    old_index_s = time.perf_counter() - started
    sample = claims[:old_sample]
    bare = SearchValidator(local)
    started = time.perf_counter()
    for batch in batches:
        bare.check_many(batch)
    bare_s = time.perf_counter() - started
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        cache = CatalogCache(Path(scratch) / "old" / "catalog.duckdb", SEARCH_CACHE)
        started = time.perf_counter()
        old_supports, left = [], sample
        for batch in batches:  # as the verify stage ran it: a prefetch per batch of 2048 pairs
            old_supports += per_query_supports(old, left[:len(batch)], cache=cache, cache_key=local.cache_key)
            left = left[len(batch):]
        cache.close()
        old_s = time.perf_counter() - started
        search = CachedSearch(local, Path(scratch) / "new" / "catalog.duckdb")
        validator = SearchValidator(search)
        started = time.perf_counter()
        new_supports = [s for batch in batches for s in validator.check_many(batch)]
        search.close()
        new_s = time.perf_counter() - started
    if new_supports[:len(sample)] != old_supports:
        raise SystemExit(f"size {size}: the batched path answers {sum(a != b for a, b in zip(new_supports, old_supports))}"
                         " sampled claims differently from the per-query path")
    return {"size": size, "passages": len(local.passages), "claims": len(claims), "sampled": len(sample),
            "supported": sum(s.ok for s in new_supports),
            "old_index_s": old_index_s, "new_index_s": new_index_s,
            "old_ms": 1000 * old_s / max(len(sample), 1), "new_ms": 1000 * new_s / max(len(claims), 1),
            "retrieval_ms": 1000 * bare_s / max(len(claims), 1),
            "old_total_s": old_index_s + old_s / max(len(sample), 1) * len(claims), "new_total_s": new_index_s + new_s}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10000, 40000])
    parser.add_argument("--old-sample", type=int, default=2000, help="claims the old path validates per size")
    parser.add_argument("--rounds", type=int, default=1, help="rounds per size (medians reported)")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "zhbench-verify-bench")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for size in args.sizes:
        runs = [measure(size, args.dir, args.old_sample) for _ in range(args.rounds)]
        rows.append({key: statistics.median(run[key] for run in runs) if isinstance(runs[0][key], float) else runs[0][key]
                     for key in runs[0]})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print("| pages | passages | claims (old sample) | index old / new s | ms/claim old | ms/claim new | speed-up "
          "| new ms/claim, no cache | verify total old (est.) / new s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['size']} | {r['passages']} | {r['claims']} ({r['sampled']}) | {r['old_index_s']:.1f} / "
              f"{r['new_index_s']:.1f} | {r['old_ms']:.2f} | {r['new_ms']:.3f} | {r['old_ms'] / r['new_ms']:.0f}× "
              f"| {r['retrieval_ms']:.3f} | {r['old_total_s']:.1f} / {r['new_total_s']:.1f} |")
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        print(f"\nms/claim at {last['size']} pages over {first['size']}: old {last['old_ms'] / first['old_ms']:.2f}×, "
              f"new {last['new_ms'] / first['new_ms']:.2f}×, new without the cache "
              f"{last['retrieval_ms'] / first['retrieval_ms']:.2f}× (passages {last['passages'] / first['passages']:.1f}×)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
