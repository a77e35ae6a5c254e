"""Stage events of a run, for whoever shows them (the live display of ``zhbench run``, tests).

The flow calls ``started`` when a stage begins and ``finished`` when it ends; a listener registered with
``listening`` receives each event as a dict. Events are sent from the flow's process only (a stage that
runs on a Dask worker is reported by the flow when its result arrives), so a listener never needs a lock
across processes. A listener that raises is dropped: showing progress never stops a run.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Callable, Iterator

Listener = Callable[[dict], None]

_listeners: list[Listener] = []
_guard = threading.Lock()


@contextlib.contextmanager
def listening(listener: Listener) -> Iterator[None]:
    with _guard:
        _listeners.append(listener)
    try:
        yield
    finally:
        with _guard:
            if listener in _listeners:
                _listeners.remove(listener)


def emit(event: dict) -> None:
    event = {"time": time.monotonic(), **event}
    with _guard:
        listeners = list(_listeners)
    for listener in listeners:
        try:
            listener(event)
        except Exception:
            with _guard:
                if listener in _listeners:
                    _listeners.remove(listener)


def started(stage: str, total: int | None = None, unit: str = "") -> None:
    """``stage`` begins; ``total``: how many ``unit`` (pages, pairs, shards) it will read, when known."""
    emit({"event": "started", "stage": stage, "total": total, "unit": unit})


def advanced(stage: str, done: int, total: int | None = None, unit: str = "") -> None:
    """``stage`` has handled ``done`` of ``total`` (a crawl's pages, a mapped stage's shards)."""
    emit({"event": "advanced", "stage": stage, "done": done, "total": total, "unit": unit})


def finished(stage: str, seconds: float, records_in: int | None = None, records_out: int | None = None,
             unit: str = "", cached: bool = False) -> None:
    """``stage`` is done after ``seconds``; ``cached``: its result came from an earlier run."""
    emit({"event": "finished", "stage": stage, "seconds": seconds, "in": records_in, "out": records_out,
          "unit": unit, "cached": cached})
