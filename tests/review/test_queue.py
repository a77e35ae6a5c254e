"""What a release puts in the review queue: the policy, and the payload the page shows."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from review.queue import Policy, payloads, queue_release, select
from review.store import ReviewError, ReviewStore
from tests.warehouse.conftest import release  # noqa: F401 (the published release fixture)
from schemas.releases import load_manifest


def _ids(release, config):
    return {i for f in sorted((release / config).glob("*.parquet"))
            for i in pq.read_table(f, columns=["item_id"]).column(0).to_pylist()}


def test_the_policy_takes_every_simpleqa_question_and_a_seeded_sample_per_domain(release):
    chosen = select(release, Policy(sample_per_domain=1, seed=3))
    assert set(chosen["simpleqa"]) == _ids(release, "simpleqa")
    domains = {r["item_id"]: r["domain"] for f in (release / "qa").glob("*.parquet")
               for r in pq.read_table(f, columns=["item_id", "domain"]).to_pylist()}
    assert len(chosen["qa"]) == len(set(domains.values()))  # one per domain
    assert len({domains[i] for i in chosen["qa"]}) == len(chosen["qa"])
    assert select(release, Policy(sample_per_domain=1, seed=3)) == chosen  # the same draw every time
    assert "qa" not in select(release, Policy(sample_per_domain=0))


def test_a_payload_carries_the_item_its_source_pair_and_verifier_records(release, tmp_path):
    item_id = sorted(_ids(release, "simpleqa"))[0]
    checks = tmp_path / "checks.jsonl"
    checks.write_text('{"item_id": "%s", "verifier": "evidence", "verified": ["retrieval_support"], '
                      '"evidence": {"urls": ["https://baike.baidu.com/item/x"]}}\n{"item_id": "other"}\n' % item_id,
                      encoding="utf-8")
    (row,) = payloads(release, {"simpleqa": [item_id]}, checks)
    item = row["payload"]["item"]
    assert item["item_id"] == item_id and item["question"] and item["answer"]
    (pair,) = row["payload"]["pairs"]
    assert pair["pair_id"] == item["source_pair_ids"][0] and pair["text"] and pair["triples"]
    assert row["payload"]["checks"][0]["evidence"]["urls"] == ["https://baike.baidu.com/item/x"]
    assert row["category"] == item["primary_category"]


def test_queue_release_and_its_errors(release, tmp_path):
    manifest = load_manifest(release)
    added = queue_release(tmp_path, release, configs=["simpleqa", "cdtp_pairs"], sample=2)
    assert added == 4
    assert queue_release(tmp_path, release, configs=["simpleqa", "cdtp_pairs"], sample=2) == 0
    assert ReviewStore.at(tmp_path).status(manifest.name, manifest.version)["queued"] == 4
    with pytest.raises(ReviewError, match="no config pairs to review"):
        select(release, configs=["pairs"])


def test_every_queued_item_of_a_published_release_renders_for_an_annotator(release, tmp_path):
    """The pages show what review.queue builds from a real release, not only hand-made rows."""
    from fastapi.testclient import TestClient

    from review.app import create_app
    from tests.review.conftest import login, password

    manifest = load_manifest(release)
    queue_release(tmp_path, release, configs=None, sample=2, split="all")
    store = ReviewStore.at(tmp_path)
    store.add_user("ann1", "annotator", password("ann1"))
    ids = store.item_ids(manifest.name, manifest.version)
    with TestClient(create_app(tmp_path)) as client:
        login(client, "ann1")
        seen = set()
        for _ in ids:
            page = client.get(f"/annotate/{manifest.name}/{manifest.version}")
            assert page.status_code == 200, page.text
            item = store.next_item(manifest.name, manifest.version, "ann1")
            seen.add(item["config"])
            shown = item["payload"]["item"]
            for text in (shown["question"], shown["head"]):
                assert not text or text.split("\n")[0] in page.text.replace("&#39;", "'")
            if item["payload"]["pairs"]:
                assert "<mark" in page.text  # the matched spans of the source text
            store.release_lease(manifest.name, manifest.version, item["item_id"], "ann1")
    assert {"simpleqa", "qa", "kgc", "t2t", "cloze", "cdtp_pairs"} <= seen
