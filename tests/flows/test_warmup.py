"""Loading the later stages' libraries while the crawl runs (flows/warmup.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.flows.test_cli import ROOT


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_the_warm_up_loads_each_library_once_in_the_background_and_the_stages_find_them_loaded():
    done = _python("""
        import sys
        from flows import warmup
        assert "great_expectations" not in sys.modules and "jieba" not in sys.modules
        warmup.warm_up()
        first = warmup._thread
        warmup.warm_up()  # a second crawl of the run starts nothing more
        assert warmup._thread is first and first.name == "zhbench-warm-up" and first.daemon
        first.join(120)
        import jieba
        assert jieba.dt.initialized
        print(sorted(m for m in ("jieba.posseg", "datasketch", "pypinyin", "great_expectations") if m in sys.modules))
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0].strip() == "['datasketch', 'great_expectations', 'jieba.posseg', 'pypinyin']"
    assert done.stderr == ""


def test_a_process_that_ends_while_it_loads_ends_cleanly_and_a_failing_step_is_left_to_its_stage():
    ended = _python("""
        from flows import warmup

        def broken():
            raise ImportError("no such library")

        warmup.STEPS = (broken, *warmup.STEPS)
        warmup.warm_up()
        print("leaving")
    """)
    assert ended.returncode == 0, ended.stderr
    assert ended.stdout.strip() == "leaving"
    assert ended.stderr == ""
