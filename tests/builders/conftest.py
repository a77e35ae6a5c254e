"""The bundled mirror facts as page records, and the items built from them (the session fixtures that align
them are in tests/conftest.py)."""

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
def fact_items(kept_pair_shards, fact_page_shards, tmp_path_factory):
    """(pair shards, items, report): the item stage with the default settings over kept_pair_shards and the
    pages they came from; read by test_simpleqa and test_baselines (as their ``run``), so built once a session."""
    from flows.items import items_stage
    from flows.settings import ItemsSettings
    from schemas import Item
    from schemas.storage.shards import iter_records

    from tests.conftest import once_per_session

    def build(root: Path) -> tuple[list[Path], dict]:
        result = items_stage(kept_pair_shards, ItemsSettings(), root / "items", cache_dir=root / "cache",
                             page_shards=fact_page_shards)
        return result["shards"], result["report"]

    shards, report = once_per_session(tmp_path_factory, "fact-items", build)
    return kept_pair_shards, list(iter_records(shards, Item)), report
