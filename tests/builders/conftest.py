"""Kept pairs of the bundled mirror facts, aligned and deduplicated as a run does, without a crawl."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from crawlers.mirror.facts import load_facts
from schemas import InfoboxEntry, Page
from schemas.storage.shards import ShardWriter


def fact_pages(directory: Path) -> list[Path]:
    fetched = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with ShardWriter(directory, "pages", Page) as writer:
        for entry in load_facts():
            url = f"http://mirror.invalid/item/{entry.title}/{entry.baidu_id}"
            writer.write(Page(url=url, canonical_url=url, title=entry.title, subtitle=entry.sense, status="ok",
                              source="baidu", summary=entry.summary, content_hash=f"{entry.baidu_id:016x}",
                              fetched_at=fetched,
                              infobox=[InfoboxEntry(n, v, [x for x in v.split("、") if x]) for n, v in entry.infobox]))
    return writer.paths


@pytest.fixture(scope="session")
def kept_pair_shards(tmp_path_factory) -> list[Path]:
    from filters.align_stage import align_stage
    from filters.dedup_stage import dedup_stage
    from flows.settings import AlignSettings, DedupSettings

    root = tmp_path_factory.mktemp("pairs")
    aligned = align_stage(fact_pages(root / "pages"), AlignSettings(), root / "pairs")
    deduped = dedup_stage(aligned.shards, DedupSettings(), aligned.funnel, root / "dedup")
    return deduped["shards"]
