"""zhbench review: accounts, queue and status from the command line, and its one-line errors."""

from __future__ import annotations

import json

import subprocess
import sys

from review.store import CRITERIA, Annotation, ReviewStore
from tests.flows.test_cli import ROOT, main
from tests.warehouse.conftest import release  # noqa: F401 (the published release fixture)


def test_add_user_reads_the_password_from_stdin_and_never_from_the_command_line(tmp_path):
    run = subprocess.run([sys.executable, "-m", "flows.cli", "review", "add-user", "alice", "--role", "admin",
                          "--password-stdin", "--data-dir", str(tmp_path)], input="s3cret-words\n",
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "alice: admin (added;" in run.stdout
    assert ReviewStore.at(tmp_path).login("alice", "s3cret-words") is not None
    again = subprocess.run([sys.executable, "-m", "flows.cli", "review", "add-user", "alice", "--role", "annotator",
                            "--password-stdin", "--data-dir", str(tmp_path)], input="s3cret-words\n",
                           capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert again.returncode == 1
    assert again.stderr.strip() == ("zhbench: error: user alice exists; to change the role or password, add it "
                                    "again with --replace")


def test_serve_without_accounts_says_how_to_add_one(tmp_path, capsys):
    assert main(["review", "serve", "--data-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "no accounts in" in err and "zhbench review add-user NAME --role admin" in err and "Traceback" not in err


def test_queue_and_status(release, tmp_path, capsys):  # noqa: F811
    assert main(["review", "queue", str(release), "--config", "simpleqa", "--sample", "3", "--split", "all",
                 "--data-dir", str(tmp_path)]) == 0
    assert "3 items queued for review (3 in the queue)" in capsys.readouterr().out
    store = ReviewStore.at(tmp_path)
    name, version = store.queues()[0]["name"], store.queues()[0]["version"]
    urls = ["https://baike.baidu.com/item/a", "https://zh.wikipedia.org/wiki/b"]
    for person in ("ann1", "ann2"):
        item = store.next_item(name, version, person)
        label = Annotation("accept", answer=item["payload"]["item"]["answer"], criteria=dict.fromkeys(CRITERIA, True),
                           urls=urls)
        store.annotate(name, version, item["item_id"], person, label)
    assert main(["review", "status", str(release), "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "3 queued; open 2, agreed 1, disputed 0, adjudicated 0" in out
    assert "ann1 / ann2" in out and "1 items  agreement 100%" in out
    assert main(["review", "queue", str(release), "--config", "pairs", "--data-dir", str(tmp_path)]) == 1
    assert "has no config pairs to review" in capsys.readouterr().err


def test_export_to_label_studio_and_import_back(release, tmp_path, capsys):  # noqa: F811
    source, target = tmp_path / "a", tmp_path / "b"
    for data in (source, target):
        assert main(["review", "queue", str(release), "--config", "simpleqa", "--sample", "2", "--split", "all",
                     "--data-dir", str(data)]) == 0
    store = ReviewStore.at(source)
    name, version = store.queues()[0]["name"], store.queues()[0]["version"]
    urls = ["https://baike.baidu.com/item/a", "https://zh.wikipedia.org/wiki/b"]
    for person in ("ann1", "ann2"):
        item = store.next_item(name, version, person)
        store.annotate(name, version, item["item_id"], person,
                       Annotation("accept", answer=item["payload"]["item"]["answer"],
                                  criteria=dict.fromkeys(CRITERIA, True), urls=urls))
    out = tmp_path / "tasks.json"
    assert main(["review", "export", str(release), "--out", str(out), "--data-dir", str(source)]) == 0
    assert f"2 tasks of {name} {version} to {out}" in capsys.readouterr().out
    assert "<View>" in out.with_suffix(".xml").read_text(encoding="utf-8")
    # Annotations go only to accounts of the target: ann2 has none there, so nothing is imported until mapped.
    accounts = ReviewStore.at(target)
    for person in ("ann1", "li"):
        accounts.add_user(person, "annotator", "long enough")
    assert main(["review", "import", str(release), str(out), "--data-dir", str(target)]) == 1
    shown = capsys.readouterr()
    assert shown.err == ("zhbench: error: annotations by people with no zhbench account: ann2; map each to an "
                         "account with --user LSNAME=NAME (e.g. --user 7=li), or add it with zhbench review add-user; "
                         "nothing was imported\n")
    assert accounts.stats(name, version)["throughput"] == []
    for expected in ("imported 2, already there 0", "imported 0, already there 2"):
        assert main(["review", "import", str(release), str(out), "--user", "ann2=li", "--data-dir", str(target)]) == 0
        assert expected in capsys.readouterr().out
    assert ReviewStore.at(target).status(name, version)["agreed"] == 1
    assert {t["person"] for t in accounts.stats(name, version)["throughput"]} == {"ann1", "li"}
    # A file the queue refuses in part: the command says why and exits 1, so a script sees it.
    tasks = json.loads(out.read_text(encoding="utf-8"))
    tasks[0]["data"]["item_id"] = "no-such-item"
    refused = tmp_path / "refused.json"
    refused.write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
    assert main(["review", "import", str(release), str(refused), "--data-dir", str(target)]) == 1
    shown = capsys.readouterr()
    assert "skipped 2: not_queued" in shown.out and "item no-such-item is not queued" in shown.out
    assert shown.err == "zhbench: error: nothing imported: all 2 annotations skipped (not_queued 2)\n"
    out.write_text('{"tasks": []}', encoding="utf-8")
    assert main(["review", "import", str(release), str(out), "--data-dir", str(target)]) == 1
    assert "not a Label Studio JSON export" in capsys.readouterr().err


def test_an_import_that_records_nothing_exits_1_with_a_one_line_summary(release, tmp_path, capsys):  # noqa: F811
    assert main(["review", "queue", str(release), "--config", "simpleqa", "--sample", "1", "--split", "all",
                 "--data-dir", str(tmp_path)]) == 0
    store = ReviewStore.at(tmp_path)
    name, version = store.queues()[0]["name"], store.queues()[0]["version"]
    [item_id] = store.item_ids(name, version)
    cancelled = tmp_path / "cancelled.json"
    cancelled.write_text(json.dumps([{"id": 1, "data": {"item_id": item_id}, "annotations": [
        {"completed_by": 7, "was_cancelled": True, "result": []}]}]), encoding="utf-8")
    empty = tmp_path / "empty.json"
    empty.write_text("[]", encoding="utf-8")
    capsys.readouterr()
    for path, why in ((cancelled, "all 1 annotations skipped (cancelled 1)"),
                      (empty, "the file holds no annotations")):
        assert main(["review", "import", str(release), str(path), "--data-dir", str(tmp_path)]) == 1
        assert capsys.readouterr().err == f"zhbench: error: nothing imported: {why}\n"
    assert store.labels(name, version, item_id) == []
