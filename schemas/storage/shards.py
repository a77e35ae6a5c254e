"""Parquet shards: records written in batches, files named by sequence and content hash.

A shard is first written under a temporary name and renamed once complete, so a
reader never sees half a file and a killed writer leaves only ``.tmp`` debris.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, Sequence, TypeVar

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from schemas.records import Record

R = TypeVar("R", bound=Record)

# Fixed writer options: the same rows give byte-identical files.
WRITE_OPTIONS = dict(compression="zstd", use_dictionary=True, write_statistics=True,
                     data_page_version="2.0", version="2.6")
ALLOCATOR_FLUSH = "4MiB"  # DuckDB flushes its allocator after a task that peaked above this (its default: 128 MiB)


def system_allocator() -> None:
    """Arrow's buffers from the C library's malloc, in this process and (through
    ``ARROW_DEFAULT_MEMORY_POOL``) the processes it starts, unless that variable already names a pool.

    Arrow's default, its bundled mimalloc, keeps what its reader threads freed: after the value typer read
    the shards of a 27k-page crawl, 65 MB more stayed resident than with malloc, and a run's stages each
    read shards (the item stage's peak at 27k pages: 740 MB with mimalloc, 547 with malloc, the same items).
    And malloc gives large blocks back when they are freed (:func:`fixed_mmap_threshold`).
    """
    if not os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
        pa.set_memory_pool(pa.system_memory_pool())
    fixed_mmap_threshold()
    one_arena()


MMAP_THRESHOLD = 1 << 20  # bytes (glibc starts at 128 KiB and moves it; see fixed_mmap_threshold)
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number (malloc.h)


def fixed_mmap_threshold(threshold: int = MMAP_THRESHOLD) -> bool:
    """glibc's malloc keeps serving a block of ``threshold`` bytes or more from a mapping of its own, given
    back to the system when it is freed, in this process and (through ``MALLOC_MMAP_THRESHOLD_``) the
    processes it starts, unless that variable is already set. Returns whether it was set here.

    Left to itself, glibc raises the threshold to the size of each such block freed (up to 32 MiB), so
    later blocks of that size come from the heap, and what they leave there when freed stays with the
    process, in holes too scattered to give back. The item stage on an 84k-page crawl (its value types,
    the graph's query results, Arrow's buffers) held 158-163 MB free in the heap at its build's last batch,
    33 with the threshold at 1 MiB, 13-15 at 128 KiB. Runs of that stage alone, one after the other, the
    same items each time: peak 707-714 MB above its start left to glibc, 646-654 at 1 MiB, 641-649 at
    128 KiB; CPU 105-115 s, 110-116 s and 122-141 s (at 128 KiB each mapping's first touch doubled the
    system time), hence 1 MiB. Nothing is done where the C library is not glibc."""
    if os.environ.get("MALLOC_MMAP_THRESHOLD_") or not sys.platform.startswith("linux"):
        return False
    if not _mallopt(_M_MMAP_THRESHOLD, int(threshold)):
        return False
    os.environ["MALLOC_MMAP_THRESHOLD_"] = _FIXED["MALLOC_MMAP_THRESHOLD_"] = str(int(threshold))
    return True


_M_ARENA_MAX = -8  # mallopt's parameter number (malloc.h)


def _libc(function: str, *args: int) -> int | None:
    """``function(*args)`` of the C library; None where it has no such function (not glibc)."""
    try:
        return getattr(ctypes.CDLL(None), function)(*args)
    except (OSError, AttributeError):
        return None


def _mallopt(parameter: int, value: int) -> bool:
    return bool(_libc("mallopt", parameter, value))


def one_arena() -> bool:
    """glibc's malloc serves every thread of this process from one arena (and, through ``MALLOC_ARENA_MAX``,
    those of the processes it starts), unless that variable is already set. Returns whether it was set here.

    Left to itself, glibc gives threads arenas of their own, up to eight a core. A run's stages are tasks on
    a pool's threads: what a stage freed in its thread's arena is not reused by the next stage where that
    runs in another thread, and stays with the process. Where threads already made arenas of their own,
    those stay in use, and no new one is made (the CLI sets it after its imports, which leave one arena
    besides the main one). Nothing is done where the C library is not glibc."""
    if os.environ.get("MALLOC_ARENA_MAX") or not sys.platform.startswith("linux"):
        return False
    if not _mallopt(_M_ARENA_MAX, 1):
        return False
    os.environ["MALLOC_ARENA_MAX"] = _FIXED["MALLOC_ARENA_MAX"] = "1"
    return True


def release_freed() -> None:
    """Give the system back the whole pages of memory the C library's malloc holds free (``malloc_trim``):
    called between a run's stages, so that what one stage freed and the next does not reuse leaves the
    process. Nothing is done where the C library is not glibc."""
    if sys.platform.startswith("linux"):
        _libc("malloc_trim", 0)


_FIXED: dict[str, str] = {}  # what fixed_mmap_threshold and one_arena put in this process's environment


def crawl_environment(environ: dict | None = None) -> dict:
    """The environment for a crawl's child process: without the mmap threshold and the arena count fixed
    here (those the user set stay). A crawl holds little between pages, and with the threshold at 128 KiB
    and Arrow on malloc (as a run starts it) the crawl of 2,000 mirror pages ran at 0.91x and 1.00x the
    plain spider's speed and 1.09x and 1.00x its CPU a page (two runs), against 1.20-1.22x and 0.82-0.83x
    with either setting alone (bench/crawl_bench.py, one session)."""
    environ = dict(os.environ if environ is None else environ)
    for name, value in _FIXED.items():
        if environ.get(name) == value:
            del environ[name]
    return environ


def sha256_file(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


class ShardWriter:
    """Write records of one type as a sequence of Parquet shards.

    rows_per_shard bounds a file's size; batch_size bounds memory: at most one
    batch of records is held before it goes to disk.
    """

    def __init__(self, directory: Path | str, prefix: str, record_type: type[Record],
                 rows_per_shard: int = 10_000, batch_size: int = 1_000, start_index: int = 0):
        if rows_per_shard < 1 or batch_size < 1:
            raise ValueError("rows_per_shard and batch_size must be positive")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.prefix = prefix
        self.record_type = record_type
        self.rows_per_shard = rows_per_shard
        self.batch_size = batch_size
        self.paths: list[Path] = []
        self.start_index = start_index  # a resumed writer numbers its shards after the existing ones
        self.rows = 0
        self._buffer: list[Record] = []
        self._writer: pq.ParquetWriter | None = None
        self._tmp: Path | None = None
        self._shard_rows = 0

    def write(self, record: Record) -> None:
        self._buffer.append(record)
        if len(self._buffer) >= self.batch_size:
            self._flush()

    def write_all(self, records: Iterable[Record]) -> None:
        for record in records:
            self.write(record)

    def _flush(self) -> None:
        while self._buffer:
            if self._writer is None:
                self._tmp = self.directory / f".tmp-{self.prefix}-{self._index():05d}-{os.getpid()}.parquet"
                self._writer = pq.ParquetWriter(self._tmp, self.record_type.SCHEMA, **WRITE_OPTIONS)
                self._shard_rows = 0
            room = self.rows_per_shard - self._shard_rows
            chunk, self._buffer = self._buffer[:room], self._buffer[room:]
            self._writer.write_batch(self.record_type.to_batch(chunk))
            self._shard_rows += len(chunk)
            self.rows += len(chunk)
            if self._shard_rows >= self.rows_per_shard:
                self._finish_shard()

    def _finish_shard(self) -> None:
        if self._writer is None or self._tmp is None:
            return
        self._writer.close()
        digest = sha256_file(self._tmp)[:12]
        final = self.directory / f"{self.prefix}-{self._index():05d}-{digest}.parquet"
        os.replace(self._tmp, final)
        self.paths.append(final)
        self._writer = None
        self._tmp = None

    def _index(self) -> int:
        return self.start_index + len(self.paths)

    def close(self) -> list[Path]:
        self._flush()
        self._finish_shard()
        return self.paths

    def __enter__(self) -> "ShardWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        elif self._writer is not None:
            self._writer.close()


def iter_records(paths: Iterable[Path | str], record_type: type[R], batch_size: int = 1_000,
                 columns: Sequence[str] | None = None) -> Iterator[R]:
    """Stream records back from shards, one batch in memory at a time.

    With ``columns``, only those are read and the other fields keep their defaults: a reader that
    needs a page's title and infobox does not decode its paragraphs and links, whose Python objects
    (a dict per link) would be made and freed by the million and leave the heap fragmented."""
    for path in paths:
        parquet = pq.ParquetFile(path, pre_buffer=False)  # pre-buffering keeps every batch read until the end
        for batch in parquet.iter_batches(batch_size=batch_size, columns=list(columns) if columns else None):
            yield from record_type.from_batch(batch)  # type: ignore[misc]


def sql_path_list(paths: Iterable[Path | str]) -> str:
    """A DuckDB list literal of file paths, for read_parquet([...])."""
    quoted = ["'" + str(p).replace("'", "''") + "'" for p in paths]
    if not quoted:
        raise ValueError("no Parquet files to read")
    return "[" + ", ".join(quoted) + "]"


def duck(database: str = ":memory:") -> duckdb.DuckDBPyConnection:
    """A DuckDB connection without the progress bar (it would draw on the user's terminal), whose
    allocator gives freed memory back.

    DuckDB's allocator (its own jemalloc) keeps what a query freed for the next one, and only
    flushes after a task that peaked above 128 MiB. Between the stages' queries that memory
    sits unused in the process: flushed at 4 MiB, by background threads, the item build on a
    27k-page crawl peaked 412-445 MB above its start instead of 479-496 (bench/RESULTS.md)."""
    con = duckdb.connect(database)
    con.execute("SET enable_progress_bar = false")
    con.execute(f"SET allocator_flush_threshold = '{ALLOCATOR_FLUSH}'")
    con.execute(f"SET allocator_bulk_deallocation_flush_threshold = '{ALLOCATOR_FLUSH}'")
    con.execute("SET allocator_background_threads = true")
    return con


@contextmanager
def bounded_duck(memory_limit: str | None, threads: int | None = 1, database: str = ":memory:",
                 spill_dir: Path | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A DuckDB connection held to ``memory_limit`` (None: DuckDB's default, for a caller that sets its
    own later) on ``threads`` threads (None: one per core), sorting, joining and grouping beyond it on
    disk in ``spill_dir`` (a temporary directory, removed afterwards, when None). Insertion order is not
    kept: queries say ORDER BY."""
    temporary = spill_dir is None
    spill = Path(tempfile.mkdtemp(prefix="zhbench-spill-")) if temporary else Path(spill_dir)
    con = duck(database)
    try:
        if memory_limit is not None:
            con.execute(f"SET memory_limit = '{memory_limit}'")
        con.execute("SET temp_directory = '{}'".format(str(spill).replace("'", "''")))
        con.execute("SET preserve_insertion_order = false")
        if threads:
            con.execute(f"SET threads = {int(threads)}")
        yield con
    finally:
        con.close()
        if temporary:
            shutil.rmtree(spill, ignore_errors=True)
