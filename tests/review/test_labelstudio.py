"""Label Studio JSON out of and back into the review queue."""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ET

import pytest

from review.labelstudio import CONFIG_XML, TO_NAME, UnknownReviewers, export_tasks, import_tasks, read_tasks
from review.store import CRITERIA, REASONS, VERDICTS, Annotation, ReviewError, ReviewStore

NAME, VERSION = "zh-kb", "1.2.0"
TU_URLS = ["https://baike.baidu.com/item/屠呦呦/5012", "https://zh.wikipedia.org/wiki/屠呦呦"]
LI_URLS = ["https://baike.baidu.com/item/本草纲目/16249", "https://zh.wikipedia.org/wiki/本草纲目"]
QING_URLS = ["https://baike.baidu.com/item/青蒿素/2087", "https://zh.wikipedia.org/wiki/青蒿素"]
ALL_HOLD = {c: True for c in CRITERIA}
FIELDS = ("person", "role", "verdict", "reason", "answer", "criteria", "urls", "options", "covered", "note")


def _id(kind: str, *parts: str) -> str:
    """As builders.items.item_id makes them."""
    return hashlib.sha256("\x1f".join((kind, *parts)).encode("utf-8")).hexdigest()[:16]


TU = _id("simpleqa", "屠呦呦", "国籍")
LI = _id("simpleqa", "本草纲目", "作者")
QING = _id("simpleqa", "青蒿素", "来源植物")
NOBEL = _id("mcq", "屠呦呦", "获奖年份")
PAIR = _id("cdtp_pairs", "屠呦呦")
TU_TEXT = "屠呦呦，女，1930年12月30日生于浙江宁波，中国药学家，因发现青蒿素获得2015年诺贝尔生理学或医学奖。"


def _simpleqa(item_id: str, question: str, answer: str, urls: list[str]) -> dict:
    return {"item_id": item_id, "config": "simpleqa", "category": "自然科学",
            "payload": {"item": {"item_id": item_id, "kind": "simpleqa", "question": question, "answer": answer,
                                 "options": [], "answer_index": None, "urls": urls},
                        "pairs": [{"pair_id": f"p-{item_id}", "entity": question[:3], "url": urls[0], "text": TU_TEXT,
                                   "triples": [{"head": "屠呦呦", "relation": "国籍", "tail": "中国"}]}],
                        "checks": [{"item_id": item_id, "verifier": "search_cooccurrence", "passed": True}]}}


ITEMS = [
    _simpleqa(TU, "屠呦呦的国籍是什么？", "中国", TU_URLS),
    _simpleqa(LI, "《本草纲目》的作者是谁？", "李时珍", LI_URLS),
    _simpleqa(QING, "青蒿素是从哪种植物中提取的？", "黄花蒿", QING_URLS),
    {"item_id": NOBEL, "config": "qa", "category": "人物",
     "payload": {"item": {"item_id": NOBEL, "kind": "mcq", "question": "屠呦呦在哪一年获得诺贝尔生理学或医学奖？",
                          "options": ["2011年", "2015年", "2001年", "1995年"], "answer_index": 1, "answer": "2015年",
                          "head": "屠呦呦", "relation": "获奖年份", "tail": "2015年", "urls": TU_URLS[:1]},
                 "pairs": [{"pair_id": "p-tu", "entity": "屠呦呦", "url": TU_URLS[0], "text": TU_TEXT,
                            "triples": [{"head": "屠呦呦", "relation": "获奖年份", "tail": "2015年"}]}], "checks": []}},
    {"item_id": PAIR, "config": "cdtp_pairs", "category": "人物",
     "payload": {"item": {"item_id": PAIR, "kind": "cdtp_pairs", "question": "", "answer": "", "head": "屠呦呦",
                          "urls": TU_URLS[:1]},
                 "pairs": [{"pair_id": PAIR, "entity": "屠呦呦", "url": TU_URLS[0], "text": TU_TEXT,
                            "triples": [{"head": "屠呦呦", "relation": "出生地", "tail": "浙江宁波"}]}], "checks": []}},
]


def _store(tmp_path, name: str = "review.sqlite") -> ReviewStore:
    store = ReviewStore(tmp_path / name)
    store.enqueue(NAME, VERSION, ITEMS)
    _accounts(store, "alice", "bob", "carol")
    return store


def _accounts(store: ReviewStore, *names: str) -> None:
    """Accounts for these names, without the slow password hash: these tests never log in."""
    with store._write() as con:
        con.executemany("INSERT INTO users VALUES (?, 'annotator', 'no-login', '2025-01-09T00:00:00+00:00')",
                        [(n,) for n in names])


def _labelled(tmp_path) -> ReviewStore:
    """Every status and every control: agreed, adjudicated, disputed, an agreed MCQ reject, an open pair."""
    store = _store(tmp_path, "source.sqlite")
    put = lambda item_id, person, **a: store.annotate(NAME, VERSION, item_id, person, Annotation(**a))  # noqa: E731
    put(TU, "alice", verdict="accept", answer="中国", criteria=ALL_HOLD, urls=TU_URLS)
    put(TU, "bob", verdict="accept", answer="中国 ", criteria=ALL_HOLD, urls=TU_URLS[::-1], note="百科与维基一致")
    put(LI, "alice", verdict="accept", answer="李时珍", criteria=ALL_HOLD, urls=LI_URLS)
    put(LI, "bob", verdict="reject", reason="ambiguous_question", criteria={**ALL_HOLD, "unique": False})
    store.adjudicate(NAME, VERSION, LI, "carol", Annotation(verdict="accept", answer="李时珍", note="明代李时珍所著"))
    put(QING, "alice", verdict="accept", answer="黄花蒿", criteria=ALL_HOLD, urls=QING_URLS)
    put(QING, "bob", verdict="reject", reason="several_answers", criteria={**ALL_HOLD, "unique": False},
        urls=QING_URLS[:1])
    put(NOBEL, "alice", verdict="reject", reason="gold_wrong", options={"gold_right": False, "distractors_wrong": True})
    put(NOBEL, "bob", verdict="reject", reason="gold_wrong", options={"gold_right": False, "distractors_wrong": True})
    put(PAIR, "alice", verdict="accept", covered=True)
    return store


def _labels(store: ReviewStore) -> dict[str, list[dict]]:
    return {i["item_id"]: [{k: label[k] for k in FIELDS} for label in store.labels(NAME, VERSION, i["item_id"])]
            for i in ITEMS}


def _queue(store: ReviewStore) -> dict[str, tuple]:
    return {i["item_id"]: (q["status"], q["verdict"], q["answer"])
            for i in ITEMS for q in [store.item(NAME, VERSION, i["item_id"])]}


def test_export_gives_label_studio_tasks_with_both_labels(tmp_path):
    store = ReviewStore(tmp_path / "review.sqlite")
    store.enqueue(NAME, VERSION, ITEMS[:1])
    assert store.next_item(NAME, VERSION, "alice")["item_id"] == TU  # a lease: the label gets its seconds
    store.annotate(NAME, VERSION, TU, "alice", Annotation("accept", answer="中国", criteria=ALL_HOLD, urls=TU_URLS))
    store.annotate(NAME, VERSION, TU, "bob", Annotation("reject", reason="time_sensitive", criteria={
        **ALL_HOLD, "time_invariant": False}, urls=TU_URLS[:1], note="国籍可能变更"))

    [task] = export_tasks(store, NAME, VERSION, emails={"alice": "alice@lab.cn"})

    assert task["id"] == 1
    assert task["data"] == {"item_id": TU, "config": "simpleqa", "release": "zh-kb 1.2.0",
                            "question": "屠呦呦的国籍是什么？", "answer": "中国", "options_text": "", "text": TU_TEXT,
                            "urls": TU_URLS}
    alice, bob = task["annotations"]
    assert alice["result"] == [
        {"from_name": "verdict", "to_name": "question", "type": "choices", "value": {"choices": ["accept"]}},
        {"from_name": "reason", "to_name": "question", "type": "choices", "value": {"choices": ["correct"]}},
        {"from_name": "criteria", "to_name": "question", "type": "choices",
         "value": {"choices": ["factual", "unique", "time_invariant", "challenging", "answerable"]}},
        {"from_name": "answer", "to_name": "question", "type": "textarea", "value": {"text": ["中国"]}},
        {"from_name": "urls", "to_name": "question", "type": "textarea", "value": {"text": TU_URLS}},
    ]
    assert bob["result"] == [
        {"from_name": "verdict", "to_name": "question", "type": "choices", "value": {"choices": ["reject"]}},
        {"from_name": "reason", "to_name": "question", "type": "choices", "value": {"choices": ["time_sensitive"]}},
        {"from_name": "criteria", "to_name": "question", "type": "choices",
         "value": {"choices": ["factual", "unique", "challenging", "answerable"]}},
        {"from_name": "urls", "to_name": "question", "type": "textarea", "value": {"text": TU_URLS[:1]}},
        {"from_name": "note", "to_name": "question", "type": "textarea", "value": {"text": ["国籍可能变更"]}},
    ]
    assert (alice["completed_by"], alice["zhbench_person"], alice["zhbench_role"]) == (
        {"email": "alice@lab.cn"}, "alice", "annotator")
    assert bob["completed_by"] == {"email": "bob"} and bob["zhbench_person"] == "bob"  # no mapping: the name
    assert alice["ground_truth"] is False  # Label Studio would make it ground truth otherwise
    assert isinstance(alice["lead_time"], float) and alice["lead_time"] >= 0
    assert bob["lead_time"] is None  # no lease, so no time from lease to decision
    assert alice["was_cancelled"] is False and alice["created_at"].endswith("+00:00")


def test_export_numbers_the_options_and_marks_the_gold_in_item_order(tmp_path):
    tasks = export_tasks(_labelled(tmp_path), NAME, VERSION)

    assert [t["data"]["item_id"] for t in tasks] == sorted(i["item_id"] for i in ITEMS)
    assert [t["id"] for t in tasks] == [1, 2, 3, 4, 5]
    by_id = {t["data"]["item_id"]: t for t in tasks}
    assert by_id[NOBEL]["data"]["options_text"] == "A. 2011年\nB. 2015年  ✓\nC. 2001年\nD. 1995年"
    assert by_id[NOBEL]["annotations"][0]["result"][2:] == [
        {"from_name": "gold_right", "to_name": "options", "type": "choices", "value": {"choices": ["no"]}},
        {"from_name": "distractors_wrong", "to_name": "options", "type": "choices", "value": {"choices": ["yes"]}}]
    assert by_id[PAIR]["annotations"][0]["result"][2] == {
        "from_name": "covered", "to_name": "text", "type": "choices", "value": {"choices": ["yes"]}}
    assert [a["zhbench_role"] for a in by_id[LI]["annotations"]] == ["annotator", "annotator", "adjudicator"]


def test_round_trip_keeps_every_annotation_and_leaves_the_adjudication_to_zhbench(tmp_path):
    source = _labelled(tmp_path)
    path = tmp_path / "project-3-at-2025-01-09.json"
    path.write_text(json.dumps(export_tasks(source, NAME, VERSION), ensure_ascii=False), encoding="utf-8")
    fresh = _store(tmp_path)

    counts = import_tasks(fresh, NAME, VERSION, read_tasks(path))

    assert (counts["imported"], counts["already_there"], counts["skipped"]) == (9, 0, {"adjudication": 1})
    [problem] = counts["problems"]
    assert (problem["item_id"], problem["person"]) == (LI, "carol")
    assert problem["message"] == f"an import never adjudicates; settle item {LI} on zhbench's adjudication page"
    annotators = {i: [x for x in labels if x["role"] == "annotator"] for i, labels in _labels(source).items()}
    assert _labels(fresh) == annotators
    assert _queue(source)[LI] == ("adjudicated", "accept", "李时珍")
    assert _queue(fresh) == {
        TU: ("agreed", "accept", "中国"), LI: ("disputed", None, None), QING: ("disputed", None, None),
        NOBEL: ("agreed", "reject", None), PAIR: ("open", None, None)}


def test_importing_the_same_file_twice_stores_each_annotation_once(tmp_path):
    tasks = export_tasks(_labelled(tmp_path), NAME, VERSION)
    fresh = _store(tmp_path)
    import_tasks(fresh, NAME, VERSION, tasks)
    before = _labels(fresh)

    again = import_tasks(fresh, NAME, VERSION, tasks)

    assert (again["imported"], again["already_there"], again["skipped"]) == (0, 9, {"adjudication": 1})
    assert _labels(fresh) == before


def test_importing_a_store_s_own_export_into_it_finds_every_label_there(tmp_path):
    source = _labelled(tmp_path)
    counts = import_tasks(source, NAME, VERSION, export_tasks(source, NAME, VERSION))
    assert (counts["imported"], counts["already_there"], counts["skipped"]) == (0, 10, {})


def test_through_label_studio_people_come_back_by_email_and_an_adjudication_as_a_refused_label(tmp_path):
    emails = {"alice": "alice@lab.cn", "bob": "bob@lab.cn", "carol": "carol@lab.cn"}
    source = _labelled(tmp_path)
    exported = export_tasks(source, NAME, VERSION, emails=emails)
    # What Label Studio keeps of an imported annotation, and how its JSON export names the annotator.
    ids = {"alice@lab.cn": 3, "bob@lab.cn": 4, "carol@lab.cn": 5}
    back = [{"id": 600 + t["id"], "data": t["data"], "annotations": [
        {"id": 9000 + 10 * t["id"] + k, "result": a["result"], "lead_time": a["lead_time"], "was_cancelled": False,
         "ground_truth": False, "completed_by": {"id": ids[a["completed_by"]["email"]], **a["completed_by"]}}
        for k, a in enumerate(t["annotations"])]} for t in exported]
    fresh = _store(tmp_path)

    counts = import_tasks(fresh, NAME, VERSION, back, users={e: name for name, e in emails.items()})

    assert (counts["imported"], counts["skipped"]) == (9, {"refused": 1})
    assert (counts["problems"][0]["item_id"], counts["problems"][0]["person"]) == (LI, "carol")
    annotators = {i: [x for x in labels if x["role"] == "annotator"] for i, labels in _labels(source).items()}
    assert _labels(fresh) == annotators
    assert _queue(fresh)[LI] == ("disputed", None, None)  # the adjudication is the one thing lost


def _ls_task(item_id: str, completed_by, **annotation) -> dict:
    """A task as Label Studio's own JSON export writes it: integer user, ids and origins on results."""
    return {"id": 812, "data": {"item_id": item_id, "config": "simpleqa", "question": "屠呦呦的国籍是什么？"},
            "annotations": [{"id": 4107, "completed_by": completed_by, "lead_time": 41.7, "was_cancelled": False,
                             "created_at": "2025-01-09T08:12:03.118Z", "result": [
                                 {"id": "Vd1", "from_name": "verdict", "to_name": "question", "type": "choices",
                                  "origin": "manual", "value": {"choices": ["accept"]}},
                                 {"id": "Cr1", "from_name": "criteria", "to_name": "question", "type": "choices",
                                  "origin": "manual", "value": {"choices": list(CRITERIA)}},
                                 {"id": "An1", "from_name": "answer", "to_name": "question", "type": "textarea",
                                  "origin": "manual", "value": {"text": ["中国"]}},
                                 {"id": "Ur1", "from_name": "urls", "to_name": "question", "type": "textarea",
                                  "origin": "manual", "value": {"text": ["\n".join(TU_URLS)]}}], **annotation}]}


def test_annotators_without_an_account_refuse_the_whole_import_naming_each(tmp_path):
    store = _store(tmp_path)
    _accounts(store, "li_na")
    tasks = [_ls_task(LI, "alice"), _ls_task(TU, 7), _ls_task(QING, {"id": 9, "email": "wang.fang@lab.cn"}),
             _ls_task(TU, 8)]

    with pytest.raises(UnknownReviewers) as e:
        import_tasks(store, NAME, VERSION, tasks, users={"8": "nobody"})

    assert str(e.value) == ("annotations by people with no zhbench account: 7, 8=nobody, wang.fang@lab.cn; map each "
                            "to an account with --user LSNAME=NAME (e.g. --user 7=li), or add it with zhbench review "
                            "add-user; nothing was imported")
    assert all(store.labels(NAME, VERSION, i["item_id"]) == [] for i in ITEMS)  # not even alice's label


def test_a_name_the_file_gives_is_an_account_only_when_one_exists_or_is_mapped(tmp_path):
    """zhbench's own export names people: a forged file naming a stranger records nothing."""
    store = _store(tmp_path)
    [task] = [t for t in export_tasks(_labelled(tmp_path), NAME, VERSION) if t["data"]["item_id"] == TU]
    task["annotations"][0]["zhbench_person"] = "mallory"

    with pytest.raises(UnknownReviewers, match="no zhbench account: mallory;"):
        import_tasks(store, NAME, VERSION, [task])
    counts = import_tasks(store, NAME, VERSION, [task], users={"mallory": "carol"})

    assert counts["imported"] == 2 and [l["person"] for l in store.labels(NAME, VERSION, TU)] == ["carol", "bob"]


def test_an_integer_annotator_is_named_by_the_mapping_and_an_email_object_by_its_email(tmp_path):
    store = _store(tmp_path)
    _accounts(store, "li_na", "wang.fang@lab.cn")
    tasks = [_ls_task(TU, 7), _ls_task(TU, {"id": 9, "email": "wang.fang@lab.cn", "first_name": "芳"})]
    tasks[1]["annotations"][0]["id"] = 4108

    counts = import_tasks(store, NAME, VERSION, tasks, users={"7": "li_na"})

    assert (counts["imported"], counts["skipped"]) == (2, {})
    li_na, wang = store.labels(NAME, VERSION, TU)
    assert (li_na["person"], li_na["urls"], li_na["answer"], li_na["criteria"]) == ("li_na", TU_URLS, "中国", ALL_HOLD)
    assert li_na["request_id"] == f"labelstudio:{NAME}:{VERSION}:{TU}:4107"
    assert wang["person"] == "wang.fang@lab.cn"  # unmapped, the e-mail names the account that has it as its name
    assert store.item(NAME, VERSION, TU)["status"] == "agreed"


def test_one_bad_task_or_annotation_is_a_skip_reason_and_the_rest_imports(tmp_path):
    store = _store(tmp_path)
    _accounts(store, "li_na", "zhao_lei")
    one_url = _ls_task(TU, 7)
    one_url["annotations"][0]["result"][3]["value"] = {"text": [TU_URLS[0]]}
    cancelled = _ls_task(LI, 7, was_cancelled=True)
    elsewhere = _ls_task(LI, 7)
    elsewhere["data"]["release"] = "zh-kb 1.1.0"
    tasks = [one_url, cancelled, elsewhere, _ls_task("0000000000000000", 7), {"id": 5, "data": {}, "annotations": [
        {"completed_by": 7, "result": []}]}, {"id": 6, "data": {"item_id": QING}, "annotations": [
            {"completed_by": 7, "result": "accept"}]}, _ls_task(TU, 8)]

    counts = import_tasks(store, NAME, VERSION, tasks, users={"7": "li_na", "8": "zhao_lei"})

    assert counts["imported"] == 1  # zhao_lei's two URLs
    assert counts["skipped"] == {"cancelled": 1, "malformed_annotation": 1, "no_item_id": 1, "not_queued": 1,
                                 "other_release": 1, "refused": 1}
    [refused] = [p for p in counts["problems"] if p["reason"] == "refused"]
    assert (refused["item_id"], refused["person"]) == (TU, "li_na")
    assert "at least 2 different supporting URLs" in refused["message"]


def test_a_third_person_on_a_dispute_never_settles_it_marked_adjudicator_or_not(tmp_path):
    source = _labelled(tmp_path)
    [task] = [t for t in export_tasks(source, NAME, VERSION) if t["data"]["item_id"] == QING]
    carol = {"zhbench_person": "carol", "was_cancelled": False,
             "result": [{"from_name": "verdict", "to_name": "question", "type": "choices",
                         "value": {"choices": ["accept"]}},
                        {"from_name": "criteria", "to_name": "question", "type": "choices",
                         "value": {"choices": list(CRITERIA)}},
                        {"from_name": "answer", "to_name": "question", "type": "textarea", "value": {"text": ["黄花蒿"]}},
                        {"from_name": "urls", "to_name": "question", "type": "textarea", "value": {"text": QING_URLS}}]}
    task["annotations"] = [carol]

    unmarked = import_tasks(source, NAME, VERSION, [task])
    task["annotations"] = [{**carol, "zhbench_role": "adjudicator"}]
    marked = import_tasks(source, NAME, VERSION, [task])

    assert unmarked["skipped"] == {"refused": 1}
    assert "has both its annotations; it takes no more" in unmarked["problems"][0]["message"]
    assert (marked["imported"], marked["skipped"]) == (0, {"adjudication": 1})
    assert "an import never adjudicates" in marked["problems"][0]["message"]
    assert source.item(NAME, VERSION, QING)["status"] == "disputed"
    assert [l["person"] for l in source.labels(NAME, VERSION, QING)] == ["alice", "bob"]


@pytest.mark.parametrize(("content", "expected"), [
    ('{"id": 1, "data": {"item_id": "x"}}', "expected a list of tasks, got an object; export the project with "
                                            "'JSON' (not 'JSON_MIN'"),
    ("item_id,verdict\nabc,accept\n", "not JSON at line 1, column 1"),
    ('[{"id": 1, "item_id": "x", "verdict": "accept", "annotator": 3}]', "a JSON_MIN export"),
    ('[{"id": 1, "data": {}}, "accept"]', "task 2 is a string"),
    ("[" * 100_000, "nested too deep to be one"),  # a RecursionError traceback before
    ("[" + "9" * 5_000 + "]", "it holds a number of more than 4,300 digits"),
])
def test_a_file_that_is_not_a_json_export_says_what_and_how_to_fix(tmp_path, content, expected):
    path = tmp_path / "export.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ReviewError, match="export.json is not a Label Studio JSON export") as e:
        read_tasks(path)
    assert expected in str(e.value)


def test_the_labeling_config_names_every_control_the_export_writes(tmp_path):
    root = ET.parse(CONFIG_XML).getroot()
    controls = {el.get("name"): el for el in root.iter() if el.tag in ("Choices", "TextArea")}
    texts = {el.get("name"): el.get("value") for el in root.iter("Text")}
    written = {r["from_name"]: r["to_name"] for t in export_tasks(_labelled(tmp_path), NAME, VERSION)
               for a in t["annotations"] for r in a["result"]}

    assert set(written) == set(controls) == set(TO_NAME)
    assert all(controls[name].get("toName") == to for name, to in written.items())
    assert {"$question", "$options_text", "$answer", "$text", "$config"} <= set(texts.values())
    assert all(el.get("toName") in texts for el in controls.values())
    choices = {name: [c.get("value") for c in el.iter("Choice")] for name, el in controls.items()}
    assert choices["verdict"] == list(VERDICTS)
    assert choices["reason"] == [r for verdict in VERDICTS for r in REASONS[verdict]]
    assert choices["criteria"] == list(CRITERIA) and controls["criteria"].get("choice") == "multiple"
    assert choices["gold_right"] == choices["distractors_wrong"] == choices["covered"] == ["yes", "no"]
    assert {controls[n].tag for n in ("answer", "urls", "note")} == {"TextArea"}
