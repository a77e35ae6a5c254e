from __future__ import annotations

import json

import pytest

from flows.cli import main
from tests.llm_server import ScriptedLLM, reply
from schemas.llm import LLMClient, LLMSettings
from warehouse.scoring import (PredictionsError, cuge, match_grade, read_predictions, score_choice, score_cloze,
                               score_release, score_short, score_text, tokens)

OPTIONS = [f"选项{k}" for k in range(10)]


def choice_items(golds):
    return [{"item_id": f"i{n}", "options": OPTIONS, "answer_index": g, "answer": OPTIONS[g]}
            for n, g in enumerate(golds)]


def test_mrr_hits_accuracy_and_macro_f1_from_rankings():
    items = choice_items([0, 1, 2, 3])
    predictions = {"i0": {"ranking": [0, 5]},              # rank 1
                   "i1": {"ranking": ["选项4", "B"]},       # rank 2 (by text, then by letter)
                   "i2": {"prediction": "C"},              # rank 1, a single choice
                   "i3": {"ranking": [9, 8]}}              # not ranked: 0
    scores = score_choice(items, predictions)
    assert scores["mrr"] == pytest.approx((1 + 0.5 + 1 + 0) / 4)
    assert scores["hits@1"] == scores["accuracy"] == pytest.approx(0.5)
    # positions chosen 0, 4, 2, 9 for golds 0, 1, 2, 3: F1 is 1 for positions 0 and 2, 0 for 1, 3, 4, 9
    assert scores["f1"] == pytest.approx(2 / 6)


def test_text_metrics_on_chinese_characters():
    assert tokens("北京大学 founded 1898年") == ["北", "京", "大", "学", "founded", "1898", "年"]
    items = [{"item_id": "t", "answer": "北京大学创立于1898年。"}]
    perfect = score_text(items, {"t": {"prediction": "北京大学创立于1898年。"}})
    assert perfect["bleu"] == pytest.approx(1.0) and perfect["rouge-l"] == pytest.approx(1.0)
    assert perfect["meteor"] > 0.99
    partial = score_text(items, {"t": {"prediction": "北京大学创办于1898年。"}})
    # 10 tokens each (1898 is one), 9 shared in order: ROUGE-1 = ROUGE-L = 9/10
    assert partial["rouge-1"] == pytest.approx(0.9) and partial["rouge-l"] == pytest.approx(0.9)
    assert 0 < partial["bleu"] < 1
    assert score_text(items, {})["rouge-l"] == 0.0


def test_a_cloze_fill_written_another_way_is_the_answer():
    items = [{"item_id": f"c{n}", "answer": answer} for n, answer in enumerate(["《梦溪笔谈》", "明代", "北宋", "太祖"])]
    predictions = {"c0": {"prediction": "梦溪笔谈"}, "c1": {"prediction": "明朝"},  # one value written alike
                   "c2": {"prediction": "南宋"}}  # another value; c3 not answered
    assert score_cloze(items, predictions)["accuracy"] == pytest.approx(0.5)


def test_a_cloze_fill_the_item_names_also_true_is_right():
    """出生于＿＿＿ takes 湖北省 as well as 白福市: the item lists it in also_true; another province is still wrong."""
    items = [{"item_id": "c0", "answer": "白福市", "also_true": ["湖北省", "湖北"]}, {"item_id": "c1", "answer": "清朝"}]
    assert score_cloze(items, {"c0": {"prediction": "湖北省"}, "c1": {"prediction": "清代"}})["accuracy"] == 1.0
    assert score_cloze(items, {"c0": {"prediction": "河北省"}, "c1": {"prediction": ""}})["accuracy"] == 0.0


def test_simpleqa_grades_and_the_f_score():
    assert match_grade("1898年", "北京大学创立于1898年。") == "CORRECT"
    assert match_grade("1898年", "我不知道") == "NOT_ATTEMPTED"
    assert match_grade("1898年", "1900年") == "INCORRECT"
    # another form of the answer the item lists in also_true: the same place with fewer regions, the era's other name
    assert match_grade("美国加利福尼亚州汉福德", "他出生在汉福德。", ("加利福尼亚州汉福德", "汉福德")) == "CORRECT"
    assert match_grade("明朝", "明代", ("明代",)) == "CORRECT"
    assert match_grade("美国加利福尼亚州汉福德", "芝加哥", ("汉福德",)) == "INCORRECT"
    items = [{"item_id": f"s{n}", "question": "?", "answer": "甲", "primary_category": "社会"} for n in range(4)]
    scores = score_short(items, {"s0": {"prediction": "甲"}, "s1": {"prediction": "甲"}, "s2": {"prediction": "乙"}})
    assert (scores["correct"], scores["incorrect"], scores["not_attempted"]) == (0.5, 0.25, 0.25)
    assert scores["correct_given_attempted"] == pytest.approx(2 / 3)
    assert scores["f_score"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert scores["by_primary_category"]["社会"] == {"correct": 2, "incorrect": 1, "not_attempted": 1}
    assert "no LLM" in scores["grader"]


def test_an_llm_grader_decides_when_configured(tmp_path):
    grades = {"甲": "CORRECT", "乙": "INCORRECT"}

    def script(body):
        said = body["messages"][-1]["content"].rsplit("模型回答：", 1)[-1].strip()
        return reply({"grade": grades.get(said, "NOT_ATTEMPTED")})

    items = [{"item_id": f"s{n}", "question": "问", "answer": "甲", "primary_category": "社会"} for n in range(3)]
    with ScriptedLLM(script) as llm:
        grader = LLMClient(LLMSettings(base_url=llm.base_url, model="judge"), tmp_path / "llm.duckdb")
        scores = score_short(items, {"s0": {"prediction": "甲"}, "s1": {"prediction": "乙"}}, grader)
        grader.close()
    assert len(llm.requests) == 2  # the unanswered item is NOT_ATTEMPTED without asking
    assert (scores["correct"], scores["incorrect"], scores["not_attempted"]) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert scores["grader"].startswith("judge@")


def test_cuge_levels_are_means_of_baseline_normalised_scores():
    hierarchy = {"kgc": {"capability": "IA&QA", "task": "KGC"}, "qa": {"capability": "IA&QA", "task": "QA"},
                 "t2t": {"capability": "NLG", "task": "D2T"}}
    model = {"kgc": {"main_metric": "accuracy", "accuracy": 0.6}, "qa": {"main_metric": "accuracy", "accuracy": 0.4},
             "t2t": {"main_metric": "rouge-l", "rouge-l": 0.3}}
    base = {"kgc": {"accuracy": 0.3}, "qa": {"accuracy": 0.4}, "t2t": {"rouge-l": 0.6}}
    result = cuge(model, hierarchy, base)
    assert result["datasets"] == pytest.approx({"kgc": 2.0, "qa": 1.0, "t2t": 0.5})
    assert result["capabilities"] == pytest.approx({"IA&QA": 1.5, "NLG": 0.5})
    assert result["overall"] == pytest.approx(1.0)


def test_scoring_a_release_end_to_end_and_bad_predictions(release, tmp_path, capsys):
    import pyarrow.parquet as pq

    lines = []
    for path in sorted(release.glob("*/eval.parquet")):
        for row in pq.read_table(path).to_pylist():
            lines.append({"id": row["item_id"], "ranking": [row["answer_index"]]} if row["options"]
                         else {"id": row["item_id"], "prediction": row["answer"]})
    predictions = tmp_path / "gold.jsonl"
    predictions.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), encoding="utf-8")
    result = score_release(release, predictions)
    for config, metrics in result["datasets"].items():
        assert metrics["predicted"] == metrics["items"] > 0
        assert metrics[metrics["main_metric"]] == pytest.approx(1.0), config
    assert result["cuge"]["overall"] == pytest.approx(1.0)

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "prediction": "x"}\nnot json\n', encoding="utf-8")
    with pytest.raises(PredictionsError, match=r"bad.jsonl:2: not JSON"):
        read_predictions(bad)
    code = main(["score", str(release), "--predictions", str(bad)])
    assert code == 1 and capsys.readouterr().err.startswith("zhbench: error: ")
    assert main(["score", str(release), "--predictions", str(predictions), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cuge"]["overall"] == pytest.approx(1.0)


def test_scores_name_categories_as_the_export_does_and_say_per_dataset_whether_normalised(release, tmp_path,
                                                                                          capsys):
    import pyarrow.parquet as pq

    gold, partial = [], []
    for path in sorted(release.glob("*/eval.parquet")):
        for row in pq.read_table(path).to_pylist():
            line = ({"id": row["item_id"], "ranking": [row["answer_index"]]} if row["options"]
                    else {"id": row["item_id"], "prediction": row["answer"]})
            gold.append(line)
            if path.parent.name != "t2t":  # the baseline predicts no triple-to-text item
                partial.append(line)
    predictions, baseline = tmp_path / "gold.jsonl", tmp_path / "baseline.jsonl"
    predictions.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in gold), encoding="utf-8")
    baseline.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in partial), encoding="utf-8")
    assert main(["score", str(release), "--predictions", str(predictions), "--baseline", str(baseline),
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    # The export's language: the taxonomy's Chinese name, not the id items store (natural_science).
    assert list(result["datasets"]["simpleqa"]["by_primary_category"]) == ["自然与自然科学"]
    normalisation = result["cuge"]["normalisation"]
    assert normalisation["kgc"]["normalised"] and normalisation["kgc"]["baseline"] == pytest.approx(1.0)
    assert normalisation["t2t"] == {"normalised": False, "main_metric": "rouge-l", "raw": pytest.approx(1.0),
                                    "baseline": 0.0, "why_raw": "the baseline predicts none of its items"}
    assert main(["score", str(release), "--predictions", str(predictions), "--baseline", str(baseline)]) == 0
    shown = capsys.readouterr().out
    assert "dataset t2t: 1.0000 (raw rouge-l: the baseline predicts none of its items)" in shown
    assert "dataset kgc: 1.0000 (accuracy 1.0000 / baseline 1.0000)" in shown
