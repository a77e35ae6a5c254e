"""Chinese SimpleQA criteria decided by rules: each reason code, and questions that pass."""

from __future__ import annotations

import pytest

from builders.criteria import (REASONS, RELATIVE_TIME_WORDS, TIME_VARIANT_RELATIONS, answer_budget_ok,
                               check_question, is_enumeration, load_word_list)


def test_a_good_question_passes():
    assert check_question("碳的原子序数是多少？", "6", "原子序数") == []
    assert check_question("红楼梦的作者是谁？", "曹雪芹", "作者") == []
    assert check_question("秦始皇出生于什么时候？", "公元前259年", "出生日期") == []


@pytest.mark.parametrize("question, answer", [("", "曹雪芹"), ("红楼梦的作者是谁？", "  "), (" ", "")])
def test_empty(question, answer):
    assert check_question(question, answer) == ["empty"]


def test_answer_too_long():
    answer = "中华人民共和国国家博物馆藏品管理中心第三研究室"
    assert len(answer) > 20
    assert check_question("它是什么？", answer) == ["answer_too_long"]
    assert check_question("它是什么？", answer, max_answer_chars=len(answer)) == []


def test_answer_budget_counts_stripped_characters():
    assert answer_budget_ok("  曹雪芹 ", 3)
    assert not answer_budget_ok("曹雪芹", 2)
    with pytest.raises(ValueError, match="at least 1"):
        answer_budget_ok("曹雪芹", 0)
    with pytest.raises(ValueError, match="at least 1"):
        check_question("红楼梦的作者是谁？", "曹雪芹", max_answer_chars=0)


def test_answer_in_question_after_normalisation():
    assert check_question("唐太宗的庙号是什么？", "太宗", "庙号") == ["answer_in_question"]
    # full-width and traditional spellings are matched after normalisation
    assert check_question("ＮＡＳＡ發射了哪顆衛星？", "nasa") == ["answer_in_question"]
    assert check_question("長江的外文名是什麼？", "长江") == ["answer_in_question"]


@pytest.mark.parametrize("answer", [
    "贾宝玉、林黛玉", "长安，洛阳", "清朝；英国", "液氢和液氧", "马克思与恩格斯", "孔子的弟子及再传弟子",
    "中国、新加坡、马来西亚等", "统一文字和度量衡",
])
def test_multiple_answers(answer):
    assert "multiple_answers" in check_question("它是什么？", answer)


@pytest.mark.parametrize("answer", [
    "中华人民共和国", "埃及镑", "和平解决", "巴黎和会外交失败", "《战争与和平》", "1,545", "一等毅勇侯", "平等",
    "颐和园", "共和党",
])
def test_single_answers_with_conjunction_characters(answer):
    assert not is_enumeration(answer)


def test_relative_time_in_question_or_answer():
    assert check_question("联合国现任秘书长是谁？", "古特雷斯") == ["relative_time"]
    assert check_question("该馆目前收藏多少件文物？", "140万件") == ["relative_time"]
    assert check_question("它沿用到什么时候？", "至今") == ["relative_time"]


def test_time_variant_relation():
    assert check_question("苹果公司的首席执行官是谁？", "蒂姆·库克", "首席执行官") == ["time_variant_relation"]
    assert check_question("上海的人口是多少？", "2487万", "人口") == ["time_variant_relation"]
    assert check_question("清华大学的现任校长是谁？", "李路明", "现任校长") == ["relative_time", "time_variant_relation"]
    # a founding office holder does not change
    assert check_question("中国科学院的首任院长是谁？", "郭沫若", "首任院长") == []


def test_reasons_come_in_documented_order():
    failed = check_question("特斯拉目前的首席执行官是谁？", "埃隆·马斯克、特斯拉公司现任首席执行官兼产品架构师",
                            "首席执行官")
    assert failed == ["answer_too_long", "multiple_answers", "relative_time", "time_variant_relation"]
    assert failed == [r for r in REASONS if r in failed]


def test_every_reason_code_can_be_triggered():
    seen = set()
    for question, answer, relation in [
        ("", "x", ""), ("它是什么？", "一" * 21, ""), ("唐太宗的庙号是什么？", "太宗", ""),
        ("它是什么？", "甲、乙", ""), ("目前谁在任？", "张三", ""), ("上海的人口是多少？", "2487万", "人口"),
    ]:
        seen.update(check_question(question, answer, relation))
    assert seen == set(REASONS)


def test_word_lists_are_reviewable_files():
    words, relations = load_word_list(RELATIVE_TIME_WORDS), load_word_list(TIME_VARIANT_RELATIONS)
    assert {"现任", "目前", "最新", "当前", "今年", "去年", "近年", "至今", "现在", "迄今", "最近", "如今"} <= words
    assert {"首席执行官", "人口", "市值", "营业收入", "员工数", "排名", "总裁", "董事长", "校长", "主席"} <= relations
    assert not any(w.startswith("#") for w in words | relations)


def test_word_list_rejects_a_line_with_spaces(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("# comment\n目前\n现任 校长\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"words.txt:3: '现任 校长' contains whitespace"):
        load_word_list(path)
