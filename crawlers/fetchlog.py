"""The fetch log: one JSON line per response the crawl kept, written before anything else.

It is the crawl's durable record. Each line is flushed as it is written, so a
crawl killed at any moment (Ctrl-C or kill -9) leaves every completed fetch on
disk; with the raw HTML in :class:`crawlers.rawstore.RawStore` it is enough to
rebuild lost page records and to know where the walk stood.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from schemas import Page

STORED_STATUSES = ("ok", "disambiguation", "not_found", "blocked", "truncated", "unparsable")
# Lines of requests that gave no page record; each carries a ``reason`` ("kind: detail"):
# refused (the host policy or robots.txt), failed (HTTP 5xx after retries, timeout, reset, short
# body, redirect loop or invalid redirect), parse_error (the parser raised; the HTML is stored), dropped (a
# seed never asked for: ``seed_too_long``; the line names the seed, with no URL).
FAILED_STATUSES = ("refused", "failed", "parse_error", "dropped")


def record_hash(page: Page) -> str:
    """A hash of what the page says (title, text, infobox, links), blind to markup and ads."""
    contract = page.contract()
    contract.pop("url")
    return hashlib.sha256(json.dumps(contract, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


class FetchLog:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = None

    def append(self, entry: dict) -> None:
        if self._handle is None:
            self._handle = open(self.path, "a", encoding="utf-8")
        self._handle.write(json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n")
        self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def entries(self) -> Iterator[dict]:
        """Every complete line; a line cut off by a kill is skipped."""
        if not self.path.exists():
            return
        with open(self.path, encoding="utf-8") as handle:
            for line in handle:
                if not line.endswith("\n"):
                    break
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    continue


@dataclass
class ResumeState:
    """Where an interrupted crawl stood, read back from its fetch log."""

    done: set[str] = field(default_factory=set)
    frontier: list[tuple[str, int]] = field(default_factory=list)
    pages_ok: int = 0
    entries: int = 0

    @classmethod
    def read(cls, log: FetchLog) -> "ResumeState":
        state = cls()
        discovered: dict[str, int] = {}
        for entry in log.entries():
            state.entries += 1
            if entry.get("page_status") in FAILED_STATUSES:
                continue  # tried again by a resumed crawl
            state.done.add(entry["canonical_url"])
            state.done.add(entry["request_canonical"])
            if entry.get("page_status") == "ok":
                state.pages_ok += 1
            for url in entry.get("follow", []):
                discovered.setdefault(url, entry.get("depth", 0) + 1)
        state.frontier = [(url, depth) for url, depth in discovered.items() if url not in state.done]
        return state
