"""LLM replies and search results cached in the catalog, so a rerun pays for nothing twice.

DuckDB lets one process write the catalog at a time, so a cache never keeps it open:

* lookups read the catalog in batches (:meth:`CatalogCache.prefetch`, one read for a
  whole batch of requests) or, for a key not prefetched, one read each;
* each new entry is appended to this process's journal file the moment it arrives
  (a killed process loses nothing it received) and kept in memory; entries that
  arrive together (a batch of search results) go in one append;
* the journal is folded into the catalog in one transaction every ``flush_every``
  entries or ``flush_s`` seconds and at :meth:`CatalogCache.close`, then deleted;
* a journal whose process is gone (killed) is folded by the next cache that opens
  the same table, before its first lookup.

Another process's entries become visible when that process folds its journal; until
then they are misses here, never half-written rows.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from schemas.storage.catalog import Catalog, CatalogError, process_alive


@dataclass(frozen=True)
class CacheTable:
    name: str
    key: tuple[str, ...]
    values: tuple[str, ...]
    legacy: str  # the file this cache lived in before it moved into the catalog


LLM_CACHE = CacheTable("llm_cache", ("key",), ("model", "stage", "content", "prompt_tokens", "completion_tokens"),
                       "warehouse/llm_cache.duckdb")
SEARCH_CACHE = CacheTable("search_cache", ("backend", "query", "k"), ("hits",), "warehouse/search_cache.duckdb")


def journal_dir(catalog_path: Path) -> Path:
    return Path(catalog_path).with_name(Path(catalog_path).name + ".journal")


class CatalogCache:
    def __init__(self, catalog_path: Path | str, table: CacheTable, flush_every: int = 256, flush_s: float = 5.0):
        self.catalog = Catalog(catalog_path)
        self.table = table
        self.flush_every, self.flush_s = flush_every, flush_s
        self._lock = threading.Lock()
        self._flush_lock = threading.Lock()  # one fold at a time
        self._pending: dict[tuple, tuple] = {}  # written to the journal, not yet folded
        self._folding: dict[tuple, tuple] = {}  # being folded now
        self._known: dict[tuple, tuple | None] = {}  # the last prefetch's answers (None: a miss)
        self._journal = None
        self._journal_path: Path | None = None
        self._folded_journals: list[Path] = []  # journals whose entries went back to _pending after a failed fold
        self._last_flush = time.monotonic()
        self.journals = journal_dir(catalog_path)
        self._import_legacy(Path(catalog_path).parent)
        self._recover()

    def _import_legacy(self, data_dir: Path) -> None:
        legacy = data_dir / self.table.legacy
        if not legacy.exists():
            return
        try:
            self.catalog.import_cache(self.table.name, (*self.table.key, *self.table.values), legacy)
            legacy.rename(legacy.with_name(legacy.name + ".imported"))
        except (CatalogError, FileNotFoundError):
            if legacy.exists():  # else another process imported it first
                raise

    def _recover(self) -> None:
        """Fold the journals of processes that died before folding them."""
        for path in sorted(self.journals.glob(f"{self.table.name}-*.jsonl")):
            pid = path.name[len(self.table.name) + 1:].split("-", 1)[0]
            if not pid.isdigit() or process_alive(int(pid)):
                continue
            rows = {}
            with open(path, encoding="utf-8") as handle:
                for line in handle:
                    try:
                        key, values = json.loads(line)
                    except (ValueError, TypeError):
                        continue  # the line the process was writing when it died
                    rows[tuple(key)] = tuple(values)
            self.catalog.cache_put(self.table.name, self.table.key, self.table.values, rows)
            path.unlink(missing_ok=True)

    def prefetch(self, keys) -> None:
        """Read the catalog's entries for these keys at once; later :meth:`get` calls for them
        cost no catalog read. Replaces the previous prefetch's answers."""
        with self._lock:
            wanted = list({tuple(k) for k in keys} - self._pending.keys() - self._folding.keys())
        found = self.catalog.cache_get(self.table.name, self.table.key, self.table.values, wanted)
        with self._lock:
            self._known = {k: found.get(k) for k in wanted}

    def get(self, key: tuple) -> tuple | None:
        key = tuple(key)
        with self._lock:
            for source in (self._pending, self._folding, self._known):
                if key in source:
                    return source[key]
        found = self.catalog.cache_get(self.table.name, self.table.key, self.table.values, [key])
        return found.get(key)

    def put(self, key: tuple, values: tuple) -> None:
        self.put_many({key: values})

    def put_many(self, rows: dict) -> None:
        """put() for ``{key: values}`` received together: one journal append (and one push to the kernel)
        for them all, then in memory. Killed mid-append, the journal holds whole lines of them and the line
        being written, which the next cache skips."""
        rows = {tuple(k): tuple(v) for k, v in rows.items()}
        if not rows:
            return
        lines = "".join(json.dumps([key, values], ensure_ascii=False) + "\n" for key, values in rows.items())
        with self._lock:
            if self._journal is None:
                self.journals.mkdir(parents=True, exist_ok=True)
                self._journal_path = self.journals / f"{self.table.name}-{os.getpid()}-{uuid.uuid4().hex[:12]}.jsonl"
                self._journal = open(self._journal_path, "a", encoding="utf-8")
            self._journal.write(lines)
            self._journal.flush()  # in the kernel now: a killed process does not lose it
            self._pending.update(rows)
            for key in rows:
                self._known.pop(key, None)
            due = len(self._pending) >= self.flush_every or time.monotonic() - self._last_flush >= self.flush_s
        if due:
            self.flush()

    def flush(self) -> None:
        """Fold this process's new entries into the catalog."""
        with self._flush_lock:
            self._flush()

    def _flush(self) -> None:
        with self._lock:
            if not self._pending:
                return
            rows, self._pending = self._pending, {}
            self._folding.update(rows)
            journal, path = self._journal, self._journal_path
            self._journal = self._journal_path = None
            self._last_flush = time.monotonic()
        if journal is not None:
            journal.close()
        try:
            self.catalog.cache_put(self.table.name, self.table.key, self.table.values, rows)
        except BaseException:
            with self._lock:  # keep them for the next flush; their journal stays until then
                self._pending = {**rows, **self._pending}
                self._folded_journals += [path] if path else []
                for key in rows:
                    self._folding.pop(key, None)
            raise
        with self._lock:
            done, self._folded_journals = [*([path] if path else []), *self._folded_journals], []
            for key in rows:
                self._folding.pop(key, None)
        for spent in done:
            spent.unlink(missing_ok=True)

    def close(self) -> None:
        self.flush()
