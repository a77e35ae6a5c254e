"""The review rules: two blind annotators, a third person adjudicates, leases, one decision per
request, undo, what each kind of item needs, accounts, and agreement."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from review.store import CRITERIA, Annotation, ReviewError, ReviewStore, check_password, cohen_kappa, hash_password

URLS = ["https://baike.baidu.com/item/%E5%B1%A0%E5%91%A6%E5%91%A6/7947371",
        "https://zh.wikipedia.org/wiki/%E5%B1%A0%E5%91%A6%E5%91%A6"]
OK = {c: True for c in CRITERIA}


def simpleqa(item_id: str, answer: str = "中国", category: str = "natural_science") -> dict:
    return {"item_id": item_id, "config": "simpleqa", "category": category,
            "payload": {"item": {"item_id": item_id, "kind": "simpleqa", "question": "屠呦呦的国籍是什么？",
                                 "answer": answer}}}


def qa(item_id: str) -> dict:
    return {"item_id": item_id, "config": "qa", "category": "humanities",
            "payload": {"item": {"item_id": item_id, "kind": "qa", "question": "卫青的职业是什么？",
                                 "answer": "军事家", "options": ["哲学家", "军事家", "画家"], "answer_index": 1}}}


def said(answer: str = "中国", verdict: str = "accept") -> Annotation:
    return Annotation(verdict, "" if verdict == "accept" else "wrong_answer", answer,
                      OK if verdict == "accept" else {**OK, "unique": False}, URLS)


@pytest.fixture
def store(tmp_path):
    s = ReviewStore.at(tmp_path)
    s.enqueue("cdtp", "0.1.0", [simpleqa("q1"), simpleqa("q2"), qa("z1")])
    return s


def test_items_queued_once_even_across_versions(store):
    assert store.enqueue("cdtp", "0.1.0", [simpleqa("q1"), simpleqa("q3")]) == 1
    # q1 was queued for 0.1.0: its verdict will hold for 0.2.0, so it is not queued again.
    assert store.enqueue("cdtp", "0.2.0", [simpleqa("q1"), simpleqa("q4")]) == 1
    assert [(q["version"], q["queued"]) for q in store.queues()] == [("0.2.0", 1), ("0.1.0", 4)]


def test_two_annotators_agree_blind_and_a_third_person_adjudicates_a_different_answer(store):
    a = store.next_item("cdtp", "0.1.0", "ann1")
    assert store.next_item("cdtp", "0.1.0", "ann1")["item_id"] == a["item_id"]  # the lease it holds
    assert store.next_item("cdtp", "0.1.0", "ann2")["item_id"] == a["item_id"]  # the item's second slot
    assert store.annotate("cdtp", "0.1.0", a["item_id"], "ann1", said()) == "open"
    with pytest.raises(ReviewError, match="already annotated"):
        store.annotate("cdtp", "0.1.0", a["item_id"], "ann1", said())
    # 中華人民共和國 is not 中国 after normalisation: a different answer is a disagreement.
    assert store.annotate("cdtp", "0.1.0", a["item_id"], "ann2", said("中华人民共和国")) == "disputed"
    assert store.next_dispute("cdtp", "0.1.0", "ann2") is None  # an annotator of it never adjudicates it
    assert store.next_dispute("cdtp", "0.1.0", "lead")["item_id"] == a["item_id"]
    assert store.next_dispute("cdtp", "0.1.0", "lead2") is None  # leased to lead
    with pytest.raises(ReviewError, match="lead is adjudicating"):
        store.adjudicate("cdtp", "0.1.0", a["item_id"], "lead2", Annotation("reject", "wrong_answer"))
    store.adjudicate("cdtp", "0.1.0", a["item_id"], "lead", Annotation("accept", "correct_after_edit", "中国"))
    assert store.settled() == {a["item_id"]: {"verdict": "accept", "answer": "中国", "status": "adjudicated",
                                              "release": "cdtp 0.1.0"}}
    with pytest.raises(ReviewError, match="only disputed"):
        store.adjudicate("cdtp", "0.1.0", a["item_id"], "lead3", Annotation("reject", "wrong_answer"))
    with pytest.raises(ReviewError, match="has both its annotations now"):
        store.undo("cdtp", "0.1.0", "ann2")


def test_equal_answers_after_normalisation_agree(store):
    item = store.next_item("cdtp", "0.1.0", "ann1")["item_id"]
    store.next_item("cdtp", "0.1.0", "ann2")
    store.annotate("cdtp", "0.1.0", item, "ann1", said("中国"))
    assert store.annotate("cdtp", "0.1.0", item, "ann2", said(" 中國 ")) == "agreed"  # traditional, spaces
    assert store.settled()[item]["answer"] == "中国"


def test_what_an_annotator_must_record_for_each_kind(store):
    item = store.next_item("cdtp", "0.1.0", "ann1")["item_id"]
    cases = [
        (Annotation("accept", answer="中国", criteria=OK, urls=URLS[:1]), "at least 2 different supporting URLs"),
        (Annotation("accept", answer="中国", criteria=OK, urls=[URLS[0], URLS[0]]), "at least 2 different"),
        (Annotation("accept", answer="", criteria=OK, urls=URLS), "write your own answer"),
        (Annotation("accept", answer="中国", criteria={"factual": True}, urls=URLS), "missing: unique"),
        (Annotation("accept", answer="中国", criteria={**OK, "time_invariant": False}, urls=URLS),
         "time_invariant does not hold"),
        (Annotation("accept", answer="中国", criteria=OK, urls=["javascript:alert(1)", URLS[0]]), "not an http"),
        (Annotation("maybe"), "not one of accept, reject"),
        (Annotation("reject", "correct"), "does not go with reject"),
    ]
    for annotation, message in cases:
        with pytest.raises(ReviewError, match=message):
            store.annotate("cdtp", "0.1.0", item, "ann1", annotation)
    # A question that fails a criterion is rejected; its answer and URLs are then optional.
    assert store.annotate("cdtp", "0.1.0", item, "ann1",
                          Annotation("reject", "criteria_not_met", criteria={**OK, "unique": False})) == "open"
    mcq = "z1"
    with pytest.raises(ReviewError, match="gold is right"):
        store.annotate("cdtp", "0.1.0", mcq, "ann1", Annotation("accept"))
    with pytest.raises(ReviewError, match="only wrong distractors"):
        store.annotate("cdtp", "0.1.0", mcq, "ann1",
                       Annotation("accept", options={"gold_right": True, "distractors_wrong": False}))
    with pytest.raises(ReviewError, match="not queued"):
        store.annotate("cdtp", "0.1.0", "nope", "ann1", said())
    assert store.status("cdtp", "0.1.0")["open"] == 3  # nothing refused changed anything


def test_a_decision_posted_twice_is_stored_once(store):
    item = store.next_item("cdtp", "0.1.0", "ann1")["item_id"]
    assert store.annotate("cdtp", "0.1.0", item, "ann1", said(), request_id="r-1") == "open"
    assert store.annotate("cdtp", "0.1.0", item, "ann1", said(), request_id="r-1") == "open"
    assert len(store.labels("cdtp", "0.1.0", item)) == 1


def test_leases_expire_and_the_item_returns_to_the_queue(tmp_path):
    store = ReviewStore.at(tmp_path, lease_minutes=0.01)  # 0.6 s
    store.enqueue("cdtp", "0.1.0", [simpleqa("q1")])
    assert store.next_item("cdtp", "0.1.0", "ann1")["item_id"] == "q1"
    assert store.next_item("cdtp", "0.1.0", "ann2")["item_id"] == "q1"
    assert store.next_item("cdtp", "0.1.0", "ann3") is None  # two hold it
    time.sleep(0.7)
    assert store.next_item("cdtp", "0.1.0", "ann3")["item_id"] == "q1"
    # ann1's lease expired and two others hold the item now: ann1's late answer is refused, not a third label.
    store.next_item("cdtp", "0.1.0", "ann4")
    with pytest.raises(ReviewError, match=r"^item q1 has its two annotators without ann1 \(ann3 holds it until "
                                          r"\d\d:\d\d UTC; ann4 holds it until \d\d:\d\d UTC\): it takes no third"):
        store.annotate("cdtp", "0.1.0", "q1", "ann1", said())


def test_racing_annotators_never_share_a_slot(tmp_path):
    """One item with one slot left (one label recorded): eight annotators race for it; one gets it."""
    store = ReviewStore.at(tmp_path)
    store.enqueue("cdtp", "0.1.0", [simpleqa("q1")])
    store.next_item("cdtp", "0.1.0", "first")
    store.annotate("cdtp", "0.1.0", "q1", "first", said())
    got: dict[str, str | None] = {}
    start = threading.Barrier(8)

    def race(person: str) -> None:
        start.wait()
        item = ReviewStore(store.path).next_item("cdtp", "0.1.0", person)
        got[person] = item and item["item_id"]

    threads = [threading.Thread(target=race, args=(f"ann{n}",)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(v for v in got.values() if v) == ["q1"]
    with sqlite3.connect(store.path) as con:
        assert con.execute("SELECT count(*) FROM leases").fetchone()[0] == 1


def test_undo_reopens_the_item_and_leases_it_back(store):
    item = store.next_item("cdtp", "0.1.0", "ann1")["item_id"]
    store.annotate("cdtp", "0.1.0", item, "ann1", said("美国"))
    assert store.undo("cdtp", "0.1.0", "ann1") == item
    assert store.item("cdtp", "0.1.0", item)["status"] == "open" and store.labels("cdtp", "0.1.0", item) == []
    assert store.next_item("cdtp", "0.1.0", "ann1")["item_id"] == item  # back to the one who undid it
    store.annotate("cdtp", "0.1.0", item, "ann1", said("中国"))
    store.next_item("cdtp", "0.1.0", "ann2")
    assert store.annotate("cdtp", "0.1.0", item, "ann2", said("中国")) == "agreed"
    assert store.undo("cdtp", "0.1.0", "nobody") is None


@pytest.mark.parametrize("second", ["中国", "美国"])
def test_undo_is_refused_once_both_annotations_are_in_and_says_nothing_of_the_other(store, second):
    """An agreed item may be in a release already; a disputed one is the adjudicator's. Either way the message
    is the same, so undo cannot tell the annotator whether the other agreed."""
    item = store.next_item("cdtp", "0.1.0", "ann1")["item_id"]
    store.next_item("cdtp", "0.1.0", "ann2")
    store.annotate("cdtp", "0.1.0", item, "ann1", said())
    status = store.annotate("cdtp", "0.1.0", item, "ann2", said(second))
    for person in ("ann1", "ann2"):
        with pytest.raises(ReviewError) as refused:
            store.undo("cdtp", "0.1.0", person)
        assert str(refused.value) == (f"item {item} has both its annotations now; an annotation can be undone only "
                                      "while the item waits for the second")
    assert store.item("cdtp", "0.1.0", item)["status"] == status and len(store.labels("cdtp", "0.1.0", item)) == 2


def test_logout_gives_back_the_items_its_person_held(store):
    store.add_user("ann9", "annotator", "long enough")
    token, _ = store.login("ann9", "long enough")
    held = store.next_item("cdtp", "0.1.0", "ann9")["item_id"]
    store.logout(token)
    assert store.session(token) is None
    with store._read() as con:
        assert con.execute("SELECT count(*) FROM leases WHERE person = 'ann9'").fetchone()[0] == 0
    # another annotator pair can take the item at once
    assert store.next_item("cdtp", "0.1.0", "ann1")["item_id"] == held


def test_browsing_leases_nothing(store):
    first, total = store.browse("cdtp", "0.1.0")
    assert first is not None and total == len(store.item_ids("cdtp", "0.1.0"))
    second, _ = store.browse("cdtp", "0.1.0", 1)
    assert second["item_id"] > first["item_id"]
    assert store.browse("cdtp", "0.1.0", total)[0] is None
    with store._read() as con:
        assert con.execute("SELECT count(*) FROM leases").fetchone()[0] == 0


def test_accounts_sessions_and_slow_hashes(tmp_path):
    store = ReviewStore.at(tmp_path)
    stored = hash_password("correct horse")
    # argon2-cffi's Argon2id (RFC 9106's low-memory profile: 64 MiB, 3 passes): slow for a guesser
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$") and "correct horse" not in stored
    assert check_password("correct horse", stored) and not check_password("wrong", stored)
    assert not check_password("correct horse", "$argon2id$not-a-hash")
    store.add_user("alice", "annotator", "correct horse")
    with pytest.raises(ReviewError, match="exists"):
        store.add_user("alice", "admin", "correct horse")
    with pytest.raises(ReviewError, match="at least 8"):
        store.add_user("bob", "annotator", "short")
    with pytest.raises(ReviewError, match="role 'boss'"):
        store.add_user("bob", "boss", "long enough")
    assert store.login("alice", "wrong password") is None and store.login("nobody", "correct horse") is None
    token, session = store.login("alice", "correct horse")
    assert store.session(token) == session and session.user.role == "annotator"
    with sqlite3.connect(store.path) as con:  # only a hash of the token is stored
        assert token not in str(con.execute("SELECT * FROM sessions").fetchall())
    # A new role or password ends the account's sessions.
    store.add_user("alice", "adjudicator", "battery staple", replace=True)
    assert store.session(token) is None
    token, session = store.login("alice", "battery staple")
    assert session.user.can("annotator") and session.user.can("adjudicator") and not session.user.can("admin")
    store.logout(token)
    assert store.session(token) is None


def test_relations_people_reject(store):
    store.judge_relation("外文名", "reject", "lead", "romanised names", ("cdtp", "0.1.0"))
    store.judge_relation("国籍", "accept", "lead")
    store.judge_relation("国籍", "reject", "admin")  # the latest verdict counts
    assert store.rejected_relations() == ["国籍", "外文名"]
    with pytest.raises(ReviewError):
        store.judge_relation("国籍", "drop", "lead")


def test_agreement_statistics_per_pair_config_and_category(tmp_path):
    store = ReviewStore.at(tmp_path)
    store.enqueue("cdtp", "0.1.0", [simpleqa(f"q{n}", category="humanities" if n < 4 else "natural_science")
                                    for n in range(6)])
    verdicts = {0: ("accept", "accept"), 1: ("accept", "reject"), 2: ("reject", "reject"),
                3: ("accept", "accept"), 4: ("reject", "accept"), 5: ("accept", "accept")}
    for n, (first, second) in verdicts.items():
        store.next_item("cdtp", "0.1.0", "ann1")
        store.annotate("cdtp", "0.1.0", f"q{n}", "ann1", said(verdict=first))
        store.next_item("cdtp", "0.1.0", "ann2")
        store.annotate("cdtp", "0.1.0", f"q{n}", "ann2", said(verdict=second))
    stats = store.stats("cdtp", "0.1.0")
    (pair,) = stats["by_pair"]
    assert pair["group"] == "ann1 / ann2" and pair["items"] == 6
    assert pair["kappa"] == pytest.approx(cohen_kappa(list(verdicts.values())))
    by_category = {g["group"]: g for g in stats["by_category"]}
    assert by_category["humanities"]["items"] == 4 and by_category["humanities"]["agreement"] == 0.75
    assert by_category["natural_science"]["agreement"] == 0.5
    people = {t["person"]: t for t in stats["throughput"]}
    assert people["ann1"]["labels"] == 6 and people["ann1"]["last_hour"] == 6
    assert people["ann1"]["median_seconds"] is not None
    assert {(d["config"], d["status"]): d["n"] for d in stats["depth"]} == {("simpleqa", "agreed"): 4,
                                                                             ("simpleqa", "disputed"): 2}


def test_cohen_kappa():
    # Two raters, 10 items: 7 agreements; first rater accepts 6, second 5.
    pairs = ([("accept", "accept")] * 4 + [("reject", "reject")] * 3 + [("accept", "reject")] * 2
             + [("reject", "accept")])
    expected = (0.6 * 0.5) + (0.4 * 0.5)
    assert cohen_kappa(pairs) == pytest.approx((0.7 - expected) / (1 - expected))
    assert cohen_kappa([("accept", "accept")] * 3) is None  # chance agreement is total
    assert cohen_kappa([]) is None


def test_a_skipped_item_comes_back_only_after_the_others(store):
    first = store.next_item("cdtp", "0.1.0", "ann1")["item_id"]
    store.release_lease("cdtp", "0.1.0", first, "ann1")
    assert store.next_item("cdtp", "0.1.0", "ann2")["item_id"] == first  # others may take it
    second = store.next_item("cdtp", "0.1.0", "ann1")["item_id"]
    assert second != first
    store.annotate("cdtp", "0.1.0", second, "ann1", said())
    store.release_lease("cdtp", "0.1.0", store.next_item("cdtp", "0.1.0", "ann1")["item_id"], "ann1")
    assert store.next_item("cdtp", "0.1.0", "ann1")["item_id"] == first  # when only skipped ones are left


def test_an_unknown_name_costs_one_hash_like_a_wrong_password(tmp_path, monkeypatch):
    """So the time a login takes does not tell which names exist."""
    from review import passwords as module

    store = ReviewStore.at(tmp_path)
    store.add_user("ann1", "annotator", "long enough")
    store.login("nobody", "warm up")  # the decoy hash is made once, at the first unknown name
    calls = []
    hasher = module._hasher()
    real = type(hasher).verify
    monkeypatch.setattr(type(hasher), "verify", lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    for name in ("nobody", "ann1"):
        calls.clear()
        assert store.login(name, "wrong password") is None
        assert len(calls) == 1, name


def test_an_account_hashed_with_scrypt_logs_in_and_is_rehashed_with_argon2(tmp_path):
    """Accounts made before Argon2 hold scrypt hashes: they still log in, and the login replaces the hash."""
    import hashlib
    import os

    store = ReviewStore.at(tmp_path)
    store.add_user("old", "annotator", "long enough")
    salt = os.urandom(16)
    digest = hashlib.scrypt(b"long enough", salt=salt, n=2 ** 15, r=8, p=1, maxmem=64 * 2 ** 20, dklen=32)
    legacy = f"scrypt$32768$8$1${salt.hex()}${digest.hex()}"
    with sqlite3.connect(store.path) as con:
        con.execute("UPDATE users SET password = ? WHERE name = 'old'", [legacy])
    assert store.login("old", "wrong password") is None
    assert store.login("old", "long enough") is not None
    with sqlite3.connect(store.path) as con:
        now = con.execute("SELECT password FROM users WHERE name = 'old'").fetchone()[0]
    assert now.startswith("$argon2id$") and check_password("long enough", now)
    assert store.login("old", "long enough") is not None


def test_the_database_and_its_wal_and_shm_files_are_readable_by_their_owner_only(tmp_path):
    import os
    import stat

    old = os.umask(0o022)  # the common default, under which a new file is world-readable
    try:
        store = ReviewStore.at(tmp_path)
        with store._read() as reader:  # a connection held open keeps -wal and -shm on disk
            reader.execute("SELECT count(*) FROM users").fetchone()
            store.add_user("alice", "annotator", "correct horse")
            modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.glob("review.sqlite*")}
    finally:
        os.umask(old)
    assert modes == {"review.sqlite": 0o600, "review.sqlite-wal": 0o600, "review.sqlite-shm": 0o600}


def test_a_database_left_world_readable_is_tightened_when_opened(tmp_path):
    import stat

    path = tmp_path / "review.sqlite"
    sqlite3.connect(path).close()
    path.chmod(0o644)
    ReviewStore(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_item_the_options_judge_disagreed_with_comes_first(tmp_path):
    """review.queue marks an item whose options judge found a second right option (payload "first"): whatever its
    id, an annotator gets it before the others."""
    store = ReviewStore.at(tmp_path)
    flagged = qa("z9")
    flagged["payload"]["first"] = True
    store.enqueue("cdtp", "0.1.0", [simpleqa("a1"), qa("b2"), flagged])
    assert store.next_item("cdtp", "0.1.0", "ann")["item_id"] == "z9"
