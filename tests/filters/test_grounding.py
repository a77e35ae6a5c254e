from __future__ import annotations

from filters.base import Funnel, apply_filters
from filters.grounding import HasGroundedTripleFilter, ValueInTextFilter, find_value, normalize
from schemas import Pair, Triple


def judge(text: str, *triples: tuple[str, str]) -> tuple[Pair, Funnel]:
    pair = Pair(pair_id="p1", entity="泰山", text=text,
                triples=[Triple(head="泰山", relation=r, tail=v) for r, v in triples])
    funnel = Funnel()
    (judged,) = apply_filters([pair], [ValueInTextFilter()], [HasGroundedTripleFilter()], funnel)
    return judged, funnel


def test_keeps_triple_whose_value_is_in_the_text():
    pair, funnel = judge("泰山主峰玉皇顶海拔1545米，位于山东省泰安市。", ("海拔", "1545米"), ("所在地", "泰安市"))
    assert [t.decision for t in pair.triples] == ["kept", "kept"]
    assert pair.decision == "kept"
    assert funnel.triples_kept == 2


def test_number_never_matches_inside_a_longer_number():
    pair, _ = judge("泰山主峰玉皇顶海拔1545米。", ("海拔", "545米"))
    assert pair.triples[0].decision == "dropped"
    assert pair.triples[0].reason == "grounding:value_not_in_text"
    assert find_value("545米", normalize("海拔1545米，另一处545米")) > 0


def test_matching_ignores_width_and_spacing():
    pair, _ = judge("二氧化碳的化学式为ＣＯ２ ，是温室气体。", ("化学式", "CO2"))
    assert pair.triples[0].decision == "kept"


def test_pair_without_grounded_triple_is_dropped_with_reason():
    pair, funnel = judge("泰山是五岳之首。", ("海拔", "1545米"))
    assert pair.decision == "dropped"
    assert pair.reason == "pair:no_grounded_triple"
    assert funnel.pairs_dropped == {"pair:no_grounded_triple": 1}
    assert funnel.triples_dropped == {"grounding:value_not_in_text": 1}


def test_position_index_is_last_mention_end_over_text_length():
    text = "泰山海拔1545米，位于泰安市。"
    pair, _ = judge(text, ("海拔", "1545米"), ("所在地", "泰安市"))
    assert pair.position_index == round((text.index("泰安市") + 3) / len(text), 6)


def test_pair_with_no_text_or_no_infobox():
    assert judge("")[0].reason == "pair:no_text"
    assert judge("泰山是五岳之首。")[0].reason == "pair:no_infobox"
