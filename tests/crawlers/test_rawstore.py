from __future__ import annotations

import gzip
import hashlib
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from crawlers.rawstore import RawStore


def bodies(n: int, tag: str = "") -> list[bytes]:
    return [f"<html><body><p>{tag}第{i}页：长江是中国第一大河。</p></body></html>".encode() for i in range(n)]


def rows(root) -> list[tuple]:
    with sqlite3.connect(root / "index.sqlite") as db:
        return db.execute("SELECT digest, pack, offset, length FROM bodies ORDER BY offset").fetchall()


def test_bodies_go_to_one_pack_once_each_and_come_back_byte_identical(tmp_path):
    pages = bodies(50)
    with RawStore(tmp_path) as store:
        digests = [store.put(body) for body in pages]
        assert digests == [hashlib.sha256(b).hexdigest() for b in pages]
        size = sum(p.stat().st_size for p in (tmp_path / "packs").iterdir())
        assert store.put(pages[7]) == digests[7]  # already stored: nothing written
        assert sum(p.stat().st_size for p in (tmp_path / "packs").iterdir()) == size
        assert [store.get(d) for d in digests] == pages  # read while the pack is still open
    assert len(list((tmp_path / "packs").iterdir())) == 1
    assert len(rows(tmp_path)) == 50
    assert not list(tmp_path.glob("??/*.html.gz"))  # no file per body
    reopened = RawStore(tmp_path)
    assert reopened.get(digests[49]) == pages[49] and digests[0] in reopened
    # Each body is a gzip member of its own: the pack reads as one gzip stream of every body in order.
    pack = next((tmp_path / "packs").iterdir())
    assert gzip.decompress(pack.read_bytes()) == b"".join(pages)


def test_an_unknown_digest_is_a_key_error_naming_the_store(tmp_path):
    store = RawStore(tmp_path)
    with pytest.raises(KeyError, match="is not in"):
        store.get("0" * 64)
    assert "0" * 64 not in store
    store.put(b"x")
    with pytest.raises(KeyError, match="is not in"):
        store.get("1" * 64)


def test_a_store_written_before_packs_is_still_read_and_not_stored_twice(tmp_path):
    body = "<html>旧的存储</html>".encode()
    digest = hashlib.sha256(body).hexdigest()
    legacy = tmp_path / digest[:2] / f"{digest}.html.gz"
    legacy.parent.mkdir(parents=True)
    legacy.write_bytes(gzip.compress(body, mtime=0))
    store = RawStore(tmp_path)
    assert digest in store and store.get(digest) == body
    assert store.put(body) == digest
    assert not (tmp_path / "packs").exists()


def test_a_full_pack_is_closed_and_a_new_one_started(tmp_path):
    pages = bodies(30)
    with RawStore(tmp_path, pack_bytes=400) as store:
        digests = [store.put(b) for b in pages]
    packs = sorted((tmp_path / "packs").iterdir())
    assert len(packs) > 3
    for pack in packs:  # within the size, or one body alone that is larger
        assert pack.stat().st_size <= 400 or gzip.decompress(pack.read_bytes()).count(b"<html>") == 1
    assert [RawStore(tmp_path).get(d) for d in digests] == pages


def test_bytes_left_unindexed_by_a_killed_writer_do_not_disturb_the_store(tmp_path):
    with RawStore(tmp_path) as store:
        first = store.put(b"<html>one</html>")
    pack = next((tmp_path / "packs").iterdir())
    with open(pack, "ab") as handle:  # a body written but never indexed: the process died in between
        handle.write(gzip.compress(b"<html>lost</html>", mtime=0)[:15])
    with RawStore(tmp_path) as store:
        second = store.put(b"<html>two</html>")
        assert store.get(first) == b"<html>one</html>" and store.get(second) == b"<html>two</html>"
    assert len(list((tmp_path / "packs").iterdir())) == 2  # the damaged pack is never appended to again


def test_processes_writing_one_store_at_once_each_keep_their_own_pack(tmp_path):
    script = textwrap.dedent(f"""
        import sys
        from crawlers.rawstore import RawStore
        tag = sys.argv[1]
        with RawStore({str(tmp_path)!r}) as store:
            for i in range(300):
                store.put(f"<html>{{tag}} {{i}}</html>".encode())
                store.put(f"<html>shared {{i}}</html>".encode())
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script, tag]) for tag in ("a", "b", "c")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    assert len(list((tmp_path / "packs").iterdir())) == 3
    store = RawStore(tmp_path)
    for tag in ("a", "b", "c", "shared"):
        for i in range(300):
            body = f"<html>{tag} {i}</html>".encode()
            assert store.get(hashlib.sha256(body).hexdigest()) == body
    assert len(rows(tmp_path)) == 4 * 300
