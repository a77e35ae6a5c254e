"""Review state in the catalog: two blind annotations, adjudication by a third person, kappa."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from warehouse.release import load_manifest
from warehouse.reviews import ReviewError, Reviews, cohen_kappa


@pytest.fixture
def queue(release, tmp_path):
    reviews = Reviews(tmp_path / "catalog.duckdb")
    manifest = load_manifest(release)
    return reviews, manifest.name, manifest.version


def test_a_seeded_sample_per_config_is_queued_once(release, queue):
    reviews, name, version = queue
    assert reviews.enqueue(release, ["simpleqa", "qa"], sample=5, seed=3, split="all") == 10
    assert reviews.enqueue(release, ["simpleqa", "qa"], sample=5, seed=3, split="all") == 0  # already queued
    assert Reviews(reviews.catalog.path).status(name, version)["queued"] == 10
    # The eval split only (the default), all of it: the items of the eval files.
    eval_ids = {i for f in load_manifest(release).files if f.config == "kgc" and f.split == "eval"
                for i in pq.read_table(release / f.path, columns=["item_id"]).column(0).to_pylist()}
    assert reviews.enqueue(release, ["kgc"]) == len(eval_ids) > 0


def test_two_annotators_agree_or_dispute_and_a_third_person_adjudicates(release, queue):
    reviews, name, version = queue
    reviews.enqueue(release, ["qa"], sample=2, seed=0)
    a = reviews.next_item(name, version, "ann1")
    assert reviews.annotate(name, version, a.item_id, "ann1", "accept") == "open"
    # ann1 is not offered the item again; ann2 is, and sees only its id.
    assert reviews.next_item(name, version, "ann1").item_id != a.item_id
    assert reviews.next_item(name, version, "ann2").item_id == a.item_id
    with pytest.raises(ReviewError, match="already annotated"):
        reviews.annotate(name, version, a.item_id, "ann1", "reject")
    assert reviews.annotate(name, version, a.item_id, "ann2", "accept") == "agreed"
    with pytest.raises(ReviewError, match="agreed"):
        reviews.annotate(name, version, a.item_id, "ann3", "reject")

    b = reviews.next_item(name, version, "ann1")
    reviews.annotate(name, version, b.item_id, "ann1", "accept")
    assert reviews.annotate(name, version, b.item_id, "ann2", "reject") == "disputed"
    assert reviews.next_item(name, version, "ann3") is None  # nothing open is left
    assert [d.item_id for d in reviews.disputed(name, version)] == [b.item_id]
    with pytest.raises(ReviewError, match="third person"):
        reviews.adjudicate(name, version, b.item_id, "ann2", "reject")
    with pytest.raises(ReviewError, match="only disputed"):
        reviews.adjudicate(name, version, a.item_id, "lead", "reject")
    reviews.adjudicate(name, version, b.item_id, "lead", "reject", note="海拔有误")
    assert reviews.verdicts(name, version) == {a.item_id: "accept", b.item_id: "reject"}
    status = reviews.status(name, version)
    assert status["agreed"] == 1 and status["adjudicated"] == 1 and status["open"] == 0
    assert status["accepted"] == 1 and status["rejected"] == 1 and status["doubly_annotated"] == 2


def test_a_refused_action_changes_nothing(release, queue):
    reviews, name, version = queue
    reviews.enqueue(release, ["qa"], sample=1)
    item = reviews.next_item(name, version, "ann1")
    with pytest.raises(ReviewError, match="not one of"):
        reviews.annotate(name, version, item.item_id, "ann1", "maybe")
    with pytest.raises(ReviewError, match="not queued"):
        reviews.annotate(name, version, "qa999", "ann1", "accept")
    with pytest.raises(ReviewError, match="no item config pairs"):
        reviews.enqueue(release, ["pairs"])
    assert reviews.status(name, version)["open"] == 1
    assert reviews.next_item(name, version, "ann1").item_id == item.item_id


def test_cohen_kappa():
    # Two raters, 10 items: 7 agreements; first rater accepts 6, second 5.
    pairs = ([("accept", "accept")] * 4 + [("reject", "reject")] * 3 + [("accept", "reject")] * 2
             + [("reject", "accept")])
    expected = (0.6 * 0.5) + (0.4 * 0.5)
    assert cohen_kappa(pairs) == pytest.approx((0.7 - expected) / (1 - expected))
    assert cohen_kappa([("accept", "accept")] * 3) is None  # chance agreement is total
    assert cohen_kappa([]) is None
