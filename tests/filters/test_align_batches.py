"""A pair's verdict depends on that pair alone: not on the pair judged before it, nor on the hash seed."""

from __future__ import annotations

from filters.align import cdtp_filters
from filters.rules.trailing_relation import _mask_names
from filters.base import Funnel, apply_filters
from schemas import Pair, Triple


def judge(*pairs: Pair, vocabulary=("海拔", "出生日期", "山脉"), threshold: float = 0.75) -> list[Pair]:
    triple_filters, pair_filters = cdtp_filters(list(vocabulary), threshold=threshold)
    return list(apply_filters(list(pairs), triple_filters, pair_filters, Funnel()))


def test_two_pairs_of_one_id_are_each_judged_on_their_own_text():
    first = Pair(pair_id="p", entity="泰山", text="泰山海拔1545米。", triples=[Triple("泰山", "海拔", "1545米")])
    second = Pair(pair_id="p", entity="黄山", text="黄山海拔1864米。", triples=[Triple("黄山", "海拔", "1864米")])
    judged = judge(first, second)
    assert [p.decision for p in judged] == ["kept", "kept"]
    assert second.triples[0].reason == "" and second.position_index == first.position_index


def test_a_pair_of_the_same_id_and_text_with_another_entity_is_judged_on_its_names():
    text = "李白（701年—762年），字太白。"
    first = Pair(pair_id="p", entity="杜甫", text=text, triples=[Triple("杜甫", "出生日期", "701年")])
    second = Pair(pair_id="p", entity="李白", text=text, triples=[Triple("李白", "出生日期", "701年")])
    alone = judge(Pair(pair_id="q", entity="李白", text=text, triples=[Triple("李白", "出生日期", "701年")]))[0]
    assert judge(first, second)[1].triples[0].reason == alone.triples[0].reason == ""


def test_overlapping_names_are_both_masked_whichever_comes_first():
    # 张三丰 and 三丰山 overlap in 张三丰山脉: masking one and then the other depended on set order
    # (the hash seed); 山脉 after them is then a relation name or not from one run to the next.
    pair = Pair(pair_id="p", entity="张三丰", aliases=["三丰山"], text="", triples=[])
    assert _mask_names("张三丰山脉", pair) == "\x00" * 4 + "脉"
    pair = Pair(pair_id="p", entity="张三丰", aliases=["三丰山"], text="张三丰，出生日期为1247年，张三丰山脉。",
                triples=[Triple("张三丰", "出生日期", "1247年")])
    assert judge(pair, threshold=0.5)[0].reason == ""
