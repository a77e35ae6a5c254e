from __future__ import annotations

from datetime import datetime, timezone

import pytest

from schemas import (ITEM_SCHEMA, PAGE_SCHEMA, PAIR_SCHEMA, TRIPLE_SCHEMA, InfoboxEntry, Item, Page, Pair,
                     ReleaseFile, ReleaseManifest, Triple, schema_version)


def test_every_schema_carries_a_version():
    for schema in (PAGE_SCHEMA, PAIR_SCHEMA, TRIPLE_SCHEMA, ITEM_SCHEMA):
        assert schema_version(schema)
    for record in (Page, Pair, Triple, Item):
        assert schema_version(record.SCHEMA) == record.VERSION


def test_page_round_trips_through_arrow():
    page = Page(url="http://x/item/a/1", title="李白", infobox=[InfoboxEntry("别名", "太白、青莲", ["太白", "青莲"])],
                links=[{"title": "杜甫", "url": "http://x/item/b/2"}], senses=[{"label": "诗人", "url": "http://x/1"}],
                fetched_at=datetime(2026, 1, 1, tzinfo=timezone.utc), paragraphs=["一", "二"])
    batch = Page.to_batch([page])
    assert batch.schema.equals(PAGE_SCHEMA, check_metadata=True)
    (back,) = Page.from_batch(batch)
    assert back == page


def test_pair_round_trips_with_triple_decisions():
    pair = Pair(pair_id="p", entity="泰山", text="t", position_index=0.9,
                triples=[Triple("泰山", "海拔", "1545米", decision="dropped", reason="grounding:value_not_in_text")])
    (back,) = Pair.from_batch(Pair.to_batch([pair]))
    assert back == pair


def test_item_rejects_answer_index_that_misses_the_answer():
    options = [str(i) for i in range(10)]
    Item(item_id="i", kind="kgc", question="q", answer="3", options=options, answer_index=3)
    with pytest.raises(ValueError, match="answer_index"):
        Item(item_id="i", kind="kgc", question="q", answer="3", options=options, answer_index=4)
    with pytest.raises(ValueError, match="kind"):
        Item(item_id="i", kind="essay", question="q", answer="a")


def test_manifest_json_round_trip():
    manifest = ReleaseManifest(name="cdtp", version="0.1.0", config={"a": 1}, counts={"pairs": 2},
                               files=[ReleaseFile("cdtp_pairs/all.parquet", "cdtp_pairs", "all", 2, 10, "ab", "pair", "1.0.0")])
    assert ReleaseManifest.from_json(manifest.to_json()) == manifest
