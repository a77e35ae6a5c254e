"""The warehouse catalog: one DuckDB file recording what was fetched, when, and with which content.

DuckDB allows one writing process at a time. Every operation opens the file,
does its work in one transaction and closes it; a process that finds the file
locked waits and tries again, so two zhbench processes can share a data
directory and readers never see half-written state.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterable

import duckdb

from warehouse.shards import duck

SCHEMA = """
CREATE TABLE IF NOT EXISTS fetched_pages (
    canonical_url VARCHAR NOT NULL,
    url VARCHAR,
    crawl VARCHAR NOT NULL,
    page_status VARCHAR,
    http_status INTEGER,
    content_hash VARCHAR,
    record_hash VARCHAR,
    etag VARCHAR,
    last_modified VARCHAR,
    change VARCHAR,
    fetched_at TIMESTAMPTZ,
    PRIMARY KEY (canonical_url, crawl)
);
"""


class CatalogError(RuntimeError):
    """The catalog cannot be opened; the message says why."""


class Catalog:
    def __init__(self, path: Path | str, lock_timeout_s: float = 60.0):
        self.path = Path(path)
        self.lock_timeout_s = lock_timeout_s

    def _run(self, work):
        """Open the catalog, run ``work(con)`` and close; wait out another writer's lock or conflict."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + self.lock_timeout_s
        while True:
            con = None
            try:
                con = duck(str(self.path))
                con.execute(SCHEMA)
                return work(con)
            except (duckdb.IOException, duckdb.TransactionException) as exc:
                busy = isinstance(exc, duckdb.TransactionException) or "lock" in str(exc).lower()
                if not busy or time.monotonic() > deadline:
                    raise CatalogError(f"cannot use the catalog {self.path}: {exc}") from None
                time.sleep(0.1)
            finally:
                if con is not None:
                    con.close()

    def register_fetches(self, crawl: str, entries: Iterable[dict]) -> int:
        """Record a crawl's fetch-log entries (re-registering a crawl replaces its rows)."""
        latest: dict[str, tuple] = {}
        for e in entries:
            # A URL fetched twice in one crawl keeps its last fetch.
            latest[e["canonical_url"]] = (
                e["canonical_url"], e.get("url"), crawl, e["page_status"], e.get("http_status"),
                e.get("content_hash"), e.get("record_hash"), e.get("etag"), e.get("last_modified"),
                e.get("change"), e.get("fetched_at"))

        def work(con):
            con.execute("BEGIN")
            try:
                con.execute("DELETE FROM fetched_pages WHERE crawl = ?", [crawl])
                if latest:
                    con.executemany("INSERT INTO fetched_pages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                    list(latest.values()))
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise

        self._run(work)
        return len(latest)

    def latest(self) -> dict[str, dict]:
        """Per canonical URL, its most recent fetch that had content (304s carry the earlier one's)."""
        rows = self._run(lambda con: con.execute("""
                SELECT canonical_url, url, page_status, content_hash, record_hash, etag, last_modified,
                       fetched_at
                FROM fetched_pages
                WHERE page_status IN ('ok', 'disambiguation', 'unchanged')
                QUALIFY row_number() OVER (PARTITION BY canonical_url ORDER BY fetched_at DESC, crawl DESC) = 1
                ORDER BY canonical_url
            """).fetchall())
        names = ("url", "page_status", "content_hash", "record_hash", "etag", "last_modified", "fetched_at")
        return {r[0]: dict(zip(names, r[1:], strict=True)) for r in rows}

    def due(self, older_than: timedelta, now: datetime | None = None) -> dict[str, dict]:
        """Known pages whose latest fetch is older than ``older_than``: a recrawl asks for these."""
        now = now or datetime.now(timezone.utc)
        return {url: info for url, info in self.latest().items() if now - info["fetched_at"] >= older_than}
