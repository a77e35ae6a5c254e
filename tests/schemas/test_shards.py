from __future__ import annotations

import os
import sys

import pyarrow.parquet as pq
import pytest

from schemas import InfoboxEntry, Page
from schemas.storage.shards import ALLOCATOR_FLUSH, ShardWriter, duck, iter_records


def test_shards_roll_over_and_stream_back_in_order(tmp_path):
    pages = [Page(url=f"http://x/{i}", title=str(i)) for i in range(25)]
    with ShardWriter(tmp_path, "pages", Page, rows_per_shard=10, batch_size=4) as writer:
        writer.write_all(pages)
    assert [pq.ParquetFile(p).metadata.num_rows for p in writer.paths] == [10, 10, 5]
    assert all(p.name.startswith(f"pages-{i:05d}-") for i, p in enumerate(writer.paths))
    assert [p.title for p in iter_records(writer.paths, Page, batch_size=3)] == [str(i) for i in range(25)]
    assert not list(tmp_path.glob(".tmp-*"))


def test_records_read_with_some_columns_keep_the_others_at_their_defaults(tmp_path):
    pages = [Page(url=f"http://x/{i}", title=f"页{i}", summary="长文" * 50, paragraphs=["段落"] * 3,
                  links=[{"title": "甲", "url": "http://x/a"}], infobox=[InfoboxEntry("别名", f"名{i}", [f"名{i}"])],
                  tags=["人物"]) for i in range(5)]
    with ShardWriter(tmp_path, "pages", Page) as writer:
        writer.write_all(pages)
    read = list(iter_records(writer.paths, Page, columns=("url", "title", "infobox", "tags")))
    assert [(p.url, p.title, p.infobox, p.tags) for p in read] == [(p.url, p.title, p.infobox, p.tags) for p in pages]
    assert all(p.summary == "" and p.paragraphs == [] and p.links == [] for p in read)


def test_duckdb_connections_give_freed_memory_back():
    """DuckDB's allocator keeps what a query freed unless told to flush; the stages' connections flush
    after every task that peaked above 4 MiB, with background threads."""
    con = duck()
    settings = dict(con.sql("SELECT name, value FROM duckdb_settings() WHERE name LIKE 'allocator%'").fetchall())
    assert settings["allocator_flush_threshold"] == ALLOCATOR_FLUSH != "134217728B"  # DuckDB's default: 128 MiB
    assert settings["allocator_background_threads"] == "true"
    assert con.sql("SELECT 1").fetchall() == [(1,)]


def test_system_allocator_for_this_process_and_its_children(monkeypatch):
    import subprocess
    import sys

    import pyarrow as pa

    from schemas.storage.shards import system_allocator

    monkeypatch.setattr(pa, "set_memory_pool", lambda pool: chosen.append(pool.backend_name))
    chosen: list[str] = []
    monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
    system_allocator()
    assert chosen == ["system"]
    child = subprocess.run([sys.executable, "-c", "import pyarrow; print(pyarrow.default_memory_pool().backend_name)"],
                           capture_output=True, text=True, check=True)
    assert child.stdout.strip() == "system"

    chosen.clear()
    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")  # the user's choice stands
    system_allocator()
    assert chosen == [] and os.environ["ARROW_DEFAULT_MEMORY_POOL"] == "jemalloc"


_FREED_BLOCK_PROBE = """
import ctypes
libc = ctypes.CDLL(None)
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]
libc.mallinfo2.restype = Info
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.free(libc.malloc(1 << 21))
before = libc.mallinfo2().hblks
block = libc.malloc(1 << 21)
print(libc.mallinfo2().hblks - before)  # 1: the second block has a mapping of its own; 0: it came from the heap
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_malloc_keeps_giving_large_blocks_back_in_this_process_and_its_children(monkeypatch):
    import subprocess

    from schemas.storage.shards import MMAP_THRESHOLD, fixed_mmap_threshold

    def second_block_mapped(env) -> str:
        return subprocess.run([sys.executable, "-c", _FREED_BLOCK_PROBE], env=env, capture_output=True,
                              text=True, check=True).stdout.strip()

    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "")  # so that the variable is put back as it was after the test
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_")
    try:
        unset = second_block_mapped(dict(os.environ))
    except subprocess.CalledProcessError:
        pytest.skip("no mallinfo2 in this C library")
    assert unset == "0"  # glibc moved its threshold above the first block freed
    assert fixed_mmap_threshold()
    assert os.environ["MALLOC_MMAP_THRESHOLD_"] == str(MMAP_THRESHOLD)
    assert second_block_mapped(dict(os.environ)) == "1"

    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "65536")  # the user's choice stands
    assert not fixed_mmap_threshold() and os.environ["MALLOC_MMAP_THRESHOLD_"] == "65536"


def test_a_crawl_child_is_started_without_the_threshold_fixed_here(monkeypatch):
    from schemas.storage import shards

    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "")
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_")
    monkeypatch.setattr(shards, "_FIXED", {})
    if not shards.fixed_mmap_threshold():
        pytest.skip("not glibc")
    assert "MALLOC_MMAP_THRESHOLD_" in os.environ and "MALLOC_MMAP_THRESHOLD_" not in shards.crawl_environment()
    assert shards.crawl_environment({"MALLOC_MMAP_THRESHOLD_": "65536", "A": "1"}) == {
        "MALLOC_MMAP_THRESHOLD_": "65536", "A": "1"}  # a threshold the user chose is theirs


_ARENAS_PROBE = """
import ctypes, sys, threading
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
def heaps():
    out = libc.fopen(sys.argv[2].encode(), b"w")
    libc.malloc_info(0, out)
    libc.fclose(out)
    return open(sys.argv[2]).read().count("<heap nr=")
if sys.argv[1] == "one":
    from schemas.storage.shards import one_arena  # its imports may have started threads, with arenas of their own
    assert one_arena()
before = heaps()
barrier = threading.Barrier(4)
def work():
    blocks = [bytearray(5000) for _ in range(50)]  # from malloc, in the thread's arena
    barrier.wait()  # all four alive at once
threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(heaps() - before)  # arenas made for the four threads
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_one_arena_for_every_thread_in_this_process_and_its_children(monkeypatch, tmp_path):
    import subprocess

    from schemas.storage import shards

    monkeypatch.setenv("MALLOC_ARENA_MAX", "")  # so that the variable is put back as it was after the test
    monkeypatch.delenv("MALLOC_ARENA_MAX")
    monkeypatch.setattr(shards, "_FIXED", {})

    def arenas(how: str, env) -> int:
        try:
            return int(subprocess.run([sys.executable, "-c", _ARENAS_PROBE, how, str(tmp_path / "info.xml")],
                                      env=env, capture_output=True, text=True, check=True).stdout)
        except (subprocess.CalledProcessError, ValueError):
            pytest.skip("no malloc_info in this C library")

    assert arenas("default", dict(os.environ)) > 0  # glibc gives threads arenas of their own
    assert arenas("one", dict(os.environ)) == 0
    monkeypatch.setattr(shards, "_mallopt", lambda *args: 1)  # this process's malloc is left as it is
    assert shards.one_arena() and os.environ["MALLOC_ARENA_MAX"] == "1"
    assert arenas("default", dict(os.environ)) == 0  # a child started from here
    assert "MALLOC_ARENA_MAX" not in shards.crawl_environment()  # but not a crawl
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")  # the user's choice stands
    assert not shards.one_arena() and os.environ["MALLOC_ARENA_MAX"] == "4"
    assert shards.crawl_environment()["MALLOC_ARENA_MAX"] == "4"
