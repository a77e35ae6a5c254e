"""Each CDTP alignment rule with its drop reason, including the CDTP paper's own examples."""

from __future__ import annotations

import pytest

from filters.align import cdtp_filters
from filters.enumerations import enumerations
from filters.mentions import MAX_RELATION_CHARS, MAX_VALUE_CHARS, Lexicon, Mention, RelationNames, uncovered
from filters.rules.position_index import PositionIndexFilter
from filters.rules.trailing_relation import TrailingRelationFilter
from filters.text import AlignedText
from filters.base import Funnel, apply_filters
from filters.normalize import normalize
from schemas import Pair, Triple

VOCABULARY = ["专辑语言", "专辑歌手", "曲目数量", "操作系统", "上市日期", "屏幕尺寸", "网络制式", "出生日期",
              "代表作品", "所属国家", "字", "首都"]


def judge(entity: str, text: str, *triples: tuple[str, str], vocabulary=VOCABULARY) -> Pair:
    pair = Pair(pair_id=entity, entity=entity, text=text,
                triples=[Triple(head=entity, relation=r, tail=v) for r, v in triples])
    triple_filters, pair_filters = cdtp_filters(vocabulary)
    (judged,) = apply_filters([pair], triple_filters, pair_filters, Funnel())
    return judged


def test_paper_album_example_drops_the_language_triple_and_keeps_the_pair():
    pair = judge("90电影金曲精选", "《90电影金曲精选》是许冠杰发行的音乐专辑，共收录了12首歌曲。",
                 ("专辑语言", "粤语"), ("专辑歌手", "许冠杰"), ("曲目数量", "12首"))
    assert [(t.relation, t.decision, t.reason) for t in pair.triples] == [
        ("专辑语言", "dropped", "grounding:value_not_in_text"),
        ("专辑歌手", "kept", ""), ("曲目数量", "kept", "")]
    assert pair.decision == "kept"
    assert pair.position_index > 0.75


def test_paper_phone_example_is_dropped_for_its_trailing_description():
    pair = judge("黑莓 9220", "黑莓 9220是2012年上市的一款支持Blackberry OS 7操作系统的2.4英寸的3G手机。",
                 ("操作系统", "Blackberry OS 7"), ("上市日期", "2012年"))
    assert [t.decision for t in pair.triples] == ["kept", "kept"]
    assert pair.decision == "dropped"
    assert pair.reason == "position_index:below_threshold"
    assert pair.position_index < 0.75


def test_number_inside_a_longer_number_is_not_a_mention():
    pair = judge("泰山", "泰山主峰玉皇顶海拔1545米。", ("海拔", "545米"), ("海拔", "1545米"))
    assert [t.decision for t in pair.triples] == ["dropped", "kept"]


def test_word_inside_a_longer_word_is_not_a_mention():
    text = AlignedText("中国人民银行是国务院组成部门。")
    assert text.find("中国") is None
    assert text.find("中国人民银行") == (0, 6)


@pytest.mark.parametrize("value, text", [
    ("1881年9月25日", "鲁迅生于1881-09-25，浙江绍兴人。"),
    ("1881-09-25", "鲁迅生于1881年9月25日，浙江绍兴人。"),
    ("6397千米", "长江全长6,397千米。"),
    ("CO2", "化学式为ＣＯ２。"),
    ("汉语", "官方語言為漢語。"),
    ("blackberry os 7", "支持BlackBerry OS 7系统"),
])
def test_normalised_forms_match(value, text):
    assert AlignedText(text).find(value) is not None


def test_trailing_relation_name_not_covered_drops_the_pair():
    text = "唐代著名的浪漫主义诗人，被后人誉为诗仙的李白，字太白，其代表作品为《静夜思》，出生日期不详。"
    pair = judge("李白", text, ("字", "太白"), ("代表作品", "《静夜思》"))
    assert pair.position_index > 0.75  # the index alone would keep it
    assert pair.decision == "dropped"
    assert pair.reason == "trailing_relation:uncovered_relation_after_last_triple"


def test_relation_named_after_the_last_triple_and_covered_is_fine():
    pair = judge("李白", "李白的出生日期为701年，代表作品为《静夜思》。", ("出生日期", "701年"), ("代表作品", "《静夜思》"))
    assert pair.decision == "kept", pair.reason


def test_enumeration_item_without_a_triple_drops_the_pair():
    text = "李白的代表作品有《静夜思》、《蜀道难》、《将进酒》。"
    covered = judge("李白", text, ("代表作品", "《静夜思》"), ("代表作品", "《蜀道难》"), ("代表作品", "《将进酒》"))
    assert covered.decision == "kept", covered.reason
    missing = judge("李白", text, ("代表作品", "《静夜思》"), ("代表作品", "《将进酒》"))
    assert missing.decision == "dropped"
    assert missing.reason == "enumeration:enumeration_item_without_triple"


def test_enumerations_are_found_in_titles_and_plain_lists():
    assert enumerations(normalize("代表作有《春望》《登高》和《石壕吏》。")) == [["春望", "登高", "石壕吏"]]
    assert enumerations(normalize("流经青海、西藏和四川。")) == [["青海", "西藏", "四川"]]


def test_position_index_threshold_is_checked():
    with pytest.raises(ValueError, match="threshold"):
        PositionIndexFilter(1.5)


def test_frequent_relations_by_support_and_top_k():
    from filters.rules.relation_frequency import frequent_relations

    counts = {"中文名": 9, "出生日期": 5, "外文名": 5, "血型": 1}
    assert frequent_relations(counts, min_support=2) == ["中文名", "出生日期", "外文名"]
    assert frequent_relations(counts, min_support=1, top_k=2) == ["中文名", "出生日期"]  # ties by name
    with pytest.raises(ValueError):
        frequent_relations(counts, min_support=0)


def test_infrequent_relation_triple_is_dropped_before_grounding():
    from filters.align import cdtp_filters

    pair = Pair(pair_id="p", entity="泰山", text="泰山海拔1545米，是五岳之首，所在城市为泰安。",
                triples=[Triple("泰山", "海拔", "1545米"), Triple("泰山", "所在城市", "泰安")])
    triple_filters, pair_filters = cdtp_filters(["海拔", "所在城市"], keep_relations=["海拔"])
    (judged,) = apply_filters([pair], triple_filters, pair_filters, Funnel())
    assert [t.reason for t in judged.triples] == ["", "relation:infrequent_relation"]


def test_relation_aliases_map_to_one_name(tmp_path):
    from filters.triples import extract_triples, relation_aliases
    from schemas import InfoboxEntry, Page

    page = Page(url="u", title="鲁迅", infobox=[InfoboxEntry("出生时间", "1881年9月25日", ["1881年9月25日"]),
                                                InfoboxEntry("出生日期", "1881年9月25日", ["1881年9月25日"]),
                                                InfoboxEntry("笔名", "鲁迅", ["鲁迅"])])
    assert [(t.relation, t.tail) for t in extract_triples(page)] == [("出生日期", "1881年9月25日"), ("笔名", "鲁迅")]
    bad = tmp_path / "aliases.tsv"
    bad.write_text("出生时间 出生日期\n", encoding="utf-8")
    with pytest.raises(ValueError, match="aliases.tsv:1"):
        relation_aliases(bad)


def test_trailing_mention_by_another_name_of_a_covered_relation_is_fine():
    from filters.align import cdtp_filters

    text = "唐代著名的浪漫主义诗人，被后人誉为诗仙的李白，字太白，出生日期为701年，出生时间另有异说。"
    pair = Pair(pair_id="p", entity="李白", text=text,
                triples=[Triple("李白", "字", "太白"), Triple("李白", "出生日期", "701年")])
    for aliases, expected in (({"出生时间": "出生日期"}, "kept"), ({}, "dropped")):
        triple_filters, pair_filters = cdtp_filters(["字", "出生日期", "出生时间"], aliases=aliases)
        (judged,) = apply_filters([pair], triple_filters, pair_filters, Funnel())
        assert judged.decision == expected, (aliases, judged.reason)


def test_a_relation_name_saying_the_last_triple_in_its_own_clause_is_no_trailing_relation():
    """Real Baidu Baike (bench/data/real_baike, 建德草莓): 特产 is a relation of the corpus and, after the
    value, how the kept 产地名称 is said; after the clause it is a relation no triple covers."""
    vocabulary = ["产地名称", "特产", "品质特点"]
    text = "建德草莓，浙江省建德市特产。"
    pair = judge("建德草莓", text, ("产地名称", "浙江省建德市"), vocabulary=vocabulary)
    assert (pair.decision, pair.triples[0].decision) == ("kept", "kept")
    pair = judge("建德草莓", "建德草莓是一种草莓，产于浙江省建德市，属特产。", ("产地名称", "浙江省建德市"),
                 vocabulary=vocabulary)
    assert pair.position_index > 0.75
    assert pair.reason == "trailing_relation:uncovered_relation_after_last_triple"


@pytest.mark.parametrize("dirty, expected", [
    ("李白（701年－762年），字太白。".encode("utf-8").decode("latin-1"), "李白（701年－762年），字太白。"),
    ("李白<b>字太白</b>&nbsp;，号青莲居士。", "李白字太白，号青莲居士。"),
    ("长江 是 亚洲第一长河。播报编辑", "长江是亚洲第一长河。"),
    ("杜甫[1]，字“子美”。", "杜甫，字“子美”。"),
])
def test_text_cleaning_repairs_and_strips_without_touching_chinese_punctuation(dirty, expected):
    from filters.clean import clean

    assert clean(dirty) == expected


def test_the_entitys_names_are_kept_as_aliases_and_a_restated_title_is_no_triple():
    from datetime import datetime, timezone

    from filters.triples import page_to_pair
    from schemas import InfoboxEntry, Page

    page = Page(url="http://x/item/李白/1", canonical_url="http://x/item/李白/1", title="李白", status="ok",
                summary="李白（701年－762年），字太白，号青莲居士，唐朝诗人，被后人誉为“诗仙”。",
                infobox=[InfoboxEntry("中文名", "李白", ["李白"]), InfoboxEntry("外文名", "Li Bai", ["Li Bai"]),
                         InfoboxEntry("别称", "诗仙、李太白", ["诗仙", "李太白"]),
                         InfoboxEntry("出生日期", "701年", ["701年"])],
                fetched_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
    pair = page_to_pair(page)
    assert pair.aliases == ["Li Bai", "诗仙", "李太白"]
    triple_filters, pair_filters = cdtp_filters(["中文名", "外文名", "别名", "出生日期"])
    (judged,) = apply_filters([pair], triple_filters, pair_filters, Funnel())
    reasons = {(t.relation, t.tail): t.reason for t in judged.triples}
    assert reasons[("中文名", "李白")] == "grounding:restates_head"
    assert reasons[("别名", "诗仙")] == ""


def test_an_enumeration_naming_the_entity_by_an_alias_is_covered():
    from filters.rules.enumeration import EnumerationFilter

    def pair(aliases):
        return Pair(pair_id="p", entity="长江", aliases=aliases, text="中国的大河有黄河、珠江和扬子江，长江全长6300余千米。",
                    triples=[Triple(head="长江", relation="邻近", tail=t, decision="kept") for t in ("黄河", "珠江")])

    assert EnumerationFilter().check(pair(["扬子江"])).keep
    verdict = EnumerationFilter().check(pair([]))
    assert (verdict.keep, verdict.reason, verdict.info["missing"]) == (False, "enumeration_item_without_triple",
                                                                          ["扬子江"])


def test_a_relation_rejected_in_review_is_dropped_and_the_pair_judged_again_without_it():
    text = "《90电影金曲精选》是许冠杰发行的音乐专辑，共收录了12首歌曲。"
    triples = [Triple(head="90电影金曲精选", relation=r, tail=v) for r, v in (("专辑歌手", "许冠杰"), ("曲目数量", "12首"))]
    triple_filters, pair_filters = cdtp_filters(VOCABULARY, rejected_relations=["曲目数量"])
    (pair,) = apply_filters([Pair(pair_id="p", entity="90电影金曲精选", text=text, triples=triples)],
                            triple_filters, pair_filters, Funnel())
    assert [(t.relation, t.decision, t.reason) for t in pair.triples] == [
        ("专辑歌手", "kept", ""), ("曲目数量", "dropped", "relation:relation_rejected_in_review")]
    # Without its last grounded triple the text runs on past 许冠杰: the pair is judged again and dropped.
    assert (pair.decision, pair.reason) == ("dropped", "position_index:below_threshold")


def test_a_relation_name_longer_than_an_infobox_rows_is_dropped_with_its_reason():
    long_name = "关" * 16_000
    pair = judge("泰山", "泰山海拔1545米。", ("海拔", "1545米"), (long_name, "山东"),
                 vocabulary=[*VOCABULARY, "海拔", long_name])
    assert [(t.relation[:2], t.decision, t.reason) for t in pair.triples] == [
        ("海拔", "kept", ""), ("关关", "dropped", "length:relation_too_long")]
    assert pair.decision == "kept"


def test_a_value_longer_than_an_infobox_rows_is_dropped_and_never_searched_for():
    long_value = "关" * (MAX_VALUE_CHARS + 1)
    pair = judge("泰山", "泰山海拔1545米，位于" + long_value * 2 + "。", ("海拔", "1545米"), ("位于", long_value),
                 vocabulary=[*VOCABULARY, "海拔", "位于"])
    assert [(t.relation, t.decision, t.reason) for t in pair.triples] == [
        ("海拔", "kept", ""), ("位于", "dropped", "length:value_too_long")]


def test_names_and_values_too_long_stay_out_of_the_automata():
    """Building an automaton costs the square of a repetitive name's length: such names are left out."""
    too_long, longest = "关" * (MAX_RELATION_CHARS + 1), "关" * MAX_RELATION_CHARS
    assert TrailingRelationFilter([too_long, longest, "海拔"]).names == [longest, "海拔"]
    assert RelationNames([too_long, longest, "海拔"]).names == [longest, "海拔"]
    assert Lexicon(["关" * (MAX_VALUE_CHARS + 1), "山东"]).values == ["山东"]


def test_a_mention_is_covered_by_any_span_that_holds_it_however_many_overlap():
    covering = [(s, s + 500) for s in range(0, 20_000)] + [(30_000, 30_010)]
    mentions = [Mention(10, 400, "value", "x"), Mention(19_999, 20_499, "value", "x"),
                Mention(19_999, 20_500, "value", "x"), Mention(29_000, 29_001, "value", "x"),
                Mention(30_002, 30_010, "value", "x")]
    assert [(m.start, m.end) for m in uncovered(mentions, covering, [])] == [(19_999, 20_500), (29_000, 29_001)]
    assert uncovered(mentions, [], [(0, 40_000)]) == []
