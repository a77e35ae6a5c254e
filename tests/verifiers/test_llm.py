"""The LLM client against a scripted OpenAI-compatible server: caching, retries, bad JSON, budgets, secrets."""

from __future__ import annotations

import pytest

from tests.llm_server import ScriptedLLM, delay, reply, status
from verifiers.llm import BudgetExceeded, LLMClient, LLMSettings, Prompt

MESSAGES = [{"role": "user", "content": "长江的发源地在哪里？请用JSON回答。"}]


def client(llm, tmp_path, **overrides):
    settings = LLMSettings(**{"base_url": llm.base_url, "model": "judge-1", "backoff_base_s": 0.01, "timeout_s": 2,
                              **overrides})
    return LLMClient(settings, tmp_path / "llm.duckdb")


def test_a_reply_is_cached_and_a_rerun_makes_no_call(tmp_path):
    with ScriptedLLM(lambda body: reply({"answer": "唐古拉山脉"})) as llm:
        first = client(llm, tmp_path)
        assert first.complete_json("criteria", MESSAGES).data == {"answer": "唐古拉山脉"}
        first.close()
        again = client(llm, tmp_path)  # a new process would open the same cache file
        result = again.complete_json("criteria", MESSAGES)
        assert result.cached and result.data == {"answer": "唐古拉山脉"}
        assert len(llm.requests) == 1
        assert again.report()["stages"]["criteria"]["cache_hits"] == 1


def test_429_and_500_are_retried_with_the_servers_retry_after(tmp_path):
    slept = []
    script = [status(429, retry_after=0.05), status(503), reply({"ok": True})]
    with ScriptedLLM(lambda body, n: script[n]) as llm:
        settings = LLMSettings(base_url=llm.base_url, model="m", backoff_base_s=0.01)
        result = LLMClient(settings, tmp_path / "c.duckdb", sleep=slept.append).complete_json("s", MESSAGES)
    assert result.data == {"ok": True} and result.attempts == 3
    assert slept[0] == 0.05 and 0.01 <= slept[1] <= 0.03  # 0.01 s * 2 ** 1, jittered by 0.5-1.5


def test_a_timeout_is_retried_then_recorded_as_a_failure(tmp_path):
    with ScriptedLLM(lambda body: delay(1.5, reply({"ok": True}))) as llm:
        c = client(llm, tmp_path, max_retries=1, timeout_s=0.3)
        result = c.complete_json("s", MESSAGES)
    assert (result.ok, result.error, result.attempts) == (False, "timeout", 2)
    assert c.report()["stages"]["s"]["failures"] == 1


def test_malformed_json_is_asked_again_and_never_passed_as_a_verdict(tmp_path):
    script = ["这不是JSON", "```json\n{\"verdict\": \"supported\"}\n```"]
    with ScriptedLLM(lambda body, n: reply(script[min(n, 1)])) as llm:
        assert client(llm, tmp_path).complete_json("rag", MESSAGES).data == {"verdict": "supported"}
    with ScriptedLLM(lambda body: reply("{broken")) as llm:
        c = client(llm, tmp_path / "2", json_retries=1)
        result = c.complete_json("rag", MESSAGES)
        assert (result.data, result.error) == (None, "malformed_json") and len(llm.requests) == 2
        # a failure is not cached: the next run asks again
        assert not c.complete_json("rag", MESSAGES).cached


def test_a_reply_that_fails_validation_is_retried_then_a_failure(tmp_path):
    with ScriptedLLM(lambda body: reply({"verdict": "maybe"})) as llm:
        c = client(llm, tmp_path, json_retries=1)
        check = lambda d: "" if d.get("verdict") in ("yes", "no") else "verdict must be yes or no"  # noqa: E731
        result = c.complete_json("criteria", MESSAGES, check)
    assert result.error == "invalid: verdict must be yes or no"


def test_client_errors_are_not_retried(tmp_path):
    with ScriptedLLM(lambda body: status(401)) as llm:
        result = client(llm, tmp_path).complete_json("s", MESSAGES)
        assert (result.error, len(llm.requests)) == ("http_401", 1)


def test_budget_stops_spending_with_a_clear_message(tmp_path):
    with ScriptedLLM(lambda body: reply({"ok": True}, prompt_tokens=1_000_000, completion_tokens=0)) as llm:
        c = client(llm, tmp_path, budget_usd=1.0, usd_per_million_input=0.6)
        assert c.complete_json("s", [{"role": "user", "content": "一"}]).ok
        assert c.complete_json("s", [{"role": "user", "content": "二"}]).ok  # $0.60 spent: under the cap
        with pytest.raises(BudgetExceeded, match=r"\$1.00 reached \(\$1.2000 spent\)"):
            c.complete_json("s", [{"role": "user", "content": "三"}])
        assert len(llm.requests) == 2


def test_map_runs_concurrently_in_order_and_the_key_stays_secret(tmp_path, monkeypatch):
    monkeypatch.setenv("ZHBENCH_TEST_KEY", "sk-secret-value")
    with ScriptedLLM(lambda body: delay(0.2, reply({"echo": body["messages"][0]["content"]}))) as llm:
        c = client(llm, tmp_path, api_key_env="ZHBENCH_TEST_KEY", concurrency=8)
        requests = [[{"role": "user", "content": str(i)}] for i in range(8)]
        results = c.map("s", requests)
        assert llm.max_in_flight > 1  # the requests overlapped
        auth = {h.get("Authorization") or h.get("authorization") for h in llm.headers}
    assert [r.data["echo"] for r in results] == [str(i) for i in range(8)]
    assert auth == {"Bearer sk-secret-value"}
    stored = (tmp_path / "llm.duckdb").read_bytes()
    assert b"sk-secret-value" not in stored and "sk-secret-value" not in str(c.report())


def test_prompt_files_split_system_and_user(tmp_path):
    path = tmp_path / "judge.txt"
    path.write_text("你是评审。\n---user---\n问题：{question}\n答案：{answer}\n", encoding="utf-8")
    prompt = Prompt.load(path)
    assert prompt.messages(question="长江有多长？", answer="6300余千米")[1]["content"] == "问题：长江有多长？\n答案：6300余千米"


def test_identical_requests_in_one_batch_are_paid_once(tmp_path):
    with ScriptedLLM(lambda body: reply({"ok": True})) as llm:
        results = client(llm, tmp_path, concurrency=4).map("s", [MESSAGES] * 6)
        assert len(llm.requests) == 1 and all(r.data == {"ok": True} for r in results)
