"""The LLM and search caches held in the catalog: batched reads, journaled writes, kills and
two processes at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import duckdb

from schemas.storage.cache import LLM_CACHE, SEARCH_CACHE, CatalogCache, journal_dir
from schemas.storage.catalog import Catalog

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def entry(n: int) -> tuple[tuple, tuple]:
    return (f"key-{n}",), ("judge", "criteria", f'{{"n": {n}}}', 10 + n, 2)


def test_entries_reach_the_catalog_and_a_later_cache_reads_them(tmp_path):
    path = tmp_path / "catalog.duckdb"
    cache = CatalogCache(path, LLM_CACHE, flush_every=1000)
    for n in range(5):
        cache.put(*entry(n))
    assert cache.get(("key-3",)) == entry(3)[1]  # pending entries answer at once
    assert Catalog(path).cache_sizes()["llm_cache"] == 0  # not folded yet
    cache.close()
    assert Catalog(path).cache_sizes()["llm_cache"] == 5
    assert not list(journal_dir(path).glob("*.jsonl"))  # folded journals are deleted
    again = CatalogCache(path, LLM_CACHE)
    assert again.get(("key-4",)) == entry(4)[1]
    assert again.get(("missing",)) is None


def test_a_batch_of_lookups_is_one_catalog_read(tmp_path, monkeypatch):
    path = tmp_path / "catalog.duckdb"
    with_entries = CatalogCache(path, SEARCH_CACHE)
    for n in range(50):
        with_entries.put(("local", f"q{n}", 10), (f"[{n}]",))
    with_entries.close()
    cache = CatalogCache(path, SEARCH_CACHE)
    reads = []
    original = Catalog.cache_get
    monkeypatch.setattr(Catalog, "cache_get", lambda self, *a: reads.append(a) or original(self, *a))
    cache.prefetch([("local", f"q{n}", 10) for n in range(60)])
    found = [cache.get(("local", f"q{n}", 10)) for n in range(60)]
    assert len(reads) == 1
    assert found[:50] == [(f"[{n}]",) for n in range(50)] and found[50:] == [None] * 10
    assert cache.get(("local", "q1", 5)) is None  # another k is another key, read on its own
    assert len(reads) == 2


def test_flushes_every_n_entries(tmp_path):
    path = tmp_path / "catalog.duckdb"
    cache = CatalogCache(path, LLM_CACHE, flush_every=10)
    for n in range(25):
        cache.put(*entry(n))
    assert Catalog(path).cache_sizes()["llm_cache"] == 20
    cache.close()
    assert Catalog(path).cache_sizes()["llm_cache"] == 25


KILLED = """
import os, signal, sys
from schemas.storage.cache import LLM_CACHE, CatalogCache
cache = CatalogCache(sys.argv[1], LLM_CACHE, flush_every=7)
for n in range(30):
    cache.put((f"key-{n}",), ("judge", "criteria", f"reply {n}", n, 1))
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_process_loses_no_entry(tmp_path):
    path = tmp_path / "catalog.duckdb"
    done = subprocess.run([sys.executable, "-c", KILLED, str(path)], env={**os.environ, "PYTHONPATH": ROOT})
    assert done.returncode == -signal.SIGKILL
    assert Catalog(path).cache_sizes()["llm_cache"] == 28  # four folds of seven before the kill
    (journal,) = journal_dir(path).glob("llm_cache-*.jsonl")
    with open(journal, "a", encoding="utf-8") as handle:
        handle.write('[["key-half"], ["judge", "crit')  # a line cut off by the kill
    cache = CatalogCache(path, LLM_CACHE)  # the next process folds the dead one's journal
    assert Catalog(path).cache_sizes()["llm_cache"] == 30
    assert cache.get(("key-29",)) == ("judge", "criteria", "reply 29", 29, 1)
    assert not journal.exists()


def test_a_live_process_journal_is_left_to_it(tmp_path):
    path = tmp_path / "catalog.duckdb"
    writer = CatalogCache(path, LLM_CACHE, flush_every=1000)
    writer.put(*entry(1))
    CatalogCache(path, LLM_CACHE)  # same process, still running: its journal is not taken
    assert Catalog(path).cache_sizes()["llm_cache"] == 0
    writer.close()
    assert Catalog(path).cache_sizes()["llm_cache"] == 1


WRITER = """
import sys
from schemas.storage.cache import SEARCH_CACHE, CatalogCache
from schemas.storage.catalog import Catalog
cache = CatalogCache(sys.argv[1], SEARCH_CACHE, flush_every=5)
for n in range(60):
    assert cache.get((sys.argv[2], f"q{n}", 10)) is None
    cache.put((sys.argv[2], f"q{n}", 10), (f"[{n}]",))
    assert cache.get((sys.argv[2], f"q{n}", 10)) == (f"[{n}]",)
    if n % 40 == 0:
        Catalog(sys.argv[1]).runs()  # other catalog work in between
cache.close()
"""


def test_two_processes_share_the_catalog(tmp_path):
    path = tmp_path / "catalog.duckdb"
    env = {**os.environ, "PYTHONPATH": ROOT}
    children = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), name], env=env,
                                 stderr=subprocess.PIPE, text=True) for name in ("a", "b")]
    for child in children:
        _, err = child.communicate(timeout=180)
        assert child.returncode == 0, err[-2000:]
    con = duckdb.connect(str(path), read_only=True)
    per_backend = dict(con.execute("SELECT backend, count(*) FROM search_cache GROUP BY 1").fetchall())
    assert per_backend == {"a": 60, "b": 60}
    assert not list(journal_dir(path).glob("*.jsonl"))


def test_a_cache_file_of_an_earlier_version_is_imported(tmp_path):
    legacy = tmp_path / "warehouse" / "llm_cache.duckdb"
    legacy.parent.mkdir()
    con = duckdb.connect(str(legacy))
    con.execute("CREATE TABLE llm_cache (key VARCHAR PRIMARY KEY, model VARCHAR NOT NULL, stage VARCHAR NOT NULL, "
                "content VARCHAR NOT NULL, prompt_tokens INTEGER, completion_tokens INTEGER, "
                "created TIMESTAMP DEFAULT current_timestamp)")
    con.execute("INSERT INTO llm_cache (key, model, stage, content, prompt_tokens, completion_tokens) "
                "VALUES ('old', 'judge', 'criteria', '{}', 5, 1)")
    con.close()
    cache = CatalogCache(tmp_path / "catalog.duckdb", LLM_CACHE)
    assert cache.get(("old",)) == ("judge", "criteria", "{}", 5, 1)
    assert not legacy.exists() and legacy.with_name("llm_cache.duckdb.imported").exists()
