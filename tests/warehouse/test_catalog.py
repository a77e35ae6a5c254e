from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

from warehouse.catalog import Catalog


def entry(url: str, when: datetime, status: str = "ok", record: str = "r1") -> dict:
    return {"canonical_url": url, "url": url, "page_status": status, "http_status": 200, "content_hash": "c",
            "record_hash": record, "etag": '"e"', "last_modified": "", "change": "new",
            "fetched_at": when.isoformat()}


def test_latest_fetch_per_page_and_which_are_due(tmp_path):
    catalog = Catalog(tmp_path / "catalog.duckdb")
    old = datetime(2026, 1, 1, tzinfo=timezone.utc)
    new = datetime(2026, 11, 1, tzinfo=timezone.utc)
    catalog.register_fetches("c1", [entry("u1", old), entry("u2", old), entry("u3", old, status="not_found")])
    catalog.register_fetches("c2", [entry("u1", new, record="r2")])
    latest = catalog.latest()
    assert sorted(latest) == ["u1", "u2"]  # a 404 is not a page to recrawl
    assert latest["u1"]["record_hash"] == "r2"
    due = catalog.due(timedelta(days=30), now=datetime(2026, 11, 10, tzinfo=timezone.utc))
    assert sorted(due) == ["u2"]


def test_registering_a_crawl_again_replaces_its_rows(tmp_path):
    catalog = Catalog(tmp_path / "catalog.duckdb")
    when = datetime(2026, 1, 1, tzinfo=timezone.utc)
    catalog.register_fetches("c1", [entry("u1", when), entry("u2", when)])
    catalog.register_fetches("c1", [entry("u1", when)])
    assert sorted(catalog.latest()) == ["u1"]


def test_two_writers_take_turns(tmp_path):
    path = tmp_path / "catalog.duckdb"
    when = datetime(2026, 1, 1, tzinfo=timezone.utc)
    errors = []

    def write(name: str) -> None:
        try:
            for i in range(5):
                Catalog(path).register_fetches(f"{name}-{i}", [entry(f"{name}-{i}", when)])
        except Exception as exc:  # noqa: BLE001 (the test reports any failure)
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(Catalog(path).latest()) == 10
