"""The item build split between processes (flows/item_parts.py): the items, their order and the counts of one
process, whatever the number; a part that fails says which and why."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from flows import item_parts
from flows.items import items_stage
from flows.settings import ItemsSettings
from schemas import Item, Pair
from schemas.storage.shards import ShardWriter, iter_records


def _twice(shards: list[Path], directory: Path) -> list[Path]:
    """The pairs, then each again under another URL: the copies fall in later parts, where the first copies'
    cloze sentences are taken and their values asked by their head already."""
    pairs = list(iter_records(shards, Pair))
    with ShardWriter(directory, "pairs", Pair) as writer:
        for pair in pairs:
            writer.write(pair)
        for pair in pairs:
            writer.write(dataclasses.replace(pair, pair_id=f"{pair.pair_id}-again", url=f"{pair.url}/again"))
    return writer.paths


@pytest.fixture(scope="module")
def split_and_whole(kept_pair_shards, fact_page_shards, tmp_path_factory):
    """The item stage over the pairs twice, by one process and by three, in batches of 40 triples."""
    root = tmp_path_factory.mktemp("item-parts")
    shards = _twice(kept_pair_shards, root / "pairs")
    patch = pytest.MonkeyPatch()
    patch.setattr("flows.items.BATCH_TRIPLES", 40)
    patch.setattr(item_parts, "MIN_BATCHES", 2)
    try:
        results = {n: items_stage(shards, ItemsSettings(), root / f"p{n}", page_shards=fact_page_shards,
                                  processes=n) for n in (1, 3)}
    finally:
        patch.undo()
    return shards, root, results


def test_three_processes_build_the_items_of_one_byte_for_byte(split_and_whole):
    shards, root, results = split_and_whole
    assert item_parts.plan(shards, 40, 3) == item_parts.plan(shards, 40, 3)  # deterministic
    assert (root / "p3" / "raw" / "part-1").is_dir() and (root / "p3" / "raw" / "part-2").is_dir()
    assert not (root / "p1" / "raw" / "part-1").exists()
    one, three = results[1], results[3]
    assert [p.read_bytes() for p in one["shards"]] == [p.read_bytes() for p in three["shards"]]
    assert one["report"] == three["report"]


def test_the_later_parts_leave_out_what_the_earlier_ones_used(split_and_whole):
    """The copies' cloze sentences are the first copies': none is kept twice, and the merge counts them as one
    build does; a value asked by its head is asked once."""
    _, _, results = split_and_whole
    items = [i for i in iter_records(results[3]["shards"], Item)]
    cloze = [i for i in items if i.kind == "cloze" and i.decision == "kept"]
    assert cloze and not [i for i in cloze if i.source_pair_ids[0].endswith("-again")]
    assert results[3]["report"]["items_dropped"].get("cloze:sentence_used_by_another_item", 0) >= len(cloze)
    head_asked = [(i.relation, i.tail) for i in items if i.kind == "kgc" and i.asked == "head"]
    assert head_asked and len(head_asked) == len(set(head_asked))


def test_the_plan_cuts_whole_batches_of_about_equal_triples(kept_pair_shards):
    assert item_parts.plan(kept_pair_shards, 40, 1) == [(0, None)]
    assert item_parts.plan(kept_pair_shards, 10**9, 4) == [(0, None)]  # one batch: nothing to split
    assert len(item_parts.plan(kept_pair_shards, 40, 64)) == item_parts.MAX_PARTS  # each holds the models
    parts = item_parts.plan(kept_pair_shards, 40, 3)
    assert len(parts) == 3 and parts[0][0] == 0 and parts[-1][1] is None
    assert all(stop == first for (_, stop), (first, _) in zip(parts, parts[1:]))  # contiguous
    assert all(first < stop for first, stop in parts[:-1])


def test_a_part_that_fails_says_which_batches_and_why(tmp_path):
    spec = {"pair_shards": [str(tmp_path / "missing.parquet")], "page_shards": [], "items": ItemsSettings().model_dump(
        mode="json"), "raw_dir": str(tmp_path), "batch_size": 40, "verify": None, "cache": None}
    with pytest.raises(item_parts.ItemPartError, match=r"batches 3 to the last ended without them \(exit 1\).*"
                                                       r"missing\.parquet"):
        with item_parts.started([(3, None)], spec) as parts:
            parts[0].result()
