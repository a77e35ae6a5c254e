"""Killing a run while it pays for LLM calls: the rerun repeats at most the calls in flight at the kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

from tests.llm_server import ScriptedLLM, delay, reply

CHILD = """
import sys
from pathlib import Path
from flows.items import items_stage
from flows.settings import ItemsSettings, LLMSection
shards = [Path(p) for p in sys.argv[3:]]
items_stage(shards, ItemsSettings(kinds=["qa"]), Path(sys.argv[2]) / "out",
            llm=LLMSection(base_url=sys.argv[1], model="judge-1", concurrency=4),
            catalog_path=Path(sys.argv[2]) / "catalog.duckdb")
"""


def test_a_killed_run_loses_no_received_reply_and_repeats_only_calls_in_flight(kept_pair_shards, tmp_path):
    def answer(body):
        question = body["messages"][1]["content"].split("模板问句：")[-1].strip()
        return delay(0.02, reply({"question": question}))

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": root}
    with ScriptedLLM(answer) as llm:
        args = [sys.executable, "-c", CHILD, llm.base_url, str(tmp_path), *map(str, kept_pair_shards)]
        child = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while len(llm.requests) < 60 and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.wait()
        before = len(llm.requests)
        assert before >= 60, "the child never got going"
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        bodies = Counter(json.dumps(r, sort_keys=True, ensure_ascii=False) for r in llm.requests)
    repeated = sum(n - 1 for n in bodies.values())
    assert repeated <= 4  # at most the four calls in flight when the process died
    assert len(llm.requests) > before  # the rerun went on from where the killed run stopped
    assert list((tmp_path / "out" / "items").glob("*.parquet"))
