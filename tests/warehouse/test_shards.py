from __future__ import annotations

import pyarrow.parquet as pq

from schemas import Page
from warehouse.shards import ShardWriter, iter_records


def test_shards_roll_over_and_stream_back_in_order(tmp_path):
    pages = [Page(url=f"http://x/{i}", title=str(i)) for i in range(25)]
    with ShardWriter(tmp_path, "pages", Page, rows_per_shard=10, batch_size=4) as writer:
        writer.write_all(pages)
    assert [pq.ParquetFile(p).metadata.num_rows for p in writer.paths] == [10, 10, 5]
    assert all(p.name.startswith(f"pages-{i:05d}-") for i, p in enumerate(writer.paths))
    assert [p.title for p in iter_records(writer.paths, Page, batch_size=3)] == [str(i) for i in range(25)]
    assert not list(tmp_path.glob(".tmp-*"))
