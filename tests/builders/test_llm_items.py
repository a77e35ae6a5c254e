"""Item writing through an LLM endpoint (a scripted OpenAI-compatible server): rewrites, SimpleQA with
critique rounds, the rule checks that still apply, and a rerun that makes no new call."""

from __future__ import annotations

import json
import re

from flows.items import items_stage
from flows.settings import ItemsSettings, LLMSection
from schemas import Item, Pair
from tests.llm_server import ScriptedLLM, reply
from schemas.storage.shards import iter_records


def field(text: str, name: str) -> str:
    return re.search(rf"{name}：(.*)", text).group(1).strip()


def script(body: dict) -> object:
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    if system.startswith("你是中文考试题的编辑"):
        head = field(user, "实体")
        return reply({"question": f"请问，{head}的{field(user, '属性')}是什么？"})
    if system.startswith("你为中文事实问答基准出题"):
        entity, text = field(user, "实体"), field(user, "文本")
        second_round = "上一轮的问题" in user
        year = re.search(r"\d{3,4}年", text)
        items = [{"question": f"{entity}目前的地位如何？", "answer": "很高"},  # relative time: the rules drop it
                 {"question": f"{entity}的英文名是什么？", "answer": "Nowhere"}]  # not in the text
        if year:
            items.append({"question": f"{entity}相关的这件事发生在哪一年？{'（重写）' if second_round else ''}",
                          "answer": year.group(0)})
        return reply({"items": items})
    if system.startswith("你是中文事实问答基准的审题人"):
        rewritten = "（重写）" in user
        count = len(re.findall(r"^\d+\. 问：", user, flags=re.M))
        return reply({"reviews": [{"index": k, "ok": rewritten, "problems": [] if rewritten else ["self_contained"]}
                                  for k in range(count)]})
    return reply("{}")


def test_llm_rewrites_qa_and_writes_reviewed_simpleqa_items_and_a_rerun_is_free(kept_pair_shards, tmp_path):
    settings = ItemsSettings(kinds=["qa", "simpleqa"])
    with ScriptedLLM(script) as llm:
        section = LLMSection(base_url=llm.base_url, model="writer-1", concurrency=4)
        first = items_stage(kept_pair_shards, settings, tmp_path / "a", llm=section, catalog_path=tmp_path / "catalog.duckdb")
        calls = len(llm.requests)
        second = items_stage(kept_pair_shards, settings, tmp_path / "b", llm=section, catalog_path=tmp_path / "catalog.duckdb")
        assert len(llm.requests) == calls  # every reply came from the cache
    assert second["report"]["llm"]["stages"]["qa_rewrite"]["calls"] == 0
    assert second["report"]["llm"]["stages"]["qa_rewrite"]["cache_hits"] > 0

    items = [i for i in iter_records(first["shards"], Item) if i.decision == "kept"]
    qa = [i for i in items if i.kind == "qa"]
    rewritten = [i for i in qa if i.question.startswith("请问，")]
    assert len(rewritten) >= 0.8 * len(qa)
    provenance = json.loads(rewritten[0].provenance)
    assert provenance["generator"] == "template+llm_rewrite" and provenance["llm"] == "writer-1"
    assert provenance["template_question"] != rewritten[0].question
    # a rewrite that fails the rules (the answer inside the entity's name: 唐太宗 -> 太宗) keeps the template
    assert all(json.loads(i.provenance)["generator"] == "template" for i in qa if i not in rewritten)

    pairs = {p.pair_id: p for p in iter_records(kept_pair_shards, Pair)}
    simpleqa = [i for i in items if i.kind == "simpleqa"]
    assert simpleqa
    for item in simpleqa:
        assert "（重写）" in item.question  # the first round was rejected by the critique, the second kept
        assert item.answer in pairs[item.source_pair_ids[0]].text
        assert json.loads(item.provenance) | {"rounds": 2} == json.loads(item.provenance)
    counts = first["report"]["llm"]["simpleqa_writer"]
    assert counts["rejected_by_rules"] > 0 and counts["answer_not_in_text"] > 0 and counts["rejected_by_critique"] > 0
    assert [i.to_row() for i in iter_records(first["shards"], Item)] == \
        [i.to_row() for i in iter_records(second["shards"], Item)]
