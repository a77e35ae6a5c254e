"""The live stage display of ``zhbench run``: a listener for ``flows.progress`` events.

On a terminal it is a rich table that updates in place (and stays when the run ends); without one
(cron, CI, a pipe) it writes one plain line per stage start and finish, and a progress line at most
every ``PLAIN_EVERY_S`` seconds while a stage advances. It writes to stderr, so stdout keeps only the
run summary. Showing progress never stops a run: an error inside the display turns the display off.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from typing import TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

# A crawl can advance for many minutes; a log gets a line this often, not one per page.
PLAIN_EVERY_S = 10.0


@dataclass
class StageRow:
    """One stage as the display knows it so far."""

    stage: str
    began: float  # time.monotonic() of its ``started`` event
    unit: str = ""
    total: int | None = None
    done: int | None = None
    seconds: float | None = None  # set by ``finished``
    records_in: int | None = None
    records_out: int | None = None
    cached: bool = False
    last_line: float = 0.0  # when plain mode last wrote a progress line for it

    @property
    def finished(self) -> bool:
        return self.seconds is not None

    def elapsed(self, now: float) -> float:
        return self.seconds if self.seconds is not None else max(0.0, now - self.began)

    def counts(self) -> str:
        """``378 → 14 pairs`` when done, ``120/400 pages`` while running; "" when nothing is known."""
        unit = f" {self.unit}" if self.unit else ""
        if self.finished:
            if self.records_in is None and self.records_out is None:
                return ""
            if self.records_in is None:
                return f"{self.records_out}{unit}"
            out = "–" if self.records_out is None else self.records_out
            return f"{self.records_in} → {out}{unit}"
        if self.done is not None:
            return f"{self.done}/{self.total}{unit}" if self.total is not None else f"{self.done}{unit}"
        return f"{self.total}{unit}" if self.total is not None else ""

    def rate(self, now: float) -> str:
        """Units per second: of what it read when finished (of what it wrote when the input is unknown)."""
        if self.cached:
            return ""
        if self.finished:
            count = self.records_in if self.records_in is not None else self.records_out
        else:
            count = self.done
        seconds = self.elapsed(now)
        if count is None or seconds <= 0:
            return ""
        return f"{count / seconds:.1f} {self.unit or 'records'}/s"


class StageDisplay:
    """Shows the stages of a run as their events arrive; use as ``with StageDisplay() as d, listening(d)``.

    stream: where to write (default stderr); a live table when it is a terminal, plain lines otherwise.
    console: a rich Console to draw on instead of ``stream`` (tests pass one with ``force_terminal``).
    quiet: show nothing, only record the events (``zhbench run --quiet``; ``first_started`` still works).
    since: ``time.monotonic()`` when the command began, for the start-up row (default: when the display opens).
    """

    def __init__(self, stream: TextIO | None = None, *, console: Console | None = None, quiet: bool = False,
                 since: float | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.rows: dict[str, StageRow] = {}
        self.first_started: float | None = None  # time.monotonic() of the first ``started`` event
        self.since = since
        self.opened = since if since is not None else time.monotonic()
        self._lock = threading.RLock()
        self._live: Live | None = None
        self.broken = False
        if console is None and not quiet and _is_terminal(self.stream):
            console = Console(file=self.stream)
        self.console = console if console is not None and console.is_terminal and not console.is_dumb_terminal \
            else None

    @property
    def live(self) -> bool:
        return self.console is not None and not self.quiet and not self.broken

    def __enter__(self) -> "StageDisplay":
        if self.since is None:
            self.opened = time.monotonic()
        if self.live:
            self._guarded(self._start_live)
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Stop the live table, leaving its last state on the screen."""
        with self._lock:
            live, self._live = self._live, None
        if live is not None:
            try:
                live.refresh()
                live.stop()
            except Exception:
                pass

    def __call__(self, event: dict) -> None:
        self._guarded(self._handle, event)

    # --- events ---------------------------------------------------------------------------

    def _handle(self, event: dict) -> None:
        kind, stage = event.get("event"), event.get("stage") or "?"
        now = event.get("time", time.monotonic())
        with self._lock:
            row = self.rows.get(stage)
            if kind == "started" or row is None:
                if self.first_started is None:
                    self.first_started = now
                row = self.rows[stage] = StageRow(stage, began=now, unit=event.get("unit") or "",
                                                  total=event.get("total"), last_line=now)
                if kind == "started":
                    self._plain(f"{stage} started" + (f" ({row.counts()})" if row.counts() else ""))
            if kind == "advanced":
                row.done, row.unit = event.get("done"), event.get("unit") or row.unit
                if event.get("total") is not None:
                    row.total = event["total"]
                if now - row.last_line >= PLAIN_EVERY_S:
                    row.last_line = now
                    self._plain(f"{stage}: {row.counts()}  {row.rate(now)}  {row.elapsed(now):.0f} s".rstrip())
            elif kind == "finished":
                row.seconds = float(event.get("seconds") or 0.0)
                row.records_in, row.records_out = event.get("in"), event.get("out")
                row.unit = event.get("unit") or row.unit
                row.cached = bool(event.get("cached"))
                self._plain(finished_line(row))
        if self._live is not None:
            self._live.refresh()

    def _plain(self, line: str) -> None:
        if self.quiet or self.console is not None:
            return
        self.stream.write(f"zhbench: {line}\n")
        self.stream.flush()

    # --- the live table -------------------------------------------------------------------

    def _start_live(self) -> None:
        self._live = Live(get_renderable=self._render_safely, console=self.console, refresh_per_second=4,
                          transient=False, redirect_stdout=False, redirect_stderr=True)
        self._live.start()

    def _render_safely(self):
        try:
            return self.render(time.monotonic())
        except Exception:  # the refresh thread must not die with a traceback on the user's screen
            return Text("")

    def render(self, now: float) -> Group:
        table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
        for name, justify in (("stage", "left"), ("", "left"), ("in → out", "right"), ("rate", "right"),
                              ("seconds", "right"), ("", "left")):
            table.add_column(name, justify=justify)
        with self._lock:
            rows = list(self.rows.values())
            first = self.first_started
        # Prefect's start-up can take longer than a small run's stages: say what the wait is.
        startup = (first if first is not None else now) - self.opened
        table.add_row(Text("start-up", style="dim"), _mark(first is not None), "", "",
                      f"{startup:.1f}", Text("Prefect and settings", style="dim"))
        for row in rows:
            table.add_row(row.stage, _mark(row.finished), row.counts(), row.rate(now), f"{row.elapsed(now):.1f}",
                          Text("cached", style="cyan") if row.cached else "")
        return Group(table)

    def _guarded(self, func, *args) -> None:
        if self.broken:
            return
        try:
            func(*args)
        except Exception:
            self.broken = True
            self.close()


def finished_line(row: StageRow) -> str:
    """The plain line for a finished stage: ``align done in 2.1 s: 378 → 14 pairs, 180.0 pairs/s``."""
    parts = [row.counts()]
    if row.cached:
        parts.append("cached (from an earlier run)")
    else:
        parts.append(row.rate(row.began + (row.seconds or 0.0)))
    detail = ", ".join(p for p in parts if p)
    return f"{row.stage} done in {row.seconds:.1f} s" + (f": {detail}" if detail else "")


def _mark(done: bool):
    return Text("✓", style="green") if done else Spinner("dots", style="yellow")


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except Exception:
        return False
