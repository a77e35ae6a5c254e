"""Annotators and runs share a data directory without waiting on each other."""

from __future__ import annotations

import subprocess
import sys
import time

from review.store import ReviewStore

from .conftest import NAME, VERSION, accept_form, simpleqa
from .test_app import ANNOTATE, post


def test_annotating_goes_on_while_a_run_holds_the_catalog(client_as, store, data_dir):
    """A run holds the DuckDB catalog (one writing process at a time); the review app never needs it."""
    catalog = data_dir / "catalog.duckdb"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import duckdb, sys, time\n"
        f"con = duckdb.connect({str(catalog)!r})\n"
        "con.execute('CREATE TABLE runs (run_id VARCHAR)')\n"
        "print('holding', flush=True)\n"
        "time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        store.enqueue(NAME, VERSION, [simpleqa()])
        client = client_as("ann1")
        page = client.get(ANNOTATE).text
        started = time.monotonic()
        saved = post(client, f"{ANNOTATE}/sqa-tu", accept_form("simpleqa"), page)
        assert saved.status_code == 303 and time.monotonic() - started < 5
        assert [l["person"] for l in store.labels(NAME, VERSION, "sqa-tu")] == ["ann1"]
    finally:
        holder.kill()
        holder.wait()


def test_a_run_queues_items_while_annotators_write(data_dir):
    """The run's one write (queueing its release) waits milliseconds for an annotator's, not the other way."""
    store = ReviewStore.at(data_dir)
    store.enqueue(NAME, VERSION, [simpleqa("a"), simpleqa("b")])
    writer = store._connect()
    writer.execute("BEGIN IMMEDIATE")  # an annotator's decision, in flight
    writer.execute("DELETE FROM leases")
    started = time.monotonic()
    waiting = subprocess.Popen([sys.executable, "-c", (
        "from review.store import ReviewStore\n"
        f"s = ReviewStore.at({str(data_dir)!r})\n"
        f"print(s.enqueue({NAME!r}, '0.2.0', [{{'item_id': 'c', 'config': 'simpleqa', 'payload': {{}}}}]))\n")],
        stdout=subprocess.PIPE, text=True)
    time.sleep(0.5)
    writer.execute("COMMIT")
    writer.close()
    assert waiting.communicate(timeout=30)[0].strip() == "1"
    assert time.monotonic() - started < 10
