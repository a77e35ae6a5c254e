"""The live stage display of zhbench run: plain lines without a terminal, a rich table on one."""

from __future__ import annotations

import io
import os

import pytest
from rich.console import Console

from flows import progress
from flows.display import PLAIN_EVERY_S, StageDisplay


def feed(display: StageDisplay, t0: float = 1000.0) -> None:
    """A small run's events, with times chosen so the rates are round."""
    events = [
        {"event": "started", "stage": "crawl", "total": 400, "unit": "pages", "time": t0},
        {"event": "advanced", "stage": "crawl", "done": 100, "total": 400, "unit": "pages", "time": t0 + 2},
        {"event": "advanced", "stage": "crawl", "done": 300, "total": 400, "unit": "pages", "time": t0 + 12},
        {"event": "finished", "stage": "crawl", "seconds": 20.0, "in": None, "out": 400, "unit": "pages",
         "cached": False, "time": t0 + 20},
        {"event": "started", "stage": "align", "total": None, "unit": "pairs", "time": t0 + 20},
        {"event": "finished", "stage": "align", "seconds": 0.1, "in": 378, "out": 74, "unit": "pairs",
         "cached": True, "time": t0 + 20.1},
        {"event": "started", "stage": "dedup", "total": 74, "unit": "pairs", "time": t0 + 20.1},
        {"event": "finished", "stage": "dedup", "seconds": 2.0, "in": 74, "out": 70, "unit": "pairs",
         "cached": False, "time": t0 + 22.1},
    ]
    for event in events:
        display(event)


def test_without_a_terminal_each_stage_start_and_finish_is_one_plain_line():
    stream = io.StringIO()
    with StageDisplay(stream) as display:
        feed(display)
    assert stream.getvalue().splitlines() == [
        "zhbench: crawl started (400 pages)",
        "zhbench: crawl: 300/400 pages  25.0 pages/s  12 s",  # 10 s after the start: a progress line
        "zhbench: crawl done in 20.0 s: 400 pages, 20.0 pages/s",
        "zhbench: align started",
        "zhbench: align done in 0.1 s: 378 → 74 pairs, cached (from an earlier run)",
        "zhbench: dedup started (74 pairs)",
        "zhbench: dedup done in 2.0 s: 74 → 70 pairs, 37.0 pairs/s",
    ]
    assert "\x1b" not in stream.getvalue()
    assert PLAIN_EVERY_S == 10.0


def test_the_display_records_when_the_first_stage_started_even_when_quiet():
    stream = io.StringIO()
    display = StageDisplay(stream, quiet=True, since=990.0)
    with display:
        feed(display)
    assert stream.getvalue() == ""
    assert display.first_started - 990.0 == 10.0


def test_events_reach_the_display_through_the_progress_bus():
    stream = io.StringIO()
    with StageDisplay(stream) as display, progress.listening(display):
        progress.started("publish", 80, "items")
        progress.finished("publish", 1.5, 80, 80, "items")
    assert stream.getvalue().splitlines() == ["zhbench: publish started (80 items)",
                                              "zhbench: publish done in 1.5 s: 80 → 80 items, 53.3 items/s"]


def test_on_a_terminal_the_table_shows_every_stage_and_stays():
    console = Console(file=io.StringIO(), force_terminal=True, width=100, color_system=None)
    with StageDisplay(console=console) as display:
        assert display.live
        feed(display)
    shown = console.file.getvalue()
    last = shown[shown.rindex("stage"):]  # the table's final state, left on the screen
    assert "start-up" in last
    assert "crawl" in last and "400 pages" in last and "20.0 pages/s" in last
    assert "378 → 74 pairs" in last and "cached" in last
    assert "74 → 70 pairs" in last and "37.0 pairs/s" in last and "✓" in last


def test_a_broken_stream_turns_the_display_off_instead_of_failing_the_run():
    class Broken(io.StringIO):
        def write(self, text):
            raise OSError("stderr closed")

    display = StageDisplay(Broken())
    with progress.listening(display):
        progress.started("crawl", 10, "pages")
        progress.finished("crawl", 1.0, None, 10, "pages")
    assert display.broken
    assert display.first_started is not None


def test_an_odd_event_is_shown_without_an_error():
    stream = io.StringIO()
    display = StageDisplay(stream)
    display({"event": "finished", "stage": "verify", "seconds": None, "time": 5.0})  # no ``started`` before
    display({"event": "advanced", "stage": "crawl", "done": 3, "time": 6.0})
    assert not display.broken
    assert "zhbench: verify done in 0.0 s" in stream.getvalue()


KEYS = ("PREFECT_LOGGING_LEVEL", "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "PREFECT_LOGGING_SERVER_LEVEL",
        "DO_NOT_TRACK", "PREFECT_SERVER_ANALYTICS_ENABLED", "PREFECT_UI_ENABLED",
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS")


@pytest.mark.parametrize("verbose, level, console", [(False, "INFO", "CRITICAL"), (True, "INFO", "INFO")])
def test_with_a_real_server_the_run_logs_there_and_the_terminal_stays_quiet(monkeypatch, verbose, level, console):
    """A real Prefect server keeps each stage's lines in the run's log; the terminal shows the live table and
    no library line below WARNING (no Prefect traceback either, unless --verbose); no telemetry notice."""
    from flows.engine import configure_prefect

    for key in KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # a real server: no temporary one starts
    configure_prefect(verbose=verbose)
    assert os.environ["PREFECT_LOGGING_LEVEL"] == level
    assert os.environ["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] == console
    assert os.environ["DO_NOT_TRACK"] == "1" and "PREFECT_LOGGING_SERVER_LEVEL" not in os.environ
