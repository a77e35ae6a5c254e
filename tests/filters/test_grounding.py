"""Grounding checks the relation, not only the value: the clause must say it, or a Baike pattern must."""

from __future__ import annotations

import pytest

from filters.rules.grounding import GroundingFilter
from filters.grounding import CueError, load_cues
from schemas import Pair, Triple


def grounded(text: str, relation: str, value: str, entity: str = "曹雪芹", aliases=()) -> str:
    from filters.triples import relation_aliases

    pair = Pair(pair_id=text, entity=entity, text=text, aliases=list(aliases))
    relation = relation_aliases().get(relation, relation)  # as the alignment names it (别称 is 别名)
    verdict = GroundingFilter().check(Triple(entity, relation, value), pair)
    return "kept" if verdict.keep else verdict.reason


@pytest.mark.parametrize("text, relation, value, expected", [
    # the value alone is not enough: the clause must express the relation
    ("曹雪芹晚年在北京西郊过着贫困的生活。", "逝世地", "北京", "relation_not_expressed"),
    ("曹雪芹于1763年在北京病逝。", "逝世地", "北京", "kept"),
    ("曹雪芹出生于江宁，毕业于北京。", "出生地", "北京", "relation_not_expressed"),
    ("曹雪芹出生于江宁。", "出生地", "苏州", "value_not_in_text"),
    # Baike's restatements
    ("曹雪芹（约1715年—约1763年），名霑，字梦阮，清朝小说家。", "出生日期", "约1715年", "kept"),
    ("曹雪芹（约1715年—约1763年），名霑，字梦阮，清朝小说家。", "逝世日期", "约1763年", "kept"),
    ("曹雪芹（约1715年—约1763年），名霑，字梦阮，清朝小说家。", "出生日期", "约1763年", "relation_not_expressed"),
    ("曹雪芹（约1715年—约1763年），名霑，字梦阮，清朝小说家。", "字", "梦阮", "kept"),
    ("曹雪芹（约1715年—约1763年），名霑，字梦阮，清朝小说家。", "职业", "小说家", "kept"),
    ("曹雪芹（约1715年—约1763年），名霑，字梦阮，清朝小说家。", "所处时代", "清朝", "kept"),
    ("鲁迅，浙江绍兴人，中国现代文学的奠基人之一。", "籍贯", "浙江绍兴", "kept"),
    ("鲁迅，浙江绍兴人，中国现代文学的奠基人之一。", "国籍", "中国", "relation_not_expressed"),
    ("屠呦呦，1930年12月30日出生于浙江宁波，药学家，中国中医科学院首席科学家。", "职业", "药学家", "kept"),
    ("屠呦呦，1930年12月30日出生于浙江宁波，药学家，中国中医科学院首席科学家。", "出生日期", "1930年12月30日",
     "kept"),
    ("屠呦呦受到药学家楼之岑的指导。", "职业", "药学家", "relation_not_expressed"),
    ("勒布朗·詹姆斯（LeBron James），美国职业篮球运动员。", "外文名", "LeBron James", "kept"),
    ("勒布朗·詹姆斯（LeBron James），美国职业篮球运动员。", "国籍", "美国", "kept"),
    ("土星是太阳系的第六颗行星，属于气态巨行星。", "类别", "气态巨行星", "kept"),
    ("《90电影金曲精选》是许冠杰发行的音乐专辑，共收录了12首歌曲。", "曲目数量", "12首", "kept"),
    ("《90电影金曲精选》是许冠杰发行的音乐专辑，共收录了12首歌曲。", "专辑语言", "粤语", "value_not_in_text"),
    # a long value written with words inserted, or its date given more precisely in a clause before it
    ("他的14号球衣也被国王队退役。", "重要事件", "14号球衣被国王队退役", "kept"),
    ("2015年3月22日，史蒂夫·纳什正式宣布退役。", "重要事件", "2015年宣布退役", "kept"),
    # how Chinese states a fact: an old name, a length, a height, a kind at the end of a word
    ("长江，古称江水，是亚洲第一长河。", "别称", "江水", "kept"),
    ("长江干流全长6397公里，流域面积180万平方公里。", "长度", "6397公里", "kept"),
    ("周杰伦，中国台湾流行乐男歌手、音乐人、演员。", "职业", "歌手", "kept"),
    ("鲁迅，浙江绍兴人，唐朝伟大的诗人。", "所处时代", "唐朝", "kept"),
    # a short quality standing as an item of what the text says, not inside a longer phrase (real Baidu Baike
    # summaries, bench/data/real_baike: 丰南胭脂稻, 秦安苹果)
    ("曹雪芹因味腴、气香、微红、粒长，煮熟后红如胭脂。", "品质特点", "气香", "kept"),
    ("曹雪芹果皮薄，肉质细脆，汁液多。", "品质特点", "肉质细", "relation_not_expressed"),
    # ingredients said by how the dish is made; a main ingredient is not what the text calls an auxiliary one
    ("曹雪芹是用鸡蛋，松花蛋，咸鸭蛋制作而成。", "原料", "鸡蛋", "kept"),
    ("曹雪芹以木耳作为主要食材，以胡萝卜、香菜作为辅料凉拌而成。", "主要食材", "胡萝卜", "relation_not_expressed"),
    ("曹雪芹以木耳作为主要食材，以胡萝卜、香菜作为辅料凉拌而成。", "配料", "香菜", "kept"),
    # a value's start is no mention of it: 中国 inside 中国人民银行
    ("中国人民银行是中华人民共和国的中央银行。", "国家", "中国", "value_not_in_text"),
    # the infobox's citation mark is no part of the value
    ("鲁迅（1881年9月25日－1936年10月19日），原名周樟寿。", "逝世日期", "1936年10月19日[2]", "kept"),
    # a year written digit by digit in characters
    ("曹雪芹，逝世于一七六三年。", "逝世日期", "1763年", "kept"),
])
def test_a_triple_is_kept_where_the_text_states_its_relation(text, relation, value, expected):
    entity = next((name for name in ("勒布朗·詹姆斯", "屠呦呦", "鲁迅", "土星", "《90电影金曲精选》", "长江", "周杰伦",
                                     "中国人民银行") if text.startswith(name)),
                  "曹雪芹")
    assert grounded(text, relation, value, entity=entity.strip("《》")) == expected


@pytest.mark.parametrize("text", ["", "㐀生于0年。", "0（）"])
def test_a_value_with_empty_brackets_is_judged_without_an_error(text):
    """0() is no 'A（B）' value (found by tests/fuzz/test_align_fuzz.py): the value is looked for as written."""
    assert grounded(text, "出生日期", "0()", entity="㐀") in ("kept", "value_not_in_text", "relation_not_expressed")
    assert grounded(text, "出生日期", "()", entity="㐀") in ("kept", "value_not_in_text", "relation_not_expressed")


def test_the_span_is_the_supporting_mention_not_the_first():
    text = "曹雪芹晚年在北京西郊生活，1763年在北京病逝。"
    pair = Pair(pair_id="x", entity="曹雪芹", text=text)
    verdict = GroundingFilter().check(Triple("曹雪芹", "逝世地", "北京"), pair)
    assert verdict.keep and verdict.info["span_end"] == text.rindex("北京") + 2


def test_grounding_on_the_labelled_judgements_meets_its_targets():
    """The hand-labelled set of bench/data/grounding (real Baike pages, the CDTP tables, entries of both mirror
    profiles), with the cues a run learns from the crawl each text comes from."""
    from bench.grounding_bench import load, predict, scores, source_kind
    from filters.normalize import normalize

    judgements = [j for j in load() if normalize(j["value"]) != normalize(j["entity"])]
    assert len(judgements) >= 400
    assert sum(source_kind(j) in ("real", "cdtp") for j in judgements) >= len(judgements) / 3
    found, _ = predict(judgements, learned=True)
    precision, recall, _ = scores([j["supported"] for j in judgements], found)
    assert precision >= 0.95 and recall >= 0.95, (precision, recall)


def test_a_malformed_cue_table_names_the_line(tmp_path):
    path = tmp_path / "cues.tsv"
    path.write_text("出生地\t出生 @nowhere\n", encoding="utf-8")
    with pytest.raises(CueError, match=r"cues.tsv:1: unknown pattern @nowhere"):
        load_cues(path)
    path.write_text("出生地\t$birth\n", encoding="utf-8")
    with pytest.raises(CueError, match=r"class \$birth is not defined"):
        load_cues(path)
