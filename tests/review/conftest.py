"""Shared fixtures for the review app: a store with one user per role, hand-built queue rows with
realistic Chinese content, logged-in test clients and a live uvicorn server in a subprocess."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient

from review.app import create_app
from review.store import CRITERIA, ReviewStore

ROOT = Path(__file__).resolve().parents[2]
NAME, VERSION = "cdtp", "0.1.0"
USERS = {"ann1": "annotator", "ann2": "annotator", "ann3": "annotator", "judge": "adjudicator", "boss": "admin"}
TU_TEXT = "屠呦呦，中国药学家，1930年12月30日生于浙江宁波。她因发现青蒿素获得2015年诺贝尔生理学或医学奖。"
WEI_TEXT = "卫青，字仲卿，河东平阳人，西汉时期著名军事家，官至大司马大将军，封长平侯。"
WEI_OPTIONS = ["政治家", "文学家", "史学家", "军事家", "医学家", "哲学家", "书法家", "天文学家", "外交家", "音乐家"]


def password(name: str) -> str:
    return f"{name}-pass-2024"


def pair(pair_id: str, entity: str, text: str, triples: list[tuple[str, str, str]]) -> dict:
    return {"pair_id": pair_id, "entity": entity, "sense": "", "url": f"https://baike.example.cn/item/{entity}",
            "text": text, "triples": [{"head": h, "relation": r, "tail": t, "raw_value": t, "decision": "kept",
                                       "span_end": text.find(t) + len(t),
                                       "support_urls": [f"https://zh.wikipedia.org/wiki/{h}"]}
                                      for h, r, t in triples]}


TU_PAIR = pair("p-tu", "屠呦呦", TU_TEXT, [("屠呦呦", "国籍", "中国"), ("屠呦呦", "出生地", "浙江宁波")])
WEI_PAIR = pair("p-wei", "卫青", WEI_TEXT, [("卫青", "职业", "军事家"), ("卫青", "封爵", "长平侯")])
CHECKS = [{"verifier": "evidence", "keep": True, "reason": "",
           "evidence": {"urls": ["https://www.nobelprize.org/prizes/medicine/2015/tu/facts/"],
                        "passages": ["屠呦呦因发现青蒿素获得2015年诺贝尔生理学或医学奖。"]}}]


def row(item_id: str, config: str, item: dict, pairs: list[dict], checks: list[dict] | None = None) -> dict:
    """A queue row as review.queue builds it."""
    item = {"item_id": item_id, "kind": config, "domain": "history_politics", "primary_category": "人物",
            "secondary_category": "科学家", "urls": [], "verified_by": ["evidence"], "unverified_by": [], **item}
    return {"item_id": item_id, "config": config, "category": item["primary_category"],
            "payload": {"item": item, "pairs": pairs, "checks": checks or []}}


def simpleqa(item_id: str = "sqa-tu", question: str = "屠呦呦因发现哪种药物获得2015年诺贝尔生理学或医学奖？",
             text: str = TU_TEXT) -> dict:
    return row(item_id, "simpleqa", {"question": question, "answer": "青蒿素", "head": "屠呦呦", "relation": "主要成就",
                                     "tail": "青蒿素", "urls": ["https://baike.example.cn/item/屠呦呦"],
                                     "difficulty": "medium"},
               [{**TU_PAIR, "text": text}], CHECKS)


def mcq(item_id: str = "qa-wei", kind: str = "qa") -> dict:
    question = "卫青的职业是什么？" if kind == "qa" else "（卫青，职业，？）"
    return row(item_id, kind, {"question": question, "options": WEI_OPTIONS, "answer": "军事家", "answer_index": 3,
                               "head": "卫青", "relation": "职业", "tail": "军事家"}, [WEI_PAIR])


def t2t(item_id: str = "t2t-tu") -> dict:
    return row(item_id, "t2t", {"question": "屠呦呦｜国籍｜中国\n屠呦呦｜出生地｜浙江宁波", "answer": TU_TEXT,
                                "head": "屠呦呦"}, [TU_PAIR])


def cdtp_pair(item_id: str = "p-wei", text: str = WEI_TEXT) -> dict:
    return row(item_id, "cdtp_pairs", {"question": "", "answer": "", "head": "卫青"}, [{**WEI_PAIR, "text": text}])


def cloze(item_id: str = "cloze-tu") -> dict:
    return row(item_id, "cloze", {"question": "屠呦呦是中国药学家，她发现了＿＿＿。", "answer": "青蒿素", "head": "屠呦呦"},
               [TU_PAIR])


def accept_form(config: str, **changes) -> dict:
    """A form that the store accepts for an item of ``config``."""
    form = {"verdict": "accept", "reason": "", "answer": "", "urls": "", "note": ""}
    if config == "simpleqa":
        form.update({f"crit_{c}": "yes" for c in CRITERIA})
        form.update(answer="青蒿素", urls="https://www.nobelprize.org/prizes/medicine/2015/tu/facts/\n"
                                         "https://baike.example.cn/item/屠呦呦")
    elif config in ("qa", "kgc"):
        form.update(gold_right="yes", distractors_wrong="yes")
    elif config in ("t2t", "cdtp_pairs"):
        form.update(covered="yes")
    form.update(changes)
    return form


@pytest.fixture(scope="session")
def seeded_db(tmp_path_factory) -> Path:
    """A review database with one user per role; hashing passwords is slow, so it is built once and copied."""
    path = tmp_path_factory.mktemp("seed") / "review.sqlite"
    store = ReviewStore(path)
    for name, role in USERS.items():
        store.add_user(name, role, password(name))
    return path


@pytest.fixture()
def data_dir(tmp_path, seeded_db) -> Path:
    for suffix in ("", "-wal"):  # the WAL is folded in when the last connection closes; copied if not
        if Path(f"{seeded_db}{suffix}").exists():
            shutil.copy(f"{seeded_db}{suffix}", tmp_path / f"review.sqlite{suffix}")
    return tmp_path


@pytest.fixture()
def store(data_dir) -> ReviewStore:
    return ReviewStore.at(data_dir)


@pytest.fixture()
def app(data_dir):
    return create_app(data_dir)


def field(html: str, name: str) -> str:
    """The value of the hidden input ``name`` in a rendered page."""
    found = re.search(rf'name="{name}" value="([^"]*)"', html)
    assert found, f"no {name} field in the page"
    return found.group(1)


def login(client, name: str) -> None:
    """Log in through the form, as a browser does."""
    token = field(client.get("/login").text, "login_token")
    response = client.post("/login", data={"login_token": token, "name": name, "password": password(name)},
                           follow_redirects=False)
    assert response.status_code == 303, response.text


@pytest.fixture()
def client_as(app):
    """client_as(name): a TestClient logged in as that user; closed after the test."""
    clients = []

    def make(name: str | None = None) -> TestClient:
        client = TestClient(app)
        clients.append(client)
        if name:
            login(client, name)
        return client

    yield make
    for c in clients:
        c.close()


def write_relations(data_dir: Path, name: str = NAME, version: str = VERSION, count: int = 3) -> Path:
    """A release directory with relations/all.parquet and cdtp_pairs/all.parquet."""
    release = data_dir / "releases" / name / version
    (release / "relations").mkdir(parents=True)
    (release / "cdtp_pairs").mkdir()
    relations = ["国籍", "职业", "出生地", "封爵"] + [f"关系{i}" for i in range(count)]
    pq.write_table(pa.table({"relation": relations, "pages": [50 - i for i in range(len(relations))],
                             "kept": [i < len(relations) - 1 for i in range(len(relations))],
                             "aliases": [["国家"]] + [[] for _ in relations[1:]]}), release / "relations" / "all.parquet")
    pairs = [TU_PAIR, WEI_PAIR, {**WEI_PAIR, "pair_id": "p-evil", "text": "卫青<script>alert(1)</script>是军事家。"}]
    pq.write_table(pa.Table.from_pylist([{k: p[k] for k in ("pair_id", "entity", "text")} |
                                         {"triples": [{k: t[k] for k in ("head", "relation", "tail", "decision")}
                                                      for t in p["triples"]]} for p in pairs]),
                   release / "cdtp_pairs" / "all.parquet")
    return release


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_server(data_dir: Path, port: int | None = None):
    """uvicorn serving the app in a subprocess on 127.0.0.1; yields its base URL and stops it after."""
    port = port or free_port()
    code = f"from review.app import serve; serve({str(data_dir)!r}, port={port})"
    process = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(f"{url}/login", timeout=1)
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the review server on port {port} did not start")
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
