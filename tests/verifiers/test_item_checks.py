"""Item verification end to end on the mirror's pairs: offline labels, and every LLM verifier against a
scripted OpenAI-compatible server (criteria, evidence judge, moderation, a difficulty panel and its grader)."""

from __future__ import annotations

import json
import re

import pytest

from flows.items import items_stage
from flows.settings import ItemsSettings, LLMSection, PanelModel, VerifySettings
from schemas import Item
from tests.builders.conftest import fact_pages
from tests.llm_server import ScriptedLLM, reply
from verifiers.items import match_grade
from warehouse.shards import iter_records


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    return fact_pages(tmp_path_factory.mktemp("pages"))


def items_of(result):
    return list(iter_records(result["shards"], Item))


def test_offline_verification_labels_what_ran_and_drops_only_by_the_term_list(kept_pair_shards, pages, tmp_path):
    terms = tmp_path / "terms.txt"
    terms.write_text("# test list\n诗人\n", encoding="utf-8")
    verify = VerifySettings(sensitive_terms=terms)
    result = items_stage(kept_pair_shards, ItemsSettings(kinds=["qa", "simpleqa"]), tmp_path / "out",
                         verify=verify, page_shards=pages)
    items = items_of(result)
    dropped = [i for i in items if i.reason.startswith("safety:")]
    assert dropped and all("诗人" in i.question + i.answer and i.reason == "safety:term:诗人" for i in dropped)
    kept = [i for i in items if i.decision == "kept"]
    assert all({"safety_terms", "criteria_rules"} <= set(i.verified_by) for i in kept)
    assert not any(name.endswith("_llm") or name == "difficulty_panel" for i in kept for name in i.verified_by)
    assert any("retrieval_support" in i.verified_by for i in kept)
    lines = [json.loads(line) for line in (tmp_path / "out" / "verification.jsonl").read_text().splitlines()]
    assert {r["verifier"] for r in lines} == {"safety"} and len(lines) == len(dropped)
    assert result["report"]["verification"]["verifiers_ran"] == ["criteria_rules", "retrieval_support", "safety_terms"]


def field(text, name):
    match = re.search(rf"{name}：(.*)", text)
    return match.group(1).strip() if match else ""


def script(body):
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    if system.startswith("你是中文考试题的编辑"):
        return reply({"question": field(user, "模板问句")})
    if system.startswith("你做内容安全审核"):
        return reply({"flagged": "职业" in user, "category": "test", "reason": "scripted"})
    if system.startswith("你是中文事实问答基准的质检员"):
        return reply({"objective": True, "single_answer": True, "time_invariant": "逝世" not in user,
                      "in_category": True, "reason": "scripted"})
    if system.startswith("你核对中文事实问答题的答案"):
        contradicted = "出生" in field(user, "题目")
        return reply({"supported": True, "contradicted": contradicted, "quote": "原文", "other_answer": "别的"})
    if system.startswith("请用尽量简短的中文直接回答问题"):
        return reply({"answer": "公元前221年" if body["model"] == "panel-a" else "不知道"})
    if system.startswith("你给问答打分"):
        return reply({"grade": match_grade(field(user, "参考答案"), field(user, "模型回答"))})
    return reply("{}")


def test_llm_verifiers_drop_with_reasons_and_evidence_and_a_rerun_is_free(kept_pair_shards, pages, tmp_path):
    with ScriptedLLM(script) as llm:
        section = LLMSection(base_url=llm.base_url, model="judge-1")
        panel = [PanelModel(base_url=llm.base_url, model="panel-a")]
        verify = VerifySettings(panel=panel)
        run = lambda out: items_stage(kept_pair_shards, ItemsSettings(kinds=["qa"]), tmp_path / out,  # noqa: E731
                                      llm=section, catalog_path=tmp_path / "catalog.duckdb", verify=verify, page_shards=pages)
        first = run("a")
        calls = len(llm.requests)
        second = run("b")
        assert len(llm.requests) == calls  # everything answered from the cache
    items = items_of(first)
    reasons = {i.reason.split(":")[0] + ":" + i.reason.split(":")[1] for i in items if i.decision == "dropped"
               and not i.reason.startswith(("too_few", "dedup", "answer_in_question"))}
    assert {"safety:moderation", "criteria:time_invariant", "rag:contradicted"} <= reasons
    kept = [i for i in items if i.decision == "kept"]
    assert kept and all({"safety_terms", "safety_llm", "criteria_llm", "rag_llm", "difficulty_panel"}
                        <= set(i.verified_by) for i in kept)
    report = [json.loads(line) for line in (tmp_path / "a" / "verification.jsonl").read_text().splitlines()]
    contradicted = [r for r in report if r["reason"] == "rag:contradicted"]
    assert contradicted and contradicted[0]["evidence"]["other_answer"] == "别的" and contradicted[0]["evidence"]["urls"]
    stages = first["report"]["llm"]["stages"]
    assert {"criteria", "rag", "safety", "qa_rewrite"} <= set(stages) and stages["rag"]["calls"] > 0
    assert all(s["calls"] == 0 for s in second["report"]["llm"]["stages"].values())
    stats = first["report"]["verification"]
    assert stats["difficulty"]["checked"] > 0
    checks = [json.loads(line) for line in (tmp_path / "a" / "checks.jsonl").read_text().splitlines()]
    graded = [c for c in checks if c["verifier"] == "difficulty" and c["keep"]]
    assert graded and graded[0]["evidence"]["answers"]["panel-a"]["grade"] in ("INCORRECT", "NOT_ATTEMPTED")
    assert [i.to_row() for i in items] == [i.to_row() for i in items_of(second)]
