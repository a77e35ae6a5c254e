"""The offline baselines (pinyin, the answer in the name, the relation's and the type's most frequent value), the
easy budget per config, and the rules of issue 42 that make a short-answer question one with one lasting answer:
time-variant relations, multi-valued relations, a fact the page itself disputes, question words that fit."""

from __future__ import annotations

import pytest

from builders.baselines import BaselinePanel, name_parts, shares_two_chars, transliterates
from builders.criteria import check_question
from builders.items import text_disputes
from builders.templates import fit_question_word
from flows.items import baseline_summary, easy_budget_drops
from schemas import Pair, Triple
from tests.builders.test_graph import graph_of
from tests.builders.test_simpleqa import run  # noqa: F401  (the items built from the fact pages)


def panel(*facts: tuple[str, str, str], type_key: str = "t") -> BaselinePanel:
    return BaselinePanel((h, r, t, type_key) for h, r, t in facts)


# --- pinyin ----------------------------------------------------------------------------------------------------

def test_pinyin_answers_a_foreign_name_that_transliterates_the_chinese_one():
    assert panel().solved_by("秦宁鸿", "外文名", "Qin Ninghong") == ["pinyin"]
    assert transliterates("青海湖", "Qinghai Lake")  # the generic 湖 translated, the rest in pinyin
    assert transliterates("北宋", "Northern Song") and transliterates("唐朝", "Tang Dynasty")
    assert not transliterates("珠穆朗玛峰", "Mount Everest")
    assert not transliterates("印度", "India")
    assert transliterates("福瑞百合", "Lilium furuiensis") and transliterates("牛安麂", "Muntiacus niuanensis")
    assert not transliterates("东北虎", "Panthera tigris altaica")
    assert not transliterates("钙", "Ca")


def test_pinyin_picks_the_option_a_latin_name_transliterates_when_the_head_is_asked():
    solved = panel().solved_by("秦宁鸿", "外文名", "秦宁鸿", asked="head", given="Qin Ninghong",
                               options=["秦宁鸿", "李建铭", "汪焕信"])
    assert solved == ["pinyin"]


# --- the answer in the name --------------------------------------------------------------------------------------

def test_the_answer_inside_the_name_is_easy():
    assert panel().solved_by("湾溪报春", "科", "报春花科") == ["in_name"]
    assert panel().solved_by("黄辉", "陵墓", "黄辉墓") == ["in_name"]
    assert shares_two_chars("湾溪报春", "报春花科") and not shares_two_chars("刘备", "涿郡")


def test_a_kind_word_shared_with_the_name_gives_nothing_away():
    # 大学 is the head of an institution's name (builders/name_heads.txt): 京师大学堂 is not in 北京大学
    assert panel().solved_by("北京大学", "前身", "京师大学堂") == []


def test_titles_sharing_a_tune_give_the_genre():
    crawl = panel(("《浣溪沙·春晓》", "文学体裁", "词"), ("《浣溪沙·秋思》", "文学体裁", "词"),
                  ("《浣溪沙·夜雨》", "文学体裁", "词"), ("《静夜思》", "文学体裁", "诗"), ("《登高》", "文学体裁", "诗"),
                  ("《春望》", "文学体裁", "诗"), ("《月下独酌》", "文学体裁", "诗"),
                  ("《望岳》", "文学体裁", "诗"), type_key="")
    assert name_parts("《浣溪沙·登永仙月》")[0] == "pre:浣溪沙"
    assert crawl.solved_by("《浣溪沙·登永仙月》", "文学体裁", "词") == ["in_name"]
    assert crawl.solved_by("《水调歌头·明月几时有》", "文学体裁", "词") == ["in_name"]  # a 《X·Y》 like the others
    assert crawl.solved_by("《月下独酌》", "文学体裁", "诗") == ["relation_mode"]


def test_in_name_does_not_solve_a_multiple_choice_item_whose_other_options_share_the_name():
    solved = panel().solved_by("武汉长江大桥", "所在地", "湖北省武汉市", options=["湖北省武汉市", "湖北省武汉市汉阳区"])
    assert "in_name" not in solved


# --- priors ----------------------------------------------------------------------------------------------------

def test_the_relation_mode_leaves_the_entity_itself_out():
    crawl = panel(("甲", "国籍", "中国"), ("乙", "国籍", "中国"), ("丙", "国籍", "中国"), ("丁", "国籍", "美国"))
    assert crawl.solved_by("甲", "国籍", "中国", "t") == ["relation_mode", "type_prior"]
    assert crawl.solved_by("丁", "国籍", "美国", "t") == []
    # a value only one other entity has is no prior
    assert panel(("甲", "庙号", "太祖"), ("乙", "庙号", "太祖")).solved_by("甲", "庙号", "太祖") == []


def test_the_type_prior_counts_a_value_over_every_relation_of_its_type():
    crawl = BaselinePanel([("甲", "出生地", "北京", "entity:city"), ("乙", "逝世地", "北京", "entity:city"),
                           ("丙", "所在地", "北京", "entity:city"), ("丁", "所在地", "上海", "entity:city")])
    assert crawl.solved_by("戊", "首都", "北京", "entity:city") == ["type_prior"]


# --- the easy budget ----------------------------------------------------------------------------------------------

def test_easy_items_past_the_budget_are_dropped_by_a_stable_order():
    items = [(f"h{n}", "qa", []) for n in range(18)] + [(f"e{n}", "qa", ["relation_mode"]) for n in range(10)]
    drops = easy_budget_drops(items, 0.10)
    assert len(drops) == 8  # 2 easy of 20 kept is 10%
    assert {reason for reason, _ in drops.values()} == {"difficulty:easy_over_budget"}
    assert easy_budget_drops(list(reversed(items)), 0.10) == drops
    easy = [(f"e{n}", "cloze", ["type_prior"]) for n in range(5)]
    assert easy_budget_drops(easy, 0.10).keys() == {f"e{n}" for n in range(5)}


def test_the_budget_keeps_a_guessed_item_before_a_transliterated_one():
    items = [(f"h{n}", "qa", []) for n in range(9)] + [("p", "qa", ["pinyin"]), ("m", "qa", ["relation_mode"]),
                                                       ("two", "qa", ["relation_mode", "type_prior"])]
    assert easy_budget_drops(items, 0.10).keys() == {"p", "two"}  # 1 easy beside 9 hard: the one-guess item
    with pytest.raises(ValueError):
        easy_budget_drops(items, 1.0)


def test_the_summary_gives_each_config_its_solvers_and_easy_share():
    easy = {"a": ("qa", ["pinyin"]), "b": ("qa", []), "c": ("qa", ["in_name", "relation_mode"]), "d": ("qa", [])}
    summary = baseline_summary(easy, {"c": ("difficulty:easy_over_budget", {})}, 0.1)
    row = summary["configs"]["qa"]
    assert row["solved"]["pinyin"] == 1 and row["solved"]["in_name"] == 1
    assert (row["items"], row["easy"], row["dropped_over_budget"], row["kept"], row["easy_kept"]) == (4, 2, 1, 3, 1)
    assert row["easy_share"] == round(1 / 3, 4) and "offline" in summary["panel"]


# --- one lasting, undisputed answer ------------------------------------------------------------------------------

def test_remeasured_heights_and_areas_are_time_variant():
    assert "time_variant_relation" in check_question("珠穆朗玛峰的海拔是多少？", "8848.86米", "海拔")
    assert "time_variant_relation" in check_question("青海湖的湖面海拔是多少？", "3196米", "湖面海拔")
    assert "time_variant_relation" in check_question("华为的总部在哪里？", "深圳", "总部地点")
    assert "time_variant_relation" not in check_question("刘备出生于什么时候？", "161年", "出生日期")


def test_a_relation_with_several_values_per_entity_is_multi_valued(tmp_path):
    pairs = [Pair(pair_id=f"p{n}", entity=name, text="", triples=[Triple(name, "职业", v) for v in jobs]
                  + [Triple(name, "出生地", f"{name}村")])
             for n, (name, jobs) in enumerate([("卫青", ["军事家"]), ("霍去病", ["军事家", "将领"]),
                                               ("李白", ["诗人"]), ("杜甫", ["诗人", "文学家"]), ("王维", ["诗人"]),
                                               ("孟浩然", ["诗人"]), ("白居易", ["诗人"])])]
    with graph_of(tmp_path, pairs) as graph:
        assert graph.multi_valued() == {"职业"}  # 2 of 7 entries give two; 出生地 gives one each


def test_a_value_the_page_hedges_or_dates_otherwise_is_disputed():
    xia = Pair(pair_id="x", entity="夏朝", text="夏朝，一般认为由禹建立。夏朝存在约470年。")
    assert text_disputes(xia, "建立者", "禹") == "一般认为"
    liu = Pair(pair_id="l", entity="刘备", text="刘备生于162年，卒于223年。")
    assert text_disputes(liu, "出生日期", "161年") == "162年"
    assert text_disputes(liu, "出生日期", "162年") == ""
    assert text_disputes(liu, "逝世日期", "223年") == ""  # 162年 dates the birth, in its own clause


# --- question words -----------------------------------------------------------------------------------------------

def test_the_question_word_fits_the_answer():
    assert fit_question_word("当代毕昇是下列哪一项的别名？", "person") == "当代毕昇是下列哪位人物的别名？"
    assert fit_question_word("下列哪一项的最高峰是珠穆朗玛峰？", "place") == "下列哪个地方的最高峰是珠穆朗玛峰？"
    assert fit_question_word("下列哪一项是《西游记》的上映时间之一？", "year") == "下列哪一年是《西游记》的上映时间之一？"
    assert fit_question_word("下列哪一项是兰亭序的别名？", "thing") == "下列哪一项是兰亭序的别名？"
    assert fit_question_word("下列哪本书是由中华书局出版的？", "thing") == "下列哪本书是由中华书局出版的？"


def test_the_dataset_card_labels_the_panel_as_offline_baselines():
    from warehouse.release import _baseline_lines

    summary = baseline_summary({"a": ("qa", ["pinyin"]), "b": ("qa", []), "c": ("t2t", [])}, {}, 0.1)
    lines = "\n".join(_baseline_lines(summary))
    assert "Offline baselines (no model answers here" in lines
    assert "| qa | 2 | 0 | 1 | 0 | 0 | 1 | 0 | 50.0% |" in lines and "| t2t |" not in lines


def test_an_approximate_figure_or_a_description_is_no_short_answer():
    from builders.items import open_relation
    from filters.normalize import is_approximate

    assert is_approximate("约33.76万平方千米") and is_approximate("3000余米") and is_approximate("100米左右")
    assert is_approximate("约公元前1046年—公元前771年") and not is_approximate("8848.86米")
    assert open_relation("外观") and open_relation("花期") and open_relation("面积") and not open_relation("化学式")
    from builders.items import _RECONSTRUCTED

    assert _RECONSTRUCTED.search("公元前551年9月28日") and not _RECONSTRUCTED.search("公元前551年")


# --- the stage -----------------------------------------------------------------------------------------------------

def test_the_item_stage_records_the_baselines_and_keeps_each_configs_easy_share_under_the_budget(run):
    import json
    from collections import Counter

    from builders.criteria import TIME_VARIANT_RELATIONS, load_word_list

    _, items, report = run
    kept = [i for i in items if i.decision == "kept" and i.kind != "t2t"]
    easy, total = Counter(), Counter(i.kind for i in kept)
    for item in kept:
        by = json.loads(item.provenance)["easy_by"]
        assert set(by) <= {"pinyin", "in_name", "relation_mode", "type_prior"}
        easy[item.kind] += bool(by)
    assert all(easy[kind] <= 0.1 * total[kind] for kind in total), (easy, total)
    configs = report["baselines"]["configs"]
    assert "offline" in report["baselines"]["panel"] and configs["simpleqa"]["kept"] == total["simpleqa"]
    dropped = [i for i in items if i.reason == "difficulty:easy_over_budget"]
    assert all(json.loads(i.provenance)["easy_by"] for i in dropped)
    variant = load_word_list(TIME_VARIANT_RELATIONS)
    assert not [i.question for i in kept if i.kind == "simpleqa" and i.relation in variant]
