"""The verification stage on pairs: CDTP's search validation of every kept triple.

A kept triple stays kept when its head (or an alias) and its tail co-occur in one of
the top-k search results for them (the pair's own page excluded by default); else it
is dropped with ``search:no_cooccurrence``. A kept pair left with no kept triple is
dropped with ``search:no_supported_triple``; a pair that lost some triples is judged
again by every pair rule on the triples it still has (its text may now say more than
they do), and dropped with ``search:<rule>:<reason>`` when it no longer passes.
Supporting URLs are stored on each triple. The triples of a batch of pairs are searched
in one call; results are cached in the warehouse, so a rerun searches nothing twice.
"""

from __future__ import annotations

from collections import Counter
from itertools import islice
from pathlib import Path
from typing import Iterable, Iterator, TypeVar

from filters.align import AlignmentRules
from filters.base import rejudge
from flows.settings import VerifySettings
from schemas import Pair
from verifiers.search import CachedSearch, HTTPSearch, LocalBM25, SearchError, SearchValidator, Support
from verifiers.searxng import SearxNG
from schemas.storage.shards import ShardWriter, iter_records

T = TypeVar("T")


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch


def claims(pairs: Iterable[Pair]) -> list[tuple[str, list[str], str, str, str]]:
    """What search validation checks of these pairs, in order: (head, aliases, relation, tail, source URL) of
    each kept triple of each kept pair."""
    return [(p.entity, p.aliases, t.relation, t.tail, p.url) for p in pairs if p.decision == "kept"
            for t in p.kept_triples()]


def search_backend(settings: VerifySettings, page_shards: list[Path], catalog_path: Path | None = None):
    """The configured backend, to be closed after use. The local index is kept in ``cache/bm25`` beside the
    catalog, where the verify and items stages (and reruns) share it (see verifiers.search._SavedIndexes);
    its passage file is written in ``cache/tmp`` while it is built."""
    if settings.searches_the_crawl:
        cache = Path(catalog_path).parent / "cache" if catalog_path else None
        return LocalBM25(page_shards, cache_dir=cache / "bm25" if cache else None, work_dir=cache / "tmp" if cache else None)
    if settings.search_backend == "searxng":
        if not settings.search_url:
            raise SearchError("verify.search_backend = 'searxng' needs verify.search_url (a SearXNG instance's root "
                              "URL); the bundled mirror's is used only when the run crawls the mirror")
        return SearxNG(settings.search_url, concurrency=settings.search_concurrency)
    return HTTPSearch(settings.search_backend, settings.results_key, concurrency=settings.search_concurrency)


def verify_stage(pair_shards: list[Path], page_shards: list[Path], settings: VerifySettings, funnel: dict,
                 out_dir: Path, catalog_path: Path, rules: Path | None = None) -> dict:
    """Returns {"shards": rewritten pair shards, "funnel": funnel with the search drops}; search
    results are cached in the catalog at ``catalog_path``. ``rules``: the alignment stage's
    AlignmentRules file, by which a pair that lost triples is judged again (required when
    search validation runs: without it a pair could keep a text its triples no longer cover)."""
    if not settings.search or not pair_shards:
        return {"shards": pair_shards, "funnel": funnel}
    if rules is None:
        raise ValueError("verify_stage needs the alignment rules file to judge pairs again")
    triple_filters, pair_filters, cutter = AlignmentRules.load(rules).judge()
    backend = search_backend(settings, page_shards, catalog_path)
    search = CachedSearch(backend, catalog_path)
    validator = SearchValidator(search, settings.k, settings.exclude_source)
    counts = {"triples_checked": 0, "triples_supported": 0, "pairs_dropped": 0}
    rejudged: Counter = Counter()

    def checked() -> Iterator[Pair]:
        for batch in batched(iter_records(pair_shards, Pair), 2048):
            # The whole batch's triples searched in one call: one catalog read for the cached results,
            # one retrieval for the others, one journal append for what it found.
            supports = iter(validator.check_many(claims(batch)))
            for pair in batch:
                yield check(pair, supports)

    def check(pair: Pair, supports: Iterator[Support]) -> Pair:
        if pair.decision == "kept":
            lost = 0
            for triple in pair.kept_triples():
                support = next(supports)
                counts["triples_checked"] += 1
                triple.support_urls = list(support.urls)
                if support.ok:
                    counts["triples_supported"] += 1
                else:
                    triple.decision, triple.reason = "dropped", "search:no_cooccurrence"
                    lost += 1
            if not pair.kept_triples():
                pair.decision, pair.reason = "dropped", "search:no_supported_triple"
                counts["pairs_dropped"] += 1
            elif lost and not rejudge(pair, triple_filters, pair_filters, "search", cutter):
                rejudged[pair.reason] += 1
        return pair

    try:
        with ShardWriter(out_dir, "pairs", Pair) as writer:
            writer.write_all(checked())
    finally:
        search.close()
        backend.close()
    updated = dict(funnel, pairs_dropped=dict(funnel["pairs_dropped"]), triples_dropped=dict(funnel["triples_dropped"]))
    dropped_triples = counts["triples_checked"] - counts["triples_supported"]
    if counts["pairs_dropped"]:
        updated["pairs_dropped"]["search:no_supported_triple"] = counts["pairs_dropped"]
    updated["pairs_dropped"].update(rejudged)
    counts["pairs_dropped"] += sum(rejudged.values())
    if dropped_triples:
        updated["triples_dropped"]["search:no_cooccurrence"] = dropped_triples
    updated["pairs_dropped"] = dict(sorted(updated["pairs_dropped"].items()))
    updated["triples_dropped"] = dict(sorted(updated["triples_dropped"].items()))
    updated["pairs_kept"] = funnel["pairs_kept"] - counts["pairs_dropped"]
    updated["triples_kept"] = funnel["triples_kept"] - dropped_triples
    updated["search"] = {"backend": search.name, "k": settings.k, "exclude_source": settings.exclude_source,
                         **counts, "cache_hits": search.hits, "cache_misses": search.misses}
    return {"shards": writer.paths, "funnel": updated}
