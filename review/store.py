"""Human review state: accounts, the queue of items, leases, annotations, adjudications and
relation verdicts, in one SQLite file beside the catalog (``<data-dir>/review.sqlite``).

Why not the DuckDB catalog: DuckDB lets one process write at a time, and a run holds the catalog
for long stretches. Annotators write all day, so their work goes to SQLite in WAL mode, where a
write takes a lock for milliseconds and readers never wait; a run writes here only to queue
items and reads the verdicts when it publishes.

The rules, each enforced in one ``BEGIN IMMEDIATE`` transaction:

* an item is leased to at most two different annotators at a time and labelled by two; an
  annotator is never offered an item twice and never sees the other label before adjudication;
  a lease expires after ``lease_minutes`` and the item goes back to the queue;
* two labels that agree (the same verdict and, for an accepted item, the same answer after
  :func:`filters.normalize.value_key`) settle the item (``agreed``); otherwise it is ``disputed``
  and goes to an adjudicator who is neither of its annotators, whose decision is final
  (``adjudicated``);
* a decision posted twice (the same ``request_id``) is stored once;
* an annotator may undo their last annotation while the item is not adjudicated.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import sqlite3
import statistics
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from packaging.version import InvalidVersion, Version

from review.passwords import check_password, decoy, hash_password, needs_rehash

ROLES = ("annotator", "adjudicator", "admin")
VERDICTS = ("accept", "reject")
STATUSES = ("open", "agreed", "disputed", "adjudicated")
# Chinese SimpleQA §3.2: what a question must be; an annotator says for each whether it holds.
CRITERIA = {
    "factual": "基于客观事实，不含主观判断",
    "unique": "答案唯一、无歧义",
    "time_invariant": "答案不随时间变化",
    "challenging": "有一定难度，不过于简单",
    "answerable": "截至出题时可以回答",
}
# Why an item is accepted or rejected; the first of each list is the default.
REASONS = {
    "accept": ("correct", "correct_after_edit"),
    "reject": ("wrong_answer", "criteria_not_met", "several_answers", "time_sensitive", "ambiguous_question",
               "gold_wrong", "distractor_also_correct", "triples_do_not_cover_text", "text_says_more",
               "not_supported_by_sources", "unsafe", "other"),
}
MIN_URLS = 2  # Chinese SimpleQA: each annotator gives at least two supporting URLs
QUESTION_CONFIGS = ("simpleqa",)
MCQ_CONFIGS = ("qa", "kgc")
PAIR_CONFIGS = ("t2t", "cdtp_pairs")

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL,
    password TEXT NOT NULL,     -- an Argon2id PHC string (older accounts: scrypt$n$r$p$salt$hash)
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    token_hash TEXT PRIMARY KEY,  -- sha256 of the cookie's token: a copied database opens no session
    user TEXT NOT NULL REFERENCES users(name),
    csrf TEXT NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS queue (
    release_name TEXT NOT NULL,
    release_version TEXT NOT NULL,
    item_id TEXT NOT NULL,
    config TEXT NOT NULL,
    category TEXT NOT NULL DEFAULT '',
    queued_at TEXT NOT NULL,
    status TEXT NOT NULL,       -- open | agreed | disputed | adjudicated
    verdict TEXT,               -- accept | reject, once settled
    answer TEXT,                -- the human answer, once settled and accepted
    payload TEXT NOT NULL,      -- what the page shows: the item, its source pairs, the verifiers' evidence
    PRIMARY KEY (release_name, release_version, item_id)
);
CREATE TABLE IF NOT EXISTS leases (
    release_name TEXT NOT NULL,
    release_version TEXT NOT NULL,
    item_id TEXT NOT NULL,
    person TEXT NOT NULL,
    role TEXT NOT NULL,         -- annotator | adjudicator
    leased_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    PRIMARY KEY (release_name, release_version, item_id, person)
);
CREATE TABLE IF NOT EXISTS labels (
    release_name TEXT NOT NULL,
    release_version TEXT NOT NULL,
    item_id TEXT NOT NULL,
    person TEXT NOT NULL,
    role TEXT NOT NULL,         -- annotator | adjudicator
    verdict TEXT NOT NULL,
    reason TEXT NOT NULL,
    answer TEXT NOT NULL DEFAULT '',     -- the annotator's own answer (SimpleQA) or an edited one
    criteria TEXT NOT NULL DEFAULT '{}', -- {criterion: true|false}
    urls TEXT NOT NULL DEFAULT '[]',
    options TEXT NOT NULL DEFAULT '{}',  -- MCQ: {"gold_right": bool, "distractors_wrong": bool}
    covered INTEGER,                     -- pairs: the triples cover the text
    note TEXT NOT NULL DEFAULT '',
    request_id TEXT UNIQUE,
    labelled_at REAL NOT NULL,
    seconds REAL,                        -- from the lease to the decision
    PRIMARY KEY (release_name, release_version, item_id, person)
);
CREATE TABLE IF NOT EXISTS skips (   -- items a person gave back: offered to them again only after the rest
    release_name TEXT NOT NULL,
    release_version TEXT NOT NULL,
    item_id TEXT NOT NULL,
    person TEXT NOT NULL,
    skipped_at REAL NOT NULL,
    PRIMARY KEY (release_name, release_version, item_id, person)
);
CREATE TABLE IF NOT EXISTS relations (
    relation TEXT PRIMARY KEY,
    verdict TEXT NOT NULL,      -- accept | reject
    person TEXT NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    release_name TEXT,
    release_version TEXT,
    reviewed_at TEXT NOT NULL
);
"""


class ReviewError(ValueError):
    """A review action the rules do not allow; the message says why."""


@dataclass(frozen=True)
class User:
    name: str
    role: str

    def can(self, role: str) -> bool:
        """Admins can do everything, adjudicators also annotate."""
        return ROLES.index(self.role) >= ROLES.index(role)


@dataclass(frozen=True)
class Session:
    user: User
    csrf: str


@dataclass
class Annotation:
    verdict: str
    reason: str = ""
    answer: str = ""
    criteria: dict[str, bool] = field(default_factory=dict)
    urls: list[str] = field(default_factory=list)
    options: dict[str, bool] = field(default_factory=dict)
    covered: bool | None = None
    note: str = ""

    def check(self, config: str, role: str = "annotator") -> None:
        """What an annotator must record for an item of ``config`` (the issue's list); raises ReviewError."""
        if self.verdict not in VERDICTS:
            raise ReviewError(f"verdict {self.verdict!r} is not one of {', '.join(VERDICTS)}")
        self.reason = self.reason or REASONS[self.verdict][0]
        if self.reason not in REASONS[self.verdict]:
            raise ReviewError(f"reason {self.reason!r} does not go with {self.verdict}; choose from "
                              f"{', '.join(REASONS[self.verdict])}")
        self.answer = " ".join(self.answer.split())
        self.urls = [u.strip() for u in self.urls if u.strip()]
        bad = [u for u in self.urls if not u.startswith(("http://", "https://"))]
        if bad:
            raise ReviewError(f"supporting URL {bad[0]!r} is not an http(s) address")
        if role == "adjudicator":
            return
        if config in QUESTION_CONFIGS:
            missing = [c for c in CRITERIA if c not in self.criteria]
            if missing:
                raise ReviewError(f"say whether each criterion holds; missing: {', '.join(missing)}")
            if self.verdict == "accept":
                if not all(self.criteria.values()):
                    failed = [c for c, ok in self.criteria.items() if not ok]
                    raise ReviewError(f"an accepted question meets every criterion; {', '.join(failed)} does not "
                                      "hold: reject it with reason criteria_not_met")
                if not self.answer:
                    raise ReviewError("write your own answer, found in authoritative sources")
                if len(set(self.urls)) < MIN_URLS:
                    raise ReviewError(f"give at least {MIN_URLS} different supporting URLs for your answer "
                                      f"({len(set(self.urls))} given)")
        elif config in MCQ_CONFIGS:
            if set(self.options) != {"gold_right", "distractors_wrong"}:
                raise ReviewError("say whether the gold is right and whether every distractor is wrong")
            if self.verdict == "accept" and not all(self.options.values()):
                raise ReviewError("an accepted question has a right gold and only wrong distractors; reject it")
        elif config in PAIR_CONFIGS:
            if self.covered is None:
                raise ReviewError("say whether the triples cover the text")
            if self.verdict == "accept" and not self.covered:
                raise ReviewError("an accepted pair's triples cover its text; reject it with reason text_says_more")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def answer_key(answer: str) -> str:
    """What makes two answers one answer: the pipeline's own value key (filters.normalize)."""
    from filters.normalize import value_key

    return value_key(answer or "")


class ReviewStore:
    def __init__(self, path: Path | str, lease_minutes: float = 30.0, session_hours: float = 12.0):
        if not (lease_minutes > 0 and math.isfinite(lease_minutes)):  # nan would fail every lease, inf never end one
            raise ValueError(f"lease_minutes must be a positive finite number, got {lease_minutes}")
        self.path = Path(path)
        self.lease_s = lease_minutes * 60
        self.session_s = session_hours * 3600
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _owner_only(self.path)
        with self._connect() as con:
            con.execute("PRAGMA journal_mode=WAL")
            con.executescript(SCHEMA)

    @classmethod
    def at(cls, data_dir: Path | str, **kwargs) -> "ReviewStore":
        return cls(Path(data_dir) / "review.sqlite", **kwargs)

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        con.row_factory = sqlite3.Row
        con.execute("PRAGMA busy_timeout = 30000")
        con.execute("PRAGMA foreign_keys = ON")
        return con

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once (BEGIN IMMEDIATE), so two writers queue, never interleave."""
        con = self._connect()
        try:
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")
        finally:
            con.close()

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        con = self._connect()
        try:
            yield con
        finally:
            con.close()

    # -- accounts and sessions ------------------------------------------------------------------

    def add_user(self, name: str, role: str, password: str, replace: bool = False) -> User:
        name = name.strip()
        if not name or len(name) > 64 or any(c.isspace() for c in name):
            raise ReviewError(f"user name {name!r} must be 1-64 characters without spaces")
        if role not in ROLES:
            raise ReviewError(f"role {role!r} is not one of {', '.join(ROLES)}")
        if len(password) < 8:
            raise ReviewError("a password has at least 8 characters")
        hashed = hash_password(password)
        with self._write() as con:
            exists = con.execute("SELECT 1 FROM users WHERE name = ?", [name]).fetchone()
            if exists and not replace:
                raise ReviewError(f"user {name} exists; to change the role or password, add it again with --replace")
            con.execute("INSERT OR REPLACE INTO users VALUES (?, ?, ?, ?)", [name, role, hashed, _now()])
            if exists:
                con.execute("DELETE FROM sessions WHERE user = ?", [name])
        return User(name, role)

    def users(self) -> list[User]:
        with self._read() as con:
            return [User(r["name"], r["role"]) for r in con.execute("SELECT name, role FROM users ORDER BY name")]

    def login(self, name: str, password: str) -> tuple[str, Session] | None:
        """A new session's cookie token and the session, or None for a wrong name or password."""
        with self._read() as con:
            row = con.execute("SELECT name, role, password FROM users WHERE name = ?", [name]).fetchone()
        # A missing user costs one hash too, so timing does not tell which names exist.
        if not check_password(password, row["password"] if row else decoy()) or row is None:
            return None
        # Server-side sessions, not Starlette's SessionMiddleware (a signed cookie): logging out, or an admin
        # changing a role or password, ends a session at once; a signed cookie stays valid until it expires.
        # The CSRF token is the session's own (the synchronizer-token pattern), checked with hmac.compare_digest.
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        rehashed = hash_password(password) if needs_rehash(row["password"]) else None
        with self._write() as con:
            if rehashed:  # an older hash (scrypt, weaker parameters) is replaced while the password is at hand
                con.execute("UPDATE users SET password = ? WHERE name = ? AND password = ?",
                            [rehashed, row["name"], row["password"]])
            con.execute("DELETE FROM sessions WHERE expires_at < ?", [time.time()])
            con.execute("INSERT INTO sessions VALUES (?, ?, ?, ?)",
                        [_token_hash(token), row["name"], csrf, time.time() + self.session_s])
        return token, Session(User(row["name"], row["role"]), csrf)

    def session(self, token: str | None) -> Session | None:
        if not token:
            return None
        with self._read() as con:
            row = con.execute("SELECT u.name, u.role, s.csrf FROM sessions s JOIN users u ON u.name = s.user "
                              "WHERE s.token_hash = ? AND s.expires_at > ?", [_token_hash(token), time.time()]).fetchone()
        return Session(User(row["name"], row["role"]), row["csrf"]) if row else None

    def logout(self, token: str) -> None:
        """End the session and give back every item its person holds: logged out, they label nothing."""
        with self._write() as con:
            row = con.execute("SELECT user FROM sessions WHERE token_hash = ?", [_token_hash(token)]).fetchone()
            con.execute("DELETE FROM sessions WHERE token_hash = ?", [_token_hash(token)])
            if row is not None and not con.execute("SELECT 1 FROM sessions WHERE user = ? AND expires_at > ?",
                                                   [row[0], time.time()]).fetchone():
                con.execute("DELETE FROM leases WHERE person = ?", [row[0]])

    # -- the queue --------------------------------------------------------------------------------

    def enqueue(self, name: str, version: str, items: list[dict]) -> int:
        """Queue items (each {"item_id", "config", "category", "payload"}); items already queued, for this
        release or an earlier one of the same name, stay as they are: a verdict holds for the item in every
        later release (review/verdicts.py). Returns how many were added."""
        with self._write() as con:
            known = {r[0] for r in con.execute("SELECT item_id FROM queue WHERE release_name = ?", [name])}
            items = [i for i in items if i["item_id"] not in known]
            before = con.total_changes
            con.executemany(
                "INSERT OR IGNORE INTO queue (release_name, release_version, item_id, config, category, queued_at, "
                "status, payload) VALUES (?, ?, ?, ?, ?, ?, 'open', ?)",
                [(name, version, i["item_id"], i["config"], i.get("category") or "", _now(),
                  json.dumps(i.get("payload") or {}, ensure_ascii=False, sort_keys=True)) for i in items])
            return con.total_changes - before

    def queues(self) -> list[dict]:
        """Each queued release with its counts by status."""
        with self._read() as con:
            rows = con.execute("SELECT release_name, release_version, status, count(*) AS n FROM queue "
                               "GROUP BY 1, 2, 3 ORDER BY 1, 2").fetchall()
        out: dict[tuple[str, str], dict] = {}
        for r in rows:
            q = out.setdefault((r[0], r[1]), {"name": r[0], "version": r[1], **{s: 0 for s in STATUSES}})
            q[r[2]] = r[3]
        for q in out.values():
            q["queued"] = sum(q[s] for s in STATUSES)
        return sorted(out.values(), key=lambda q: (q["name"], _semver(q["version"])), reverse=True)

    def item(self, name: str, version: str, item_id: str) -> dict:
        with self._read() as con:
            return self._item(con, name, version, item_id)

    def next_item(self, name: str, version: str, person: str) -> dict | None:
        """The item this annotator holds a lease on, or a newly leased one, or None when nothing is
        left for them. An item has at most two annotators, counting live leases of others."""
        now = time.time()
        with self._write() as con:
            con.execute("DELETE FROM leases WHERE expires_at <= ?", [now])
            held = con.execute("SELECT item_id FROM leases WHERE release_name = ? AND release_version = ? AND "
                               "person = ? AND role = 'annotator' ORDER BY leased_at LIMIT 1",
                               [name, version, person]).fetchone()
            if held:
                return self._item(con, name, version, held[0])
            row = con.execute("""
                SELECT q.item_id FROM queue q
                WHERE q.release_name = ? AND q.release_version = ? AND q.status = 'open'
                  AND (SELECT count(*) FROM labels l WHERE l.release_name = q.release_name
                       AND l.release_version = q.release_version AND l.item_id = q.item_id AND l.role = 'annotator')
                    + (SELECT count(*) FROM leases s WHERE s.release_name = q.release_name
                       AND s.release_version = q.release_version AND s.item_id = q.item_id
                       AND s.role = 'annotator') < 2
                  AND NOT EXISTS (SELECT 1 FROM labels l WHERE l.release_name = q.release_name
                                  AND l.release_version = q.release_version AND l.item_id = q.item_id
                                  AND l.person = ?)
                ORDER BY EXISTS (SELECT 1 FROM skips k WHERE k.release_name = q.release_name
                                 AND k.release_version = q.release_version AND k.item_id = q.item_id
                                 AND k.person = ?),
                         coalesce(json_extract(q.payload, '$.first'), 0) DESC,
                         (SELECT count(*) FROM labels l WHERE l.release_name = q.release_name
                          AND l.release_version = q.release_version AND l.item_id = q.item_id) DESC, q.item_id
                LIMIT 1""", [name, version, person, person]).fetchone()
            if row is None:
                return None
            con.execute("INSERT INTO leases VALUES (?, ?, ?, ?, 'annotator', ?, ?)",
                        [name, version, row[0], person, now, now + self.lease_s])
            return self._item(con, name, version, row[0])

    def browse(self, name: str, version: str, offset: int = 0) -> tuple[dict | None, int]:
        """The open item at ``offset`` (in id order) and how many are open, leasing nothing: what an admin
        looks at without taking an item from the annotators."""
        with self._read() as con:
            total = con.execute("SELECT count(*) FROM queue WHERE release_name = ? AND release_version = ? AND "
                                "status = 'open'", [name, version]).fetchone()[0]
            row = con.execute("SELECT item_id FROM queue WHERE release_name = ? AND release_version = ? AND "
                              "status = 'open' ORDER BY item_id LIMIT 1 OFFSET ?",
                              [name, version, max(0, offset)]).fetchone()
            return (self._item(con, name, version, row[0]) if row else None), total

    def next_dispute(self, name: str, version: str, person: str) -> dict | None:
        """A disputed item this adjudicator did not annotate, leased to them; None when none is left."""
        now = time.time()
        with self._write() as con:
            con.execute("DELETE FROM leases WHERE expires_at <= ?", [now])
            held = con.execute("SELECT item_id FROM leases WHERE release_name = ? AND release_version = ? AND "
                               "person = ? AND role = 'adjudicator' LIMIT 1", [name, version, person]).fetchone()
            if held:
                return self._item(con, name, version, held[0])
            row = con.execute("""
                SELECT q.item_id FROM queue q
                WHERE q.release_name = ? AND q.release_version = ? AND q.status = 'disputed'
                  AND NOT EXISTS (SELECT 1 FROM labels l WHERE l.release_name = q.release_name
                                  AND l.release_version = q.release_version AND l.item_id = q.item_id
                                  AND l.person = ?)
                  AND NOT EXISTS (SELECT 1 FROM leases s WHERE s.release_name = q.release_name
                                  AND s.release_version = q.release_version AND s.item_id = q.item_id
                                  AND s.role = 'adjudicator')
                ORDER BY q.item_id LIMIT 1""", [name, version, person]).fetchone()
            if row is None:
                return None
            con.execute("INSERT INTO leases VALUES (?, ?, ?, ?, 'adjudicator', ?, ?)",
                        [name, version, row[0], person, now, now + self.lease_s])
            return self._item(con, name, version, row[0])

    def _item(self, con, name: str, version: str, item_id: str) -> dict:
        row = con.execute("SELECT * FROM queue WHERE release_name = ? AND release_version = ? AND item_id = ?",
                          [name, version, item_id]).fetchone()
        if row is None:
            raise ReviewError(f"item {item_id} is not queued for review in {name} {version}")
        return {**dict(row), "payload": json.loads(row["payload"])}

    def annotate(self, name: str, version: str, item_id: str, person: str, annotation: Annotation,
                 request_id: str | None = None) -> str:
        """Record one annotation; returns the item's status after it. The same ``request_id`` again
        changes nothing and returns the status."""
        now = time.time()
        with self._write() as con:
            if request_id and _by_request(con, request_id, item_id):
                return _state(con, name, version, item_id)[0]
            status, config = _state(con, name, version, item_id)
            labels = _labels(con, name, version, item_id)
            # Blind: what a refusal says never depends on what the other annotator said (agreed or disputed).
            if person in labels:
                raise ReviewError(f"{person} has already annotated item {item_id}; each item needs two different "
                                  "annotators")
            if status != "open":
                raise ReviewError(f"item {item_id} has both its annotations; it takes no more")
            annotation.check(config)
            con.execute("DELETE FROM leases WHERE expires_at <= ?", [now])
            lease = con.execute("SELECT leased_at FROM leases WHERE release_name = ? AND release_version = ? AND "
                                "item_id = ? AND person = ?", [name, version, item_id, person]).fetchone()
            if lease is None:
                holders = con.execute("SELECT person, expires_at FROM leases WHERE release_name = ? AND "
                                      "release_version = ? AND item_id = ? AND role = 'annotator' ORDER BY person",
                                      [name, version, item_id]).fetchall()
                if len(labels) + len(holders) >= 2:
                    taken = [f"{len(labels)} annotated it"] if labels else []
                    taken += [f"{h[0]} holds it until {datetime.fromtimestamp(h[1], timezone.utc):%H:%M} UTC"
                              for h in holders]
                    raise ReviewError(f"item {item_id} has its two annotators without {person} ({'; '.join(taken)}): "
                                      "it takes no third; open the next item")
            _insert_label(con, name, version, item_id, person, "annotator", annotation, request_id, now,
                          now - lease[0] if lease else None)
            con.execute("DELETE FROM leases WHERE release_name = ? AND release_version = ? AND item_id = ? AND "
                        "person = ?", [name, version, item_id, person])
            labels = _labels(con, name, version, item_id)
            if len(labels) < 2:
                return "open"
            pipeline = self._item(con, name, version, item_id)["payload"].get("item", {}).get("answer", "")
            a, b = labels.values()
            # Both keys always: the time this takes must not tell the second annotator what the first said.
            same_answer = answer_key(a["answer"] or pipeline) == answer_key(b["answer"] or pipeline)
            agreed = a["verdict"] == b["verdict"] and (a["verdict"] == "reject" or same_answer)
            if agreed:
                answer = (a["answer"] or pipeline) if a["verdict"] == "accept" else None
                _settle(con, name, version, item_id, "agreed", a["verdict"], answer)
                return "agreed"
            _settle(con, name, version, item_id, "disputed", None, None)
            return "disputed"

    def adjudicate(self, name: str, version: str, item_id: str, person: str, annotation: Annotation,
                   request_id: str | None = None) -> None:
        """Settle a disputed item; the adjudicator is not one of its annotators and decides for good."""
        now = time.time()
        with self._write() as con:
            if request_id and _by_request(con, request_id, item_id):
                return
            status, config = _state(con, name, version, item_id)
            if person in _labels(con, name, version, item_id):  # first: their item's status is not theirs to see
                raise ReviewError(f"{person} annotated item {item_id}; a third person adjudicates it")
            if status != "disputed":
                raise ReviewError(f"item {item_id} is {status}; only disputed items are adjudicated")
            annotation.check(config, role="adjudicator")
            lease = con.execute("SELECT leased_at, person FROM leases WHERE release_name = ? AND release_version = ? "
                                "AND item_id = ? AND role = 'adjudicator' AND expires_at > ?",
                                [name, version, item_id, now]).fetchone()
            if lease and lease["person"] != person:
                raise ReviewError(f"{lease['person']} is adjudicating item {item_id}; open the next dispute")
            _insert_label(con, name, version, item_id, person, "adjudicator", annotation, request_id, now,
                          now - lease[0] if lease else None)
            con.execute("DELETE FROM leases WHERE release_name = ? AND release_version = ? AND item_id = ?",
                        [name, version, item_id])
            pipeline = self._item(con, name, version, item_id)["payload"].get("item", {}).get("answer", "")
            _settle(con, name, version, item_id, "adjudicated", annotation.verdict,
                    (annotation.answer or pipeline) if annotation.verdict == "accept" else None)

    def undo(self, name: str, version: str, person: str) -> str | None:
        """Take back this person's last annotation in the queue: the item is open again and leased back
        to them. Returns its id, or None when there is nothing to undo. An adjudicated item is final."""
        now = time.time()
        with self._write() as con:
            row = con.execute("SELECT l.item_id, q.status FROM labels l JOIN queue q USING (release_name, "
                              "release_version, item_id) WHERE l.release_name = ? AND l.release_version = ? AND "
                              "l.person = ? AND l.role = 'annotator' ORDER BY l.labelled_at DESC LIMIT 1",
                              [name, version, person]).fetchone()
            if row is None:
                return None
            item_id, status = row
            if status != "open":
                # Both annotations are in (agreed, disputed or adjudicated): the verdict may be released already.
                # The message is the same whatever the other said: undo must not tell whether they agreed.
                raise ReviewError(f"item {item_id} has both its annotations now; an annotation can be undone only "
                                  "while the item waits for the second")
            con.execute("DELETE FROM labels WHERE release_name = ? AND release_version = ? AND item_id = ? AND "
                        "person = ?", [name, version, item_id, person])
            con.execute("DELETE FROM leases WHERE release_name = ? AND release_version = ? AND person = ? AND "
                        "role = 'annotator'", [name, version, person])
            con.execute("DELETE FROM leases WHERE release_name = ? AND release_version = ? AND item_id = ? AND "
                        "role = 'adjudicator'", [name, version, item_id])
            con.execute("INSERT INTO leases VALUES (?, ?, ?, ?, 'annotator', ?, ?)",
                        [name, version, item_id, person, now, now + self.lease_s])
            _settle(con, name, version, item_id, "open", None, None)
            return item_id

    def release_lease(self, name: str, version: str, item_id: str, person: str) -> None:
        """Give an item back to the queue (skip): others may take it, and this person is offered it again only
        after every other item open to them."""
        with self._write() as con:
            con.execute("DELETE FROM leases WHERE release_name = ? AND release_version = ? AND item_id = ? AND "
                        "person = ?", [name, version, item_id, person])
            con.execute("INSERT OR REPLACE INTO skips VALUES (?, ?, ?, ?, ?)",
                        [name, version, item_id, person, time.time()])

    def labels(self, name: str, version: str, item_id: str) -> list[dict]:
        """Every label of an item, annotators first. Only for adjudication and export: the web app never
        shows an annotator another's label."""
        with self._read() as con:
            rows = con.execute("SELECT * FROM labels WHERE release_name = ? AND release_version = ? AND item_id = ? "
                               "ORDER BY role = 'adjudicator', labelled_at, person",
                               [name, version, item_id]).fetchall()
        return [_label_dict(r) for r in rows]

    def has_queue(self, name: str, version: str) -> bool:
        with self._read() as con:
            return con.execute("SELECT 1 FROM queue WHERE release_name = ? AND release_version = ? LIMIT 1",
                               [name, version]).fetchone() is not None

    def item_ids(self, name: str, version: str) -> list[str]:
        with self._read() as con:
            return [r[0] for r in con.execute("SELECT item_id FROM queue WHERE release_name = ? AND "
                                              "release_version = ? ORDER BY item_id", [name, version])]

    def done_by(self, name: str, version: str, person: str) -> int:
        with self._read() as con:
            return con.execute("SELECT count(*) FROM labels WHERE release_name = ? AND release_version = ? AND "
                               "person = ?", [name, version, person]).fetchone()[0]

    def left_for(self, name: str, version: str, person: str) -> int:
        """Open items this person could still annotate (the progress counter's remainder): not labelled by
        them, and with a slot free or held by them."""
        with self._read() as con:
            return con.execute("""
                SELECT count(*) FROM queue q WHERE q.release_name = ? AND q.release_version = ? AND q.status = 'open'
                  AND NOT EXISTS (SELECT 1 FROM labels l WHERE l.release_name = q.release_name
                                  AND l.release_version = q.release_version AND l.item_id = q.item_id
                                  AND l.person = ?)
                  AND (SELECT count(*) FROM labels l WHERE l.release_name = q.release_name
                       AND l.release_version = q.release_version AND l.item_id = q.item_id AND l.role = 'annotator')
                    + (SELECT count(*) FROM leases s WHERE s.release_name = q.release_name
                       AND s.release_version = q.release_version AND s.item_id = q.item_id
                       AND s.role = 'annotator' AND s.person <> ? AND s.expires_at > ?) < 2""",
                               [name, version, person, person, time.time()]).fetchone()[0]

    def disputes_for(self, name: str, version: str, person: str) -> int:
        """Disputed items this adjudicator may settle: not labelled by them, held by no other adjudicator. An
        item they labelled never counts, whatever became of it: a count must not tell them the other label."""
        with self._read() as con:
            return con.execute("""
                SELECT count(*) FROM queue q WHERE q.release_name = ? AND q.release_version = ?
                  AND q.status = 'disputed'
                  AND NOT EXISTS (SELECT 1 FROM labels l WHERE l.release_name = q.release_name
                                  AND l.release_version = q.release_version AND l.item_id = q.item_id AND l.person = ?)
                  AND NOT EXISTS (SELECT 1 FROM leases s WHERE s.release_name = q.release_name
                                  AND s.release_version = q.release_version AND s.item_id = q.item_id
                                  AND s.role = 'adjudicator' AND s.person <> ? AND s.expires_at > ?)""",
                               [name, version, person, person, time.time()]).fetchone()[0]

    # -- what settled -------------------------------------------------------------------------------

    def settled(self, item_ids: set[str] | None = None) -> dict[str, dict]:
        """{item_id: {"verdict", "answer", "status", "release"}} of every settled item, the latest
        release's decision where an item was reviewed in several."""
        with self._read() as con:
            rows = con.execute("SELECT item_id, status, verdict, answer, release_name, release_version FROM queue "
                               "WHERE verdict IS NOT NULL").fetchall()
        out: dict[str, dict] = {}
        for r in sorted(rows, key=lambda r: (r["release_name"], _semver(r["release_version"]))):
            if item_ids is None or r["item_id"] in item_ids:
                out[r["item_id"]] = {"verdict": r["verdict"], "answer": r["answer"], "status": r["status"],
                                     "release": f"{r['release_name']} {r['release_version']}"}
        return out

    def status(self, name: str, version: str) -> dict:
        with self._read() as con:
            by_status = dict(con.execute("SELECT status, count(*) FROM queue WHERE release_name = ? AND "
                                         "release_version = ? GROUP BY 1", [name, version]).fetchall())
            by_verdict = dict(con.execute("SELECT verdict, count(*) FROM queue WHERE release_name = ? AND "
                                          "release_version = ? AND verdict IS NOT NULL GROUP BY 1",
                                          [name, version]).fetchall())
            pairs = [(r[0], r[1]) for r in con.execute(
                "SELECT a.verdict, b.verdict FROM labels a JOIN labels b USING (release_name, release_version, item_id) "
                "WHERE a.release_name = ? AND a.release_version = ? AND a.role = 'annotator' AND "
                "b.role = 'annotator' AND a.person < b.person", [name, version])]
        return {"queued": sum(by_status.values()), **{s: by_status.get(s, 0) for s in STATUSES},
                "accepted": by_verdict.get("accept", 0), "rejected": by_verdict.get("reject", 0),
                "doubly_annotated": len(pairs), "kappa": cohen_kappa(pairs)}

    def stats(self, name: str, version: str, now: float | None = None) -> dict:
        """What the admin page shows: depth by config and status, throughput per annotator, and Cohen's
        kappa per annotator pair, per config and per category."""
        now = now or time.time()
        with self._read() as con:
            depth = [dict(r) for r in con.execute(
                "SELECT config, status, count(*) AS n FROM queue WHERE release_name = ? AND release_version = ? "
                "GROUP BY 1, 2 ORDER BY 1, 2", [name, version])]
            people = con.execute(
                "SELECT person, role, labelled_at, seconds FROM labels WHERE release_name = ? AND release_version = ?",
                [name, version]).fetchall()
            leased = dict(con.execute("SELECT person, count(*) FROM leases WHERE release_name = ? AND "
                                      "release_version = ? AND expires_at > ? GROUP BY 1", [name, version, now]))
            pairs = con.execute("""
                SELECT a.person AS first, b.person AS second, a.verdict AS va, b.verdict AS vb, q.config, q.category
                FROM labels a JOIN labels b USING (release_name, release_version, item_id)
                JOIN queue q USING (release_name, release_version, item_id)
                WHERE a.release_name = ? AND a.release_version = ? AND a.role = 'annotator' AND b.role = 'annotator'
                  AND a.person < b.person""", [name, version]).fetchall()
        throughput: dict[str, dict] = {}
        for r in people:
            t = throughput.setdefault(r["person"], {"person": r["person"], "labels": 0, "adjudications": 0,
                                                   "last_hour": 0, "last_day": 0, "seconds": []})
            t["adjudications" if r["role"] == "adjudicator" else "labels"] += 1
            t["last_hour"] += r["labelled_at"] > now - 3600
            t["last_day"] += r["labelled_at"] > now - 86400
            if r["seconds"] is not None:
                t["seconds"].append(r["seconds"])
        for t in throughput.values():
            seconds = t.pop("seconds")
            t["median_seconds"] = round(statistics.median(seconds), 1) if seconds else None
            t["leased"] = leased.get(t["person"], 0)

        def grouped(key) -> list[dict]:
            groups: dict[Any, list] = {}
            for p in pairs:
                groups.setdefault(key(p), []).append((p["va"], p["vb"]))
            return [{"group": g, "items": len(v), "agreement": sum(a == b for a, b in v) / len(v),
                     "kappa": cohen_kappa(v)} for g, v in sorted(groups.items())]

        return {"depth": depth, "throughput": sorted(throughput.values(), key=lambda t: t["person"]),
                "by_pair": grouped(lambda p: f"{p['first']} / {p['second']}"),
                "by_config": grouped(lambda p: p["config"]),
                "by_category": grouped(lambda p: p["category"] or "-"),
                "overall": grouped(lambda p: "all")}

    # -- relations ----------------------------------------------------------------------------------

    def judge_relation(self, relation: str, verdict: str, person: str, note: str = "",
                       release: tuple[str, str] | None = None) -> None:
        if verdict not in VERDICTS:
            raise ReviewError(f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
        with self._write() as con:
            con.execute("INSERT OR REPLACE INTO relations VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [relation, verdict, person, note, *(release or (None, None)), _now()])

    def relation_verdicts(self) -> dict[str, dict]:
        with self._read() as con:
            return {r["relation"]: dict(r) for r in con.execute("SELECT * FROM relations ORDER BY relation")}

    def rejected_relations(self) -> list[str]:
        """Relations people rejected: the next run's alignment leaves them out."""
        return sorted(r for r, v in self.relation_verdicts().items() if v["verdict"] == "reject")


def cohen_kappa(pairs: list[tuple[str, str]]) -> float | None:
    """Cohen's kappa of (first label, second label) pairs (scikit-learn's); None when chance agreement is total
    (every label the same) or there are no pairs."""
    if not pairs or len({label for pair in pairs for label in pair}) < 2:
        return None  # scikit-learn answers nan, with a warning, where kappa is undefined
    from sklearn.metrics import cohen_kappa_score

    return float(cohen_kappa_score([a for a, _ in pairs], [b for _, b in pairs], labels=list(VERDICTS)))


def _owner_only(path: Path) -> None:
    """Make the database readable by its owner only (mode 0600: it holds password hashes and sessions). SQLite
    gives its -wal and -shm files the database's mode; files an older version left looser are tightened."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    for part in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            found = part.stat()
        except FileNotFoundError:
            continue
        if found.st_mode & 0o077 and found.st_uid == os.getuid():
            part.chmod(0o600)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _semver(version: str) -> tuple:
    """Versions in number order (0.10.0 after 0.9.0); anything that is not a version after, by its text."""
    try:
        return (0, Version(version), "")
    except InvalidVersion:
        return (1, None, version)


def _state(con, name: str, version: str, item_id: str) -> tuple[str, str]:
    row = con.execute("SELECT status, config FROM queue WHERE release_name = ? AND release_version = ? AND "
                      "item_id = ?", [name, version, item_id]).fetchone()
    if row is None:
        raise ReviewError(f"item {item_id} is not queued for review in {name} {version}")
    return row[0], row[1]


def _by_request(con, request_id: str, item_id: str) -> bool:
    """Whether this request was recorded already (a form posted twice); a request id of another item is
    refused, so one id can never stand for two decisions."""
    row = con.execute("SELECT item_id FROM labels WHERE request_id = ?", [request_id]).fetchone()
    if row and row[0] != item_id:
        raise ReviewError(f"request {request_id} recorded a decision on item {row[0]}, not {item_id}; reload the "
                          "page and decide again")
    return row is not None


def _labels(con, name: str, version: str, item_id: str) -> dict[str, dict]:
    rows = con.execute("SELECT * FROM labels WHERE release_name = ? AND release_version = ? AND item_id = ? AND "
                       "role = 'annotator' ORDER BY labelled_at, person", [name, version, item_id]).fetchall()
    return {r["person"]: _label_dict(r) for r in rows}


def _label_dict(row) -> dict:
    d = dict(row)
    for key in ("criteria", "urls", "options"):
        d[key] = json.loads(d[key])
    d["covered"] = None if d["covered"] is None else bool(d["covered"])
    return d


def _insert_label(con, name, version, item_id, person, role, a: Annotation, request_id, now, seconds) -> None:
    con.execute("INSERT INTO labels VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [name, version, item_id, person, role, a.verdict, a.reason, a.answer,
                 json.dumps(a.criteria, sort_keys=True), json.dumps(a.urls, ensure_ascii=False),
                 json.dumps(a.options, sort_keys=True), None if a.covered is None else int(a.covered), a.note,
                 request_id, now, seconds])


def _settle(con, name, version, item_id, status, verdict, answer) -> None:
    con.execute("UPDATE queue SET status = ?, verdict = ?, answer = ? WHERE release_name = ? AND "
                "release_version = ? AND item_id = ?", [status, verdict, answer, name, version, item_id])

