"""The passages a local search index ranks, kept in a file instead of the process's heap.

A crawl's summaries and paragraphs grow with it (149,995 passages at 27,000 realistic pages). Held as
Python objects, and sorted and digested in Python, they and the heap their transient copies left behind
were most of what a local index kept: 258 MB above the process's start at 27k pages, before the index
itself. Here they are written once to an unsorted Parquet file, sorted out of core by DuckDB (held to a
memory limit, spilling to disk beyond it) into a flat file of UTF-8 text, and read back by position, one
``os.pread`` a passage; the process keeps three offsets a passage.

The order and the digest are those that sorting the Python strings gives: DuckDB compares strings by
their UTF-8 bytes, which orders them as their code points do, as Python does.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import weakref
from array import array
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

_BATCH = 4096  # passages per Arrow batch written and read
_COLUMNS = {"status": "ok", "url": "", "canonical_url": "", "source": "other", "title": "", "summary": "",
            "paragraphs": None}  # the Page columns read, with the Page record's defaults
_UNSORTED = pa.schema([("url", pa.string()), ("title", pa.string()), ("text", pa.string()),
                       ("line", pa.string())])


def page_passages(page_shards: Iterable[Path], max_per_page: int) -> Iterator[tuple[str, str, str]]:
    """(public URL, title, text) of each summary and paragraph of the crawl's content pages: at most
    ``max_per_page`` a page, blank ones left out. Reads only the columns it needs."""
    from crawlers.urls import public_url

    for path in page_shards:
        parquet = pq.ParquetFile(path, pre_buffer=False)
        present = [c for c in _COLUMNS if c in parquet.schema_arrow.names]
        for batch in parquet.iter_batches(batch_size=1000, columns=present):
            rows = batch.num_rows
            column = batch.to_pydict()
            values = {c: column[c] if c in column else [_COLUMNS[c]] * rows for c in _COLUMNS}
            for status, url, canonical, source, title, summary, paragraphs in zip(
                    values["status"], values["url"], values["canonical_url"], values["source"],
                    values["title"], values["summary"], values["paragraphs"]):
                if status != "ok":
                    continue
                # Public URLs, as pairs carry them: the source page is excluded by its pair's URL.
                public, title = None, title or ""
                for text in [summary or "", *(paragraphs or ())][:max_per_page]:
                    if not text.strip():
                        continue
                    if public is None:
                        public = public_url(canonical or url, source)
                    yield public, title, text


def digest_line(url: str, title: str, text: str) -> str:
    """A passage's line in the corpus digest."""
    return json.dumps([url, title, text], ensure_ascii=False)


class PassageFile:
    """Passages sorted by (URL, text, title), read by position from a flat file that this object removes
    when closed (or collected). ``digest`` is the sha256 (16 hex digits) of their digest lines, sorted."""

    def __init__(self, directory: Path, offsets: np.ndarray, digest: str, owned: bool = True):
        self.digest = digest
        self._offsets = offsets  # url, title and text starts of each passage, then the end of the last
        self._path = directory / "passages.bin"
        self._fd = os.open(self._path, os.O_RDONLY)
        # A directory of its own goes with it; one it was opened from (see keep and open) stays.
        self._closer = weakref.finalize(self, _remove if owned else _close, self._fd, directory)

    def keep(self, directory: Path) -> None:
        """Moves the passages into ``directory`` (an existing one), with their offsets and digest, where
        :meth:`open` finds them. This object still reads them there."""
        directory = Path(directory)
        np.save(directory / "offsets.npy", np.asarray(self._offsets), allow_pickle=False)
        # Renamed, or copied across file systems (this object's descriptor still reads the file it opened).
        shutil.move(self._path, directory / "passages.bin")
        self._path = directory / "passages.bin"
        (directory / "passages.json").write_text(json.dumps({"digest": self.digest, "passages": len(self)}),
                                                 encoding="utf-8")

    @classmethod
    def open(cls, directory: Path) -> "PassageFile":
        """The passages :meth:`keep` put in ``directory``, left there when closed; ValueError when they are
        not there whole."""
        directory = Path(directory)
        try:
            meta = json.loads((directory / "passages.json").read_text(encoding="utf-8"))
            offsets = np.load(directory / "offsets.npy", mmap_mode="r", allow_pickle=False)
            size = (directory / "passages.bin").stat().st_size
            whole = offsets.dtype == np.int64 and offsets.shape == (3 * meta["passages"] + 1,) \
                and int(offsets[-1]) == size and isinstance(meta["digest"], str)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{directory}: no whole passage file ({error})") from error
        if not whole:
            raise ValueError(f"{directory}: the passage file and its offsets do not match")
        return cls(directory, offsets, meta["digest"], owned=False)

    @classmethod
    def build(cls, page_shards: Iterable[Path], max_per_page: int, work_dir: Path | None = None,
              memory_limit: str = "64MB") -> "PassageFile | None":
        """The crawl's passages (see page_passages) in a new directory under ``work_dir`` (the system's
        temporary directory when None); None when there are none."""
        from schemas.storage.shards import bounded_duck, sql_path_list

        if work_dir is not None:
            Path(work_dir).mkdir(parents=True, exist_ok=True)
            _remove_orphans(Path(work_dir))
        directory = Path(tempfile.mkdtemp(prefix=f"zhbench-passages-{os.getpid()}-", dir=work_dir))
        try:
            unsorted = directory / "unsorted.parquet"
            if not _write_unsorted(page_passages(page_shards, max_per_page), unsorted):
                shutil.rmtree(directory, ignore_errors=True)
                return None
            source = f"read_parquet({sql_path_list([unsorted])})"
            with bounded_duck(memory_limit, spill_dir=directory / "spill") as con:
                digest = hashlib.sha256()
                for batch in con.sql(f"SELECT line FROM {source} ORDER BY line").to_arrow_reader(_BATCH):
                    digest.update("".join(line + "\n" for line in batch.column(0).to_pylist()).encode("utf-8"))
                ordered = con.sql(f"SELECT url, title, text FROM {source} ORDER BY url, text, title")
                offsets = _write_flat(ordered.to_arrow_reader(_BATCH), directory / "passages.bin")
            unsorted.unlink()
            return cls(directory, offsets, digest.hexdigest()[:16])
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise

    def __len__(self) -> int:
        return (len(self._offsets) - 1) // 3

    def __getitem__(self, index: int) -> tuple[str, str, str]:
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        url, title, text, end = (int(o) for o in self._offsets[3 * index:3 * index + 4])
        raw = os.pread(self._fd, end - url, url)
        return (raw[:title - url].decode("utf-8"), raw[title - url:text - url].decode("utf-8"),
                raw[text - url:].decode("utf-8"))

    def __iter__(self) -> Iterator[tuple[str, str, str]]:
        """Every passage in order, read sequentially."""
        offsets = self._offsets
        with open(self._path, "rb", buffering=1 << 20) as flat:
            for i in range(0, len(offsets) - 1, 3):
                url, title, text, end = (int(o) for o in offsets[i:i + 4])
                raw = flat.read(end - url)
                yield (raw[:title - url].decode("utf-8"), raw[title - url:text - url].decode("utf-8"),
                       raw[text - url:].decode("utf-8"))

    def close(self) -> None:
        self._closer()


def _write_unsorted(passages: Iterator[tuple[str, str, str]], path: Path) -> int:
    written = 0
    with pq.ParquetWriter(path, _UNSORTED, compression="lz4") as writer:
        while True:
            batch = [p for _, p in zip(range(_BATCH), passages)]
            if not batch:
                return written
            urls, titles, texts = zip(*batch)
            lines = [digest_line(*p) for p in batch]
            writer.write_batch(pa.record_batch([pa.array(urls, pa.string()), pa.array(titles, pa.string()),
                                                pa.array(texts, pa.string()), pa.array(lines, pa.string())],
                                               schema=_UNSORTED))
            written += len(batch)


def _write_flat(batches: pa.RecordBatchReader, path: Path) -> np.ndarray:
    offsets, position = array("q"), 0
    with open(path, "wb", buffering=1 << 20) as flat:
        for batch in batches:
            for fields in zip(*(batch.column(i).to_pylist() for i in range(3))):
                for field in fields:
                    data = field.encode("utf-8")
                    offsets.append(position)
                    flat.write(data)
                    position += len(data)
    offsets.append(position)
    return np.frombuffer(offsets, dtype=np.int64)


def _remove(fd: int, directory: Path) -> None:
    try:
        os.close(fd)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _close(fd: int, directory: Path) -> None:
    os.close(fd)


def _remove_orphans(work_dir: Path) -> None:
    """Passage files left by processes that are gone (killed before they could remove them)."""
    from schemas.storage.catalog import process_alive

    for directory in work_dir.glob("zhbench-passages-*-*"):
        pid = directory.name.split("-")[2]
        if pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(directory, ignore_errors=True)
