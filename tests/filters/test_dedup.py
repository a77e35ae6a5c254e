from __future__ import annotations

import random

import pytest

from crawlers.mirror.facts import load_facts
from crawlers.mirror.synth import SynthConfig, Synthesizer
from filters.dedup import Deduplicator, shingles


def edit(text: str, rng: random.Random) -> str:
    kind = rng.choice(["char", "punct", "reorder"])
    if kind == "char":
        chars = list(text)
        for _ in range(2):
            chars[rng.randrange(len(chars))] = rng.choice("的了是在和有")
        return "".join(chars)
    if kind == "punct":
        return text.replace("，", "；", 1).replace("。", "！", 1)
    parts = text.rstrip("。").split("，")
    if len(parts) > 2:
        i = rng.randrange(1, len(parts) - 1)
        parts[i], parts[i + 1] = parts[i + 1], parts[i]
    return "，".join(parts) + "。"


def test_finds_planted_near_duplicates_with_few_false_merges():
    facts = load_facts()
    docs = [(f"f{e.baidu_id}", e.summary) for e in facts]
    docs += [(f"s{i:05d}", e.summary) for i, e in enumerate(
        Synthesizer(facts, SynthConfig(seed=3, near_duplicate_rate=0)).take(1000))]
    rng = random.Random(7)
    planted = {}
    for k in range(150):
        source, text = docs[rng.randrange(len(docs))]
        planted[f"z{k:04d}"] = source
        docs.append((f"z{k:04d}", edit(text, rng)))
    found = {d.doc_id: d for d in Deduplicator().find(docs)}
    recall = sum(1 for z in planted if z in found) / len(planted)
    false = [d for d in found.values() if d.doc_id not in planted]
    assert recall >= 0.95
    assert len(false) <= 0.01 * len(docs)


def test_exact_duplicates_after_normalisation_and_the_first_id_survives():
    docs = [("b", "长江全长6,397千米。"), ("a", "长江全长6397千米。"), ("c", "黄河是中国第二长河。")]
    (dup,) = list(Deduplicator().find(docs))
    assert (dup.doc_id, dup.duplicate_of, dup.kind) == ("b", "a", "exact")


def test_input_order_does_not_change_the_result():
    docs = [(f"d{i}", f"这是第{i % 3}号测试文本，内容完全相同，用来检验去重结果是否稳定。") for i in range(9)]
    forward = [(d.doc_id, d.duplicate_of) for d in Deduplicator().find(docs)]
    backward = [(d.doc_id, d.duplicate_of) for d in Deduplicator().find(list(reversed(docs)))]
    assert forward == backward


def test_shingle_kinds_and_bad_arguments():
    assert shingles("长江全长", "char", 2) == {s.encode("utf-32-le") for s in ("长江", "江全", "全长")}
    assert shingles("长江全长六千米", "word", 1)
    with pytest.raises(ValueError):
        Deduplicator(shingle="bytes")
    with pytest.raises(ValueError):
        Deduplicator(threshold=1.5)
