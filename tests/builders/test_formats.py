"""Value formats: each kind on values from the bundled facts, and which formats may share an item."""

from __future__ import annotations

from collections import Counter

import pytest

from builders.formats import KINDS, MAGNITUDE_FACTOR, PERSON_RELATIONS, ValueFormat, compatible, value_format
from crawlers.mirror.facts import load_facts


@pytest.mark.parametrize("value, relation, kind, unit", [
    ("1881年9月25日", "出生日期", "date", "年月日"),
    ("公元前44年3月15日", "逝世日期", "date", "年月日"),
    ("1998年11月", "创立时间", "date", "年月"),
    ("1881-09-25", "", "date", "年月日"),
    ("7月23日", "国庆日", "date", "月日"),
    ("1881年", "出生日期", "year", ""),
    ("公元前259年", "出生日期", "year", ""),
    ("约公元前395年", "出生日期", "year", ""),
    ("701年", "", "year", ""),
    ("1680", "出生日期", "year", ""),
    ("公元前141年—公元前87年", "在位时间", "period", "年"),
    ("1914年7月28日—1918年11月11日", "时间", "period", "年月日"),
    ("1918年至1922年", "创作时间", "period", "年"),
    ("3—4月", "花期", "period", "月"),
    ("6300余千米", "全长", "quantity", "千米"),
    ("约960万平方千米", "面积", "quantity", "平方千米"),
    ("-259.16℃", "熔点", "quantity", "℃"),
    ("0.0899 g/L", "密度", "quantity", "g/L"),
    ("7.874 g/cm³", "密度", "quantity", "g/cm3"),
    ("120回", "篇幅", "quantity", "回"),
    ("12首", "曲目数量", "quantity", "首"),
    ("4000米以上", "平均海拔", "quantity", "米"),
    ("约76年", "公转周期", "quantity", "年"),
    ("1.008", "相对原子质量", "number", "decimal"),
    ("92", "原子序数", "number", "integer"),
    ("5.5～6.5", "莫氏硬度", "number", "decimal"),
    ("H2O", "", "formula", ""),
    ("NaCl", "", "formula", ""),
    ("C6H12O6", "", "formula", ""),
    ("H₂SO₄", "", "formula", ""),
    ("CaSO4·2H2O", "化学式", "formula", ""),
    ("CO(NH2)2", "化学式", "formula", ""),
    ("CO", "化学式", "formula", ""),
    ("Na", "元素符号", "formula", "element"),
    ("1333-74-0", "CAS登录号", "code", ""),
    ("1333-74-0", "", "code", ""),
    ("600519", "股票代码", "code", ""),
    ("00700", "", "code", ""),
    ("CNY", "货币代码", "code", ""),
    ("WTO", "简称", "code", ""),
    (".py", "文件扩展名", "code", ""),
    ("+44", "国际电话区号", "code", ""),
    ("《史记》", "代表作品", "title", ""),
    ("Yangtze River", "外文名", "latin", ""),
    ("Hydrogen", "外文名", "latin", ""),
    ("Ailuropoda melanoleuca", "拉丁学名", "latin", ""),
    ("曹雪芹", "作者", "person", ""),
    ("亚历山大·弗莱明", "发现者", "person", ""),
    ("Steve Jobs", "创始人", "person", ""),
    ("秦朝", "所处时代", "text", ""),
    ("邯郸", "出生地", "text", ""),
    ("约为地球的318倍", "质量", "text", ""),
    ("220年曹丕代汉", "灭亡", "text", ""),
    ("五幕", "篇幅", "text", ""),
])
def test_recognises_each_kind_on_realistic_values(value, relation, kind, unit):
    found = value_format(value, relation)
    assert (found.kind, found.unit) == (kind, unit)


def test_quantity_magnitude_is_scaled_and_ignores_approximate_markers():
    assert value_format("约960万平方千米", "面积").magnitude == pytest.approx(9.6e6)
    assert value_format("52万余字", "字数").magnitude == pytest.approx(5.2e5)
    assert value_format("约1.5亿千米", "").magnitude == pytest.approx(1.5e8)
    assert value_format("6300余千米", "全长").magnitude == pytest.approx(6300)
    assert value_format("4000多平方千米", "面积").magnitude == pytest.approx(4000)
    assert value_format("约5.97×10²⁴千克", "质量") == ValueFormat("quantity", "千克", pytest.approx(5.97e24))
    assert value_format("-259.16℃", "熔点").magnitude == pytest.approx(-259.16)
    assert value_format("156～157℃", "熔点").magnitude == pytest.approx(156)


def test_year_magnitude_is_signed():
    assert value_format("公元前259年").magnitude == -259
    assert value_format("1881年").magnitude == 1881


def test_full_width_and_degree_sign_spellings_share_a_unit():
    assert value_format("１００°C", "沸点") == value_format("100℃", "沸点")


def test_person_is_decided_by_the_relation():
    assert value_format("曹雪芹", "作者").kind == "person"
    assert value_format("曹雪芹", "出生地").kind == "text"
    assert value_format("曹雪芹").kind == "text"
    # a person relation does not turn dates or amounts into people
    assert value_format("1715年", "作者").kind == "year"
    assert value_format("3人", "创始人").kind == "quantity"


def test_person_relations_can_be_given_explicitly():
    assert value_format("赵丹", "饰演者").kind == "text"
    assert value_format("赵丹", "饰演者", person_relations=frozenset({"饰演者"})).kind == "person"


def test_person_relations_hold_people_not_names_of_the_entity():
    assert {"作者", "导演", "发现者", "创始人", "配偶", "航天员"} <= PERSON_RELATIONS
    assert not {"本名", "字", "号", "别名", "外文名"} & PERSON_RELATIONS


def test_capitals_without_digits_are_codes_unless_the_relation_is_chemical():
    assert value_format("CO").kind == "code"
    assert value_format("CO", "化学式").kind == "formula"
    assert value_format("UN", "简称").kind == "code"
    assert value_format("C919").kind == "code"  # an aircraft, not carbon-919


def test_dates_and_years_are_not_compatible():
    date, year = value_format("1881年9月25日"), value_format("1881年")
    assert not compatible(date, year)
    assert not compatible(year, date)
    assert compatible(date, value_format("1936年10月19日"))
    assert not compatible(year, value_format("公元前221年"))  # another era
    assert not compatible(year, value_format("1200年"))  # centuries apart
    assert compatible(year, value_format("1911年"))
    assert compatible(value_format("公元前221年"), value_format("公元前206年"))


def test_date_options_have_the_gold_precision():
    assert not compatible(value_format("1881年9月25日"), value_format("1998年11月"))
    assert compatible(value_format("1998年11月"), value_format("1942年4月"))


def test_periods_get_periods():
    assert compatible(value_format("626年—649年"), value_format("公元前141年—公元前87年"))
    assert not compatible(value_format("626年—649年"), value_format("626年"))


def test_quantities_need_the_same_unit():
    assert compatible(value_format("2320千米", "全长"), value_format("约5464千米", "全长"))
    assert not compatible(value_format("2320千米", "全长"), value_format("2320米", "全长"))
    assert not compatible(value_format("1.429 g/L", "密度"), value_format("1.55 g/cm³", "密度"))


def test_quantities_need_a_similar_magnitude():
    gold = value_format("约960万平方千米", "面积")
    assert compatible(gold, value_format("约55万平方千米", "面积"))  # 17x
    assert not compatible(gold, value_format("9.82平方千米", "面积"))
    at_limit = ValueFormat("quantity", "米", 100 * MAGNITUDE_FACTOR)
    assert compatible(ValueFormat("quantity", "米", 100), at_limit)
    assert not compatible(ValueFormat("quantity", "米", 100), ValueFormat("quantity", "米", 100 * MAGNITUDE_FACTOR + 1))


def test_small_and_negative_quantities_compare_by_size():
    assert compatible(value_format("0℃", "熔点"), value_format("-0.43℃", "熔点"))
    assert compatible(value_format("0℃", "熔点"), value_format("16.6℃", "熔点"))
    assert compatible(value_format("-259.16℃", "熔点"), value_format("1414℃", "熔点"))
    assert not compatible(value_format("0℃", "熔点"), value_format("1414℃", "熔点"))


def test_text_is_compatible_with_text_only():
    text = value_format("秦朝", "所处时代")
    assert compatible(text, value_format("唐朝", "所处时代"))
    for other in ("曹雪芹", "《史记》", "Qin dynasty", "1881年", "H2O"):
        assert not compatible(text, value_format(other, "作者" if other == "曹雪芹" else ""))


def test_formulas_and_element_symbols_are_kept_apart():
    assert compatible(value_format("C10H16O2"), value_format("C9H16O2"))
    assert not compatible(value_format("Na", "元素符号"), value_format("NaCl", "化学式"))


def test_every_bundled_infobox_value_gets_a_kind():
    values = [(relation, value) for entry in load_facts() for relation, value in entry.infobox]
    counts = Counter(value_format(value, relation).kind for relation, value in values)
    assert set(counts) <= set(KINDS)
    assert set(counts) == set(KINDS), f"kinds never seen in the bundled facts: {set(KINDS) - set(counts)}"
    assert sum(counts.values()) == len(values)
    # the bundled facts are mostly names and descriptions; typed values are a solid minority
    assert counts["text"] < len(values) * 0.75
    assert min(counts.values()) >= 10


def test_bundled_relations_get_their_expected_kind():
    expected = {"出生日期": {"date", "year"}, "化学式": {"formula"}, "CAS登录号": {"code"}, "原子序数": {"number"},
                "熔点": {"quantity"}, "沸点": {"quantity"}, "作者": {"person"}, "拉丁学名": {"latin"},
                "在位时间": {"period"}, "面积": {"quantity"}}
    for entry in load_facts():
        for relation, value in entry.infobox:
            if relation in expected:
                assert value_format(value, relation).kind in expected[relation], (relation, value)


def test_integers_and_decimals_are_numbers_of_different_kinds():
    """An atomic number is no option beside atomic masses: 30 for 锌 takes 29 and 31, never 65.38."""
    number = value_format("30", "原子序数")
    assert compatible(number, value_format("29", "原子序数"))
    assert not compatible(number, value_format("65.38", "原子序数"))
    assert not compatible(value_format("65.38", "相对原子质量"), number)
    assert compatible(value_format("65.38", "相对原子质量"), value_format("63.546", "相对原子质量"))
    assert not compatible(number, value_format("2400", "原子序数"))  # a magnitude apart, as quantities


def test_an_honour_is_no_option_beside_a_deed():
    """屠呦呦's 诺贝尔生理学或医学奖 takes awards and titles; 任正非's 创立华为 deeds (设立诺贝尔奖 is one)."""
    award, deed = value_format("诺贝尔生理学或医学奖", "主要成就"), value_format("创立华为", "主要成就")
    assert compatible(award, value_format("两弹一星功勋奖章", "主要成就"))
    assert not compatible(deed, value_format("共和国勋章", "主要成就"))
    assert not compatible(award, deed)
    assert compatible(deed, value_format("设立诺贝尔奖", "主要成就"))
    assert not compatible(deed, value_format("国家杰出贡献科学家", "主要成就"))


def test_a_span_of_two_eras_is_no_option_beside_one_era():
    span = value_format("西周初年至春秋中叶", "创作年代")
    assert span.span and not compatible(value_format("清代", "创作年代"), span)
    assert not value_format("周至县", "所在地").span and not value_format("至圣先师", "别名").span


def test_a_piece_of_a_sentence_is_no_value():
    """社稷之器's 出处 as its page's row gives it, 《又称蒋琬》, begins with the words that introduce another name."""
    from builders.formats import fragment

    assert fragment("《又称蒋琬》") and fragment("又名允彦")
    assert not fragment("《淮南子·人间训》") and not fragment("三国志")
