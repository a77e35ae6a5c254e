"""Raw HTML, compressed and content-addressed, so pages can be re-parsed without a recrawl.

Bodies are kept once per SHA-256 of the body as served, each one gzip member (mtime 0, so the
bytes are a function of the body alone) appended to a pack file, in the manner of WARC files::

    <root>/packs/<time>-<pid>-<nonce>.pack    gzip members back to back; one pack per writing process
    <root>/index.sqlite                       digest -> pack, offset, length (SQLite, WAL)

One file per body would cost an inode per page: on ext4 the kernel's search for a free inode
(with many recently deleted ones near by, as after removing an old crawl) cost about as much CPU as
parsing the page (``bench/crawl_bench.py``), and tens of millions of small files are a burden of
their own. A pack is only appended to and each process writes its own, so crawls that share the
store never write into one file; the index takes their rows under SQLite's locking.

A body is written to its pack and flushed before its index row commits, and the crawl writes a
page's fetch-log line after both: a process killed in between leaves at most unindexed bytes at a
pack's end, never an index row without its body. Stores written before packs
(``<root>/<sha[:2]>/<sha>.html.gz``, one file per body) are still read.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import secrets
import sqlite3
import threading
import time
import zlib
from pathlib import Path

PACK_BYTES = 1 << 30  # a pack is closed and a new one started past this size


class RawStore:
    def __init__(self, root: Path | str, pack_bytes: int = PACK_BYTES):
        self.root = Path(root)
        self.pack_bytes = pack_bytes
        self._lock = threading.Lock()  # one store may be shared by threads (a reader beside the writer)
        self._db: sqlite3.Connection | None = None
        self._pack = None  # this process's open pack: (name, file)
        self._readers: dict[str, object] = {}

    # -- the index -------------------------------------------------------------------------------

    def _index(self) -> sqlite3.Connection | None:
        """The index, opened on first use; None for a store that has none yet (read-only use)."""
        if self._db is None:
            path = self.root / "index.sqlite"
            if not path.exists():
                return None
            self._db = self._connect(path)
        return self._db

    def _create_index(self) -> sqlite3.Connection:
        if self._db is None:
            self.root.mkdir(parents=True, exist_ok=True)
            self._db = self._connect(self.root / "index.sqlite")
        return self._db

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # durable across a killed process, as the fetch log's flush
        db.execute("CREATE TABLE IF NOT EXISTS bodies (digest TEXT PRIMARY KEY, pack TEXT NOT NULL, "
                   "offset INTEGER NOT NULL, length INTEGER NOT NULL) WITHOUT ROWID")
        return db

    def _where(self, digest: str) -> tuple[str, int, int] | None:
        db = self._index()
        if db is None:
            return None
        return db.execute("SELECT pack, offset, length FROM bodies WHERE digest = ?", (digest,)).fetchone()

    # -- writing ---------------------------------------------------------------------------------

    def put(self, body: bytes) -> str:
        """Store ``body`` unless a body with its digest is stored already; return the digest."""
        digest = hashlib.sha256(body).hexdigest()
        with self._lock:
            if self._where(digest) is not None or self.legacy_path(digest).exists():
                return digest
            db = self._create_index()
            data = gzip.compress(body, compresslevel=6, mtime=0)
            name, handle = self._writable(len(data))
            offset = handle.tell()
            handle.write(data)
            handle.flush()
            # Another process may have stored the same body meanwhile: its row stays, these bytes go unused.
            db.execute("INSERT OR IGNORE INTO bodies VALUES (?, ?, ?, ?)", (digest, name, offset, len(data)))
        return digest

    def _writable(self, size: int):
        if self._pack is not None and self._pack[1].tell() + size > self.pack_bytes and self._pack[1].tell():
            self._pack[1].close()
            self._pack = None
        if self._pack is None:
            packs = self.root / "packs"
            packs.mkdir(parents=True, exist_ok=True)
            name = f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{os.getpid()}-{secrets.token_hex(4)}.pack"
            self._pack = (name, open(packs / name, "xb"))
        return self._pack

    def close(self) -> None:
        with self._lock:
            if self._pack is not None:
                self._pack[1].close()
                self._pack = None
            for handle in self._readers.values():
                handle.close()
            self._readers.clear()
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> "RawStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- reading ---------------------------------------------------------------------------------

    def get(self, digest: str) -> bytes:
        with self._lock:
            where = self._where(digest)
            if where is not None:
                name, offset, length = where
                if self._pack is not None and self._pack[0] == name:
                    self._pack[1].flush()
                handle = self._readers.get(name)
                if handle is None:
                    if len(self._readers) >= 16:
                        self._readers.pop(next(iter(self._readers))).close()
                    handle = self._readers[name] = open(self.root / "packs" / name, "rb")
                handle.seek(offset)
                data = handle.read(length)
                try:
                    return gzip.decompress(data)
                except (OSError, EOFError, zlib.error) as exc:
                    raise KeyError(f"raw page {digest} in {self.root / 'packs' / name} at {offset} "
                                   f"cannot be read ({exc}): the pack is damaged") from None
        try:
            return gzip.decompress(self.legacy_path(digest).read_bytes())
        except FileNotFoundError:
            raise KeyError(f"raw page {digest} is not in {self.root}") from None

    def __contains__(self, digest: str) -> bool:
        with self._lock:
            return self._where(digest) is not None or self.legacy_path(digest).exists()

    def legacy_path(self, digest: str) -> Path:
        """Where a store written before packs kept this body (one file per body)."""
        return self.root / digest[:2] / f"{digest}.html.gz"
