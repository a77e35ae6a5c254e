from __future__ import annotations

import random

import numpy as np
import pytest

from crawlers.mirror.facts import load_facts
from crawlers.mirror.synth import SynthConfig, Synthesizer
from filters.dedup import Deduplicator, MinHasher, estimate_similarity, shingles
from filters.normalize import normalize


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
    assert shingles("长江全长", "char", 2) == {s.encode("utf-8") for s in ("长江", "江全", "全长")}
    assert shingles("长江全长六千米", "word", 1)
    with pytest.raises(ValueError):
        Deduplicator(shingle="bytes")
    with pytest.raises(ValueError):
        Deduplicator(threshold=1.5)
    with pytest.raises(ValueError, match="occurs more than once"):
        list(Deduplicator().find([("a", "长江"), ("a", "黄河")]))


def test_signature_agreement_estimates_the_jaccard_similarity():
    facts = load_facts()
    rng = random.Random(5)
    texts = [normalize(e.summary) for e in facts]
    pairs = [(texts[i], edit(texts[i], rng)) for i in range(0, 400, 4)]
    pairs += [(texts[i], texts[i + 1]) for i in range(1, 400, 4)]
    hasher = MinHasher(num_perm=256)
    left, right = hasher.sign([a for a, _ in pairs]), hasher.sign([b for _, b in pairs])
    estimates = estimate_similarity(left, right)
    errors = []
    for (a, b), estimate in zip(pairs, estimates):
        sa, sb = shingles(a), shingles(b)
        errors.append(estimate - len(sa & sb) / len(sa | sb))
    # the standard error of a 256-permutation estimate is at most 0.5 / 16 = 0.031
    assert max(abs(e) for e in errors) < 0.13
    assert abs(sum(errors) / len(errors)) < 0.01
    assert (hasher.sign(["短"]) == hasher.sign(["短"])).all()


def test_batches_and_spilling_do_not_change_the_result(tmp_path):
    facts = load_facts()
    rng = random.Random(11)
    docs = [(f"f{e.baidu_id}", e.summary) for e in facts]
    docs += [(f"z{k:03d}", edit(docs[rng.randrange(len(docs))][1], rng)) for k in range(40)]
    whole = sorted((d.doc_id, d.duplicate_of, d.kind) for d in Deduplicator().find(docs))
    small = sorted((d.doc_id, d.duplicate_of, d.kind)
                   for d in Deduplicator(batch_size=37, work_dir=tmp_path / "work").find(docs))
    assert whole == small
    assert len(whole) >= 38


def test_parts_signed_apart_give_what_one_pass_gives(tmp_path):
    """Pass 1 split over parts (as Dask workers sign them), references first, then the merge: the same
    duplicates, similarities included, as one ``find`` over every document."""
    facts = load_facts()
    rng = random.Random(5)
    docs = [(f"f{e.baidu_id}", e.summary) for e in facts]
    docs += [(f"z{k:03d}", edit(docs[rng.randrange(len(docs))][1], rng)) for k in range(60)]
    published = [("cdtp 0.1.0:x", docs[3][1]), ("cdtp 0.1.0:y", edit(docs[9][1], rng))]

    def found(finder, duplicates):
        return sorted((d.doc_id, d.duplicate_of, d.kind, round(d.similarity, 6), d.reference) for d in duplicates)

    whole = Deduplicator()
    whole.add_references(published)
    expected = found(whole, whole.find(docs))
    merged = Deduplicator(batch_size=29, work_dir=tmp_path / "merge")
    merged.add_references(published)
    parts = []
    for i, start in enumerate(range(0, len(docs), 70)):
        merged.sign_part(docs[start:start + 70], tmp_path / f"part-{i}")
        parts.append(tmp_path / f"part-{i}")
    assert len(parts) > 2
    assert found(merged, merged.find_signed(parts)) == expected
    assert merged.counts["documents"] == len(docs) and len(expected) >= 60


def test_references_are_never_dropped_and_their_copies_are():
    published = [("cdtp 0.1.0:a", "长江是中国第一长河，也是亚洲第一长河、世界第三长河，干流全长6300余千米。")]
    docs = [("a", "长江是中国第一长河，也是亚洲第一长河，世界第三长河，干流全长6300余千米。"),
            ("b", "长江是中国第一长河，也是亚洲第一长河、世界第三长河，干流全长6300余千米。"),
            ("c", "黄河是中国第二长河，发源于青藏高原巴颜喀拉山北麓，注入渤海。")]
    finder = Deduplicator()
    assert finder.add_references(published) == 1
    found = {d.doc_id: d for d in finder.find(docs)}
    assert set(found) == {"a", "b"}
    assert (found["b"].kind, found["b"].duplicate_of, found["b"].reference) == ("exact", "cdtp 0.1.0:a", True)
    assert (found["a"].kind, found["a"].reference) == ("near", True)


def test_word_shingles_find_near_duplicates_too():
    base = "长江是中国第一长河，也是亚洲第一长河、世界第三长河，干流全长6300余千米，在上海注入东海。"
    docs = [("a", base), ("b", base.replace("在上海注入东海", "于上海注入东海")),
            ("c", "黄河是中国第二长河，发源于青藏高原巴颜喀拉山北麓，注入渤海。")]
    found = {d.doc_id: d for d in Deduplicator(shingle="word", n=2).find(docs)}
    assert set(found) == {"b"}


def test_field_matching_finds_items_with_the_same_question_and_answer():
    from filters.dedup import FieldDeduplicator

    finder = FieldDeduplicator()
    finder.add_references([("cdtp 0.1.0:q9", ("长江的发源地是哪里？", "唐古拉山脉各拉丹冬峰"))])
    items = [("q2", ("李白的字是什么？", "太白")), ("q1", ("李白的字是什么", "太白。")),
             ("q3", ("李白的号是什么？", "青莲居士")), ("q4", ("長江的發源地是哪裡?", "唐古拉山脈各拉丹冬峰")),
             ("q5", ("李白的字是什么？", "白"))]
    found = {d.doc_id: (d.duplicate_of, d.kind, d.reference) for d in finder.find(items)}
    assert found == {"q2": ("q1", "field", False), "q4": ("cdtp 0.1.0:q9", "field", True)}


def test_too_small_a_memory_limit_is_a_clear_error(tmp_path):
    from filters.dedup import DedupMemoryError

    docs = [(f"d{i:05d}", f"第{i}号文档的内容各不相同，编号{i * 7919}。") for i in range(3000)]
    finder = Deduplicator(work_dir=tmp_path / "work", memory_limit="1MB", threads=1)
    with pytest.raises(DedupMemoryError, match="raise the setting dedup.memory_limit"):
        list(finder.find(docs))


def reference_signature(text: str, hasher: MinHasher) -> list[int]:
    """MinHasher's signature of one text the slow, obvious way: Python integers, one n-gram and one
    permutation at a time."""
    mask = (1 << 64) - 1
    units = [ord(ch) for ch in text] + [0] * max(0, hasher.n - len(text))
    xs = set()
    for start in range(len(units) - hasher.n + 1):
        h = 0
        for unit in units[start:start + hasher.n]:
            h = (h * 0x100000001B3 + unit) & mask
        h ^= h >> 30
        h = (h * 0xBF58476D1CE4E5B9) & mask
        h ^= h >> 27
        h = (h * 0x94D049BB133111EB) & mask
        h ^= h >> 31
        xs.add(h >> 32)
    return [min(((a * x + b) & mask) >> 32 for x in xs) for a, b in zip(hasher._a.tolist(), hasher._b.tolist())]


@pytest.mark.parametrize("num_perm, n, block", [(128, 5, 8_192), (16, 5, 1), (32, 2, 7)])
def test_vectorised_signing_equals_the_reference(num_perm, n, block):
    texts = ["长江是中国第一长河，也是亚洲第一长河。", "短", "", "黄河", "一二三四五", "abcde" * 30,
             "長江發源於青藏高原", "长江是中国第一长河，也是亚洲第一长河。"]
    hasher = MinHasher(num_perm=num_perm, n=n, block=block)
    signatures = hasher.sign(texts)
    assert signatures.dtype == np.uint32 and signatures.shape == (len(texts), num_perm)
    for text, signature in zip(texts, signatures):
        assert signature.tolist() == reference_signature(text, hasher), text
    assert (signatures[0] == signatures[-1]).all()


def test_block_size_and_batching_do_not_change_signatures():
    texts = [normalize(e.summary) for e in load_facts()[:120]] + ["短", "x" * 3000]
    whole = MinHasher().sign(texts)
    assert (MinHasher(block=1).sign(texts) == whole).all()
    assert (MinHasher(block=500).sign(texts) == whole).all()
    assert (np.concatenate([MinHasher().sign(texts[i:i + 13]) for i in range(0, len(texts), 13)]) == whole).all()
    assert MinHasher().sign([]).shape == (0, 128)
    with pytest.raises(ValueError):
        MinHasher(block=0)


def test_a_signed_part_holds_the_signatures_of_one_pass(tmp_path):
    from filters.normalize import normalize_once

    docs = [(f"f{e.baidu_id}", e.summary) for e in load_facts()[:90]]
    finder = Deduplicator(batch_size=17)
    assert finder.sign_part(docs[:50], tmp_path / "a") == 50
    assert finder.sign_part(docs[50:], tmp_path / "b") == 40
    parts = [np.fromfile(tmp_path / p / "signatures.bin", dtype=np.uint32).reshape(-1, 128) for p in ("a", "b")]
    expected = finder.hasher.sign([normalize_once(t) for _, t in docs])
    assert (np.concatenate(parts) == expected).all()
