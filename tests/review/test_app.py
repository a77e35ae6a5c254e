"""The review app over HTTP: sessions, roles, CSRF, blind annotation, races, escaping, restarts."""

from __future__ import annotations

import json
import re
import shutil
import threading
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from review.app import create_app
from review.store import CRITERIA, Annotation, ReviewStore

from .conftest import (NAME, VERSION, accept_form, cdtp_pair, field, live_server, login, mcq, password, simpleqa,
                       t2t, write_relations)

ANNOTATE = f"/annotate/{NAME}/{VERSION}"
ADJUDICATE = f"/adjudicate/{NAME}/{VERSION}"
ADMIN = f"/admin/{NAME}/{VERSION}"
RELATIONS = f"/relations/{NAME}/{VERSION}"


def post(client: TestClient, path: str, data: dict, page: str | None = None):
    """POST a form with the csrf field (and the request_id of ``page`` when given), as the page would."""
    html = page or client.get("/").text
    data = {"csrf": field(html, "csrf"), **data}
    if page and 'name="request_id"' in page:
        data.setdefault("request_id", field(page, "request_id"))
    return client.post(path, data=data, follow_redirects=False)


# -- sessions and roles ---------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/", ANNOTATE, ADJUDICATE, ADMIN, "/admin/users", RELATIONS])
def test_protected_page_without_session_is_401_with_the_login_form(client_as, store, path):
    store.enqueue(NAME, VERSION, [simpleqa()])
    response = client_as().get(path, follow_redirects=False)
    assert response.status_code == 401
    assert 'action="/login"' in response.text and 'name="login_token"' in response.text


def test_forged_session_cookie_is_401(client_as, store):
    client = client_as()
    client.cookies.set("zb_session", "not-a-token")
    assert client.get("/", follow_redirects=False).status_code == 401


@pytest.mark.parametrize("path,role", [(ADMIN, "admin"), ("/admin/users", "admin"), (ADJUDICATE, "adjudicator"),
                                       (RELATIONS, "adjudicator")])
def test_annotator_is_refused_other_roles_pages_with_the_role_needed(client_as, store, data_dir, path, role):
    store.enqueue(NAME, VERSION, [simpleqa()])
    write_relations(data_dir)
    response = client_as("ann1").get(path)
    assert response.status_code == 403
    assert f"this page needs the {role} role; you are annotator" in response.text


@pytest.mark.parametrize("user,path", [("ann1", "/"), ("ann1", ANNOTATE), ("judge", ADJUDICATE),
                                       ("judge", RELATIONS), ("boss", ADMIN), ("boss", "/admin/users"),
                                       ("boss", RELATIONS), ("judge", ANNOTATE)])
def test_each_role_reaches_its_pages(client_as, store, data_dir, user, path):
    store.enqueue(NAME, VERSION, [simpleqa()])
    write_relations(data_dir)
    assert client_as(user).get(path).status_code == 200


def test_home_links_by_role(client_as, store):
    store.enqueue(NAME, VERSION, [simpleqa()])
    annotator, admin = client_as("ann1").get("/").text, client_as("boss").get("/").text
    assert ANNOTATE in annotator and ADJUDICATE not in annotator and ADMIN not in annotator
    assert all(link in admin for link in (ANNOTATE, ADJUDICATE, ADMIN, RELATIONS))


def test_unknown_release_and_item_are_404_pages(client_as, store):
    store.enqueue(NAME, VERSION, [simpleqa()])
    client = client_as("boss")
    assert client.get("/annotate/cdtp/9.9.9").status_code == 404
    assert "no review queue for release cdtp 9.9.9" in client.get("/admin/cdtp/9.9.9").text
    response = post(client, f"{ANNOTATE}/no-such-item", accept_form("simpleqa"))
    assert response.status_code == 404 and "item no-such-item is not queued" in response.text
    assert client.get("/no/such/page").status_code == 404


def test_security_headers_on_pages_and_static_files(client_as):
    client = client_as()
    for path in ("/login", "/static/app.js"):
        headers = client.get(path).headers
        assert "script-src 'self'" in headers["content-security-policy"]
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "same-origin"


# -- login -----------------------------------------------------------------------------------------------

def test_session_cookie_is_httponly_samesite_strict_and_secure_only_when_asked(data_dir):
    for secure in (False, True):
        client = TestClient(create_app(data_dir, secure_cookies=secure), base_url="https://testserver")
        token = field(client.get("/login").text, "login_token")
        response = client.post("/login", data={"login_token": token, "name": "ann1", "password": password("ann1")},
                               follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"] == "/"
        cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("zb_session="))
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict") and "Path=/" in cookie
        assert ("Secure" in cookie) is secure


def test_login_without_the_pre_session_token_is_refused(client_as):
    client = client_as()
    data = {"name": "ann1", "password": password("ann1")}
    response = client.post("/login", data=data, follow_redirects=False)
    assert response.status_code == 403 and "form expired or forged" in response.text
    client.get("/login")  # sets the cookie; a forged page would not know the field's value
    response = client.post("/login", data={**data, "login_token": "guessed"}, follow_redirects=False)
    assert response.status_code == 403 and "zb_session" not in response.headers.get("set-cookie", "")


def test_wrong_password_and_unknown_name_read_the_same(client_as):
    client = client_as()
    pages = []
    for name, pw in (("ann1", "wrong-password"), ("nobody", "wrong-password")):
        token = field(client.get("/login").text, "login_token")
        pages.append(client.post("/login", data={"login_token": token, "name": name, "password": pw}))
    assert [p.status_code for p in pages] == [401, 401]
    assert all("wrong name or password" in p.text for p in pages)


def try_login(client: TestClient, name: str, pw: str):
    token = field(client.get("/login").text, "login_token")
    return client.post("/login", data={"login_token": token, "name": name, "password": pw}, follow_redirects=False)


@pytest.fixture()
def guesses_checked(monkeypatch) -> list[str]:
    """The passwords the store verifies; a wrong guess costs no Argon2 hash here (the count is what matters)."""
    from review import store as module

    checked, real = [], module.check_password
    monkeypatch.setattr(module, "check_password",
                        lambda pw, stored: checked.append(pw) or (pw.endswith("-pass-2024") and real(pw, stored)))
    return checked


def test_ten_wrong_passwords_lock_the_account_name_then_the_right_one_is_refused_too(app, caplog, guesses_checked):
    guesser = TestClient(app, client=("198.51.100.7", 40000))
    with caplog.at_level("WARNING", logger="zhbench.review"):
        assert [try_login(guesser, "ann1", f"guess-{n}").status_code for n in range(10)] == [401] * 10
    assert "10 failed logins for name 'ann1' within 15 minutes; it is locked for 15 minutes" in caplog.text
    right = try_login(guesser, "ann1", password("ann1"))
    assert right.status_code == 429 and 0 < int(right.headers["retry-after"]) <= 15 * 60
    assert "too many failed logins for this name or from this address; try again in 15 minutes" in right.text
    assert 'name="login_token"' in right.text and "zb_session" not in right.headers.get("set-cookie", "")
    # The owner, from elsewhere, is locked out too for now; another account from there is not.
    elsewhere = TestClient(app, client=("192.0.2.4", 40000))
    assert try_login(elsewhere, "ann1", password("ann1")).status_code == 429
    assert try_login(elsewhere, "ann2", password("ann2")).status_code == 303


def test_ten_failures_from_one_address_lock_that_address_for_every_name(app, guesses_checked):
    sprayer = TestClient(app, client=("203.0.113.9", 40000))
    assert [try_login(sprayer, name, "Passw0rd!").status_code for name in
            ("ann1", "ann2", "ann3", "judge", "boss", "root", "admin", "li", "wang", "zhao")] == [401] * 10
    assert try_login(sprayer, "ann3", password("ann3")).status_code == 429
    assert password("ann3") not in guesses_checked  # refused before any hash is computed
    assert try_login(TestClient(app, client=("192.0.2.4", 40000)), "ann3", password("ann3")).status_code == 303


def test_a_burst_of_wrong_logins_at_once_verifies_at_most_ten_passwords(app, guesses_checked):
    clients = [TestClient(app, client=(f"10.1.0.{n}", 40000)) for n in range(20)]
    tokens = [field(c.get("/login").text, "login_token") for c in clients]
    barrier, statuses = threading.Barrier(len(clients)), []

    def guess(n):
        barrier.wait()
        statuses.append(clients[n].post("/login", data={"login_token": tokens[n], "name": "ann1",
                                                         "password": f"guess-{n}"}).status_code)

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [401] * 10 + [429] * 10 and len(guesses_checked) == 10


def test_logout_ends_the_session(client_as):
    client = client_as("ann1")
    stolen = client.cookies.get("zb_session")
    assert post(client, "/logout", {}).status_code == 303
    assert client.get("/", follow_redirects=False).status_code == 401
    # The session ends on the server: a copy of the cookie taken before logging out opens nothing (a signed
    # cookie session would stay valid until it expired).
    client.cookies.set("zb_session", stolen)
    assert client.get("/", follow_redirects=False).status_code == 401


# -- CSRF ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("csrf", [None, "forged-token"])
def test_post_without_or_with_a_wrong_csrf_is_403_and_stores_nothing(client_as, store, csrf):
    store.enqueue(NAME, VERSION, [simpleqa()])
    client = client_as("boss")
    client.get(ANNOTATE)
    extra = {} if csrf is None else {"csrf": csrf}
    forms = [(f"{ANNOTATE}/sqa-tu", accept_form("simpleqa")), (f"{ANNOTATE}/undo", {}),
             ("/admin/users", {"name": "mallory", "role": "admin", "password": "long-enough-pw"}),
             ("/logout", {})]
    for path, data in forms:
        response = client.post(path, data={**data, **extra}, follow_redirects=False)
        assert response.status_code == 403, path
        assert "form expired or forged; reload the page" in response.text
    assert store.labels(NAME, VERSION, "sqa-tu") == []
    assert "mallory" not in [u.name for u in store.users()]
    assert client.get("/").status_code == 200  # the forged logout did not end the session


# -- annotating ------------------------------------------------------------------------------------------

def test_annotate_shows_one_item_with_evidence_progress_and_shortcut_legend(client_as, store):
    store.enqueue(NAME, VERSION, [simpleqa()])
    html = client_as("ann1").get(ANNOTATE).text
    assert "屠呦呦因发现哪种药物获得2015年诺贝尔生理学或医学奖？" in html
    assert '<mark class="tail">青蒿素</mark>' in html and '<mark class="head">屠呦呦</mark>' in html
    assert "https://www.nobelprize.org/prizes/medicine/2015/tu/facts/" in html  # the verifier's evidence
    assert "https://zh.wikipedia.org/wiki/屠呦呦" in html  # a triple's support URL
    assert "done 0 · left 1" in html
    assert all(f'name="crit_{c}"' in html for c in ("factual", "unique", "time_invariant"))
    assert 'data-key="a"' in html and 'data-key="u"' in html and "<kbd>Ctrl+Enter</kbd>" in html


def test_mcq_page_marks_the_gold_and_asks_both_option_checks(client_as, store):
    store.enqueue(NAME, VERSION, [mcq()])
    html = client_as("ann1").get(ANNOTATE).text
    assert 'class="gold">D. 军事家 <strong>✓ gold</strong>' in html
    assert 'name="gold_right"' in html and 'name="distractors_wrong"' in html and 'name="crit_factual"' not in html


def test_submit_records_the_label_and_moves_to_the_next_item(client_as, store):
    store.enqueue(NAME, VERSION, [simpleqa(), t2t()])
    client = client_as("ann1")
    page = client.get(ANNOTATE).text
    item_id = "sqa-tu"  # items are offered in id order
    assert f"/{item_id}/skip" in page
    response = post(client, f"{ANNOTATE}/{item_id}", accept_form("simpleqa", note="查过诺贝尔奖官网"), page)
    assert response.status_code == 303 and response.headers["location"] == f"{ANNOTATE}?flash=saved"
    [label] = store.labels(NAME, VERSION, item_id)
    assert (label["person"], label["verdict"], label["reason"], label["note"]) == ("ann1", "accept", "correct",
                                                                                "查过诺贝尔奖官网")
    after = client.get(ANNOTATE).text
    assert "done 1 · left 1" in after and f"/{item_id}/skip" not in after


def test_refused_annotation_is_422_with_the_message_and_the_input_kept(client_as, store):
    store.enqueue(NAME, VERSION, [simpleqa()])
    client = client_as("ann1")
    page = client.get(ANNOTATE).text
    form = accept_form("simpleqa", urls="https://baike.example.cn/item/屠呦呦", note="只找到一个来源")
    response = post(client, f"{ANNOTATE}/sqa-tu", form, page)
    assert response.status_code == 422
    assert "give at least 2 different supporting URLs for your answer (1 given)" in response.text
    assert 'value="青蒿素"' in response.text and "只找到一个来源</textarea>" in response.text
    assert 'name="crit_factual" value="yes" checked' in response.text
    assert store.labels(NAME, VERSION, "sqa-tu") == []


def test_decision_posted_twice_is_stored_once(client_as, store):
    store.enqueue(NAME, VERSION, [simpleqa(), mcq()])
    client = client_as("ann1")
    page = client.get(ANNOTATE).text
    item_id, form = "qa-wei", accept_form("qa")
    first, second = post(client, f"{ANNOTATE}/{item_id}", form, page), post(client, f"{ANNOTATE}/{item_id}", form, page)
    assert first.status_code == second.status_code == 303
    assert store.done_by(NAME, VERSION, "ann1") == 1 and len(store.labels(NAME, VERSION, item_id)) == 1


def test_undo_leases_the_item_back_and_shows_it_again(client_as, store):
    store.enqueue(NAME, VERSION, [mcq()])
    client = client_as("ann1")
    page = client.get(ANNOTATE).text
    post(client, f"{ANNOTATE}/qa-wei", accept_form("qa"), page)
    assert "queue empty — nothing left for you in cdtp 0.1.0" in client.get(ANNOTATE).text
    response = post(client, f"{ANNOTATE}/undo", {})
    assert response.status_code == 303 and response.headers["location"] == f"{ANNOTATE}?flash=undone"
    again = client.get(response.headers["location"]).text
    assert "卫青的职业是什么？" in again and "your last annotation is open again" in again and "done 0 · left 1" in again
    assert store.labels(NAME, VERSION, "qa-wei") == []


def test_skip_gives_the_lease_back(client_as, store):
    store.enqueue(NAME, VERSION, [mcq()])
    client = client_as("ann1")
    page = client.get(ANNOTATE).text
    assert post(client, f"{ANNOTATE}/qa-wei/skip", {}, page).status_code == 303
    assert store.stats(NAME, VERSION)["throughput"] == []
    # the lease is gone: two other annotators can now take both slots
    assert store.next_item(NAME, VERSION, "ann2")["item_id"] == store.next_item(NAME, VERSION, "ann3")["item_id"]


def test_annotator_never_sees_the_other_annotators_label(client_as, store):
    store.enqueue(NAME, VERSION, [simpleqa()])
    first = client_as("ann1")
    page = first.get(ANNOTATE).text
    form = accept_form("simpleqa", answer="青蒿素（artemisinin）", note="独特备注-ANN1-看过原始论文",
                       urls="https://ann1-only.example.org/a\nhttps://ann1-only.example.org/b")
    assert post(first, f"{ANNOTATE}/sqa-tu", form, page).status_code == 303
    html = client_as("ann2").get(ANNOTATE).text
    assert "屠呦呦因发现哪种药物" in html  # the same item, second slot
    for secret in ("独特备注-ANN1-看过原始论文", "artemisinin", "ann1-only.example.org", "ann1"):
        assert secret not in html


def blind_view(client: TestClient) -> dict[str, tuple[int, str]]:
    """What a person reads on their pages (home, annotate, adjudicate), the per-request tokens masked."""
    views = {}
    for path in ("/", ANNOTATE, ADJUDICATE):
        response = client.get(path)
        views[path] = (response.status_code, re.sub(r'name="(csrf|request_id)" value="[^"]*"', r'name="\1"',
                                                    response.text))
    return views


def seeded_copy(seeded_db, data_dir):
    """A data directory with the seeded accounts, as the data_dir fixture makes (one per world compared)."""
    data_dir.mkdir()
    for suffix in ("", "-wal"):
        if Path(f"{seeded_db}{suffix}").exists():
            shutil.copy(f"{seeded_db}{suffix}", data_dir / f"review.sqlite{suffix}")
    return data_dir


def probe(data_dir, first_verdict: str, second: str = "ann2") -> dict:
    """The probe-and-conform attack: ``second`` holds the item while ann1 labels it ``first_verdict``, then labels
    it 'reject', reads every page it can, undoes and labels again. Returns what ``second`` saw at each step."""
    store = ReviewStore.at(data_dir)
    store.enqueue(NAME, VERSION, [mcq(), simpleqa()])
    with TestClient(create_app(data_dir)) as first, TestClient(create_app(data_dir)) as attacker:
        login(first, "ann1")
        login(attacker, second)
        page = first.get(ANNOTATE).text
        assert "卫青的职业是什么？" in page and "卫青的职业是什么？" in attacker.get(ANNOTATE).text
        seen = {"before": blind_view(attacker)}
        ann1 = {"reject": {"verdict": "reject", "reason": "gold_wrong", "gold_right": "no",
                           "distractors_wrong": "yes"}}.get(first_verdict, {})
        assert post(first, f"{ANNOTATE}/qa-wei", accept_form("qa", **ann1), page).status_code == 303
        seen["after_first"] = blind_view(attacker)
        mine = attacker.get(ANNOTATE).text
        saved = post(attacker, f"{ANNOTATE}/qa-wei", accept_form("qa", verdict="reject", reason="gold_wrong",
                                                                  gold_right="no"), mine)
        seen["saved"] = (saved.status_code, saved.headers["location"])
        seen["after_second"] = blind_view(attacker)
        undo = post(attacker, f"{ANNOTATE}/undo", {})
        seen["undo"] = (undo.status_code, re.sub(r'value="[^"]*"', "", undo.text))
        again = post(attacker, f"{ANNOTATE}/qa-wei", accept_form("qa"))  # a fresh form: not the same request
        seen["relabel"] = (again.status_code, re.sub(r'name="(csrf|request_id)" value="[^"]*"', "", again.text))
        seen["labels"] = [(l["person"], l["verdict"]) for l in store.labels(NAME, VERSION, "qa-wei")]
        seen["status"] = store.item(NAME, VERSION, "qa-wei")["status"]
    return seen


def test_probe_and_conform_fails_the_second_annotator_sees_nothing_of_the_first_label(tmp_path, seeded_db):
    worlds = {}
    for verdict in ("accept", "reject"):  # ann1 disagrees with ann2 in one world and agrees in the other
        data_dir = seeded_copy(seeded_db, tmp_path / verdict)
        worlds[verdict] = probe(data_dir, verdict)
    for seen in worlds.values():
        assert seen["before"] == seen["after_first"]  # the first label changes nothing the second one reads
        assert seen["saved"] == (303, f"{ANNOTATE}?flash=saved")
        home = seen["after_second"]["/"][1]
        assert "labelled by you" in home and "left for you" in home
        assert not any(word in home for word in ("agreed", "disputed", "adjudicated", "<th>open</th>"))
        assert seen["undo"][0] == 409 and "has both its annotations now" in seen["undo"][1]
        assert seen["relabel"][0] == 422 and "ann2 has already annotated item qa-wei" in seen["relabel"][1]
        assert seen["labels"] == [("ann1", seen["labels"][0][1]), ("ann2", "reject")]  # the first label stands
    assert worlds["accept"]["status"] == "disputed" and worlds["reject"]["status"] == "agreed"
    # Every page, answer and refusal reads the same whether ann1 agreed or not.
    strip = ("labels", "status")
    assert {k: v for k, v in worlds["accept"].items() if k not in strip} == \
           {k: v for k, v in worlds["reject"].items() if k not in strip}


def test_an_adjudicator_who_annotated_sees_neither_its_dispute_nor_its_status(tmp_path, seeded_db):
    worlds = {}
    for verdict in ("accept", "reject"):
        data_dir = seeded_copy(seeded_db, tmp_path / verdict)
        seen = probe(data_dir, verdict, second="judge")
        with TestClient(create_app(data_dir)) as judge:
            login(judge, "judge")
            # posting a decision straight at the item: refused for having annotated it, whatever its status
            refused = post(judge, f"{ADJUDICATE}/qa-wei", {"verdict": "accept"})
            seen["adjudicate"] = (refused.status_code, "judge annotated item qa-wei" in refused.text)
        worlds[verdict] = seen
        assert "disputes for you" in seen["after_second"]["/"][1]
        assert "<td>0</td>" in seen["after_second"]["/"][1].split("disputes for you")[1]
    assert worlds["accept"]["status"] == "disputed" and worlds["accept"]["adjudicate"] == (422, True)
    strip = ("labels", "status")
    assert {k: v for k, v in worlds["accept"].items() if k not in strip} == \
           {k: v for k, v in worlds["reject"].items() if k not in strip}


def test_admins_see_the_counts_by_status_and_annotators_only_their_own_work(client_as, store):
    store.enqueue(NAME, VERSION, [mcq(), simpleqa()])
    for person in ("ann1", "ann2"):
        store.next_item(NAME, VERSION, person)
        store.annotate(NAME, VERSION, "qa-wei", person, Annotation("accept", options={"gold_right": True,
                                                                                      "distractors_wrong": True}))
    boss = client_as("boss").get("/").text
    assert "<td>cdtp 0.1.0</td>\n    <td>2</td><td>1</td><td>1</td><td>0</td><td>0</td>" in boss
    ann1 = client_as("ann1").get("/").text
    assert "<td>cdtp 0.1.0</td>\n    <td>2</td><td>1</td><td>1</td>" in ann1  # queued, labelled by ann1, left
    assert "agreed" not in ann1 and "disputed" not in ann1


# -- races -----------------------------------------------------------------------------------------------

def race(clients: list[TestClient]) -> list[str]:
    """GET the annotate page from every client at once; returns the pages in client order."""
    barrier, pages = threading.Barrier(len(clients)), [None] * len(clients)

    def run(i):
        barrier.wait()
        pages[i] = clients[i].get(ANNOTATE).text

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return pages


def holders(store, item_id: str) -> list[str]:
    """Annotators holding a live lease on an item, read straight from the database."""
    with store._read() as con:
        return sorted(r[0] for r in con.execute("SELECT person FROM leases WHERE item_id = ? AND role = 'annotator'",
                                                [item_id]))


def test_three_annotators_racing_for_the_last_item_two_get_it_blind_one_finds_the_queue_empty(client_as, store):
    store.enqueue(NAME, VERSION, [mcq()])
    clients = [client_as(n) for n in ("ann1", "ann2", "ann3")]
    pages = race(clients)
    got = [p for p in pages if "卫青的职业是什么？" in p]
    empty = [p for p in pages if "queue empty — nothing left for you in cdtp 0.1.0" in p]
    assert (len(got), len(empty)) == (2, 1)
    assert len(holders(store, "qa-wei")) == 2


def test_with_one_slot_left_two_racing_annotators_get_one_item_and_one_empty_queue(client_as, store):
    store.enqueue(NAME, VERSION, [mcq()])
    store.next_item(NAME, VERSION, "judge")
    store.annotate(NAME, VERSION, "qa-wei", "judge", Annotation("accept", options={"gold_right": True,
                                                                               "distractors_wrong": True}))
    pages = race([client_as("ann1"), client_as("ann2")])
    assert sorted("卫青的职业是什么？" in p for p in pages) == [False, True]
    assert len(holders(store, "qa-wei")) == 1 and len(store.labels(NAME, VERSION, "qa-wei")) == 1


def test_concurrent_leases_never_give_an_item_more_than_two_annotators(store):
    store.enqueue(NAME, VERSION, [mcq(f"qa-{i}") for i in range(3)])
    people = [f"p{i}" for i in range(8)]
    barrier, got = threading.Barrier(len(people)), {}

    def take(person):
        barrier.wait()
        item = store.next_item(NAME, VERSION, person)
        got[person] = item and item["item_id"]

    threads = [threading.Thread(target=take, args=(p,)) for p in people]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    leased = [i for i in got.values() if i]
    assert len(leased) == 6 and all(leased.count(f"qa-{i}") == 2 for i in range(3))
    assert all(len(holders(store, f"qa-{i}")) == 2 for i in range(3))


# -- escaping --------------------------------------------------------------------------------------------

def test_script_in_a_question_or_pair_text_is_escaped(client_as, store):
    evil = "<script>alert(1)</script>"
    store.enqueue(NAME, VERSION, [simpleqa(question=f"屠呦呦{evil}发现了什么？", text=f"屠呦呦{evil}发现了青蒿素。")])
    html = client_as("ann1").get(ANNOTATE).text
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 2
    assert "<script>alert" not in html


def test_script_in_a_cdtp_pair_is_escaped_on_the_relations_page(client_as, data_dir):
    write_relations(data_dir)
    html = client_as("judge").get(RELATIONS).text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert" not in html


def test_javascript_url_from_data_is_not_a_link(client_as, store):
    item = cdtp_pair()
    item["payload"]["pairs"][0]["url"] = "javascript:alert(1)"
    store.enqueue(NAME, VERSION, [item])
    html = client_as("ann1").get(ANNOTATE).text
    assert "javascript:alert(1)" in html and 'href="javascript:' not in html


# -- adjudication, admin, relations ---------------------------------------------------------------------

def dispute(store, item_id: str = "sqa-tu") -> None:
    """Two annotators disagree on a SimpleQA answer."""
    for person, answer in (("ann1", "青蒿素"), ("ann2", "双氢青蒿素")):
        store.next_item(NAME, VERSION, person)
        store.annotate(NAME, VERSION, item_id, person, Annotation(
            "accept", answer=answer, criteria={c: True for c in ("factual", "unique", "time_invariant", "challenging",
                                                                   "answerable")},
            urls=["https://a.example.cn/1", "https://a.example.cn/2"], note=f"{person}的备注"))


def test_adjudicator_sees_both_annotations_and_the_decision_settles_the_item(client_as, store):
    store.enqueue(NAME, VERSION, [simpleqa()])
    dispute(store)
    client = client_as("judge")
    page = client.get(ADJUDICATE).text
    assert all(s in page for s in ("ann1的备注", "ann2的备注", "双氢青蒿素", 'data-person="ann1"', 'data-person="ann2"'))
    # The answer starts empty (typing never appends to a prefilled one); each candidate is one key away.
    assert 'name="answer" id="answer" value=""' in page
    assert 'data-key="1" data-fill="answer" data-value="青蒿素"' in page
    assert 'data-key="2" data-fill="answer" data-value="双氢青蒿素"' in page
    assert 'data-key="t" data-fill="answer" data-value="青蒿素"' in page
    response = post(client, f"{ADJUDICATE}/sqa-tu", {"verdict": "accept", "answer": "青蒿素", "note": "以诺奖公告为准"},
                    page)
    assert response.status_code == 303
    item = store.item(NAME, VERSION, "sqa-tu")
    assert (item["status"], item["verdict"], item["answer"]) == ("adjudicated", "accept", "青蒿素")
    assert "queue empty — nothing left for you in cdtp 0.1.0" in client.get(ADJUDICATE).text


def test_an_annotator_of_the_item_is_never_offered_its_dispute(client_as, store):
    store.enqueue(NAME, VERSION, [simpleqa()])
    for person, answer in (("judge", "青蒿素"), ("ann2", "双氢青蒿素")):
        store.next_item(NAME, VERSION, person)
        store.annotate(NAME, VERSION, "sqa-tu", person, Annotation(
            "accept", answer=answer, criteria=dict.fromkeys(("factual", "unique", "time_invariant", "challenging",
                                                             "answerable"), True),
            urls=["https://a.example.cn/1", "https://a.example.cn/2"]))
    assert "queue empty" in client_as("judge").get(ADJUDICATE).text
    assert "双氢青蒿素" in client_as("boss").get(ADJUDICATE).text


def test_admin_page_shows_throughput_and_kappa(client_as, store):
    store.enqueue(NAME, VERSION, [mcq(f"qa-{i}") for i in range(4)])
    verdicts = {"ann1": ["accept", "accept", "reject", "reject"], "ann2": ["accept", "reject", "reject", "reject"]}
    for person, said in verdicts.items():
        for v in said:
            item = store.next_item(NAME, VERSION, person)
            store.annotate(NAME, VERSION, item["item_id"], person,
                           Annotation(v, options={"gold_right": v == "accept", "distractors_wrong": True}))
    html = re.sub(r">\s+<", "><", client_as("boss").get(ADMIN).text)
    assert "<td>ann1 / ann2</td><td>4</td><td>75%</td><td>0.50</td>" in html
    assert "<td>ann1</td><td>4</td><td>0</td><td>4</td><td>4</td>" in html
    assert "<td>qa</td><td>agreed</td><td>3</td>" in html and "<td>qa</td><td>disputed</td><td>1</td>" in html


def test_admin_adds_a_user_who_can_then_log_in(client_as, store):
    client = client_as("boss")
    page = client.get("/admin/users").text
    response = post(client, "/admin/users", {"name": "ann4", "role": "annotator", "password": "short"}, page)
    assert response.status_code == 422 and "a password has at least 8 characters" in response.text
    response = post(client, "/admin/users", {"name": "ann4", "role": "annotator", "password": "ann4-pass-2024"}, page)
    assert response.status_code == 303 and ("ann4", "annotator") in [(u.name, u.role) for u in store.users()]
    login(client_as(), "ann4")


def test_relations_page_shows_samples_and_records_a_verdict(client_as, store, data_dir):
    write_relations(data_dir, count=30)
    client = client_as("judge")
    page = client.get(RELATIONS).text
    assert "34 relation types · page 1 of 2" in page
    assert "卫青｜职业｜军事家" in page and '<mark class="tail">军事家</mark>' in page
    response = post(client, RELATIONS, {"relation": "职业", "verdict": "reject", "note": "太宽泛", "page": "1"}, page)
    assert response.status_code == 303
    assert store.relation_verdicts()["职业"]["verdict"] == "reject"
    assert "verdict: <strong class=\"v-reject\">reject</strong> by judge (太宽泛)" in client.get(RELATIONS).text
    assert "关系29" in client.get(f"{RELATIONS}?page=2").text


def test_relations_of_a_release_without_its_directory_is_a_404_naming_the_path(client_as, data_dir):
    response = client_as("judge").get(RELATIONS)
    assert response.status_code == 404
    assert f"release directory {data_dir / 'releases' / NAME / VERSION} does not exist" in response.text


# -- restarts --------------------------------------------------------------------------------------------

def test_server_restart_loses_neither_labels_nor_sessions(store, data_dir):
    store.enqueue(NAME, VERSION, [mcq()])
    with live_server(data_dir) as url:
        client = httpx.Client(base_url=url)
        login(client, "ann1")
        page = client.get(ANNOTATE).text
        assert post(client, f"{ANNOTATE}/qa-wei", accept_form("qa", note="重启前提交"), page).status_code == 303
    with live_server(data_dir) as url:
        again = httpx.Client(base_url=url, cookies=client.cookies)
        response = again.get(ANNOTATE)
        assert response.status_code == 200 and "done 1 · left 0" in response.text
    assert store.labels(NAME, VERSION, "qa-wei")[0]["note"] == "重启前提交"


# -- Label Studio from the admin page ---------------------------------------------------------------------

def test_admin_downloads_the_queue_for_label_studio_and_imports_an_export(client_as, store, data_dir):
    store.enqueue(NAME, VERSION, [simpleqa()])
    store.next_item(NAME, VERSION, "ann1")
    store.annotate(NAME, VERSION, "sqa-tu", "ann1", Annotation(
        "accept", answer="青蒿素", criteria=dict.fromkeys(CRITERIA, True),
        urls=["https://www.nobelprize.org/prizes/medicine/2015/tu/facts/", "https://zh.wikipedia.org/wiki/屠呦呦"]))
    boss = client_as("boss")
    download = boss.get(f"{ADMIN}/labelstudio.json")
    assert download.status_code == 200 and "attachment" in download.headers["content-disposition"]
    (task,) = download.json()
    assert task["data"]["item_id"] == "sqa-tu" and task["annotations"][0]["zhbench_person"] == "ann1"
    assert "<View>" in boss.get("/labelstudio.xml").text
    assert client_as("ann1").get(f"{ADMIN}/labelstudio.json").status_code == 403

    # Into a fresh queue of the same item, through the upload form: recorded once however often it is sent.
    fresh = data_dir / "fresh"
    fresh.mkdir()
    shutil.copy(data_dir / "review.sqlite", fresh / "review.sqlite")
    with TestClient(create_app(fresh)) as other:
        login(other, "boss")
        target = ReviewStore.at(fresh)
        target.undo(NAME, VERSION, "ann1")  # the copy had ann1's label: take it back so the import brings it
        page = other.get(ADMIN).text
        csrf = field(page, "csrf")
        files = {"file": ("export.json", json.dumps([task], ensure_ascii=False).encode(), "application/json")}
        first = other.post(f"{ADMIN}/import", data={"csrf": csrf}, files=files)
        assert first.status_code == 200 and "Label Studio import: 1 recorded, 0 already there" in first.text
        again = other.post(f"{ADMIN}/import", data={"csrf": csrf}, files=files)
        assert "0 recorded, 1 already there" in again.text
        assert [l["person"] for l in target.labels(NAME, VERSION, "sqa-tu")] == ["ann1"]
        bad = other.post(f"{ADMIN}/import", data={"csrf": csrf},
                         files={"file": ("x.json", b'{"tasks": []}', "application/json")})
        assert bad.status_code == 422 and "not a Label Studio JSON export" in bad.text
        deep = other.post(f"{ADMIN}/import", data={"csrf": csrf},
                          files={"file": ("deep.json", b"[" * 100_000, "application/json")})  # HTTP 500 before
        assert deep.status_code == 422 and "deep.json is not a Label Studio JSON export: nested too deep" in deep.text
        forged = other.post(f"{ADMIN}/import", data={"csrf": "nope"}, files=files)
        assert forged.status_code == 403


def test_an_uploaded_export_by_a_stranger_is_refused_whole_until_the_form_maps_them(client_as, store):
    from review.labelstudio import result

    store.enqueue(NAME, VERSION, [simpleqa()])
    label = {"verdict": "accept", "reason": "correct", "criteria": dict.fromkeys(CRITERIA, True), "answer": "青蒿素",
             "urls": ["https://a.example.cn/1", "https://a.example.cn/2"], "options": {}, "covered": None, "note": ""}
    task = {"id": 1, "data": {"item_id": "sqa-tu"}, "annotations": [
        {"id": 5, "completed_by": {"id": 3, "email": "li@lab.cn"}, "result": result(label)},
        {"id": 6, "zhbench_person": "judge", "zhbench_role": "adjudicator", "result": result(label)}]}
    files = {"file": ("export.json", json.dumps([task], ensure_ascii=False).encode(), "application/json")}
    boss = client_as("boss")
    csrf = field(boss.get(ADMIN).text, "csrf")

    refused = boss.post(f"{ADMIN}/import", data={"csrf": csrf}, files=files)
    assert refused.status_code == 422
    assert "annotations by people with no zhbench account: li@lab.cn; map each to an account" in refused.text
    assert store.labels(NAME, VERSION, "sqa-tu") == []

    mapped = boss.post(f"{ADMIN}/import", data={"csrf": csrf, "users": "li@lab.cn=ann3"}, files=files)
    assert mapped.status_code == 200 and "1 recorded, 0 already there,\n  1 skipped · adjudication 1" in mapped.text
    assert [(l["person"], l["role"]) for l in store.labels(NAME, VERSION, "sqa-tu")] == [("ann3", "annotator")]
    assert store.item(NAME, VERSION, "sqa-tu")["status"] == "open"


# -- reading speed: what the page offers so an annotator types little ----------------------------------


def test_checked_sources_count_as_supporting_urls_and_the_pipeline_answer_is_one_key(client_as, store):
    store.enqueue(NAME, VERSION, [simpleqa()])
    client = client_as("ann1")
    page = client.get(ANNOTATE).text
    # every address the page shows, decoded for reading, each a checkbox; the first ones have keys 6, 7, ...
    assert 'value="https://baike.example.cn/item/屠呦呦" data-key="6"' in page
    assert 'value="https://zh.wikipedia.org/wiki/屠呦呦" data-key="7"' in page
    assert 'value="https://www.nobelprize.org/prizes/medicine/2015/tu/facts/" data-key="8"' in page
    assert 'data-key="t" data-fill="answer" data-value="青蒿素"' in page and 'data-key="y" data-all-yes="crit_"' in page
    form = accept_form("simpleqa", urls="", checked_url=["https://baike.example.cn/item/屠呦呦",
                                                         "https://www.nobelprize.org/prizes/medicine/2015/tu/facts/"])
    assert post(client, f"{ANNOTATE}/sqa-tu", form, page).status_code == 303
    [label] = store.labels(NAME, VERSION, "sqa-tu")
    assert label["urls"] == ["https://baike.example.cn/item/屠呦呦",
                             "https://www.nobelprize.org/prizes/medicine/2015/tu/facts/"]


def test_addresses_read_decoded_and_ids_read_as_chinese_names(client_as, store):
    item = simpleqa()
    item["payload"]["item"].update(domain="technology_economics", primary_category="natural_science",
                                   secondary_category="geography",
                                   urls=["https://baike.example.cn/item/%E5%B1%8F%E5%91%A6%E5%91%A6"])
    store.enqueue(NAME, VERSION, [item])
    page = client_as("ann1").get(ANNOTATE).text
    assert ">https://baike.example.cn/item/屏呦呦</a>" in page  # the link text; the href keeps the encoded form
    assert 'href="https://baike.example.cn/item/%E5%B1%8F%E5%91%A6%E5%91%A6"' in page
    assert "<dt>domain</dt><dd>科技与经济</dd>" in page and "<dt>topic</dt><dd>自然与自然科学</dd>" in page
    assert "technology_economics" not in page and "natural_science" not in page and "primary_category" not in page


def test_a_pair_item_asks_for_no_answer(client_as, store):
    store.enqueue(NAME, VERSION, [cdtp_pair()])
    page = client_as("ann1").get(ANNOTATE).text
    assert 'name="answer"' not in page and "edited answer" not in page
    assert 'data-key="c"' in page


def test_an_admin_browses_without_taking_an_item_from_the_annotators(client_as, store):
    store.enqueue(NAME, VERSION, [simpleqa(), mcq()])
    boss = client_as("boss")
    first = boss.get(ANNOTATE).text
    assert "open item 1 of 2" in first and 'id="decision"' not in first and "without taking one" in first
    assert "卫青的职业是什么？" in first and "屠呦呦因发现哪种药物" in boss.get(f"{ANNOTATE}?at=1").text
    with store._read() as con:
        assert con.execute("SELECT count(*) FROM leases").fetchone()[0] == 0
    for person in ("ann1", "ann2"):  # both slots of the first item are still free
        assert store.next_item(NAME, VERSION, person)["item_id"] == "qa-wei"


def test_logging_out_gives_the_held_item_back(client_as, store):
    store.enqueue(NAME, VERSION, [simpleqa()])
    for person in ("ann1", "ann2"):
        client = client_as(person)
        assert "屠呦呦因发现哪种药物" in client.get(ANNOTATE).text  # both hold a lease on the one item
    assert "queue empty" in client_as("ann3").get(ANNOTATE).text
    response = post(client, "/logout", {})
    assert response.status_code == 303
    assert "屠呦呦因发现哪种药物" in client_as("ann3").get(ANNOTATE).text


def test_undo_on_the_empty_page_cannot_reopen_an_agreed_item(client_as, store):
    store.enqueue(NAME, VERSION, [simpleqa()])
    for person in ("ann1", "ann2"):
        client = client_as(person)
        page = client.get(ANNOTATE).text
        assert post(client, f"{ANNOTATE}/sqa-tu", accept_form("simpleqa"), page).status_code == 303
    assert store.item(NAME, VERSION, "sqa-tu")["status"] == "agreed"
    empty = client.get(ANNOTATE).text
    assert "queue empty" in empty
    refused = post(client, f"{ANNOTATE}/undo", {}, empty)
    assert refused.status_code == 409 and "has both its annotations now" in refused.text
    assert store.item(NAME, VERSION, "sqa-tu")["status"] == "agreed"


def test_the_relations_page_says_kept_in_words(client_as, store):
    write_relations(store.path.parent)
    page = client_as("judge").get(RELATIONS).text
    assert "True kept" not in page and "False kept" not in page and "kept in the release" in page


def test_the_admin_page_names_categories_in_chinese(client_as, store):
    item = simpleqa()
    item["category"] = "natural_science"
    store.enqueue(NAME, VERSION, [item])
    for person in ("ann1", "ann2"):
        store.next_item(NAME, VERSION, person)
        store.annotate(NAME, VERSION, "sqa-tu", person, Annotation(
            "accept", answer="青蒿素", criteria=dict.fromkeys(CRITERIA, True),
            urls=["https://a.example.cn/1", "https://a.example.cn/2"]))
    page = client_as("boss").get(ADMIN).text
    assert "<td>自然与自然科学</td>" in page and "<td>natural_science</td>" not in page
