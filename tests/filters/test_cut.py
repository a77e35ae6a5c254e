"""Cutting a pair's text to what its kept triples state (filters.cut)."""

from __future__ import annotations

import pytest

from filters.align import AlignmentRules
from filters.base import Funnel, apply_filters, rejudge
from filters.mentions import find_mentions
from filters.triples import relation_aliases
from schemas import Pair, Triple


def judged(entity: str, text: str, rows: list[tuple[str, str]], search_drops=(), linked=(), cut=True,
           crawl_relations=(), aliases_of_head=()) -> Pair:
    """The pair of ``text`` and ``rows`` through the alignment (``crawl_relations``: relations other pages of
    the crawl have); then, like search validation, the rows of ``search_drops`` dropped and the pair judged
    again."""
    aliases = relation_aliases()
    triples = [Triple(entity, aliases.get(r, r), v) for r, v in rows]
    relations = sorted({t.relation for t in triples} | set(crawl_relations))
    triple_filters, pair_filters, cutter = AlignmentRules(dict.fromkeys(relations, 2), relations, cut=cut).judge()
    pair = Pair(pair_id=f"p-{entity}", entity=entity, text=text, triples=triples, linked=list(linked),
                aliases=list(aliases_of_head))
    (pair,) = apply_filters([pair], triple_filters, pair_filters, Funnel(), cutter)
    if search_drops:
        for triple in pair.triples:
            if (triple.relation, triple.tail) in search_drops and triple.decision == "kept":
                triple.decision, triple.reason = "dropped", "search:no_cooccurrence"
        rejudge(pair, triple_filters, pair_filters, "search", cutter)
    return pair


def shipped(pair: Pair) -> str:
    """The source text less the cut spans: what the text must be."""
    return "".join(ch for i, ch in enumerate(pair.source_text)
                   if not any(c["start"] <= i < c["end"] for c in pair.cuts))


def kept(pair: Pair) -> list[tuple[str, str]]:
    return [(t.relation, t.tail) for t in pair.kept_triples()]


def test_a_date_said_of_the_verb_goes_alone_when_its_triple_is_dropped():
    pair = judged("屠呦呦", "屠呦呦，1930年12月30日出生于浙江宁波，药学家。",
                  [("出生地", "浙江宁波"), ("职业", "药学家"), ("出生日期", "1930年12月30日")],
                  search_drops={("出生日期", "1930年12月30日")})
    assert (pair.decision, pair.text) == ("kept", "屠呦呦，出生于浙江宁波，药学家。")
    assert pair.text == shipped(pair)
    assert [c["reason"] for c in pair.cuts] == ["uncovered date: 1930年12月30日"]


@pytest.mark.parametrize("dropped, text", [
    ("教育家", "墨子，战国时期思想家、科学家和军事家。"),
    ("思想家", "墨子，战国时期教育家、科学家和军事家。"),
    ("军事家", "墨子，战国时期思想家、教育家、科学家。"),
])
def test_a_list_item_goes_with_its_separator_and_the_list_stays_a_list(dropped, text):
    rows = [("所处时代", "战国时期"), ("职业", "思想家"), ("职业", "教育家"), ("职业", "科学家"), ("职业", "军事家")]
    pair = judged("墨子", "墨子，战国时期思想家、教育家、科学家和军事家。", rows, search_drops={("职业", dropped)})
    assert (pair.decision, pair.text) == ("kept", text)
    assert ("职业", dropped) not in kept(pair) and len(kept(pair)) == 4


def test_a_lifespan_goes_whole_and_takes_the_other_date_along():
    pair = judged("鲁迅", "鲁迅（1881年9月25日－1936年10月19日），原名周樟寿，浙江绍兴人，文学家。",
                  [("出生日期", "1881年9月25日"), ("逝世日期", "1936年10月19日"), ("籍贯", "浙江绍兴"), ("职业", "文学家")],
                  search_drops={("出生日期", "1881年9月25日")})
    # never 「鲁迅（－1936年10月19日）」: the death date goes with the birth date's parentheses
    assert (pair.decision, pair.text) == ("kept", "鲁迅，浙江绍兴人，文学家。")
    assert kept(pair) == [("籍贯", "浙江绍兴"), ("职业", "文学家")]
    reasons = {t.relation: t.reason for t in pair.triples}
    assert reasons["逝世日期"] == "cut:stated_beside_uncovered_fact"


def test_the_name_takes_the_place_of_a_pronoun_when_the_sentence_naming_it_goes():
    pair = judged("屠呦呦", "屠呦呦，药学家。她于1955年毕业于北京医学院。",
                  [("毕业院校", "北京医学院"), ("职业", "药学家")], search_drops={("职业", "药学家")})
    assert (pair.decision, pair.text) == ("kept", "屠呦呦毕业于北京医学院。")
    assert pair.text == shipped(pair)


def test_a_claim_no_triple_makes_and_a_linked_name_go_with_their_clause():
    pair = judged("李白", "李白（701年－762年），唐朝伟大的浪漫主义诗人，被后人誉为“诗仙”，与杜甫并称“李杜”。其诗想象奇特。",
                  [("出生日期", "701年"), ("逝世日期", "762年"), ("所处时代", "唐朝"), ("职业", "诗人"), ("别名", "诗仙")],
                  linked=["杜甫"])
    assert (pair.decision, pair.text) == ("kept", "李白（701年－762年），唐朝伟大的浪漫主义诗人，被后人誉为“诗仙”。")
    assert len(kept(pair)) == 5


def test_a_pair_is_dropped_with_its_reason_when_no_fluent_cut_exists():
    # the year stands inside the phrase that states the birthplace: no unit holds it alone
    pair = judged("张三", "张三出生于北京1900年的一场大雪中。", [("出生地", "北京"), ("出生日期", "1900年")],
                  search_drops={("出生日期", "1900年")})
    assert (pair.decision, pair.reason) == ("dropped", "search:cut:no_fluent_cut")
    assert "1900年" in pair.text  # a dropped pair keeps its text as it was; nothing ships


def test_what_qualifies_a_stated_place_or_dates_the_verb_goes_alone():
    """The demo's 凡尔赛和约: an event that dates the signing and the country of its place go, the pair stays."""
    text = ("《凡尔赛和约》全称《协约国和参战各国对德和约》，是第一次世界大战结束后协约国与德国于1919年6月28日在法国"
            "凡尔赛宫签订的和约，1920年1月10日正式生效。")
    pair = judged("凡尔赛和约", text, [("全称", "协约国和参战各国对德和约"), ("签订时间", "1919年6月28日"),
                                       ("签订地点", "凡尔赛宫"), ("签约双方", "协约国"), ("签约双方", "德国"),
                                       ("参战", "第一次世界大战"), ("国家", "法国")],
                  search_drops={("参战", "第一次世界大战"), ("所属国家", "法国")})
    assert (pair.decision, pair.text) == ("kept", "《凡尔赛和约》全称《协约国和参战各国对德和约》，是协约国与德国于"
                                                  "1919年6月28日在凡尔赛宫签订的和约。")
    assert len(kept(pair)) == 5
    pair = judged("张三", "张三出生于1900年的北京。", [("出生地", "北京"), ("出生日期", "1900年")],
                  search_drops={("出生日期", "1900年")})
    assert (pair.decision, pair.text) == ("kept", "张三出生于北京。")


def test_without_the_cut_the_text_is_judged_whole():
    pair = judged("李白", "李白（701年－762年），唐朝诗人，与杜甫并称“李杜”。",
                  [("出生日期", "701年"), ("逝世日期", "762年"), ("职业", "诗人")], linked=["杜甫"], cut=False)
    assert pair.cuts == [] and pair.text == "李白（701年－762年），唐朝诗人，与杜甫并称“李杜”。"


def test_mentions_are_standalone_dates_numbers_titles_values_and_linked_names():
    from filters.text import AlignedText

    text = AlignedText("中国人民银行于1948年12月1日成立，总部在北京，发行人民币，共有3万余名员工，出版《金融研究》。")
    found = {(m.kind, m.text) for m in find_mentions(text, values=["中国", "北京"], links=["人民币"])}
    assert ("value", "中国") not in found  # 中国 inside 中国人民银行 is no mention of 中国
    assert {("date", "1948年12月1日"), ("value", "北京"), ("link", "人民币"), ("number", "3万余名"),
            ("title", "《金融研究》")} <= found


def test_a_policy_list_keeps_its_verb_when_its_first_item_goes():
    text = "汉武帝，西汉皇帝。他推行推恩令、独尊儒术、盐铁官营等措施，北击匈奴。"
    pair = judged("汉武帝", text, [("所处时代", "西汉"), ("职业", "皇帝"), ("主要成就", "独尊儒术"), ("主要成就", "北击匈奴"),
                                   ("主要成就", "推恩令"), ("主要成就", "盐铁官营")],
                  search_drops={("主要成就", "推恩令"), ("主要成就", "盐铁官营")})
    assert (pair.decision, pair.text) == ("kept", "汉武帝，西汉皇帝。他推行独尊儒术等措施，北击匈奴。")


def test_what_a_relation_names_is_a_fact_even_without_its_row():
    text = "司马迁，西汉史学家。他继承父亲司马谈的遗志出任太史令，撰写了《史记》。"
    rows = [("所处时代", "西汉"), ("职业", "史学家"), ("官职", "太史令"), ("代表作品", "《史记》")]
    pair = judged("司马迁", text, rows + [("父亲", "司马谈")])
    assert pair.text == text  # the father is a kept triple: the clause stays
    pair = judged("司马迁", text, rows, crawl_relations=["父亲"])
    # no triple says who his father was: the clause goes, and the post it names with it
    assert (pair.decision, pair.text) == ("kept", "司马迁，西汉史学家。他撰写了《史记》。")
    assert ("官职", "太史令") not in kept(pair)


def test_the_name_comes_back_before_a_passive_the_segmenter_calls_a_noun():
    text = "王选（1937年2月5日－2006年2月13日），出生于上海，北京大学教授。他主持研制的汉字激光照排系统引发了中国印刷业的技术革命，被誉为“当代毕昇”。"
    pair = judged("王选", text, [("别名", "当代毕昇")])
    assert (pair.decision, pair.text) == ("kept", "王选被誉为“当代毕昇”。")


def test_the_first_items_of_a_list_go_with_the_separators_after_them():
    """Real Baidu Baike (bench/data/real_baike, 苦刺): 「分布在云南、贵州、四川、陕西…」 with rows for the last
    provinces only; the preposition before the list stays."""
    text = "苦刺是茄科植物，分布在云南、贵州、四川、陕西、甘肃及山西各省区。"
    pair = judged("苦刺", text, [("科", "茄科"), ("分布区域", "陕西"), ("分布区域", "甘肃"), ("分布区域", "山西"),
                                 ("分布区域", "云南"), ("分布区域", "贵州"), ("分布区域", "四川")],
                  search_drops={("分布区域", "云南"), ("分布区域", "贵州"), ("分布区域", "四川")})
    assert (pair.decision, pair.text) == ("kept", "苦刺是茄科植物，分布在陕西、甘肃及山西各省区。")


def test_the_topic_of_a_sentence_is_not_cut_from_what_it_says():
    """Real Baidu Baike (嘉荫水稻): 「嘉荫水稻所生产的大米，形状纵长」 less 「所生产的大米」 would say the rice plant is
    long; the topic stays with the facts said of it, or the sentence goes."""
    text = "嘉荫水稻，黑龙江省嘉荫县特产。嘉荫水稻所生产的大米，形状纵长，长度约为0.8毫米左右。"
    pair = judged("嘉荫水稻", text, [("产地名称", "黑龙江省嘉荫县"), ("品质特点", "形状纵长")])
    assert (pair.decision, pair.text) == ("kept", "嘉荫水稻，黑龙江省嘉荫县特产。嘉荫水稻所生产的大米，形状纵长。")


def test_a_plot_is_a_fact_of_its_own_and_its_clause_goes_with_the_characters_it_names():
    """The demo's 西游记: 「讲述孙悟空……取回真经的故事」 tells more than 主要人物 (孙悟空) says."""
    text = ("《西游记》是明代小说家吴承恩创作的长篇神魔小说，共100回，讲述孙悟空、猪八戒、沙僧保护唐僧历经九九八十一难"
            "取回真经的故事，是中国古典四大名著之一。")
    pair = judged("西游记", text, [("作者", "吴承恩"), ("创作年代", "明代"), ("篇幅", "100回"), ("主要人物", "孙悟空"),
                                   ("主要人物", "唐僧"), ("主要人物", "猪八戒"), ("主要人物", "沙僧"),
                                   ("地位", "中国古典四大名著之一")])
    assert (pair.decision, pair.text) == ("kept", "《西游记》是明代小说家吴承恩创作的长篇神魔小说，共100回，"
                                                  "是中国古典四大名著之一。")
    assert [t.reason for t in pair.triples if t.relation == "主要人物"] == ["cut:stated_beside_uncovered_fact"] * 4


def test_another_name_opening_the_text_is_its_subject_and_stays():
    """The demo's 诺贝尔 with search validation: its 中文名 row dropped, the full name that opens the text still
    names the subject (a text 「瑞典化学家。」 would name nobody)."""
    text = "阿尔弗雷德·伯恩哈德·诺贝尔（1833年10月21日－1896年12月10日），瑞典化学家、发明家。"
    full = "阿尔弗雷德·伯恩哈德·诺贝尔"
    pair = judged("诺贝尔", text, [("中文名", full), ("国籍", "瑞典"), ("职业", "化学家"), ("职业", "发明家"),
                                   ("出生日期", "1833年10月21日"), ("逝世日期", "1896年12月10日")],
                  search_drops={("中文名", full), ("出生日期", "1833年10月21日"), ("逝世日期", "1896年12月10日")},
                  aliases_of_head=[full])
    assert (pair.decision, pair.text) == ("kept", "阿尔弗雷德·伯恩哈德·诺贝尔，瑞典化学家、发明家。")


def test_the_noun_a_kept_value_qualifies_is_a_fact_unless_a_triple_states_it():
    """The demo's 蔡伦: 「东汉宦官」 for 所处时代 东汉 also says he was a eunuch, which no triple states; 「东晋著名书法家」
    with 职业 书法家 says nothing more."""
    pair = judged("蔡伦", "蔡伦，东汉宦官。他改进了造纸术。", [("所处时代", "东汉"), ("主要成就", "改进造纸术")])
    assert (pair.decision, kept(pair)) == ("kept", [("主要成就", "改进造纸术")])
    assert "宦官" not in pair.text and "东汉" not in pair.text
    pair = judged("王羲之", "王羲之，东晋著名书法家。", [("所处时代", "东晋"), ("职业", "书法家")])
    assert (pair.decision, pair.text) == ("kept", "王羲之，东晋著名书法家。")
    pair = judged("鲁迅", "鲁迅，中国现代著名文学家。", [("国籍", "中国"), ("职业", "文学家")])  # an era is a fact
    assert (pair.decision, pair.text) == ("kept", "鲁迅，中国著名文学家。")
    # real Baidu Baike (bench/data/real_baike): a player of the sport a triple states says no more
    text = "勒布朗·詹姆斯（LeBron James），美国职业篮球运动员。"
    pair = judged("勒布朗·詹姆斯", text, [("外文名", "LeBron James"), ("国籍", "美国"), ("运动项目", "篮球")])
    assert (pair.decision, pair.text) == ("kept", text)


def test_a_naming_clause_goes_with_the_clause_it_names():
    """The demo's 刘秀: 「他在位期间恢复和发展社会经济，史称“光武中兴”」 less its first clause would call 刘秀 光武中兴."""
    text = "刘秀，东汉开国皇帝，史称汉光武帝。他在位期间恢复和发展社会经济，史称“光武中兴”。"
    pair = judged("刘秀", text, [("别名", "汉光武帝"), ("主要成就", "光武中兴")])
    assert (pair.decision, pair.text) == ("kept", "刘秀，史称汉光武帝。")


def test_a_name_given_by_a_verb_of_naming_is_a_fact_and_a_portrait_is_a_plot():
    """The demo's 汤显祖 and 阿Q正传: 「合称“临川四梦”」 names the four plays, a fact no triple gives;
    「塑造了……农民阿Q的形象」 says more of 阿Q than that he is a character."""
    text = "汤显祖，明朝著名戏曲家。其代表作《牡丹亭》与《紫钗记》合称“临川四梦”。"
    pair = judged("汤显祖", text, [("所处时代", "明朝"), ("职业", "戏曲家"), ("代表作品", "《牡丹亭》"),
                                   ("代表作品", "《紫钗记》")])
    assert (pair.decision, pair.text) == ("kept", "汤显祖，明朝著名戏曲家。")
    text = "《阿Q正传》是鲁迅创作的中篇小说，塑造了以“精神胜利法”自我安慰的农民阿Q的形象。"
    pair = judged("阿Q正传", text, [("作者", "鲁迅"), ("文学体裁", "中篇小说"), ("主要人物", "阿Q")])
    assert (pair.decision, pair.text) == ("kept", "《阿Q正传》是鲁迅创作的中篇小说。")


def test_a_pronoun_stays_before_a_dated_verb_when_its_own_clause_goes():
    """The demo's 屠呦呦: 「她发现并提取了抗疟药物青蒿素，2015年获得诺贝尔生理学或医学奖」 less its first clause
    keeps 她 (a sentence 「获得诺贝尔生理学或医学奖。」 would name nobody)."""
    text = "屠呦呦，药学家。她发现并提取了抗疟药物青蒿素，2015年获得诺贝尔生理学或医学奖。"
    pair = judged("屠呦呦", text, [("职业", "药学家"), ("主要成就", "诺贝尔生理学或医学奖"), ("主要成就", "青蒿素")],
                  search_drops={("主要成就", "青蒿素")})
    assert pair.decision == "kept" and pair.text.startswith("屠呦呦，药学家。她")
    assert "青蒿素" not in pair.text


def test_a_taxon_before_another_is_a_mention_whatever_the_segmenter_says():
    """The realistic mirror's 大永林蛙: 「蛙科蛙属」 is cut 蛙|科蛙|属 by the segmenter; 蛙科 is still a fact."""
    pair = judged("大永林蛙", "大永林蛙是蛙科蛙属的动物。属于无尾目。", [("科", "蛙科"), ("属", "蛙属"), ("目", "无尾目")],
                  search_drops={("科", "蛙科")})
    assert pair.decision == "kept" and "蛙科" not in pair.text and ("目", "无尾目") in kept(pair)


def test_a_name_that_is_a_sentence_of_its_own_stays_as_the_subject():
    """The realistic mirror's 秦寧鴻: 「秦寧鴻；中国近代书法家。」 must not lose its name."""
    pair = judged("秦宁鸿", "秦宁鸿；中国近代书法家。", [("国籍", "中国"), ("职业", "书法家")])
    assert (pair.decision, pair.text) == ("kept", "秦宁鸿；中国书法家。")


def test_a_connective_after_a_pronoun_goes_with_the_clause_it_joined():
    """The demo's 帕斯卡: 「他在少年时代……，1642年设计制造了……，并提出了帕斯卡定律」 less its first clauses is
    「他提出了帕斯卡定律」, not 「他并提出了…」."""
    text = "布莱士·帕斯卡，法国数学家。他在少年时代就表现出非凡的数学才能，1642年设计制造了机械计算器，并提出了帕斯卡定律。"
    pair = judged("帕斯卡", text, [("国籍", "法国"), ("职业", "数学家"), ("主要成就", "提出帕斯卡定律")],
                  aliases_of_head=["布莱士·帕斯卡"])
    assert (pair.decision, pair.text) == ("kept", "布莱士·帕斯卡，法国数学家。他提出了帕斯卡定律。")


def test_a_pronoun_after_a_date_is_a_subject_and_a_lone_name_takes_its_place():
    """The demo's 赵匡胤 and 成吉思汗: 「960年他发动陈桥兵变，建立宋朝」 keeps 他; 「成吉思汗。他统一蒙古各部。」 is
    「成吉思汗统一蒙古各部。」."""
    text = "赵匡胤，北宋开国皇帝，庙号太祖。960年他发动陈桥兵变，建立宋朝，定都东京开封府。"
    pair = judged("赵匡胤", text, [("庙号", "太祖"), ("主要成就", "建立宋朝")])
    assert (pair.decision, pair.text) == ("kept", "赵匡胤，庙号太祖。他建立宋朝。")
    text = "成吉思汗，蒙古族，大蒙古国的建立者。1206年他统一蒙古各部，被推举为“成吉思汗”。"
    pair = judged("成吉思汗", text, [("主要成就", "统一蒙古各部"), ("民族", "蒙古族")], search_drops={("民族", "蒙古族")})
    assert (pair.decision, pair.text) == ("kept", "成吉思汗统一蒙古各部。")


def test_the_last_of_two_items_keeps_the_object_of_its_verb():
    """The demo's 端午节 with search validation: 「有赛龙舟、吃粽子、挂艾草、饮雄黄酒等习俗」 less the last two is
    「有赛龙舟、吃粽子等习俗」, not 「有赛龙舟粽子等习俗」."""
    text = "端午节是中国民间的传统节日。节日期间有赛龙舟、吃粽子、挂艾草、饮雄黄酒等习俗。"
    pair = judged("端午节", text, [("节日类型", "传统节日"), ("节日饮食", "粽子"), ("节日活动", "赛龙舟"),
                                   ("节日活动", "挂艾草"), ("节日饮食", "雄黄酒")],
                  search_drops={("节日活动", "挂艾草"), ("节日饮食", "雄黄酒")})
    assert pair.decision == "kept" and pair.text.endswith("节日期间有赛龙舟、吃粽子等习俗。")


def test_the_name_comes_back_before_a_verb_the_segmenter_calls_a_noun():
    """The realistic mirror's 陵松江: 「陵松江是一条河流。…发源于潭灵岭。」 less its first sentence opens with 发源于
    (发源 a noun to the segmenter); the name comes back."""
    text = "陵松江是一条河流。与嘉谷溪相距不远。发源于潭灵岭。流入华嘉溪。全长153千米。"
    pair = judged("陵松江", text, [("发源地", "潭灵岭"), ("注入", "华嘉溪")])
    assert (pair.decision, pair.text) == ("kept", "陵松江发源于潭灵岭。流入华嘉溪。")


def test_the_name_comes_back_before_a_verb_ending_in_yu():
    """The realistic mirror's 凤沙柳: 「隶属于」 is one word, a noun to the segmenter."""
    text = "凤沙柳是杨柳科的植物，民间对其有多种称呼。隶属于双子叶植物纲。该种属于杨柳目。"
    pair = judged("凤沙柳", text, [("纲", "双子叶植物纲"), ("目", "杨柳目"), ("科", "杨柳科")],
                  search_drops={("科", "杨柳科")})
    assert pair.decision == "kept" and pair.text.startswith("凤沙柳隶属于双子叶植物纲。")
