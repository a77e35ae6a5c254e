"""`zhbench run` with an LLM endpoint (the scripted server): failed verifier calls verify nothing and the
card says so; a budget stops the run cleanly before it is passed, and the rerun pays nothing twice."""

from __future__ import annotations

import json
import re

import pyarrow.parquet as pq
import pytest

from bench.localhost import free_port
from tests.builders.test_llm_items import script as writer_script
from tests.flows.test_cli import zhbench
from tests.llm_server import ScriptedLLM, delay, reply
from tests.verifiers.test_item_checks import failing_verifiers

LLM_CHECKS = {"safety_llm", "criteria_llm", "options_llm", "rag_llm", "difficulty_panel"}


def llm_env(base_url: str, **settings: str) -> dict:
    return {"ZHBENCH_LLM__BASE_URL": base_url, "ZHBENCH_LLM__MODEL": "judge-1", "ZHBENCH_LLM__CONCURRENCY": "16",
            **{f"ZHBENCH_LLM__{k.upper()}": v for k, v in settings.items()}}


def rows(release, config):
    found = []
    for split in ("train", "eval"):
        path = release / config / f"{split}.parquet"
        found += pq.read_table(path).to_pylist() if path.is_file() else []
    return found


@pytest.mark.slow  # a run of its own (LLM settings): minutes, as each of this module's tests
def test_a_run_whose_verifier_calls_all_fail_claims_no_llm_check_and_the_card_counts_the_failures(tmp_path):
    """Items are written by the model, then every moderation (429), criteria ({"choices": []}, null content),
    judge (malformed JSON, timeouts) and panel (empty content) call fails."""
    with ScriptedLLM(failing_verifiers) as llm:
        env = {**llm_env(llm.base_url, max_retries="1", timeout_s="1"),
               "ZHBENCH_VERIFY__PANEL": json.dumps([{"base_url": llm.base_url, "model": "panel-a"}])}
        result = zhbench("run", "--data-dir", str(tmp_path / "data"), "--mirror-port", str(free_port()),
                         cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    release = tmp_path / "data" / "releases" / "cdtp" / "0.1.0"
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    items = manifest["counts"]["items"]
    assert items["llm"]["simpleqa_writer"]["kept"] > 0  # there were SimpleQA items to verify
    # every item the writer kept is dropped: by the criteria rules it is built under, else for want of a verdict
    ruled = sum(n for reason, n in items["items_dropped"].items() if reason.startswith("simpleqa:criteria:"))
    assert items["items_dropped"]["simpleqa:unverified:safety_llm:http_429"] + ruled == \
        items["llm"]["simpleqa_writer"]["kept"]
    assert rows(release, "simpleqa") == []
    qa = rows(release, "qa")
    assert qa and all(not LLM_CHECKS & set(r["verified_by"]) for r in qa)
    assert all({"safety_llm", "criteria_llm", "rag_llm", "difficulty_panel"} <= set(r["unverified_by"]) for r in qa)
    assert all(not LLM_CHECKS & set(r["verified_by"]) for config in ("kgc", "t2t", "cloze")
               for r in rows(release, config))
    checks = items["verification"]["checks"]
    assert all(checks[name]["verdicts"] == 0 for name in LLM_CHECKS)

    card = (release / "README.md").read_text(encoding="utf-8")
    moderated = checks["safety_llm"]["checked"]
    assert (f"`safety_llm` (LLM moderation prompt): {moderated} checked, 0 verdicts, {moderated} without a verdict "
            f"(http_429 {moderated})") in card
    assert re.search(r"`criteria_llm` \([^)]*\): \d+ checked, 0 verdicts, \d+ without a verdict \(empty_reply \d+\)",
                     card)
    assert re.search(r"`rag_llm` \([^)]*\): \d+ checked, 0 verdicts, \d+ without a verdict "
                     r"\(malformed_json \d+, timeout \d+\)", card)
    assert card.count("No call returned a verdict: this check judged no item.") == 5
    assert "The options judge did not run" in card
    assert "No LLM returned a verdict on any item" in card
    assert "were dropped from simpleqa (reason `unverified:<check>:<error>`)" in card
    assert "`criteria_rules` (the criteria rules of `builders/criteria.py`, applied when each item was made: " \
           "deterministic, no LLM)" in card


def dime_a_call(body):
    """The writer's replies, each costing exactly $0.10 (1,000 output tokens at $100 per million): its bound too
    (more than any reply's tokens counted by the client, so the reported usage is what is charged)."""
    answer = writer_script(body)
    return delay(0.05, reply(answer.content, prompt_tokens=10, completion_tokens=1000))


@pytest.mark.slow  # two runs of their own (an LLM budget)
def test_a_budget_stops_the_run_cleanly_before_it_is_passed_and_the_rerun_pays_nothing_twice(tmp_path):
    port = str(free_port())
    with ScriptedLLM(dime_a_call) as llm:
        env = llm_env(llm.base_url, budget_usd="0.5", usd_per_million_output="100", max_output_tokens="1000")
        first = zhbench("run", "--data-dir", str(tmp_path / "data"), "--mirror-port", port, cwd=tmp_path, env=env)
        assert first.returncode == 1 and "Traceback" not in first.stderr
        # The stage lines of the progress display, then one error line, the last.
        lines = first.stderr.strip().splitlines()
        assert [line for line in lines if "error" in line] == lines[-1:], first.stderr[-3000:]
        assert lines[-1].startswith("zhbench: error: LLM budget reached: $0.5000 of llm.budget_usd $0.50 spent on "
                                   "5 requests")
        assert "rerun to go on (cached replies cost nothing), or raise llm.budget_usd" in lines[-1]
        assert len(llm.requests) == 5  # $0.50 at $0.10 a call, 16 threads notwithstanding
        assert not (tmp_path / "data" / "releases").exists()

        again = zhbench("run", "--data-dir", str(tmp_path / "data"), "--mirror-port", port, cwd=tmp_path, env=env)
        assert again.returncode == 1 and "spent on 5 requests" in again.stderr
        sent = [json.dumps(r, sort_keys=True, ensure_ascii=False) for r in llm.requests]
    assert len(sent) == 10 and len(set(sent)) == 10  # the first five replies came from the cache
