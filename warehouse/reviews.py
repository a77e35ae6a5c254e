"""Review state in the catalog: items of a release queued for people to check, two blind
annotations each, and an adjudication where the two disagree.

The rules are kept here, in one transaction per change, so any front end (the review web
app, a script) gets them the same way:

* an item is labelled by two different annotators; an annotator is never offered an item
  twice and never sees the other label (``next_item`` returns the item id only);
* two equal labels settle the item (``agreed``); two different ones make it ``disputed``;
* a disputed item is settled by an adjudicator who is neither of its annotators
  (``adjudicated``);
* ``verdicts`` gives the settled items with ``accept`` or ``reject``: what a later release
  can cite as human-verified;
* ``status`` counts the queue and gives Cohen's kappa between the first and second
  annotation of each doubly labelled item.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from warehouse.catalog import Catalog

LABELS = ("accept", "reject")
STATUSES = ("open", "agreed", "disputed", "adjudicated")


class ReviewError(ValueError):
    """A review action that the rules do not allow; the message says why."""


@dataclass(frozen=True)
class QueuedItem:
    item_id: str
    config: str


def _now() -> datetime:
    return datetime.now(timezone.utc)


class Reviews:
    def __init__(self, catalog_path: Path | str):
        self.catalog = Catalog(catalog_path)

    def enqueue(self, release_dir: Path, configs: list[str] | None = None, sample: int | None = None,
                seed: int = 0, split: str = "eval") -> int:
        """Queue a release's items of ``configs`` (all item configs when None) in ``split``;
        with ``sample``, that many per config, picked by a seeded hash of the item id (the same
        items every time). Items already queued stay as they are. Returns how many were added."""
        import pyarrow.parquet as pq

        from warehouse.release import by_config, load_manifest

        manifest = load_manifest(release_dir)
        grouped = by_config(manifest.files)
        items = [c for c, files in grouped.items() if "item_id" in pq.read_schema(Path(release_dir) / files[0].path).names]
        if not items:
            raise ReviewError(f"{manifest.name} {manifest.version} has no items to review (its configs: "
                              f"{', '.join(grouped)}); review a release built with items")
        unknown = sorted(set(configs or []) - set(items))
        if unknown:
            raise ReviewError(f"{manifest.name} {manifest.version} has no item config {', '.join(unknown)}; "
                              f"choose from {', '.join(items)}")
        rows = []
        for config in configs or items:
            ids = [i for f in grouped[config] if split in ("all", f.split)
                   for i in pq.read_table(Path(release_dir) / f.path, columns=["item_id"]).column(0).to_pylist()]
            if sample is not None:
                ids = sorted(ids, key=lambda i: hashlib.sha256(f"{seed}:{i}".encode()).hexdigest())[:sample]
            rows += [(manifest.name, manifest.version, i, config) for i in sorted(ids)]

        def work(con):
            before = con.execute("SELECT count(*) FROM review_queue WHERE release_name = ? AND release_version = ?",
                                 [manifest.name, manifest.version]).fetchall()[0][0]
            if rows:
                con.executemany("INSERT OR IGNORE INTO review_queue (release_name, release_version, item_id, config, "
                                "queued_at, status) VALUES (?, ?, ?, ?, ?, 'open')",
                                [(*r, _now()) for r in rows])
            return con.execute("SELECT count(*) FROM review_queue WHERE release_name = ? AND release_version = ?",
                               [manifest.name, manifest.version]).fetchall()[0][0] - before

        return self.catalog.transaction(work)

    def next_item(self, name: str, version: str, annotator: str) -> QueuedItem | None:
        """An open item this annotator has not labelled and that has fewer than two labels."""
        rows = self.catalog.transaction(lambda con: con.execute("""
            SELECT q.item_id, q.config FROM review_queue q
            WHERE q.release_name = ? AND q.release_version = ? AND q.status = 'open'
              AND (SELECT count(*) FROM review_labels l WHERE l.release_name = q.release_name
                   AND l.release_version = q.release_version AND l.item_id = q.item_id
                   AND l.role = 'annotator') < 2
              AND NOT EXISTS (SELECT 1 FROM review_labels l WHERE l.release_name = q.release_name
                              AND l.release_version = q.release_version AND l.item_id = q.item_id
                              AND l.person = ?)
            ORDER BY q.item_id LIMIT 1""", [name, version, annotator]).fetchall())
        return QueuedItem(*rows[0]) if rows else None

    def annotate(self, name: str, version: str, item_id: str, annotator: str, label: str, note: str = "") -> str:
        """Record one annotation; returns the item's status after it."""
        _check_label(label)

        def work(con):
            status = _status(con, name, version, item_id)
            if status != "open":
                raise ReviewError(f"item {item_id} is {status}; it takes no more annotations")
            labels = _labels(con, name, version, item_id)
            if annotator in labels:
                raise ReviewError(f"{annotator} has already annotated item {item_id}; each item needs two "
                                  "different annotators")
            con.execute("INSERT INTO review_labels VALUES (?, ?, ?, 'annotator', ?, ?, ?, ?)",
                        [name, version, item_id, annotator, label, note, _now()])
            labels[annotator] = label
            if len(labels) < 2:
                return "open"
            agreed = len(set(labels.values())) == 1
            new, verdict = ("agreed", label) if agreed else ("disputed", None)
            con.execute("UPDATE review_queue SET status = ?, verdict = ? WHERE release_name = ? AND "
                        "release_version = ? AND item_id = ?", [new, verdict, name, version, item_id])
            return new

        return self.catalog.transaction(work)

    def adjudicate(self, name: str, version: str, item_id: str, adjudicator: str, verdict: str,
                   note: str = "") -> None:
        """Settle a disputed item; the adjudicator must not be one of its annotators."""
        _check_label(verdict)

        def work(con):
            status = _status(con, name, version, item_id)
            if status != "disputed":
                raise ReviewError(f"item {item_id} is {status}; only disputed items are adjudicated")
            if adjudicator in _labels(con, name, version, item_id):
                raise ReviewError(f"{adjudicator} annotated item {item_id}; a third person adjudicates it")
            con.execute("INSERT INTO review_labels VALUES (?, ?, ?, 'adjudicator', ?, ?, ?, ?)",
                        [name, version, item_id, adjudicator, verdict, note, _now()])
            con.execute("UPDATE review_queue SET status = 'adjudicated', verdict = ? WHERE release_name = ? AND "
                        "release_version = ? AND item_id = ?", [verdict, name, version, item_id])

        self.catalog.transaction(work)

    def disputed(self, name: str, version: str) -> list[QueuedItem]:
        rows = self.catalog.transaction(lambda con: con.execute(
            "SELECT item_id, config FROM review_queue WHERE release_name = ? AND release_version = ? AND "
            "status = 'disputed' ORDER BY item_id", [name, version]).fetchall())
        return [QueuedItem(*r) for r in rows]

    def verdicts(self, name: str, version: str) -> dict[str, str]:
        """{item_id: accept | reject} of the settled items (agreed or adjudicated)."""
        return dict(self.catalog.transaction(lambda con: con.execute(
            "SELECT item_id, verdict FROM review_queue WHERE release_name = ? AND release_version = ? AND "
            "verdict IS NOT NULL ORDER BY item_id", [name, version]).fetchall()))

    def status(self, name: str, version: str) -> dict:
        def work(con):
            by_status = dict(con.execute(
                "SELECT status, count(*) FROM review_queue WHERE release_name = ? AND release_version = ? "
                "GROUP BY 1", [name, version]).fetchall())
            by_verdict = dict(con.execute(
                "SELECT verdict, count(*) FROM review_queue WHERE release_name = ? AND release_version = ? AND "
                "verdict IS NOT NULL GROUP BY 1", [name, version]).fetchall())
            pairs = con.execute("""
                SELECT list(label ORDER BY labelled_at, person) FROM review_labels
                WHERE release_name = ? AND release_version = ? AND role = 'annotator'
                GROUP BY item_id HAVING count(*) = 2""", [name, version]).fetchall()
            return by_status, by_verdict, [tuple(p[0]) for p in pairs]

        by_status, by_verdict, pairs = self.catalog.transaction(work)
        return {"queued": sum(by_status.values()), **{s: by_status.get(s, 0) for s in STATUSES},
                "accepted": by_verdict.get("accept", 0), "rejected": by_verdict.get("reject", 0),
                "doubly_annotated": len(pairs), "kappa": cohen_kappa(pairs)}


def cohen_kappa(pairs: list[tuple[str, str]]) -> float | None:
    """Cohen's kappa of (first label, second label) pairs; None when chance agreement is total
    (every label the same) or there are no pairs."""
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    expected = sum((sum(a == label for a, _ in pairs) / n) * (sum(b == label for _, b in pairs) / n)
                   for label in LABELS)
    if expected >= 1:
        return None
    return (observed - expected) / (1 - expected)


def _check_label(label: str) -> None:
    if label not in LABELS:
        raise ReviewError(f"label {label!r} is not one of {', '.join(LABELS)}")


def _status(con, name: str, version: str, item_id: str) -> str:
    rows = con.execute("SELECT status FROM review_queue WHERE release_name = ? AND release_version = ? AND "
                       "item_id = ?", [name, version, item_id]).fetchall()
    if not rows:
        raise ReviewError(f"item {item_id} is not queued for review in {name} {version}")
    return rows[0][0]


def _labels(con, name: str, version: str, item_id: str) -> dict[str, str]:
    return dict(con.execute("SELECT person, label FROM review_labels WHERE release_name = ? AND "
                            "release_version = ? AND item_id = ? AND role = 'annotator'",
                            [name, version, item_id]).fetchall())
