"""What the stages after the crawl load on first use, loaded while the crawl runs.

During a crawl the run's own process only waits for the crawler's: the libraries its later stages import (jieba
and its dictionary for the alignment, pypinyin for the items' baselines, Great Expectations for the release
gate, a few seconds in all) are loaded then, on a thread of their own, in the order the stages need them. A
library that fails to load here is left to the stage that needs it, which says what is wrong."""

from __future__ import annotations

import atexit
import threading

_lock = threading.Lock()
_thread: threading.Thread | None = None
_stop = threading.Event()


def _jieba() -> None:
    from filters.text import tagger

    tagger()  # jieba's dictionary and its part-of-speech tagger


def _datasketch() -> None:
    import datasketch  # noqa: F401


def _pypinyin() -> None:
    import pypinyin  # noqa: F401


def _great_expectations() -> None:
    import great_expectations  # noqa: F401


STEPS = (_jieba, _datasketch, _pypinyin, _great_expectations)  # the order the stages use them in


def _load() -> None:
    for step in STEPS:
        if _stop.is_set():
            return
        try:
            step()
        except Exception:  # noqa: BLE001 - the stage that needs it imports it again and reports the error
            pass


def warm_up() -> None:
    """Start loading the later stages' libraries in the background, once per process."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_load, name="zhbench-warm-up", daemon=True)
            _thread.start()


@atexit.register
def _finish() -> None:
    """At exit, the step under way ends before the interpreter does (an import cut off mid-way can fail the
    exit); the steps after it are skipped."""
    _stop.set()
    if _thread is not None:
        _thread.join(timeout=30)
