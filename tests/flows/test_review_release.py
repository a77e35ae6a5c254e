"""Review to next release: a run queues its release by the policy, people annotate, and the next
release (zhbench run --readmit, which publishes what an earlier release holds) carries the verdicts."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from review.store import CRITERIA, Annotation, ReviewStore
from tests.flows.test_cli import zhbench

URLS = ["https://baike.baidu.com/item/%E5%B1%A0%E5%91%A6%E5%91%A6", "https://zh.wikipedia.org/wiki/%E5%B1%A0"]


def _label(config: str, verdict: str, answer: str = "") -> Annotation:
    if config == "simpleqa":
        criteria = {c: verdict == "accept" for c in CRITERIA}
        return Annotation(verdict, "" if verdict == "accept" else "criteria_not_met", answer, criteria, URLS)
    if config in ("qa", "kgc"):
        return Annotation(verdict, "" if verdict == "accept" else "gold_wrong", answer,
                          options={"gold_right": verdict == "accept", "distractors_wrong": True})
    return Annotation(verdict, "" if verdict == "accept" else "text_says_more", answer, covered=verdict == "accept")


def _both(store: ReviewStore, version: str, item: dict, first: tuple, second: tuple) -> str:
    """ann1 and ann2 label ``item`` (each leased it through next_item); returns its status."""
    config = item["config"]
    store.annotate("cdtp", version, item["item_id"], "ann1", _label(config, *first))
    again = store.next_item("cdtp", version, "ann2")
    assert again["item_id"] == item["item_id"]  # the second slot of the item ann1 just labelled
    return store.annotate("cdtp", version, item["item_id"], "ann2", _label(config, *second))


def _rows(release, config: str) -> dict[str, dict]:
    files = sorted((release / config).glob("*.parquet"))
    return {r["item_id"]: r for f in files for r in pq.read_table(f).to_pylist()}


@pytest.mark.slow  # a second run of the demo, with the verdicts
def test_verdicts_and_a_rejected_relation_reach_the_next_release(demo_run, demo_data, tmp_path):
    """The session's demo run is the first run (--quiet changes only stderr); the review and the next run
    happen in a copy of its data directory."""
    data, port, first = demo_data, demo_run.port, demo_run.result
    assert first.returncode == 0, first.stderr[-2000:]
    release = data / "releases" / "cdtp" / "0.1.0"
    store = ReviewStore.at(data)

    # The policy: every SimpleQA question, and of pairs, QA and KGC items at most 20 per domain.
    queued = _queued(store, "0.1.0")
    simpleqa = _rows(release, "simpleqa")
    assert set(simpleqa) <= set(queued) and simpleqa
    assert {"cdtp_pairs", "qa", "kgc"} <= set(queued.values())
    assert f"{len(queued)} items queued for two blind annotations" in first.stdout

    # Walk the queue as ann1: the first SimpleQA item agreed as is, the second disputed and adjudicated
    # to another answer, the third agreed on an answer that is not the pipeline's; the first QA item
    # rejected; the first KGC item disputed and rejected by the adjudicator; the first pair rejected.
    plan: dict[str, str] = {}
    while (item := store.next_item("cdtp", "0.1.0", "ann1")) is not None:
        config, gold = item["config"], item["payload"]["item"]["answer"]
        role = f"{config}-{sum(c.startswith(config) for c in plan.values())}"
        plan[item["item_id"]] = role
        if role == "simpleqa-0":
            assert _both(store, "0.1.0", item, ("accept", gold), ("accept", gold)) == "agreed"
        elif role == "simpleqa-1":
            assert _both(store, "0.1.0", item, ("accept", gold), ("accept", "某个别的答案")) == "disputed"
            store.next_dispute("cdtp", "0.1.0", "lead")
            store.adjudicate("cdtp", "0.1.0", item["item_id"], "lead", Annotation("accept", "correct_after_edit",
                                                                                    "某个别的答案"))
        elif role == "simpleqa-2":
            assert _both(store, "0.1.0", item, ("accept", "两人都写的答案"), ("accept", "两人都写的答案")) == "agreed"
        elif role == "qa-0":
            assert _both(store, "0.1.0", item, ("reject",), ("reject",)) == "agreed"
        elif role == "kgc-0":
            assert _both(store, "0.1.0", item, ("accept",), ("reject",)) == "disputed"
            store.next_dispute("cdtp", "0.1.0", "lead")
            store.adjudicate("cdtp", "0.1.0", item["item_id"], "lead", Annotation("reject", "distractor_also_correct"))
        elif role == "cdtp_pairs-0":
            assert _both(store, "0.1.0", item, ("reject",), ("reject",)) == "agreed"
        else:
            answer = gold if config == "simpleqa" else ""
            _both(store, "0.1.0", item, ("accept", answer), ("accept", answer))
    role_of = {role: item_id for item_id, role in plan.items()}
    relation = "外文名"
    store.judge_relation(relation, "reject", "lead", "romanised names, not facts", ("cdtp", "0.1.0"))

    second = zhbench("run", "--data-dir", str(data), "--mirror-port", port, "--quiet", "--readmit", cwd=tmp_path)
    assert second.returncode == 0, second.stderr[-2000:]
    nxt = data / "releases" / "cdtp" / "0.2.0"
    items = {c: _rows(nxt, c) for c in ("simpleqa", "qa", "kgc", "t2t")}

    kept = items["simpleqa"][role_of["simpleqa-0"]]
    # the review is added to what verified the item before it (the offline checks of 0.1.0)
    assert kept["verified_by"] == [*simpleqa[role_of["simpleqa-0"]]["verified_by"], "human_review"]
    assert "criteria_rules" in kept["verified_by"]
    adjudicated = items["simpleqa"][role_of["simpleqa-1"]]
    assert adjudicated["answer"] == "某个别的答案" and adjudicated["verified_by"] == ["human_review"]
    assert role_of["simpleqa-2"] not in items["simpleqa"]  # people agreed on another answer: dropped
    assert role_of["qa-0"] not in items["qa"]  # rejected
    assert role_of["kgc-0"] not in items["kgc"]  # rejected by the adjudicator
    assert all(r["verified_by"][-1] == "human_review" for r in items["kgc"].values() if r["item_id"] in plan)
    pairs = {r["pair_id"]: r for r in pq.read_table(nxt / "cdtp_pairs" / "all.parquet").to_pylist()}
    assert role_of["cdtp_pairs-0"] not in pairs
    assert not any(role_of["cdtp_pairs-0"] in r["source_pair_ids"] for r in items["t2t"].values())
    # The rejected relation is gone from every pair, and the alignment says why.
    assert not any(t["relation"] == relation for p in pairs.values() for t in p["triples"])
    manifest = json.loads((nxt / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["counts"]["triples_dropped"]["relation:relation_rejected_in_review"] > 0

    review = manifest["counts"]["review"]
    assert review["adjudicated"] == 2 and review["answers_applied"] == 1
    assert review["dropped_rejected"] == 2 and review["dropped_answer_differs"] == 1
    assert review["pairs_dropped_rejected"] == 1
    assert review["verified"] == review["reviewed"] - review["dropped_rejected"] - review["dropped_answer_differs"]
    card = (nxt / "README.md").read_text(encoding="utf-8")
    assert "## Human review" in card
    assert (f"| {review['reviewed']} | {review['agreed']} | 2 | {review['verified']} | 1 | {review['dropped']} |"
            in card)
    assert "human review" in second.stdout
    # Items reviewed for 0.1.0 are not queued again for 0.2.0: their verdicts hold.
    assert not set(_queued(store, "0.2.0")) & set(plan)


def _queued(store: ReviewStore, version: str) -> dict[str, str]:
    import sqlite3

    with sqlite3.connect(store.path) as con:
        return dict(con.execute("SELECT item_id, config FROM queue WHERE release_version = ?", [version]))
