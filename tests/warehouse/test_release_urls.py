"""A release names entries by their published URLs: the real site's for a page of a real site (wherever it
was fetched), a reserved host (RFC 2606) for the bundled mirror's made-up entries. Where they were fetched
(the mirror on 127.0.0.1:<port>) stays in the crawl's page records."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pyarrow.parquet as pq

from crawlers.urls import reserved_host
from tests.flows.test_cli import zhbench

PUBLIC = ("https://baike.example/item/",)  # where the mirror's entries are published
REAL = ("baidu.com", "sogou.com", "wikipedia.org")


def test_a_mirror_runs_release_has_public_urls_and_its_crawl_the_fetch_urls(demo_run, demo_data, tmp_path):
    """The session's demo run, read in a copy of its data directory (the export records itself in the catalog)."""
    data, result = demo_data, demo_run.result
    assert result.returncode == 0, result.stderr[-2000:]
    release = data / "releases" / "cdtp" / "0.1.0"

    pairs = pq.read_table(release / "cdtp_pairs" / "all.parquet").to_pylist()
    assert pairs and all(p["url"].startswith(PUBLIC) for p in pairs)
    support = [u for p in pairs for t in p["triples"] for u in t["support_urls"]]
    assert support and all(reserved_host(u) for u in support)  # the mirror's encyclopedia and the web beside it
    # search validation still leaves out the pair's own page: the index and the pairs name pages alike
    assert all(p["url"] not in t["support_urls"] for p in pairs for t in p["triples"])

    item_urls = [u for path in release.glob("*/*.parquet") if "urls" in pq.read_schema(path).names
                 for urls in pq.read_table(path, columns=["urls"]).column(0).to_pylist() for u in urls or []]
    assert item_urls and all(reserved_host(u) for u in item_urls)
    assert all(urls[0].startswith(PUBLIC) for path in release.glob("*/*.parquet") if "urls" in pq.read_schema(path).names
               for urls in pq.read_table(path, columns=["urls"]).column(0).to_pylist() if urls)  # its own page first
    for path in release.glob("*/*.parquet"):
        rows = json.dumps(pq.read_table(path).to_pylist(), ensure_ascii=False, default=str)
        assert "127.0.0.1" not in rows, path
        assert not any(real in rows for real in REAL), f"{path} links a made-up entry to a real site"

    export = zhbench("export", "0.1.0", "--format", "chinese-simpleqa-jsonl", "--out", str(tmp_path / "csqa"),
                     "--data-dir", str(data))
    assert export.returncode == 0, export.stderr
    exported = (tmp_path / "csqa" / "eval" / "chinese_simpleqa.jsonl").read_text(encoding="utf-8")
    assert "127.0.0.1" not in exported and "https://baike.example/item/" in exported

    urls = [u for path in (data / "crawls").glob("run-*/pages/*.parquet")
            for u in pq.read_table(path, columns=["url"]).column(0).to_pylist()]
    assert urls and all(u.startswith("http://127.0.0.1:") for u in urls)


def test_a_pairs_id_and_url_do_not_depend_on_the_port_it_was_fetched_at():
    from filters.triples import page_to_pair
    from schemas import InfoboxEntry, Page

    def fetched_at(port: int) -> Page:
        url = f"http://127.0.0.1:{port}/item/李白/1043"
        return Page(url=url, canonical_url=url, title="李白", status="ok", source="baidu",
                    summary="李白，字太白，唐朝诗人。", infobox=[InfoboxEntry("字", "太白", ["太白"])],
                    fetched_at=datetime(2026, 1, 1, tzinfo=timezone.utc))

    one, other = page_to_pair(fetched_at(8800)), page_to_pair(fetched_at(41234))
    assert one.url == other.url == "https://baike.baidu.com/item/%E6%9D%8E%E7%99%BD/1043"
    assert one.pair_id == other.pair_id
