"""A place option is of its gold's level (builders.places, builders.types)."""

from __future__ import annotations

import pytest

from builders.places import place_level
from builders.types import TypeTable, ValueTyper


@pytest.mark.parametrize("value, level", [
    ("中国", "country"), ("日本", "country"), ("银桥国", "country"), ("浙江", "province"), ("四川省", "province"),
    ("广西壮族自治区", "province"), ("江西省潭关市", "city"), ("北仁县", "county"), ("白新乡", "township"),
    ("凤坪古镇", "site"), ("陵德桥", "site"), ("马宝塔", "site"), ("长江", "site"), ("盛新古道", "site"),
    ("南鹿", ""), ("李白", ""), ("Paris", ""), ("罗马帝国", ""), ("协约国", "group"),
])
def test_the_level_a_place_form_names(value, level):
    assert place_level(value) == level


def test_a_scenic_spot_takes_sites_and_a_city_takes_cities():
    pages = [("白福市", ["行政区类别", "著名景点"], ["城市"]), ("北仁县", ["行政区类别"], ["县"]),
             ("中国", ["首都"], ["国家"]), ("陵德桥", ["地理位置"], ["景点"]), ("马宝塔", ["地理位置"], ["景点"]),
             ("南鹿市", ["行政区类别"], ["城市"]), ("四川省", ["行政区类别"], ["省份"])]
    facts = [("白福市", "著名景点", "陵德桥"), ("白福市", "著名景点", "马宝塔"), ("北仁县", "著名景点", "盛新古道"),
             ("甲", "出生地", "南鹿市"), ("乙", "出生地", "南鹿"), ("丙", "出生地", "白福市"),
             ("北仁县", "所属地区", "四川省"), ("白福市", "所属国家", "中国")]
    typer = ValueTyper.build(pages, facts, table=TypeTable.load())
    spot = typer.value_type("陵德桥", "著名景点")
    assert spot.level == "site"
    assert typer.same_type(spot, typer.value_type("马宝塔", "著名景点"), "著名景点")
    assert typer.value_type("盛新古道", "著名景点").level == "site"  # its form says nothing; its relation does
    for region in ("中国", "北仁县", "四川省"):
        assert not typer.same_type(spot, typer.value_type(region, "著名景点"), "著名景点"), region
    city = typer.value_type("南鹿市", "出生地")
    assert typer.same_type(city, typer.value_type("白福市", "出生地"), "出生地")
    assert not typer.same_type(city, typer.value_type("四川省", "出生地"), "出生地")
    assert typer.value_type("南鹿", "出生地").level == "city"  # the level 出生地's values name


@pytest.mark.parametrize("value, last", [
    ("山东省枣庄市滕州市", "滕州市"), ("山东省滕州市", "滕州市"), ("湖北省白福市", "白福市"), ("北京市海淀区", "海淀区"),
    ("滕州市", ""), ("诗人", ""),
])
def test_a_place_written_with_more_or_fewer_regions_is_one_place(value, last):
    from builders.places import last_region

    assert last_region(value) == last


def test_a_blank_a_place_fills_takes_its_coarser_names_too():
    from builders.cloze import coarser_places

    class NoHolders:
        def relation_values(self, asked):
            list(asked)
            return {}

    assert coarser_places("南非约翰内斯堡", "出生地", NoHolders(), {}) == ["南非"]  # a country without its unit
    assert coarser_places("浙江杭州", "出生地", NoHolders(), {}) == ["浙江"]
    assert set(coarser_places("湖北省白福市", "出生地", NoHolders(), {})) >= {"湖北省", "湖北"}


def test_a_short_answer_on_a_place_takes_the_place_with_fewer_regions():
    from builders.cloze import shorter_places

    assert shorter_places("美国加利福尼亚州汉福德", "出生地", {}) == ["加利福尼亚州汉福德", "汉福德"]
    assert shorter_places("湖北省白福市", "所属地区", {}) == ["白福市"]
    assert shorter_places("诗人", "职业", {}) == []


def test_a_capital_blank_takes_no_region_that_holds_the_city():
    """「首都为＿＿＿」 takes 北京, never 中国, which holds it."""
    from builders.cloze import coarser_places

    class China:
        def relation_values(self, asked):
            return {(place, r): [("", "中国", "中国")] for place, r in asked if r == "所属国家"}

    assert coarser_places("北京", "首都", China(), {}) == []
    assert "中国" in coarser_places("北京", "出生地", China(), {})


@pytest.mark.parametrize("a, b, same", [
    ("美国纽约市布鲁克林区", "美国纽约布鲁克林", True), ("湖北省白福市", "湖北白福", True),
    ("美国纽约市布鲁克林区", "美国纽约", True),  # one holds the other: who was born in 美国纽约 may be this one
    ("美国伊利诺伊州芝加哥", "美国纽约布鲁克林", False), ("诗人", "诗人", False),
])
def test_two_place_values_that_may_name_one_place(a, b, same):
    """卡梅隆·安东尼 was born in 美国纽约市布鲁克林区, 兰尼·威尔肯斯 in 美国纽约布鲁克林: each is a right answer to 「下列哪位
    人物的出生地是美国纽约市布鲁克林区？」."""
    from builders.places import may_be_same_place

    assert may_be_same_place(a, b) is same


def test_one_born_in_another_country_than_the_nationality_is_of_two_countries():
    """「居里夫人是哪个国家的人？」: 法国, her 国籍, and 波兰, where she was born; 肖邦 and 鲁迅 are of one."""
    from builders.places import born_abroad, country_of
    from schemas import Triple

    assert country_of("波兰华沙") == "波兰" and country_of("美国纽约市布鲁克林区") == "美国"
    assert country_of("湖北省白福市") == "" and country_of("广东南海") == ""
    assert born_abroad([Triple("居里夫人", "出生地", "波兰华沙"), Triple("居里夫人", "国籍", "法国")])
    assert not born_abroad([Triple("肖邦", "出生地", "波兰华沙"), Triple("肖邦", "国籍", "波兰")])
    assert not born_abroad([Triple("鲁迅", "出生地", "浙江绍兴"), Triple("鲁迅", "国籍", "中国")])


def test_an_autonomous_prefecture_is_never_cut_to_a_stem():
    from builders.cloze import coarser_places

    class NoHolders:
        def relation_values(self, asked):
            list(asked)
            return {}

    found = coarser_places("青海省玉树藏族自治州杂多县", "发源地", NoHolders(), {})
    assert "玉树藏族自治州" in found and "青海" in found
    assert not [f for f in found if f.endswith("自治")]
