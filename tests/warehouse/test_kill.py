"""A publishing process killed while it writes leaves no release visible, and the next one publishes; one killed
after the rename, before its review queue is complete, has the next start queue it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from schemas import PAIR_SCHEMA, Pair
from tests.warehouse.test_release import pair
from schemas.storage.catalog import Catalog
from warehouse.release import list_versions, repair, verify
from schemas.storage.shards import ShardWriter
from tests.sealed import lift_seal

CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from tests.warehouse.test_release import pair
    from warehouse.publish import publish_stage
    from flows.settings import ReleaseSettings
    from schemas import Pair
    from warehouse import release
    from schemas.storage.shards import ShardWriter

    tmp, marker = Path(sys.argv[1]), Path(sys.argv[2])
    with ShardWriter(tmp / "pairs", "pairs", Pair) as writer:
        writer.write_all(pair(i) for i in range(20))

    def slow_gate(directory, files):  # the files are written, the rename has not happened
        marker.write_text(str(directory))
        time.sleep(60)
        return {}

    publish = release.publish
    release.publish = lambda *a, **k: publish(*a, **{**k, "gate": slow_gate})
    publish_stage(writer.paths, ReleaseSettings(), tmp / "data", {}, {}, "snap", None)
""")


def test_a_kill_mid_write_leaves_no_release_and_the_next_publish_is_clean(tmp_path):
    marker = tmp_path / "writing"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path), str(marker)],
                             cwd=os.getcwd(), stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert child.poll() is None, child.stderr.read().decode()[-2000:]
        assert time.monotonic() < deadline
        time.sleep(0.1)
    child.send_signal(signal.SIGKILL)
    child.wait()
    data = tmp_path / "data"
    root = data / "releases" / "cdtp"
    debris = [p.name for p in root.iterdir()]
    assert len(debris) == 1 and debris[0].startswith(".tmp-0.1.0-")  # hidden, never listed
    assert list_versions(data, "cdtp") == []

    from warehouse.publish import publish_stage
    from flows.settings import ReleaseSettings
    from schemas.storage.shards import ShardWriter
    from schemas import Pair
    from tests.warehouse.test_release import pair

    with ShardWriter(tmp_path / "again", "pairs", Pair) as writer:
        writer.write_all(pair(i) for i in range(20))
    published = publish_stage(writer.paths, ReleaseSettings(), data, {}, {}, "snap", None)
    assert published.name == "0.1.0" and verify(published) == []
    assert [p.name for p in root.iterdir()] == ["0.1.0"]  # the killed writer's directory is gone


PAIRS_QUERY = "SELECT * FROM read_parquet($paths) ORDER BY pair_id"

KILLED_AFTER_RENAME = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from schemas import PAIR_SCHEMA
    from warehouse import release
    from schemas.storage.catalog import Catalog

    data, shards = Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]]
    Catalog(data / "catalog.duckdb").start_run({"run_id": "r1", "started_at": None})
    Catalog.set_published = lambda *args: os._exit(9)  # killed right after the rename
    table = release.TableSpec("cdtp_pairs", "all", PAIR_SCHEMA, %r, shards)
    release.publish(data, "cdtp", [table], {}, {}, flow_run_id="flow-1", run_id="r1")
""" % PAIRS_QUERY)


def pair_shards(directory, count: int = 5) -> list:
    with ShardWriter(directory, "pairs", Pair) as writer:
        writer.write_all(pair(i) for i in range(count))
    return writer.paths


def small_release(data, shards, run_id: str | None = None):
    """A release of one table: what repair looks at, without the flow's configs and card."""
    from warehouse.release import TableSpec, publish

    return publish(data, "cdtp", [TableSpec("cdtp_pairs", "all", PAIR_SCHEMA, PAIRS_QUERY, shards)], {}, {},
                   run_id=run_id)


def test_a_kill_between_the_rename_and_the_catalog_is_repaired_at_the_next_start(tmp_path):
    data = tmp_path / "data"
    child = subprocess.run([sys.executable, "-c", KILLED_AFTER_RENAME, str(data),
                            *map(str, pair_shards(tmp_path / "pairs"))],
                           cwd=os.getcwd(), capture_output=True, text=True, timeout=120)
    assert child.returncode == 9, child.stderr[-2000:]
    catalog = Catalog(data / "catalog.duckdb")
    assert list_versions(data, "cdtp") == ["0.1.0"] and catalog.releases("cdtp") == []  # on disk, not registered

    assert repair(data) == ["registered cdtp 0.1.0 (releases/cdtp/0.1.0), published by run r1 killed before the "
                            "catalog recorded it"]
    (entry,) = catalog.releases("cdtp")
    assert (entry["version"], entry["run_id"], entry["flow_run_id"], entry["state"]) == ("0.1.0", "r1", "flow-1",
                                                                                         "published")
    (run,) = catalog.runs()
    assert (run["status"], run["release_version"]) == ("published", "0.1.0")
    assert repair(data) == []  # nothing left to settle


def test_repair_registers_a_sound_release_the_catalog_never_heard_of_and_never_a_broken_one(tmp_path):
    data = tmp_path / "data"
    shards = pair_shards(tmp_path / "pairs")
    for _ in range(3):
        small_release(data, shards)
    (data / "catalog.duckdb").unlink()  # a catalog that lost its rows (or one from before releases were kept)
    root = data / "releases" / "cdtp"
    for broken in ("0.2.0", "0.3.0"):  # on purpose, as by someone who overrode the seal
        lift_seal(root / broken)
    (root / "0.2.0" / "cdtp_pairs" / "all.parquet").write_bytes(b"not parquet")
    (root / "0.3.0" / "manifest.json").unlink()
    (root / ".tmp-0.4.0-123456").mkdir()  # a writer killed before its rename
    (data / "snapshots" / ".tmp-123456").mkdir(parents=True)
    Catalog(data / "catalog.duckdb").start_run({"run_id": "r9", "started_at": None})

    lines = repair(data)
    assert lines[0] == "removed snapshots/.tmp-123456, a crawl snapshot a killed run was writing"
    assert lines[1] == "removed releases/cdtp/.tmp-0.4.0-123456, a release a killed run was writing (never published)"
    assert lines[2] == "registered cdtp 0.1.0 (releases/cdtp/0.1.0), published by a run killed before the catalog " \
                       "recorded it"
    assert lines[3].startswith("not registered: releases/cdtp/0.2.0 (cdtp_pairs/all.parquet: sha256 ")
    assert lines[4].startswith("not registered: releases/cdtp/0.3.0 (") and "has no manifest.json" in lines[4]
    assert lines[5] == "marked run r9 interrupted: it stopped before it finished" and len(lines) == 6
    assert [r["version"] for r in Catalog(data / "catalog.duckdb").releases("cdtp")] == ["0.1.0"]
    assert sorted(p.name for p in root.iterdir()) == ["0.1.0", "0.2.0", "0.3.0"]  # broken ones are left to see


def test_a_pending_row_whose_release_never_reached_its_place_is_forgotten(tmp_path):
    data = tmp_path / "data"
    directory = small_release(data, pair_shards(tmp_path / "pairs"), run_id="r1")
    catalog = Catalog(data / "catalog.duckdb")
    # as a kill between the catalog's pending row and the rename leaves it
    catalog.register_release(directory, "r1", data, state="pending")
    shutil.rmtree(lift_seal(directory))
    assert catalog.releases("cdtp") == [] and len(catalog.releases("cdtp", state="pending")) == 1
    assert repair(data) == ["forgot cdtp 0.1.0: its run was killed before the release was moved into place"]
    assert catalog.releases("cdtp", state="pending") == []


KILLED_WHILE_COMMITTING = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from flows.settings import ReviewSettings
    from review.queue import queue_for_review, review_plan
    from review.store import ReviewStore
    from schemas.storage.catalog import Catalog
    from tests.warehouse.conftest import publish_release

    tmp, data, kill_at = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    Catalog(data / "catalog.duckdb").start_run({"run_id": "r1", "started_at": None})
    owner, method = kill_at.split(".")
    setattr({"Catalog": Catalog, "ReviewStore": ReviewStore}[owner], method, lambda *args: os._exit(9))
    # as the flow does: the plan registered with the release (publish stage), then queued (review stage)
    plan = review_plan(ReviewSettings(), [tmp / "run" / "items" / "items-0.parquet"], data)
    release = publish_release(tmp, data, gate=False, run_id="r1", review=plan)
    queue_for_review(release, data)
""")


def queued(data) -> dict[tuple[str, str], dict]:
    import sqlite3

    if not (data / "review.sqlite").is_file():
        return {}
    with sqlite3.connect(data / "review.sqlite") as con:
        rows = con.execute("SELECT config, item_id, payload FROM queue WHERE release_version = '0.1.0'").fetchall()
    return {(config, item_id): json.loads(payload) for config, item_id, payload in rows}


@pytest.fixture(scope="module")
def clean_queue(tmp_path_factory):
    """What an unkilled run queues for review: the release's plan (the default [review] policy) in full."""
    from flows.settings import ReviewSettings
    from review.queue import queue_for_review, review_plan
    from tests.warehouse.conftest import publish_release

    tmp = tmp_path_factory.mktemp("clean")
    plan = review_plan(ReviewSettings(), [], tmp / "data")
    queue_for_review(publish_release(tmp, tmp / "data", gate=False, run_id="r0", review=plan), tmp / "data")
    return queued(tmp / "data")


@pytest.mark.parametrize("kill_at, repaired", [
    # at the rename: the release is in place, the catalog still holds it as pending
    ("Catalog.set_published", ["registered cdtp 0.1.0 (releases/cdtp/0.1.0), published by run r1 killed before the "
                               "catalog recorded it",
                               "queued cdtp 0.1.0 for review, which run r1 was killed before it finished: {n} items "
                               "added to the queue"]),
    # in the review stage, before the queue was written, and after it, before the catalog recorded it
    ("ReviewStore.enqueue", ["queued cdtp 0.1.0 for review, which run r1 was killed before it finished: {n} items "
                             "added to the queue",
                             "marked run r1 published: it published cdtp 0.1.0 and stopped before it finished"]),
    ("Catalog.set_review_queued", ["queued cdtp 0.1.0 for review, which run r1 was killed before it finished: 0 "
                                   "items added to the queue",
                                   "marked run r1 published: it published cdtp 0.1.0 and stopped before it finished"]),
])
def test_a_release_killed_before_its_review_queue_was_complete_is_queued_by_the_next_start(
        tmp_path, clean_queue, kill_at, repaired):
    data = tmp_path / "data"
    (tmp_path / "run").mkdir()  # the killed run's verifier records, beside its item shards
    (tmp_path / "run" / "checks.jsonl").write_text('{"item_id": "simpleqa000", "verifier": "evidence"}\n',
                                                   encoding="utf-8")
    child = subprocess.run([sys.executable, "-c", KILLED_WHILE_COMMITTING, str(tmp_path), str(data), kill_at],
                           cwd=os.getcwd(), capture_output=True, text=True, timeout=300)
    assert child.returncode == 9, child.stderr[-2000:]
    assert list_versions(data, "cdtp") == ["0.1.0"]
    assert set(queued(data)) < set(clean_queue) or kill_at == "Catalog.set_review_queued"

    assert repair(data) == [line.format(n=len(clean_queue)) for line in repaired]  # the rerun's start
    found = queued(data)
    assert set(found) == set(clean_queue) and ("simpleqa", "simpleqa000") in found
    assert found[("simpleqa", "simpleqa000")]["checks"] == [{"item_id": "simpleqa000", "verifier": "evidence"}]
    catalog = Catalog(data / "catalog.duckdb")
    (run,) = catalog.runs()
    assert (run["status"], run["release_version"]) == ("published", "0.1.0")
    assert catalog.review_owed() == [] and repair(data) == []  # nothing left to settle
