"""Eras named in a value, and when two values name overlapping eras."""

from __future__ import annotations

import pytest

from builders.eras import eras, eras_overlap, other_granularity


@pytest.mark.parametrize(("value", "named"), [
    ("元末明初", (("元", "末"), ("明", "初"))),
    ("明代", (("明", ""),)),
    ("東漢末年", (("东汉", "末"),)),  # traditional script
    ("魏晋南北朝", (("曹魏", ""), ("晋", ""), ("南北朝", ""))),
    ("明清时期", (("明", ""), ("清", ""))),
    ("西汉至东汉", (("西汉", ""), ("东汉", ""))),
    ("中华民国", (("民国", ""),)),
    ("明中叶", (("明", "中"),)),
    ("清末民初", (("清", "末"), ("民国", "初"))),
    ("晚清", (("清", "末"),)),  # a phase before the era
    ("盛唐", (("唐", "盛"),)),
])
def test_a_value_made_of_era_names_names_them(value, named):
    assert eras(value) == named


@pytest.mark.parametrize("value", ["1644年", "20世纪", "清华大学", "新中国", "康熙年间", "末年", "晚", "人民", "李白", ""])
def test_anything_else_names_no_era(value):
    assert eras(value) == ()


@pytest.mark.parametrize(("a", "b"), [
    ("明代", "元末明初"),  # the early Ming is Ming
    ("明代", "明清时期"),
    ("汉代", "东汉末年"),  # 汉 holds 东汉
    ("东周", "春秋末期"),
    ("先秦", "战国"),
    ("春秋", "春秋末期"),
    ("宋末", "南宋"),  # a phase of the larger era may hold the smaller one
    ("清朝", "清末民初"),
    ("唐代", "晚唐"),
])
def test_overlapping_eras(a, b):
    assert eras_overlap(a, b) and eras_overlap(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("明代", "元代"),
    ("明代", "清代"),
    ("明初", "明末"),  # different phases of one era
    ("春秋末期", "战国时期"),
    ("南宋", "北宋"),
    ("西汉末年", "东汉初年"),
    ("1644年", "明代"),  # not an era: left to the other rules
    ("盛唐", "中唐"),
    ("明代", "晚清"),
])
def test_disjoint_eras(a, b):
    assert not eras_overlap(a, b) and not eras_overlap(b, a)


@pytest.mark.parametrize(("value", "fits"), [
    ("北宋", True),  # also 宋朝
    ("宋朝", True),  # also 北宋, where that is what was meant
    ("东汉末年", True),
    ("明初", True),  # also 明代
    ("战国时期", True),  # also 东周
    ("明代", False),  # 明朝 is 明代 written another way: one value key
    ("唐朝", False),
    ("明清", False),
    ("1644年", False),
])
def test_an_era_another_name_fits(value, fits):
    assert other_granularity(value) is fits


def test_a_person_whose_life_spans_two_eras_lived_in_both():
    """石锦 (1253–1335) lived in 南宋 and in 元朝 (1271–1368): 元朝 is no wrong answer to his 所处时代."""
    from builders.eras import lived_in
    from schemas import Triple

    class Spans:
        def relation_values(self, keys):
            spans = {"元朝": "1271年—1368年", "南宋": "1127年—1279年", "明朝": "1368年—1644年", "西汉": "公元前202年—8年"}
            return {(era, r): [("", spans[era], spans[era])] for era, r in keys if era in spans}

    life = [Triple("石锦", "出生日期", "1253年"), Triple("石锦", "逝世日期", "1335年")]
    assert lived_in(life, "元朝", Spans()) and lived_in(life, "南宋", Spans())
    assert not lived_in(life, "明朝", Spans()) and not lived_in(life, "唐朝", Spans())
    assert not lived_in([Triple("甲", "出生日期", "1253年")], "元朝", Spans())  # no death year: nothing known
    assert lived_in([Triple("乙", "出生日期", "公元前150年"), Triple("乙", "逝世日期", "公元前90年")], "西汉", Spans())


def test_a_life_the_page_text_dates_counts_where_the_triples_give_no_death():
    from builders.eras import lived_in
    from schemas import Triple

    class Spans:
        def relation_values(self, keys):
            spans = {"南宋": "1127年—1279年", "元朝": "1271年—1368年"}
            return {(era, r): [("", spans[era], spans[era])] for era, r in keys if era in spans}

    born = [Triple("司马慧", "出生日期", "1084年")]
    assert lived_in(born, "南宋", Spans(), "司马慧（1084年—1168年），北宋人物。")
    assert not lived_in(born, "元朝", Spans(), "司马慧（1084年—1168年），北宋人物。")
    assert not lived_in(born, "南宋", Spans(), "司马慧，北宋人物。")
