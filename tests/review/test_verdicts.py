"""Settled reviews applied to one item row: what is dropped, what changes, what is marked."""

from __future__ import annotations

import json
from collections import Counter

from review.verdicts import apply_item

KGC = {"item_id": "k1", "kind": "kgc", "question": "（卫青，职业，？）", "answer": "军事家", "answer_index": 2,
       "options": ["哲学家", "书法家", "军事家", "画家"], "tail": "军事家", "decision": "kept", "reason": "",
       "verified_by": ["safety_terms"]}
SIMPLEQA = {"item_id": "s1", "kind": "simpleqa", "question": "屠呦呦的国籍是什么？", "answer": "中国", "tail": "",
            "options": [], "answer_index": None, "decision": "kept", "reason": "",
            "verified_by": ["safety_terms", "criteria_rules", "retrieval_support"],
            "urls": ["https://baike.example/item/a", "https://openwiki.example/wiki/a"],
            "provenance": json.dumps({"method": "template", "evidence": [
                {"url": "https://openwiki.example/wiki/a", "passage": "屠呦呦的国籍是中国。"}]})}


def settled(verdict="accept", answer=None, status="agreed"):
    return {"verdict": verdict, "answer": answer, "status": status, "release": "cdtp 0.1.0"}


def test_an_accepted_item_keeps_its_checks_and_gains_human_review():
    counts = Counter()
    row = apply_item(SIMPLEQA, settled(answer="中國"), counts)  # the same answer after normalisation
    assert row["decision"] == "kept" and row["answer"] == "中国"
    assert row["verified_by"] == ["safety_terms", "criteria_rules", "retrieval_support", "human_review"]
    assert counts["verified"] == 1 and counts["reviewed"] == 1


def test_rejected_and_differently_answered_items_are_dropped_with_their_reason():
    counts = Counter()
    assert apply_item(SIMPLEQA, settled("reject"), counts)["reason"] == "review:rejected"
    row = apply_item(SIMPLEQA, settled(answer="中华人民共和国"), counts)
    assert (row["decision"], row["reason"]) == ("dropped", "review:answer_differs")
    assert counts["dropped_rejected"] == 1 and counts["dropped_answer_differs"] == 1
    assert SIMPLEQA["decision"] == "kept"  # the input row is not changed


def test_an_adjudicated_answer_is_applied_and_only_people_vouch_for_it():
    counts = Counter()
    row = apply_item(SIMPLEQA, settled(answer="中华人民共和国", status="adjudicated"), counts)
    assert row["answer"] == "中华人民共和国" and row["verified_by"] == ["human_review"]
    # the other site's passage stated the old answer: it goes, and the provenance says who set this one
    provenance = json.loads(row["provenance"])
    assert row["urls"] == ["https://baike.example/item/a"] and "evidence" not in provenance
    assert provenance["answer_set_by"] == "human_review" and provenance["method"] == "template"
    kept = apply_item(SIMPLEQA, settled(answer="中國"), counts)
    assert kept["urls"] == SIMPLEQA["urls"] and kept["provenance"] == SIMPLEQA["provenance"]
    option = apply_item(KGC, settled(answer=" 画家", status="adjudicated"), counts)
    assert (option["answer"], option["answer_index"], option["tail"]) == ("画家", 3, "画家")
    missing = apply_item(KGC, settled(answer="政治家", status="adjudicated"), counts)
    assert missing["reason"] == "review:answer_not_in_options"
    assert counts["answers_applied"] == 2 and counts["dropped_answer_not_in_options"] == 1
