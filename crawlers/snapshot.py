"""The crawl as every later stage and the release see it: its pages in one order, in one Parquet file named by
their content (``snapshot_stage``), read back in parts (``page_ranges``, ``iter_page_range``) for the alignment's
tasks."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit

import pyarrow.parquet as pq

from crawlers.mirror.render import PUBLIC_ORIGIN
from schemas import PAGE_SCHEMA, Page
from schemas.storage.tables import TableSpec, write_table

@dataclass
class Snapshot:
    shards: list[Path]
    digest: str  # of the pages' content: what the release names as its source crawl


# Pages in the order of their URL's path (the fetch address's host and port left out), so that every later
# stage reads them in one order however the concurrent crawl met them.
PAGES_QUERY = """
SELECT * FROM read_parquet($paths)
ORDER BY regexp_replace(coalesce(canonical_url, url), '^[a-z]+://[^/]*', ''), canonical_url, url, status,
         content_hash, fetched_at
"""


# What a page's content leaves out: when and how deep the crawl met it.
FETCH_FIELDS = ("fetched_at", "depth")


def crawl_digest(pages: Path, origin: str = "") -> str:
    """sha256 of the pages' records in their order, without FETCH_FIELDS and with ``origin`` (the fetch
    address, e.g. the mirror's http://127.0.0.1:<port>) cut out of every URL: the same pages found
    again, at another time, port or order, give the same digest; any page added, removed or parsed
    differently gives another."""
    digest = hashlib.sha256()
    columns = [name for name in PAGE_SCHEMA.names if name not in FETCH_FIELDS]
    for batch in pq.ParquetFile(pages, pre_buffer=False).iter_batches(1_000, columns=columns):
        for row in batch.to_pylist():
            line = json.dumps(row, ensure_ascii=False, sort_keys=True, default=str)
            digest.update((line.replace(origin, "") if origin else line).encode("utf-8") + b"\n")
    return digest.hexdigest()


# Several crawls of one site (a crawl and its recrawls, or the processes of a shared crawl): of a page fetched
# in several, the latest fetch.
LATEST_PAGES_QUERY = PAGES_QUERY.replace("ORDER BY", """QUALIFY row_number() OVER (
    PARTITION BY regexp_replace(coalesce(canonical_url, url), '^[a-z]+://[^/]*', '')
    ORDER BY fetched_at DESC, url) = 1
ORDER BY""", 1)


def _published(query: str, origins: dict[str, str]) -> str:
    """``query`` with each page's canonical URL moved to its site's published origin (by the page's source)."""
    cases = " ".join(f"WHEN '{source}' THEN regexp_replace(canonical_url, '^[a-z]+://[^/]*', '{origin}')"
                     for source, origin in sorted(origins.items()))
    return query.replace("SELECT * FROM", f"SELECT * REPLACE (CASE source {cases} ELSE canonical_url END "
                                          "AS canonical_url) FROM", 1)


def snapshot_stage(page_shards: list[Path], data_dir: Path, base_url: str = "", latest_per_url: bool = False,
                   published: dict[str, str] | None = None) -> Snapshot:
    """The crawl as the later stages and the release see it: its pages in PAGES_QUERY's order, in
    ``<data_dir>/snapshots/crawl-<digest>/pages.parquet``, named by ``crawl_digest`` (``latest_per_url``: of
    a page in several of the shards' crawls, its latest fetch). A crawl that found
    the same pages as an earlier one reuses its snapshot, so releases built from either name one crawl
    by one path, and the snapshot outlives the run directory it came from.

    ``published``: where the pages of each source are published, when that is not where they were fetched:
    the bundled mirror's entries exist on no real site, so their canonical URLs move from the mirror's
    address to the reserved hosts of ``crawlers.mirror.render.PUBLIC_ORIGIN`` (a crawl of a real site, or a
    copy of one, keeps the real site's URLs: crawlers.urls.public_url)."""
    if not page_shards:
        return Snapshot([], "")
    root = Path(data_dir) / "snapshots"
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        query = LATEST_PAGES_QUERY if latest_per_url else PAGES_QUERY
        if published:
            query = _published(query, published)
        write_table(TableSpec("pages", "all", PAGE_SCHEMA, query, page_shards), tmp / "pages.parquet")
        parts = urlsplit(base_url)
        digest = crawl_digest(tmp / "pages.parquet", f"{parts.scheme}://{parts.netloc}" if parts.netloc else "")[:16]
        final = root / f"crawl-{digest}"
        if (final / "pages.parquet").is_file():
            shutil.rmtree(tmp)
        else:
            os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Snapshot([final / "pages.parquet"], digest)


def page_ranges(pages: Path, shard_pages: int) -> list[tuple[int, int]]:
    """The snapshot's rows in parts of ``shard_pages``: [start, stop) each."""
    rows = pq.ParquetFile(pages).metadata.num_rows
    return [(start, min(start + shard_pages, rows)) for start in range(0, rows, shard_pages)]


def iter_page_range(pages: Path, start: int, stop: int) -> Iterator[Page]:
    """The snapshot's pages in rows [start, stop), reading only the row groups that hold them."""
    parquet = pq.ParquetFile(pages, pre_buffer=False)
    offset = 0
    for group in range(parquet.metadata.num_row_groups):
        rows = parquet.metadata.row_group(group).num_rows
        if offset + rows <= start or offset >= stop:
            offset += rows
            continue
        for batch in parquet.iter_batches(batch_size=1_000, row_groups=[group]):
            low, high = max(start, offset) - offset, min(stop, offset + batch.num_rows) - offset
            if low < high:
                yield from Page.from_batch(batch.slice(low, high - low))
            offset += batch.num_rows


def row_count(shards: list[Path]) -> int:
    return sum(pq.ParquetFile(p).metadata.num_rows for p in shards)


def mirror_origins(base_url: str, origin: str) -> dict[str, str] | None:
    """Where the bundled mirror's pages are published, when the run's crawl is of the mirror: no site is
    configured (``base_url`` empty) and the pages came from a loopback address."""
    if base_url:
        return None
    host = urlsplit(origin).hostname or ""
    if host != "localhost" and not host.startswith("127.") and host != "::1":
        return None
    return PUBLIC_ORIGIN
