"""The warehouse catalog: one DuckDB file recording what was fetched, the runs, what each stage
wrote (Parquet shards by content hash), the LLM and search caches and the releases published.
(Human review has its own file, review.sqlite: review/store.py says why.)

DuckDB allows one writing process at a time. Every operation opens the file,
does its work in one transaction and closes it; a process that finds the file
locked waits and tries again, so two zhbench processes can share a data
directory and readers never see half-written state. (A run holds the whole data
directory besides, from its start to its end: ``warehouse.lock``.)
"""

from __future__ import annotations

import json
import os
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Iterable

import duckdb
import pyarrow as pa
from packaging.version import InvalidVersion, Version

from schemas.releases import load_manifest
from schemas.storage.shards import duck

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
CREATE TABLE IF NOT EXISTS runs (
    run_id VARCHAR PRIMARY KEY,
    flow_run_id VARCHAR,
    started_at TIMESTAMPTZ,
    finished_at TIMESTAMPTZ,
    status VARCHAR,           -- running | published | nothing_new | blocked | failed | interrupted
    release_name VARCHAR,
    release_version VARCHAR,
    note VARCHAR,
    settings JSON,
    funnel JSON
);
CREATE TABLE IF NOT EXISTS stage_outputs (
    run_id VARCHAR NOT NULL,
    stage VARCHAR NOT NULL,
    path VARCHAR NOT NULL,    -- relative to the data directory
    content_hash VARCHAR,     -- the sha256 prefix in the shard's name
    rows BIGINT,
    bytes BIGINT,
    PRIMARY KEY (run_id, stage, path)
);
CREATE TABLE IF NOT EXISTS releases (
    name VARCHAR NOT NULL,
    version VARCHAR NOT NULL,
    path VARCHAR,
    created_at VARCHAR,
    parent VARCHAR,
    run_id VARCHAR,
    flow_run_id VARCHAR,
    manifest_sha256 VARCHAR,
    files INTEGER,
    rows BIGINT,
    validation_passed BOOLEAN,
    PRIMARY KEY (name, version)
);
-- Columns added after the first catalogs were written: earlier rows are published releases.
ALTER TABLE releases ADD COLUMN IF NOT EXISTS state VARCHAR DEFAULT 'published';  -- pending | published
ALTER TABLE releases ADD COLUMN IF NOT EXISTS published_at TIMESTAMPTZ;
-- What the release owes the review queue (review.queue.review_plan; NULL: nothing), and when it was queued: the
-- queue is part of the release's commit, so a release published but not yet queued is queued at the next start.
ALTER TABLE releases ADD COLUMN IF NOT EXISTS review_plan JSON;
ALTER TABLE releases ADD COLUMN IF NOT EXISTS review_queued_at TIMESTAMPTZ;
CREATE TABLE IF NOT EXISTS llm_cache (
    key VARCHAR PRIMARY KEY,  -- sha256 of model, messages, temperature and JSON mode
    model VARCHAR NOT NULL,
    stage VARCHAR NOT NULL,
    content VARCHAR NOT NULL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    created TIMESTAMP DEFAULT current_timestamp
);
CREATE TABLE IF NOT EXISTS search_cache (
    backend VARCHAR NOT NULL,
    query VARCHAR NOT NULL,
    k INTEGER NOT NULL,
    hits VARCHAR NOT NULL,    -- JSON list of {url, title, text, score}
    created TIMESTAMP DEFAULT current_timestamp,
    PRIMARY KEY (backend, query, k)
);
"""


FETCH_COLUMNS = ("canonical_url", "url", "crawl", "page_status", "http_status", "content_hash", "record_hash",
                 "etag", "last_modified", "change", "fetched_at")


def _fetch_table(rows: list[tuple]) -> pa.Table:
    """Rows of fetched_pages as one Arrow table, to insert in one statement: DuckDB's executemany binds and
    runs an INSERT row by row, about a millisecond a row (10 s to register a crawl of 10k pages). Text
    columns are sent as text and cast by the INSERT, as bound parameters were (fetched_at to TIMESTAMPTZ)."""
    arrays = []
    for name, values in zip(FETCH_COLUMNS, zip(*rows), strict=True):
        if name == "http_status":
            arrays.append(pa.array(values, type=pa.int64()))
        else:
            arrays.append(pa.array([None if v is None else str(v) for v in values], type=pa.string()))
    return pa.table(arrays, names=list(FETCH_COLUMNS))


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
                # Busy: another writer holds the file, or another process is creating it this moment and its
                # header is not all written yet ("Could not read enough bytes"); a file that stays short is
                # reported when the wait runs out.
                message = str(exc).lower()
                busy = isinstance(exc, duckdb.TransactionException) or "lock" in message \
                    or "could not read enough bytes" in message
                if not busy or time.monotonic() > deadline:
                    raise CatalogError(f"cannot use the catalog {self.path}: {exc}") from None
                time.sleep(0.1)
            finally:
                if con is not None:
                    con.close()

    def transaction(self, work):
        """``work(con)`` in one transaction: committed when it returns, rolled back when it raises."""
        def wrapped(con):
            con.execute("BEGIN")
            try:
                result = work(con)
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")
            return result

        return self._run(wrapped)

    def register_fetches(self, crawl: str, entries: Iterable[dict]) -> int:
        """Record a crawl's fetch-log entries (re-registering a crawl replaces its rows)."""
        latest: dict[str, tuple] = {}
        for e in entries:
            # A URL fetched twice in one crawl keeps its last fetch.
            latest[e["canonical_url"]] = (
                e["canonical_url"], e.get("url"), crawl, e["page_status"], e.get("http_status"),
                e.get("content_hash"), e.get("record_hash"), e.get("etag"), e.get("last_modified"),
                e.get("change"), e.get("fetched_at"))

        table = _fetch_table(list(latest.values())) if latest else None

        def work(con):
            con.execute("DELETE FROM fetched_pages WHERE crawl = ?", [crawl])
            if table is not None:
                con.register("zhbench_new_fetches", table)
                try:
                    con.execute(f"INSERT INTO fetched_pages ({', '.join(FETCH_COLUMNS)}) "
                                f"SELECT {', '.join(FETCH_COLUMNS)} FROM zhbench_new_fetches")
                finally:
                    con.unregister("zhbench_new_fetches")

        self.transaction(work)
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

    def record_run(self, run: dict, outputs: dict[str, list[Path]], data_dir: Path) -> None:
        """One run and the shards each stage wrote (re-recording a run replaces its rows)."""
        import pyarrow.parquet as pq

        rows = []
        for stage, paths in outputs.items():
            for path in paths:
                path = Path(path)
                name = path.stem.rsplit("-", 1)
                rows.append((run["run_id"], stage, _relative(path, data_dir), name[1] if len(name) == 2 else None,
                             pq.ParquetFile(path).metadata.num_rows, path.stat().st_size))

        def work(con):
            con.execute("DELETE FROM runs WHERE run_id = ?", [run["run_id"]])
            con.execute("DELETE FROM stage_outputs WHERE run_id = ?", [run["run_id"]])
            con.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
                run["run_id"], run.get("flow_run_id"), run.get("started_at"), run.get("finished_at"),
                run["status"], run.get("release_name"), run.get("release_version"), run.get("note", ""),
                json.dumps(run.get("settings", {}), ensure_ascii=False),
                json.dumps(run.get("funnel", {}), ensure_ascii=False)])
            if rows:
                con.executemany("INSERT INTO stage_outputs VALUES (?, ?, ?, ?, ?, ?)", rows)

        self.transaction(work)

    def start_run(self, run: dict) -> None:
        """Record a run as ``running`` when it starts: one killed before its end stays so until the next
        start in the data directory marks it (``warehouse.release.repair``)."""
        self.record_run({**run, "status": "running"}, {}, Path("."))

    def set_run_status(self, run_id: str, status: str, note: str, release_version: str | None = None) -> None:
        self.transaction(lambda con: con.execute(
            "UPDATE runs SET status = ?, note = ?, release_version = coalesce(?, release_version) WHERE run_id = ?",
            [status, note, release_version, run_id]))

    def register_release(self, release_dir: Path, run_id: str | None, data_dir: Path,
                         flow_run_id: str | None = None, state: str = "published", final: Path | None = None,
                         review: dict | None = None) -> None:
        """Add a release to the registry (its manifest is the source of truth).

        ``state`` "pending": the release is written at ``release_dir`` (a temporary directory) and about
        to be renamed to ``final``; the publisher sets it "published" after the rename, and the next
        start in the data directory settles a pending row a kill left behind. ``review``: what the release
        owes the review queue (``review.queue.review_plan``), settled by ``set_review_queued``."""
        import hashlib


        if state not in ("pending", "published"):
            raise ValueError(f"state must be pending or published, got {state!r}")
        manifest = load_manifest(release_dir)
        digest = hashlib.sha256((Path(release_dir) / "manifest.json").read_bytes()).hexdigest()
        row = [manifest.name, manifest.version, _relative(Path(final or release_dir), data_dir), manifest.created_at,
               manifest.parent, run_id, flow_run_id or manifest.flow_run_id, digest, len(manifest.files),
               sum(f.rows for f in manifest.files), bool(manifest.validation.get("passed")) if manifest.validation
               else None, state, datetime.now(timezone.utc) if state == "published" else None,
               json.dumps(review, ensure_ascii=False, sort_keys=True) if review is not None else None]

        def work(con):
            con.execute("DELETE FROM releases WHERE name = ? AND version = ?", row[:2])
            con.execute("INSERT INTO releases (name, version, path, created_at, parent, run_id, flow_run_id, "
                        "manifest_sha256, files, rows, validation_passed, state, published_at, review_plan) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)

        self.transaction(work)

    def set_published(self, name: str, version: str) -> None:
        """A pending release was renamed into place."""
        self.transaction(lambda con: con.execute(
            "UPDATE releases SET state = 'published', published_at = ? WHERE name = ? AND version = ?",
            [datetime.now(timezone.utc), name, version]))

    def set_review_queued(self, name: str, version: str) -> None:
        """Every item the release's review plan names is in the review queue."""
        self.transaction(lambda con: con.execute(
            "UPDATE releases SET review_queued_at = ? WHERE name = ? AND version = ?",
            [datetime.now(timezone.utc), name, version]))

    def review_owed(self) -> list[dict]:
        """Published releases whose review plan is not queued yet (their run was killed before it queued them),
        each with its plan as a dict."""
        found = self._dicts("SELECT name, version, path, run_id, review_plan FROM releases WHERE state = 'published' "
                            "AND review_plan IS NOT NULL AND review_queued_at IS NULL")
        return sorted(({**r, "review_plan": json.loads(r["review_plan"])} for r in found),
                      key=lambda r: (r["name"], _version_key(r["version"])))

    def forget_release(self, name: str, version: str) -> None:
        self.transaction(lambda con: con.execute("DELETE FROM releases WHERE name = ? AND version = ?",
                                                 [name, version]))

    def cache_get(self, table: str, key: tuple[str, ...], values: tuple[str, ...], keys: list[tuple]) -> dict:
        """{key tuple: value tuple} for the keys of ``keys`` that ``table`` holds, in one read."""
        import pyarrow as pa

        if not keys:
            return {}
        wanted = pa.table({name: [k[i] for k in keys] for i, name in enumerate(key)})
        on = " AND ".join(f"c.{name} = w.{name}" for name in key)
        columns = ", ".join(f"c.{name}" for name in (*key, *values))

        def work(con):
            con.register("wanted", wanted)
            return con.execute(f"SELECT {columns} FROM {table} c JOIN wanted w ON {on}").fetchall()

        return {tuple(r[:len(key)]): tuple(r[len(key):]) for r in self._run(work)}

    def cache_put(self, table: str, key: tuple[str, ...], values: tuple[str, ...], rows: dict) -> None:
        """Insert or replace ``{key tuple: value tuple}`` in ``table``, all in one transaction."""
        import pyarrow as pa

        if not rows:
            return
        names = (*key, *values)
        incoming = pa.table({name: [(*k, *v)[i] for k, v in rows.items()] for i, name in enumerate(names)})
        columns = ", ".join(names)

        def work(con):
            con.register("incoming", incoming)
            con.execute(f"INSERT OR REPLACE INTO {table} ({columns}) SELECT {columns} FROM incoming")

        self.transaction(work)

    def import_cache(self, table: str, columns: tuple[str, ...], legacy: Path) -> int:
        """Copy the entries of a cache file kept outside the catalog (as earlier versions did) into
        ``table``; entries the catalog already holds win. Returns the number of rows copied."""
        def work(con):
            before = con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
            con.execute("ATTACH '{}' AS legacy (READ_ONLY)".format(str(legacy).replace("'", "''")))
            try:
                names = ", ".join(columns)
                con.execute(f"INSERT OR IGNORE INTO {table} ({names}) SELECT {names} FROM legacy.{table}")
            finally:
                con.execute("DETACH legacy")
            return con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0] - before

        return self._run(work)

    def cache_sizes(self) -> dict[str, int]:
        return self._run(lambda con: {t: con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0]
                                      for t in ("llm_cache", "search_cache")})

    def _dicts(self, query: str, args: list | None = None) -> list[dict]:
        def work(con):
            cursor = con.execute(query, args or [])
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]

        return self._run(work)

    def runs(self, status: str | None = None) -> list[dict]:
        where, args = ("WHERE status = ?", [status]) if status else ("", [])
        return self._dicts("SELECT run_id, flow_run_id, started_at, finished_at, status, release_name, "
                           f"release_version, note FROM runs {where} ORDER BY started_at, run_id", args)

    def funnel(self, run_id: str) -> dict:
        """A run's whole funnel, with what only the run had (its caches' hits and misses)."""
        rows = self._run(lambda con: con.execute("SELECT funnel FROM runs WHERE run_id = ?", [run_id]).fetchall())
        return json.loads(rows[0][0]) if rows and rows[0][0] else {}

    def stage_outputs(self, run_id: str) -> list[dict]:
        return self._dicts("SELECT stage, path, content_hash, rows, bytes FROM stage_outputs WHERE run_id = ? "
                           "ORDER BY stage, path", [run_id])

    def releases(self, name: str | None = None, state: str = "published") -> list[dict]:
        """Releases of ``name`` (default: every name) in ``state``, by name and version number."""
        where, args = "WHERE state = ?", [state]
        if name:
            where, args = where + " AND name = ?", args + [name]
        found = self._dicts(f"SELECT * FROM releases {where}", args)
        return sorted(found, key=lambda r: (r["name"], _version_key(r["version"])))


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _version_key(version: str) -> tuple:
    """Versions in number order (0.10.0 after 0.9.0); anything that is not a version after, by its text."""
    try:
        return (0, Version(version), "")
    except InvalidVersion:
        return (1, None, version)


def _relative(path: Path, data_dir: Path) -> str:
    try:
        return Path(path).resolve().relative_to(Path(data_dir).resolve()).as_posix()
    except ValueError:
        return str(path)
