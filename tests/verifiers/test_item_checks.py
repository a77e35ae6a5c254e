"""Item verification end to end on the mirror's pairs: offline labels, and every LLM verifier against a
scripted OpenAI-compatible server (criteria, evidence judge, moderation, a difficulty panel and its grader)."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from flows.items import items_stage
from flows.settings import ItemsSettings, LLMSection, PanelModel, VerifySettings
from schemas import Item
from tests.builders.conftest import fact_pages
from tests.builders.test_llm_items import script as writer_script
from tests.llm_server import ScriptedLLM, delay, raw, reply, status
from verifiers.items import match_grade, quoted_in
from schemas.storage.shards import iter_records


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    return fact_pages(tmp_path_factory.mktemp("pages"))


def items_of(result):
    return list(iter_records(result["shards"], Item))


def test_offline_verification_labels_what_ran_and_drops_only_by_the_term_list(kept_pair_shards, pages, tmp_path):
    terms = tmp_path / "terms.txt"
    terms.write_text("# test list\n诗人\n", encoding="utf-8")
    verify = VerifySettings(search_backend="crawl", sensitive_terms=terms, min_sources=1)
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


def invents_its_quote(question):
    """About one question in four, picked by its hash: the judge quotes words no passage holds."""
    return hashlib.md5(question.encode("utf-8")).digest()[0] % 4 == 0


def judge_quote(question, user):
    """A piece of the first passage copied verbatim, or (for some questions) an invented one."""
    first = re.search(r"^\[0\] \S+\n(.+)$", user, flags=re.M)
    if invents_its_quote(question) or not first:
        return "据记载此说并无出处"
    return first.group(1)[:12]


def script(body):
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    if system.startswith("你是中文考试题的编辑"):
        return reply({"question": field(user, "模板问句")})
    if system.startswith("你做内容安全审核"):
        return reply({"flagged": "职业" in user, "category": "test", "reason": "scripted"})
    if system.startswith("你是中文事实问答基准的质检员"):
        return reply({"objective": True, "single_answer": True, "time_invariant": "逝世" not in user,
                      "in_category": True, "reason": "scripted"})
    if system.startswith("你是中文选择题的审题人"):  # the options judge finds the gold alone right
        return reply({"right": [field(user, "参考答案")[:1]], "reason": "scripted"})
    if system.startswith("你核对中文事实问答题的答案"):
        question = field(user, "题目")
        contradicted = "出生" in question
        return reply({"supported": True, "contradicted": contradicted, "quote": judge_quote(question, user),
                      "other_answer": "别的"})
    if system.startswith("请用尽量简短的中文直接回答问题"):
        return reply({"answer": "公元前221年" if body["model"] == "panel-a" else "不知道"})
    if system.startswith("你给问答打分"):
        return reply({"grade": match_grade(field(user, "参考答案"), field(user, "模型回答"))})
    return reply("{}")


# The two item stages below (the mirror's pairs through every LLM verifier, each with a scripted server of its
# own) take 100-120 s of CPU each, a quarter of it opening the catalog per cached search and reply: the slow
# suite's. make test keeps the offline labels and, with the same failing server, the drop_unverified setting.
@pytest.mark.slow
def test_llm_verifiers_drop_with_reasons_and_evidence_and_a_rerun_is_free(kept_pair_shards, pages, tmp_path):
    with ScriptedLLM(script) as llm:
        section = LLMSection(base_url=llm.base_url, model="judge-1")
        panel = [PanelModel(base_url=llm.base_url, model="panel-a")]
        verify = VerifySettings(search_backend="crawl", panel=panel)
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
    assert kept and all({"safety_terms", "safety_llm", "criteria_rules", "criteria_llm", "options_llm", "rag_llm",
                         "difficulty_panel"} <= set(i.verified_by) and not i.unverified_by for i in kept)
    # a judge's quote that no retrieved passage holds does not support anything
    unsupported = [i for i in items if i.reason == "rag:unsupported"]
    assert unsupported and all(invents_its_quote(i.question) for i in unsupported)
    assert not any(invents_its_quote(i.question) for i in kept)
    report = [json.loads(line) for line in (tmp_path / "a" / "verification.jsonl").read_text().splitlines()]
    assert all(r["evidence"]["quote"] == "据记载此说并无出处" for r in report if r["reason"] == "rag:unsupported")
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


def test_a_quote_counts_only_when_it_is_in_a_passage_after_normalisation():
    passages = ["长江发源于唐古拉山脉各拉丹冬峰，全长6300公里。"]
    assert quoted_in("長江發源於 唐古拉山脉", passages)  # traditional characters and a space
    assert quoted_in("全长6300千米", passages)  # one unit word for one meaning
    assert not quoted_in("长江发源于昆仑山", passages)
    assert not quoted_in("", passages) and not quoted_in("长江", [])


def failing_verifiers(body, number):
    """Items are written (tests.builders' script); every verifier call fails, each stage its own way."""
    system = body["messages"][0]["content"]
    if system.startswith("你做内容安全审核"):
        return status(429, retry_after=0.01)
    if system.startswith("你是中文事实问答基准的质检员"):
        return raw({"choices": []}) if number % 2 else reply(None)
    if system.startswith("你是中文选择题的审题人"):
        return reply("{not json")
    if system.startswith("你核对中文事实问答题的答案"):
        times_out = hashlib.md5(body["messages"][1]["content"].encode("utf-8")).digest()[0] % 8 == 0
        return delay(3.0, reply({"supported": True})) if times_out else reply("{broken")
    if system.startswith("请用尽量简短的中文直接回答问题"):
        return reply("")
    return writer_script(body)


@pytest.mark.slow  # see test_llm_verifiers_drop_with_reasons_and_evidence_and_a_rerun_is_free
def test_when_every_verifier_call_fails_no_item_claims_an_llm_check(kept_pair_shards, pages, tmp_path):
    with ScriptedLLM(failing_verifiers) as llm:
        section = LLMSection(base_url=llm.base_url, model="judge-1", max_retries=1, timeout_s=1.0, concurrency=16)
        verify = VerifySettings(search_backend="crawl", panel=[PanelModel(base_url=llm.base_url, model="panel-a")])
        result = items_stage(kept_pair_shards, ItemsSettings(kinds=["qa", "simpleqa"]), tmp_path / "out",
                             llm=section, catalog_path=tmp_path / "catalog.duckdb", verify=verify, page_shards=pages)
    items = items_of(result)
    llm_checks = {"safety_llm", "criteria_llm", "options_llm", "rag_llm", "difficulty_panel"}
    assert not any(llm_checks & set(i.verified_by) for i in items)
    simpleqa = [i for i in items if i.kind == "simpleqa" and i.reason.startswith("unverified:")]
    assert simpleqa and all(i.decision == "dropped" and i.reason == "unverified:safety_llm:http_429"
                            and i.unverified_by == ["safety_llm"] for i in simpleqa)
    assert not [i for i in items if i.kind == "simpleqa" and i.decision == "kept"]
    qa = [i for i in items if i.kind == "qa" and i.decision == "kept"]
    assert qa and all(i.unverified_by == ["safety_llm", "criteria_llm", "options_llm", "rag_llm", "difficulty_panel"]
                      and {"safety_terms", "criteria_rules"} <= set(i.verified_by) for i in qa)
    verification = result["report"]["verification"]
    checks = verification["checks"]
    assert all(checks[name]["verdicts"] == 0 and checks[name]["checked"] > 0 for name in llm_checks)
    assert checks["safety_llm"]["failures"] == {"http_429": checks["safety_llm"]["checked"]}
    assert checks["safety_llm"]["dropped_unverified"] == len(simpleqa)
    assert set(checks["criteria_llm"]["failures"]) == {"empty_reply"}
    assert set(checks["rag_llm"]["failures"]) == {"malformed_json", "timeout"}
    assert set(checks["options_llm"]["failures"]) == {"malformed_json"}
    assert checks["difficulty_panel"]["failures"] == {"empty_reply": len(qa)}
    assert not llm_checks & set(verification["verifiers_ran"])
    checks_file = [json.loads(line) for line in (tmp_path / "out" / "checks.jsonl").read_text().splitlines()]
    assert {"safety_llm": "http_429"} in [c["unverified"] for c in checks_file]


def test_the_kinds_dropped_without_a_verdict_are_a_setting(kept_pair_shards, pages, tmp_path):
    with ScriptedLLM(failing_verifiers) as llm:
        section = LLMSection(base_url=llm.base_url, model="judge-1", max_retries=0, timeout_s=1.0, concurrency=16)
        result = items_stage(kept_pair_shards, ItemsSettings(kinds=["qa", "simpleqa"]), tmp_path / "out",
                             llm=section, catalog_path=tmp_path / "catalog.duckdb",
                             verify=VerifySettings(search_backend="crawl", drop_unverified=["qa"]))
    items = items_of(result)
    assert {i.decision for i in items if i.kind == "simpleqa" and i.unverified_by} == {"kept"}
    assert {i.reason for i in items if i.kind == "qa" and i.unverified_by} == {"unverified:safety_llm:http_429"}


def test_the_evidence_index_writes_no_debug_line_to_the_terminal():
    """llama-index's BM25 retriever imports bm25s, which sets its own logger to DEBUG and reports each index it
    builds; in a flow, Prefect's console handler would print those lines into the live table."""
    import subprocess
    import sys

    program = """
import logging, sys
logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format="%(name)s %(message)s")
from verifiers.items import EvidenceVerifier
from verifiers.search import Hit
class Search:
    def search(self, query, k):
        return [Hit("https://example.org/a", "苏轼", "苏轼是北宋文学家。", 1.0),
                Hit("https://example.org/b", "眉山", "眉山市位于四川。", 0.5)]
item = type("I", (), {"question": "苏轼是哪个朝代的人？", "answer": "北宋"})()
print(len(EvidenceVerifier(Search(), None, k=1)._ranked(item, Search().search("", 2))))
"""
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.splitlines()[-1] == "1"
    assert "bm25s" not in out.stdout + out.stderr


def _question(item_id, answer, kind="simpleqa", relation="出生日期", head="秦宁鸿"):
    return Item(item_id=item_id, kind=kind, question=f"{head}的{relation}是？", answer=answer, head=head,
                relation=relation, urls=["https://baike.example/item/a"])


class _Web:
    """A search that answers every query with the same pages of three sites."""

    def __init__(self, hits):
        self.hits = hits

    def search(self, query, k):
        from verifiers.search import Hit

        return [Hit(*h, 1.0) for h in self.hits][:k]


def test_a_simpleqa_answer_needs_another_site_and_keeps_its_passage():
    from verifiers.items import EvidenceVerifier

    web = _Web([("https://baike.example/item/a", "秦宁鸿", "秦宁鸿，画家，生于1930年。"),
                ("https://baike.example/item/b", "某画展", "秦宁鸿，画家。"),  # the same site: no second source
                ("https://museum.example/1.html", "秦宁鸿_博物馆", "【简介】秦宁鸿是一位画家。")])
    checks = EvidenceVerifier(web, None, k=5).check([_question("q1", "画家", relation="职业"),
                                                      _question("q2", "1930年")])
    found = checks["q1"]
    assert found.keep and "retrieval_support" in found.verified
    assert found.evidence["sources"] == [{"url": "https://museum.example/1.html", "passage": "【简介】秦宁鸿是一位画家。"}]
    assert found.evidence["urls"] == ["https://baike.example/item/b", "https://museum.example/1.html"]
    alone = checks["q2"]  # 1930年 is on its own page only
    assert not alone.keep and alone.reason == "evidence:single_source"
    kept = EvidenceVerifier(web, None, k=5, min_sources=1).check([_question("q2", "1930年")])["q2"]
    assert kept.keep


def test_sites_that_disagree_on_a_year_make_a_question_disputed():
    from verifiers.items import EvidenceVerifier

    web = _Web([("https://openwiki.example/wiki/a", "秦宁鸿", "秦宁鸿生于1930年。"),
                ("https://news.example/1.html", "关注秦宁鸿", "据介绍，秦宁鸿生于1932年。")])
    check = EvidenceVerifier(web, None, k=5).check([_question("q", "1930年")])["q"]
    assert not check.keep and check.reason == "evidence:disputed"
    assert check.evidence["disputed_by"] == {"url": "https://news.example/1.html", "gives": "1932年"}


def test_the_own_page_is_a_source_only_where_its_text_holds_the_answer_as_written():
    from verifiers.items import EvidenceVerifier

    web = _Web([("https://museum.example/1.html", "黄方翔_博物馆", "黄方翔出生于山西省南鹿市。")])
    question = _question("q", "山西省南鹿市", relation="出生地", head="黄方翔")
    partial = EvidenceVerifier(web, None, k=5).check([question], {"q": "黄方翔，生于南鹿市。"})["q"]
    assert not partial.keep and partial.reason == "evidence:single_source"  # its own page says 南鹿市 only
    whole = EvidenceVerifier(web, None, k=5).check([question], {"q": "黄方翔，山西省南鹿市人。"})["q"]
    assert whole.keep


def test_a_page_that_gives_the_answer_for_another_fact_or_entity_is_no_evidence():
    from verifiers.items import EvidenceVerifier

    web = _Web([("https://museum.example/1.html", "陆博鸿_博物馆", "【简介】陆博鸿。陆博鸿的出生地是云南省和乐市。"),
                ("https://gazetteer.example/2.html", "宝和会战", "【概况】宝和会战。宝和会战的所处时代为清朝。领导者为陆博鸿。")])
    died = _question("q1", "和乐市", relation="逝世地", head="陆博鸿")  # the page's 和乐市 is his birthplace
    era = _question("q2", "清朝", relation="所处时代", head="陆博鸿")  # the page's 清朝 is the battle's era
    checks = EvidenceVerifier(web, None, k=5).check([died, era])
    assert [checks[q].reason for q in ("q1", "q2")] == ["evidence:single_source"] * 2
    stated = _Web([("https://museum.example/1.html", "陆博鸿_博物馆", "【简介】陆博鸿。其逝世于和乐市。")])
    assert EvidenceVerifier(stated, None, k=5).check([died])["q1"].keep


def test_a_latin_answer_counts_as_a_whole_token_only():
    from verifiers.items import EvidenceVerifier

    web = _Web([("https://museum.example/1.html", "钙_博物馆", "【简介】钙。钙的外文名为Calcium。")])
    symbol = _question("q", "Ca", relation="元素符号", head="钙")
    assert EvidenceVerifier(web, None, k=5).check([symbol])["q"].reason == "evidence:single_source"
    web = _Web([("https://museum.example/1.html", "钙_博物馆", "【简介】钙。钙的元素符号为Ca。")])
    assert EvidenceVerifier(web, None, k=5).check([symbol])["q"].keep


def test_the_options_judge_marks_an_item_with_a_second_right_option_for_review_first(tmp_path):
    """The scripted judge finds two right options in the 歌德 item, the gold alone in the 李白 one, answers the third
    with malformed JSON: marked, confirmed, and without a verdict; nothing is dropped by it."""
    from schemas.llm import LLMClient, LLMSettings
    from tests.llm_server import ScriptedLLM, raw, reply
    from verifiers.items import OptionsJudge

    def judge(body):
        user = body["messages"][1]["content"]
        if "歌德" in user:
            return reply({"right": ["A", "c"], "reason": "歌德也是诗人"})
        if "李白" in user:
            return reply({"right": ["B"], "reason": "只有诗人"})
        return raw("not json at all")

    jobs = ["作家", "画家", "诗人", "钢琴家", "航海家", "企业家", "律师", "商人", "工程师", "化学家"]
    items = [Item(item_id="g", kind="kgc", question="（歌德，职业，？）", answer="作家", options=jobs, answer_index=0),
             Item(item_id="l", kind="qa", question="李白的职业是什么？", answer="画家", options=jobs, answer_index=1),
             Item(item_id="x", kind="kgc", question="（某人，职业，？）", answer="作家", options=jobs, answer_index=0)]
    with ScriptedLLM(judge) as llm:
        client = LLMClient(LLMSettings(base_url=llm.base_url, model="judge", json_retries=0, max_retries=0),
                           tmp_path / "catalog.duckdb")
        try:
            checks = OptionsJudge(client).check(items)
        finally:
            client.close()
    assert all(c.keep for c in checks.values())
    assert checks["g"].evidence["disagrees"] and checks["g"].evidence["right"] == ["作家", "诗人"]
    assert checks["g"].verified == ["options_llm"] and "disagrees" not in checks["l"].evidence
    assert "options_llm" in checks["x"].unverified and not checks["x"].verified
    assert OptionsJudge(None).check(items) == {}  # no LLM: it does not run


def test_the_card_says_when_the_options_judge_did_not_run():
    from warehouse.release import _verification_lines

    offline = "\n".join(_verification_lines({"checks": {"criteria_rules": {"checked": 3, "verdicts": 3}}}))
    assert "The options judge did not run" in offline
    judged = _verification_lines({"checks": {"options_llm": {"checked": 4, "verdicts": 4}}, "options": {"disagrees": 1}})
    assert any("found a second right option, or not the gold, in 1 of 4" in line for line in judged)
