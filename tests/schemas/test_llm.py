"""The LLM client against a scripted OpenAI-compatible server: caching, retries, bad JSON, budgets, secrets."""

from __future__ import annotations

import json

import pytest

from tests.llm_server import ScriptedLLM, delay, large, raw, reply, status
from schemas.llm import (TOKENS_PER_MESSAGE, TOKENS_PER_REQUEST, BudgetExceeded, LLMClient, LLMSettings, Prompt,
                           cost_bound, count_tokens, prompt_token_bound, prompt_tokens_counted, reply_byte_limit,
                           request_key)

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


def test_replies_without_choices_or_content_are_retried_then_recorded_never_raised(tmp_path):
    answers = {"none": raw({"choices": []}), "null": reply(None), "blank": reply(" "), "body": raw("不是JSON"),
               "nothing": raw("null")}
    with ScriptedLLM(lambda body: answers[body["messages"][0]["content"]]) as llm:
        c = client(llm, tmp_path, json_retries=1, max_retries=1)
        results = c.map("rag", [[{"role": "user", "content": name}] for name in answers])
        errors = {name: r.error for name, r in zip(answers, results)}
        assert errors == {"none": "empty_reply", "null": "empty_reply", "blank": "empty_reply",
                          "body": "bad_response", "nothing": "empty_reply"}
        assert not any(r.ok or r.data is not None for r in results)
        # empty replies are asked again (json_retries), broken bodies retried as transport errors (max_retries)
        assert len(llm.requests) == 4 * 2 + 1 * 2
        assert c.report()["stages"]["rag"]["errors"] == {"bad_response": 1, "empty_reply": 4}
        assert not c.complete_json("rag", [{"role": "user", "content": "none"}]).cached  # failures are not cached


def test_a_reply_cut_at_max_output_tokens_is_truncated_and_every_request_sends_the_limit(tmp_path):
    def cut(body):
        action = reply('{"answer": "唐古拉')
        action.finish_reason = "length"
        return action

    with ScriptedLLM(cut) as llm:
        result = client(llm, tmp_path, json_retries=0, max_output_tokens=7).complete_json("s", MESSAGES)
        assert result.error == "truncated" and llm.requests[0]["max_tokens"] == 7


def test_the_cost_bound_counts_prompt_bytes_and_max_output_tokens():
    settings = LLMSettings(base_url="http://x/v1", model="m", usd_per_million_input=2.0, usd_per_million_output=8.0,
                           max_output_tokens=100)
    messages = [{"role": "system", "content": "你好"}, {"role": "user", "content": "abc"}]
    assert prompt_token_bound(messages) == TOKENS_PER_REQUEST + 2 * TOKENS_PER_MESSAGE + 6 + 3
    assert cost_bound(settings, messages) == pytest.approx((prompt_token_bound(messages) * 2.0 + 100 * 8.0) / 1e6)


def dime_a_call(body):
    """A reply that costs exactly $0.10 at $10,000 per million output tokens: its bound too (10 tokens, more than
    the 6 counted in the reply, so the reported usage is what is charged)."""
    return delay(0.05, reply({"echo": body["messages"][0]["content"]}, prompt_tokens=10, completion_tokens=10))


def test_budget_is_reserved_before_each_request_and_never_exceeded_with_concurrency(tmp_path):
    requests = [[{"role": "user", "content": f"问题{i}"}] for i in range(40)]
    priced = {"budget_usd": 0.5, "usd_per_million_output": 10_000.0, "max_output_tokens": 10, "concurrency": 16}
    with ScriptedLLM(dime_a_call) as llm:
        c = client(llm, tmp_path, **priced)
        with pytest.raises(BudgetExceeded) as stop:
            c.map("qa_rewrite", requests)
        assert len(llm.requests) == 5 and c.spent() <= 0.5 + 1e-9
        assert llm.max_in_flight <= 5
        message = str(stop.value)
        assert "$0.5000 of llm.budget_usd $0.50 spent on 5 requests" in message
        assert "rerun to go on (cached replies cost nothing)" in message and "raise llm.budget_usd" in message
        c.close()
        # A rerun with the same budget: the five replies come from the cache, five more are bought.
        rerun = client(llm, tmp_path, **priced)
        with pytest.raises(BudgetExceeded):
            rerun.map("qa_rewrite", requests)
        assert len(llm.requests) == 10 and rerun.report()["stages"]["qa_rewrite"]["cache_hits"] == 5
        sent = [r["messages"][0]["content"] for r in llm.requests]
        assert len(set(sent)) == 10  # nothing was paid for twice
        rerun.close()
        # With room for all of them, the rest is bought and nothing twice.
        done = client(llm, tmp_path, **{**priced, "budget_usd": 10.0}).map("qa_rewrite", requests)
        assert [r.data["echo"] for r in done] == [f"问题{i}" for i in range(40)] and len(llm.requests) == 40


def test_a_request_whose_cost_is_unknown_stays_at_its_bound(tmp_path):
    with ScriptedLLM(lambda body: delay(1.0, reply({"ok": True}))) as llm:
        c = client(llm, tmp_path, timeout_s=0.2, max_retries=0, usd_per_million_output=20_000.0, max_output_tokens=5)
        assert c.complete_json("s", MESSAGES).error == "timeout"
        assert c.spent() == pytest.approx(0.1)  # it may have been billed
        assert c.report()["stages"]["s"]["usd_unconfirmed"] == pytest.approx(0.1)


def test_tokens_are_counted_here_one_per_cjk_character_and_one_per_four_others():
    assert count_tokens("") == 0
    assert count_tokens("长江") == 2 and count_tokens("，。「」") == 4  # CJK punctuation counts as CJK
    assert count_tokens("Yangtze") == 2 and count_tokens("abcd") == 1  # 7 and 4 other characters, rounded up
    assert count_tokens('{"echo": "问题0"}') == 2 + 4  # 2 ideographs, 13 other characters
    assert prompt_tokens_counted([{"role": "user", "content": "长江"}, {"role": "system", "content": ""}]) == 3 + 4 + 2 + 4


def test_a_server_that_underreports_its_usage_spends_no_more_than_the_budget_and_one_request(tmp_path):
    """It reports one token each way, while each prompt and each reply (longer than max_tokens) holds a hundred:
    charged what it was sent and what it said, it is stopped at the budget, passing it by one request at most."""
    answer = {"answer": "长江发源于青藏高原唐古拉山脉的各拉丹冬峰西南侧，" * 4}
    requests = [[{"role": "user", "content": f"第{i}个问题：长江的发源地在哪里？请详细回答。" * 4}] for i in range(100)]
    priced = {"budget_usd": 0.05, "usd_per_million_input": 5.0, "usd_per_million_output": 15.0,
              "max_output_tokens": 64, "concurrency": 1}
    with ScriptedLLM(lambda body: reply(answer, prompt_tokens=1, completion_tokens=1)) as llm:
        c = client(llm, tmp_path, **priced)
        with pytest.raises(BudgetExceeded):
            c.map("s", requests)
    # What the server was sent and what it said, counted as the client counts, at the settings' prices.
    said = count_tokens(json.dumps(answer, ensure_ascii=False))
    costs = [(prompt_tokens_counted(body["messages"]) * 5.0 + said * 15.0) / 1e6 for body in llm.requests]
    assert said > 64 and 10 < len(costs) < 100  # before, all 100 were sent for $0.002 of reported usage
    assert c.spent() == pytest.approx(sum(costs))
    # Stopped when the next request's bound no longer fitted, never more than one request past the budget.
    next_bound = cost_bound(c.settings, requests[len(costs)])
    assert 0.05 - next_bound < sum(costs) <= 0.05 + max(costs)
    stage = c.report()["stages"]["s"]
    assert stage["underreported"] == stage["calls"] == len(costs)
    assert stage["completion_tokens"] == said * len(costs)


@pytest.mark.parametrize("length", [True, False], ids=["content_length", "read_until_closed"])
def test_a_4_mb_reply_is_refused_as_too_large_without_being_held(tmp_path, length):
    """Refused from its Content-Length before the body is read, or once the body read passes the limit:
    either way never parsed, never cached, not asked again, charged at its bound, and memory stays small."""
    import tracemalloc

    with ScriptedLLM(lambda body: large(4 * 1024 * 1024, length=length)) as llm:
        c = client(llm, tmp_path, usd_per_million_output=1_000.0, max_output_tokens=1024)
        tracemalloc.start()
        try:
            result = c.complete_json("s", MESSAGES)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert (result.ok, result.data, result.error) == (False, None, "reply_too_large")
        assert len(llm.requests) == 1 and peak < 1024 * 1024  # 48 KiB were allowed, a 64 KiB read at most held
        assert c.report()["stages"]["s"]["errors"] == {"reply_too_large": 1}
        assert c.spent() == pytest.approx(cost_bound(c.settings, MESSAGES))
        assert not c.complete_json("s", MESSAGES).cached and len(llm.requests) == 2
    assert reply_byte_limit(1024) == 16 * 1024 + 32 * 1024


def test_a_reply_within_the_size_limit_is_read_whole(tmp_path):
    with ScriptedLLM(lambda body: reply({"answer": "长" * 2000})) as llm:  # 6 KB of JSON-escaped text
        result = client(llm, tmp_path, max_output_tokens=256).complete_json("s", MESSAGES)
    assert result.data == {"answer": "长" * 2000}


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


def test_the_cache_key_holds_the_prompt_version_and_old_entries_simply_miss(tmp_path):
    path = tmp_path / "judge.txt"
    path.write_text("你是评审。\n---user---\n问题：{question}\n", encoding="utf-8")
    first = Prompt.load(path)
    path.write_text("你是评审。\n---user---\n问题：{question}\n\n", encoding="utf-8")  # same messages, new file
    second = Prompt.load(path)
    one, two = first.messages(question="长江有多长？"), second.messages(question="长江有多长？")
    assert one == two and first.version != second.version and first.version.startswith("judge:")
    with ScriptedLLM(lambda body: reply({"ok": True})) as llm:
        c = client(llm, tmp_path)
        # an entry under the key scheme without the prompt version, and one that no longer parses
        c.cache.put((request_key("judge-1", one, 0.0, True),), ("judge-1", "s", '{"ok": false}', 1, 1))
        c.cache.put((request_key("judge-1", two, 0.0, True, second.version),), ("judge-1", "s", "{broken", 1, 1))
        assert c.complete_json("s", one).data == {"ok": True} and len(llm.requests) == 1
        assert c.complete_json("s", two).data == {"ok": True} and len(llm.requests) == 2
        assert c.complete_json("s", one).cached and c.complete_json("s", two).cached
