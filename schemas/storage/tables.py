"""A SQL query over Parquet shards, streamed into one Parquet file in row groups of a fixed size: how a
release's files and a crawl's snapshot are written, so a file's bytes depend only on its rows."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from schemas.releases import ReleaseError
from schemas.storage.shards import WRITE_OPTIONS, duck, sql_path_list

ROW_GROUP = 10_000


@dataclass
class TableSpec:
    """One config/split file of a release, produced by a SQL query over shards.

    ``query`` reads the shards through ``read_parquet($paths)`` and must order its
    rows by a unique key, so the file's bytes depend only on its content.
    """

    config: str
    split: str
    schema: pa.Schema
    query: str
    paths: list[Path]


def _batches(spec: TableSpec) -> Iterator[pa.RecordBatch]:
    con = duck()
    try:
        con.execute("SET threads = 1")  # a single thread keeps DuckDB's output order fixed
        if not spec.paths:
            raise ReleaseError("a release table has no input shards")
        relation = con.sql(spec.query.replace("$paths", sql_path_list(spec.paths)))
        reader = relation.to_arrow_reader(ROW_GROUP)
        yield from reader
    finally:
        con.close()


def write_table(spec: TableSpec, path: Path) -> int:
    """Stream the query's rows into one Parquet file, in row groups of a fixed size."""
    rows = 0
    buffer: list[pa.RecordBatch] = []
    buffered = 0
    with pq.ParquetWriter(path, spec.schema, **WRITE_OPTIONS) as writer:
        def emit(final: bool) -> None:
            nonlocal buffer, buffered, rows
            if not buffer:
                return
            table = pa.Table.from_batches(buffer).cast(spec.schema)
            offset = 0
            while table.num_rows - offset >= ROW_GROUP or (final and offset < table.num_rows):
                part = table.slice(offset, ROW_GROUP)
                writer.write_table(part, row_group_size=ROW_GROUP)
                offset += part.num_rows
                rows += part.num_rows
            rest = table.slice(offset)
            buffer = rest.to_batches() if rest.num_rows else []
            buffered = rest.num_rows

        for batch in _batches(spec):
            if batch.num_rows == 0:
                continue
            buffer.append(batch)
            buffered += batch.num_rows
            if buffered >= ROW_GROUP:
                emit(final=False)
        emit(final=True)
    return rows
