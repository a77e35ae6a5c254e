"""zhbench questions check: one verdict line per question, a summary on stderr, clear errors for bad files."""

from __future__ import annotations

import json
from pathlib import Path

from tests.flows.test_cli import zhbench

FIXTURES = Path(__file__).parents[1] / "fixtures" / "questions"


def lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_real_questions_pass_and_flawed_ones_fail():
    real = zhbench("questions", "check", str(FIXTURES / "chinese_simpleqa_sample.jsonl"))
    assert real.returncode == 0, real.stderr
    verdicts = lines(real.stdout)
    sample = lines((FIXTURES / "chinese_simpleqa_sample.jsonl").read_text(encoding="utf-8"))
    assert [v["id"] for v in verdicts] == [s["id"] for s in sample]  # one line per input, in order
    assert sum(v["accepted"] for v in verdicts) >= 0.98 * len(verdicts)
    assert real.stderr.startswith(f"checked {len(sample)} questions: ")

    flawed = [f for f in lines((FIXTURES / "flawed.jsonl").read_text(encoding="utf-8")) if f.get("offline", True)]
    out = zhbench("questions", "check", str(FIXTURES / "flawed.jsonl"))
    by_line = {int(v["id"]): v for v in lines(out.stdout)}  # the flawed set has no ids: line numbers
    rows = lines((FIXTURES / "flawed.jsonl").read_text(encoding="utf-8"))
    for number, row in enumerate(rows, 1):
        if row.get("offline", True):
            assert not by_line[number]["accepted"], row["question"]
            assert set(row["expected"]) <= set(by_line[number]["reasons"]), (row["question"], by_line[number])
    assert flawed


def test_contamination_lists_the_registered_questions_matched(tmp_path):
    registered = tmp_path / "db.jsonl"
    registered.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in [
        {"question": "《南京条约》是在哪一年签订的？", "answer": "1842年"},
        {"question": "鲁迅的原名是什么？", "answer": "周树人"}]) + "\n", encoding="utf-8")
    mine = tmp_path / "mine.jsonl"
    mine.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in [
        {"id": "a", "question": "请问《南京条约》是哪年签订的？", "answer": "1842年"},  # a paraphrase
        {"id": "b", "question": "《南京条约》是在哪一年废除的？", "answer": ""},  # another fact, question only
        {"id": "c", "question": "秦始皇陵位于哪个省？", "answer": "陕西省"}]) + "\n", encoding="utf-8")
    out = zhbench("questions", "check", str(mine), "--against", str(registered))
    assert out.returncode == 0, out.stderr
    got = {v["id"]: v for v in lines(out.stdout)}
    assert not got["a"]["accepted"] and got["a"]["contaminated_by"][0]["question"] == "《南京条约》是在哪一年签订的？"
    assert 0 < got["a"]["contaminated_by"][0]["similarity"] <= 1
    assert got["b"]["contaminated_by"] == [] and got["b"]["accepted"]
    assert got["c"]["accepted"] and got["c"]["reasons"] == []
    assert "1 match one of 2 registered questions" in out.stderr


def test_a_question_without_an_answer_is_checked_on_its_wording(tmp_path):
    mine = tmp_path / "mine.jsonl"
    mine.write_text('{"id": "x", "question": "联合国现任秘书长是谁？", "answer": ""}\n'
                    '{"id": "y", "question": "《红楼梦》的作者是谁？"}\n', encoding="utf-8")
    got = {v["id"]: v for v in lines(zhbench("questions", "check", str(mine)).stdout)}
    assert got["x"]["reasons"] == ["relative_time"] and got["y"] == {"id": "y", "accepted": True, "reasons": []}


def test_bad_files_are_one_line_errors(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "a？", "answer": "b"}\nnot json\n', encoding="utf-8")
    out = zhbench("questions", "check", str(bad))
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.strip() == f"zhbench: error: {bad}:2: not JSON (Expecting value); write one JSON object per " \
                                 'line, e.g. {"question": "...", "answer": "..."}'
    bad.write_text('{"answer": "b"}\n', encoding="utf-8")
    assert f'{bad}:1: no "question" string' in zhbench("questions", "check", str(bad)).stderr
    bad.write_text('{"id": 1, "question": "a？"}\n{"id": 1, "question": "b？"}\n', encoding="utf-8")
    assert "id '1' is used twice" in zhbench("questions", "check", str(bad)).stderr
    missing = zhbench("questions", "check", str(tmp_path / "none.jsonl"))
    assert missing.returncode == 1 and "does not exist" in missing.stderr and "Traceback" not in missing.stderr
    db = tmp_path / "db.txt"
    db.write_text("x\n", encoding="utf-8")
    bad.write_text('{"question": "a？", "answer": "b"}\n', encoding="utf-8")
    wrong = zhbench("questions", "check", str(bad), "--against", str(db))
    assert wrong.returncode == 1 and "unknown file type" in wrong.stderr


def test_explain_names_the_span_and_a_sense_list_catches_a_shared_title(tmp_path):
    mine = tmp_path / "mine.jsonl"
    mine.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in [
        {"id": "debris", "question": "微孔滤膜的第一条是什么？", "answer": "概述"},
        {"id": "village", "question": "七里村的面积有多大", "answer": "9.5平方公里"},
        {"id": "sound", "question": "碳的原子序数是多少？", "answer": "6"}]) + "\n", encoding="utf-8")
    senses = tmp_path / "senses.tsv"
    senses.write_text("# title\tsense\n七里村\t潜山县梅城镇下辖村\n七里村\t福建省南平市下辖村\n", encoding="utf-8")
    out = zhbench("questions", "check", str(mine), "--explain", "--senses", str(senses))
    assert out.returncode == 0, out.stderr
    got = {v["id"]: v for v in lines(out.stdout)}
    assert got["debris"]["explain"] == [{"reason": "kb_debris", "field": "question", "span": "的第一条是什么"}]
    assert got["village"]["explain"] == [{"reason": "underspecified_subject", "field": "question", "span": "七里村"}]
    assert got["sound"] == {"id": "sound", "accepted": True, "reasons": [], "explain": []}
    plain = {v["id"]: v for v in lines(zhbench("questions", "check", str(mine)).stdout)}
    assert "explain" not in plain["debris"] and plain["village"]["accepted"]  # without senses nothing tells

    senses.write_text("七里村 潜山县\n", encoding="utf-8")
    bad = zhbench("questions", "check", str(mine), "--senses", str(senses))
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr.strip() == f"zhbench: error: {senses}:1: expected title<TAB>sense label, got '七里村 潜山县'"


def test_senses_from_a_release_pages_file(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from flows.questions import read_senses

    sense = pa.struct([("label", pa.string()), ("url", pa.string())])
    pq.write_table(pa.table({"title": ["七里村", "碳"], "senses": pa.array(
        [[{"label": "潜山县下辖村", "url": "u1"}, {"label": "福建省下辖村", "url": "u2"}], []], pa.list_(sense))}),
        tmp_path / "pages.parquet")
    assert read_senses(tmp_path / "pages.parquet") == {"七里村": ["潜山县下辖村", "福建省下辖村"]}


def test_an_llm_reads_what_the_rules_accept_and_says_so(tmp_path):
    from tests.llm_server import ScriptedLLM, reply

    points = {"objective": True, "single_answer": True, "time_invariant": True, "unambiguous": True,
              "answers_question": True, "well_formed": True}

    def script(body):
        text = body["messages"][-1]["content"]
        if "一反" in text:
            return reply({**points, "well_formed": False, "reason": "题目不通顺"})
        if "七里村" in text:
            return reply("not json")  # never usable: the question is not judged
        return reply({**points, "reason": "合格"})

    mine = tmp_path / "mine.jsonl"
    mine.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in [
        {"id": "garbled", "question": "一反是什么等级的忍着", "answer": "中忍"},
        {"id": "village", "question": "七里村的面积有多大", "answer": "9.5平方公里"},
        {"id": "sound", "question": "碳的原子序数是多少？", "answer": "6"},
        {"id": "debris", "question": "微孔滤膜的第一条是什么？", "answer": "概述"}]) + "\n", encoding="utf-8")
    with ScriptedLLM(script) as llm:
        out = zhbench("questions", "check", str(mine), "--llm-model", "judge-7b", "--llm-base-url", llm.base_url,
                      "--data-dir", str(tmp_path / "data"), "--explain", env={"OPENAI_API_KEY": "test"})
        asked = [r["messages"][-1]["content"] for r in llm.requests]
    assert out.returncode == 0, out.stderr
    got = {v["id"]: v for v in lines(out.stdout)}
    assert got["garbled"]["reasons"] == ["llm:well_formed"] and got["garbled"]["judged_by"] == "judge-7b"
    assert {"reason": "llm:well_formed", "field": "question", "span": "题目不通顺"} in got["garbled"]["explain"]
    assert got["sound"]["accepted"] and got["sound"]["judged_by"] == "judge-7b"
    assert got["village"]["accepted"] and "judged_by" not in got["village"] and got["village"]["llm_error"]
    assert "judged_by" not in got["debris"] and not any("微孔滤膜" in a for a in asked)  # the rules settled it
    assert "2 judged by judge-7b, 1 not judged" in out.stderr


def test_the_llm_also_settles_registered_questions_the_relation_table_cannot(tmp_path):
    from tests.llm_server import ScriptedLLM, reply

    def script(body):
        if "防泄漏" in body["messages"][0]["content"]:  # the contamination judge's prompt
            return reply({"same_fact": True})
        return reply({})

    registered = tmp_path / "db.jsonl"
    registered.write_text('{"question": "鹰击81导弹的射程是多少？", "answer": "50公里"}\n', encoding="utf-8")
    mine = tmp_path / "mine.jsonl"
    mine.write_text('{"id": "m", "question": "鹰击81导弹能打多远？", "answer": ""}\n', encoding="utf-8")
    with ScriptedLLM(script) as llm:
        out = zhbench("questions", "check", str(mine), "--against", str(registered), "--llm-model", "judge-7b",
                      "--llm-base-url", llm.base_url, "--data-dir", str(tmp_path / "data"),
                      env={"OPENAI_API_KEY": "test"})
    assert out.returncode == 0, out.stderr
    got = lines(out.stdout)[0]
    assert [m["kind"] for m in got["contaminated_by"]] == ["llm"] and not got["accepted"], got
