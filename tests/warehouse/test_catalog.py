from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

from schemas.storage.catalog import Catalog


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


def test_runs_stage_outputs_and_the_release_registry(release, tmp_path):
    from schemas.storage.shards import ShardWriter
    from schemas import Pair
    from tests.warehouse.conftest import pairs

    data = tmp_path / "data"
    with ShardWriter(data / "runs" / "r1" / "pairs", "pairs", Pair) as writer:
        writer.write_all(pairs(5))
    catalog = Catalog(data / "catalog.duckdb")
    run = {"run_id": "r1", "status": "published", "started_at": datetime(2026, 1, 1, tzinfo=timezone.utc),
           "settings": {"k": 1}, "funnel": {"pairs_kept": 5}, "release_name": "cdtp", "release_version": "0.1.0"}
    catalog.record_run(run, {"align": writer.paths}, data)
    catalog.record_run(run, {"align": writer.paths}, data)  # recording again replaces, never duplicates
    assert [(r["run_id"], r["status"]) for r in catalog.runs()] == [("r1", "published")]
    (output,) = catalog.stage_outputs("r1")
    assert output["path"].startswith("runs/r1/pairs/pairs-00000-") and output["rows"] == 5
    assert output["path"].endswith(f"{output['content_hash']}.parquet")

    catalog.register_release(release, "r1", release.parents[2])
    (entry,) = catalog.releases("cdtp")
    assert (entry["version"], entry["path"], entry["validation_passed"]) == ("0.1.0", "releases/cdtp/0.1.0", True)
    assert entry["rows"] > 0 and len(entry["manifest_sha256"]) == 64


def test_fetches_are_stored_as_row_by_row_inserts_would_store_them(tmp_path):
    from schemas.storage.catalog import FETCH_COLUMNS, SCHEMA
    from schemas.storage.shards import duck

    rows = [("u1", "http://a/u1", "c1", "ok", 200, "h1", "r1", '"e1"', "Mon, 01 Jan 2024 00:00:00 GMT", "new",
             "2026-11-26T20:03:39.394+00:00"),
            ("u2", None, "c1", "not_found", None, None, None, None, None, None,
             datetime(2026, 1, 1, 8, 30, tzinfo=timezone(timedelta(hours=8)))),
            ("u3", "http://a/u3", "c1", "unchanged", 304, "", "", "", "", "unchanged", None)]
    catalog = Catalog(tmp_path / "catalog.duckdb")
    catalog.register_fetches("c1", [dict(zip(FETCH_COLUMNS, r)) for r in rows])
    con = duck(str(tmp_path / "reference.duckdb"))
    con.execute(SCHEMA)
    con.executemany("INSERT INTO fetched_pages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    query = "SELECT * FROM fetched_pages ORDER BY canonical_url"
    expected = con.execute(query).fetchall()
    con.close()
    stored = catalog._run(lambda c: c.execute(query).fetchall())
    assert stored == expected
    assert stored[1][-1] == datetime(2026, 1, 1, 0, 30, tzinfo=timezone.utc)
