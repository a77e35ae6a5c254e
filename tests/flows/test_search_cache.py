"""The search cache across runs in one data directory: a run over another corpus validates against that
corpus, not against results cached for the last one."""

from __future__ import annotations

from pathlib import Path

from filters.align_stage import align_stage
from flows.settings import AlignSettings, VerifySettings
from flows.verify import verify_stage
from schemas import Page
from tests.builders.conftest import fact_pages
from schemas.storage.shards import ShardWriter, iter_records


def every_other_page(pages: list[Path], directory: Path) -> list[Path]:
    with ShardWriter(directory, "pages", Page) as writer:
        writer.write_all(page for n, page in enumerate(iter_records(pages, Page)) if n % 2 == 0)
    return writer.paths


def test_a_second_run_over_another_corpus_validates_against_it_not_against_the_cache(tmp_path):
    full = fact_pages(tmp_path / "full")
    half = every_other_page(full, tmp_path / "half")

    def run(name: str, pages: list[Path], catalog: Path, index: list[Path] | None = None) -> dict:
        aligned = align_stage(pages, AlignSettings(), tmp_path / name / "pairs")
        return verify_stage(aligned.shards, index or pages, VerifySettings(search_backend="crawl"), aligned.funnel,
                            tmp_path / name / "verified", catalog, aligned.rules)["funnel"]

    data_dir_catalog = tmp_path / "data" / "catalog.duckdb"
    first = run("first", full, data_dir_catalog)
    second = run("second", half, data_dir_catalog)
    fresh = run("fresh", half, tmp_path / "fresh" / "catalog.duckdb")
    # what the second run would have said with the first run's search results
    stale = run("stale", half, tmp_path / "stale" / "catalog.duckdb", index=full)

    assert first["search"]["cache_misses"] > 0
    # nothing from the first run's results (a head's triples of one relation share a query: hits within a run)
    assert second["search"]["cache_hits"] == fresh["search"]["cache_hits"]
    assert second["search"]["cache_misses"] == fresh["search"]["cache_misses"]
    assert second["triples_dropped"] == fresh["triples_dropped"] and second["pairs_kept"] == fresh["pairs_kept"]
    assert second["triples_dropped"]["search:no_cooccurrence"] > stale["triples_dropped"]["search:no_cooccurrence"]
    assert second["search"]["backend"] == "bm25-local"
    again = run("again", half, data_dir_catalog)  # the same corpus again: every result from the cache
    assert again["search"]["cache_misses"] == 0 and again["triples_dropped"] == second["triples_dropped"]
