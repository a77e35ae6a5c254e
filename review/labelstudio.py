"""Label Studio JSON in and out of the review queue, for teams that label there.

:func:`export_tasks` writes a release's queued items as Label Studio tasks (its "JSON" task
format, https://labelstud.io/guide/task_format) with the labels already given as annotations;
``review/labelstudio.xml`` is the labeling config whose control names they use.
:func:`import_tasks` records a "JSON" export's annotations through the store's own rules
(``Annotation.check``, two blind annotators), so a label made in Label Studio counts exactly as one
made in the web app. One bad task or annotation is a skip reason in the returned counts, never an
exception; importing the same file again stores nothing twice.

A file is not trusted with identities or authority: every annotation must be by an existing account
(the file's names mapped with ``users`` where they differ), or nothing is imported; and an import
never adjudicates: an adjudication in a file is refused (settle disputes on zhbench's adjudication
page), and a third plain label is refused by the store like any other.

Who labelled: our export names the person in ``zhbench_person`` and their role in ``zhbench_role``,
which a file read back as it was keeps. Label Studio's own import keeps neither (it stores only
``completed_by``, ``result``, ``lead_time``, ``was_cancelled`` and ``ground_truth``), so its export
names the person by ``completed_by`` alone: an object with an e-mail, or a bare user id, which
``users`` maps to an account's name.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from review.store import CRITERIA, QUESTION_CONFIGS, Annotation, ReviewError, ReviewStore
from schemas.records import LETTERS  # a reviewer and a scored model name an option by the same letter

CONFIG_XML = Path(__file__).with_name("labelstudio.xml")
GOLD_MARK = "  ✓"
# Which Text block each control labels (toName in labelstudio.xml).
TO_NAME = {"verdict": "question", "reason": "question", "criteria": "question", "answer": "question",
           "urls": "question", "gold_right": "options", "distractors_wrong": "options", "covered": "text",
           "note": "question"}
YES_NO = {True: "yes", False: "no"}


def export_tasks(store: ReviewStore, name: str, version: str, emails: dict[str, str] | None = None) -> list[dict]:
    """One Label Studio task per queued item of a release, by item id, with its labels as annotations.

    Args:
        emails: reviewer names to the e-mails of their Label Studio accounts. Label Studio files an
            imported annotation under the member with ``completed_by``'s e-mail and refuses one it does
            not know (unless it runs with ALLOW_IMPORT_TASKS_WITH_UNKNOWN_EMAILS); without a mapping the
            e-mail is the reviewer's name.
    """
    emails = emails or {}
    tasks = []
    for n, item_id in enumerate(store.item_ids(name, version), start=1):
        queued = store.item(name, version, item_id)
        item = queued["payload"].get("item") or {}
        pairs = queued["payload"].get("pairs") or []
        data = {"item_id": item_id, "config": queued["config"], "release": f"{name} {version}",
                "question": item.get("question") or "", "answer": item.get("answer") or "",
                "options_text": options_text(item.get("options") or [], item.get("answer_index")),
                "text": (pairs[0].get("text") or "") if pairs else "", "urls": list(item.get("urls") or [])}
        tasks.append({"id": n, "data": data,
                      "annotations": [_annotation(label, emails) for label in store.labels(name, version, item_id)]})
    return tasks


def write_export(store: ReviewStore, name: str, version: str, out: Path) -> tuple[int, Path]:
    """Write the release's tasks to ``out`` and the labeling config beside it (``out`` with ``.xml``).

    Returns the number of tasks and the config's path.
    """
    tasks = export_tasks(store, name, version)
    out = Path(out)
    out.write_text(json.dumps(tasks, ensure_ascii=False, indent=1), encoding="utf-8")
    xml = out.with_suffix(".xml")
    xml.write_text(CONFIG_XML.read_text(encoding="utf-8"), encoding="utf-8")
    return len(tasks), xml


def options_text(options: list[str], gold: int | None) -> str:
    """The options one per line, lettered A-J, the gold marked with a tick."""
    return "\n".join(f"{LETTERS[i]}. {o}{GOLD_MARK if i == gold else ''}" for i, o in enumerate(options))


def result(label: dict) -> list[dict]:
    """A stored label as Label Studio result entries; an empty field has no entry, as in Label Studio."""
    out: list[tuple[str, str, Any]] = [("verdict", "choices", [label["verdict"]])]
    if label.get("reason"):
        out.append(("reason", "choices", [label["reason"]]))
    held = [c for c in CRITERIA if (label.get("criteria") or {}).get(c)]
    if held:
        out.append(("criteria", "choices", held))
    if label.get("answer"):
        out.append(("answer", "textarea", [label["answer"]]))
    if label.get("urls"):
        out.append(("urls", "textarea", list(label["urls"])))
    for key in ("gold_right", "distractors_wrong"):
        if key in (label.get("options") or {}):
            out.append((key, "choices", [YES_NO[bool(label["options"][key])]]))
    if label.get("covered") is not None:
        out.append(("covered", "choices", [YES_NO[bool(label["covered"])]]))
    if label.get("note"):
        out.append(("note", "textarea", [label["note"]]))
    return [{"from_name": control, "to_name": TO_NAME[control], "type": kind,
             "value": {"choices" if kind == "choices" else "text": value}} for control, kind, value in out]


def _annotation(label: dict, emails: dict[str, str]) -> dict:
    # ground_truth is said outright: Label Studio's import makes an annotation without it ground truth.
    return {"completed_by": {"email": emails.get(label["person"], label["person"])},
            "zhbench_person": label["person"], "zhbench_role": label["role"], "result": result(label),
            "lead_time": label["seconds"],
            "created_at": datetime.fromtimestamp(label["labelled_at"], timezone.utc).isoformat(timespec="seconds"),
            "was_cancelled": False, "ground_truth": False}


def read_tasks(path: Path | str) -> list[dict]:
    """The tasks of a Label Studio "JSON" export; raises ReviewError saying what is wrong and how to fix it."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ReviewError(f"{path} does not exist; {HOW} and give the downloaded file's path") from None
    return parse_tasks(data, str(path))


HOW = "export the project with 'JSON' (not 'JSON_MIN' or CSV) from Label Studio's Export dialog"


def parse_tasks(data: bytes, path: str) -> list[dict]:
    """The tasks of an export's bytes (``path`` names it in errors: a file or an upload)."""
    how = HOW
    try:
        tasks = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ReviewError(f"{path} is not a Label Studio JSON export: byte {e.start} is not UTF-8; {how}") from None
    except json.JSONDecodeError as e:
        raise ReviewError(f"{path} is not a Label Studio JSON export: not JSON at line {e.lineno}, column {e.colno} "
                          f"({e.msg}); {how}") from None
    except RecursionError:  # the parser recurses once per level: [[[[... ten thousand deep
        raise ReviewError(f"{path} is not a Label Studio JSON export: nested too deep to be one; {how}") from None
    except ValueError:  # an integer of more digits than Python converts
        raise ReviewError(f"{path} is not a Label Studio JSON export: it holds a number of more than "
                          f"{sys.get_int_max_str_digits():,} digits; {how}") from None
    if not isinstance(tasks, list):
        raise ReviewError(f"{path} is not a Label Studio JSON export: expected a list of tasks, got "
                          f"{_json_kind(tasks)}; {how}")
    for n, task in enumerate(tasks, start=1):
        if not isinstance(task, dict):
            raise ReviewError(f"{path} is not a Label Studio JSON export: task {n} is {_json_kind(task)}, not an "
                              f"object with 'data' and 'annotations'; {how}")
    if tasks and not any("data" in t for t in tasks):
        raise ReviewError(f"{path} is not a Label Studio JSON export: its tasks have no 'data' (a JSON_MIN export "
                          f"flattens it away, and the annotators with it); {how}")
    return tasks


def _json_kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")


class _Skip(Exception):
    """One task or annotation left out; reason is the count's key, message the problem's text."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def user_names(pairs: list[str]) -> dict[str, str]:
    """Label Studio names to reviewer names, from ``LSNAME=NAME`` pairs (a Label Studio user id, an e-mail or
    the name a file gives); ValueError on a malformed pair."""
    users = {}
    for pair in pairs:
        key, sep, person = pair.partition("=")
        if not sep or not key.strip() or not person.strip():
            raise ValueError(f"--user {pair!r}: write a Label Studio user id or e-mail and a zhbench account name, "
                             "e.g. --user 12=alice")
        users[key.strip()] = person.strip()
    return users


class UnknownReviewers(ReviewError):
    """Annotations by people who have no zhbench account: nothing is imported until each is mapped to one."""


def import_tasks(store: ReviewStore, name: str, version: str, tasks: list[dict],
                 users: dict[str, str] | None = None) -> dict:
    """Record the annotations of Label Studio tasks in the queue of a release, each as a plain annotation
    by an existing account: an import never adjudicates.

    Returns {"imported", "already_there", "skipped": {reason: count}, "problems": [{"task", "item_id",
    "person", "reason", "message"}]}, counting annotations. Skip reasons: not_a_task, no_item_id,
    other_release, not_queued, malformed_annotation, cancelled, unknown_annotator (the annotation names
    nobody), adjudication (settle disputes in zhbench), and refused (the store's rules said no; the
    message says which). Raises UnknownReviewers, having stored nothing, when an annotation to record
    names someone with no account here, mapped or not.

    Args:
        users: names as the file gives them (Label Studio user ids as strings, e-mails, or the names of
            zhbench's own export) to account names.
    """
    users = users or {}
    counts: dict[str, Any] = {"imported": 0, "already_there": 0, "skipped": Counter(), "problems": []}

    def skip(task_id, item_id, person, e: _Skip) -> None:
        counts["skipped"][e.reason] += 1
        counts["problems"].append({"task": task_id, "item_id": item_id, "person": person, "reason": e.reason,
                                   "message": str(e)})

    plan = []  # (task id, item id, its config or why the task is skipped, its annotations)
    for n, task in enumerate(tasks, start=1):
        if not isinstance(task, dict):
            skip(n, None, None, _Skip("not_a_task", f"task {n} is {_json_kind(task)}, not an object"))
            continue
        task_id, data = task.get("id", n), task.get("data") if isinstance(task.get("data"), dict) else {}
        item_id = str(data.get("item_id") or "") or None
        annotations = task.get("annotations") if isinstance(task.get("annotations"), list) else []
        try:
            config: str | _Skip = _queued_config(store, name, version, item_id, data.get("release"))
        except _Skip as e:
            config = e
        plan.append((task_id, item_id, config, annotations))
    _check_reviewers(store, [a for _, _, config, anns in plan if not isinstance(config, _Skip) for a in anns
                             if isinstance(a, dict) and not a.get("was_cancelled")], users)
    for task_id, item_id, config, annotations in plan:
        for ann in annotations:
            person = _person(ann, users)[1] if isinstance(ann, dict) else None
            try:
                if isinstance(config, _Skip):
                    raise config
                stored = _record(store, name, version, item_id, config, person, ann)
            except _Skip as e:
                skip(task_id, item_id, person, e)
                continue
            counts["imported" if stored else "already_there"] += 1
    counts["skipped"] = dict(sorted(counts["skipped"].items()))
    return counts


def _check_reviewers(store: ReviewStore, annotations: list[dict], users: dict[str, str]) -> None:
    """Raise UnknownReviewers naming everyone the annotations name who has no account, as the file names them."""
    accounts = {u.name for u in store.users()}
    unknown = sorted({given if given == person else f"{given}={person}"
                      for given, person in (_person(a, users) for a in annotations)
                      if person is not None and person not in accounts})
    if unknown:
        shown = ", ".join(unknown[:10]) + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
        raise UnknownReviewers(f"annotations by people with no zhbench account: {shown}; map each to an account "
                               "with --user LSNAME=NAME (e.g. --user 7=li), or add it with zhbench review add-user; "
                               "nothing was imported")


def _queued_config(store: ReviewStore, name: str, version: str, item_id: str | None, release: str | None) -> str:
    """The config of the task's queued item; raises _Skip when the task is not one of this queue's."""
    if not item_id:
        raise _Skip("no_item_id", "the task's data has no item_id: zhbench did not export it")
    if release and release != f"{name} {version}":
        raise _Skip("other_release", f"the task is from {release}, not {name} {version}")
    try:
        return store.item(name, version, item_id)["config"]
    except ReviewError as e:
        raise _Skip("not_queued", str(e)) from None


def _record(store: ReviewStore, name: str, version: str, item_id: str, config: str, person: str | None,
            ann: Any) -> bool:
    """Store one Label Studio annotation; False when it was there already. Raises _Skip."""
    if not isinstance(ann, dict):
        raise _Skip("malformed_annotation", f"an annotation is {_json_kind(ann)}, not an object")
    if ann.get("was_cancelled"):
        raise _Skip("cancelled", "the annotator skipped the task in Label Studio")
    if person is None:
        raise _Skip("unknown_annotator", f"completed_by {ann.get('completed_by')!r} names nobody: no user id or "
                                         "e-mail")
    role = "adjudicator" if ann.get("zhbench_role") == "adjudicator" else "annotator"
    request_id = f"labelstudio:{name}:{version}:{item_id}:{ann.get('id') or person}"
    try:
        annotation = to_annotation(ann.get("result"), config, role)
    except (TypeError, KeyError, IndexError, AttributeError) as e:
        raise _Skip("malformed_annotation", f"its result is not Label Studio's shape: {e!r}") from None
    except ReviewError as e:
        raise _Skip("refused", str(e)) from None
    try:
        if _already_there(store, name, version, item_id, person, role, annotation, config, request_id):
            return False
        if role == "adjudicator":  # a file is no adjudicator: whoever holds it could settle any dispute
            raise _Skip("adjudication", f"an import never adjudicates; settle item {item_id} on zhbench's "
                                        "adjudication page")
        store.annotate(name, version, item_id, person, annotation, request_id=request_id)
    except ReviewError as e:
        raise _Skip("refused", str(e)) from None
    return True


def to_annotation(result: list[dict], config: str, role: str = "annotator") -> Annotation:
    """Label Studio result entries as an Annotation (unchecked). For a SimpleQA annotator a criterion
    not ticked does not hold (Label Studio writes no entry for no choice); an adjudicator need not
    judge the criteria, so theirs are only the ones the result names."""
    if not isinstance(result, list):
        raise TypeError(f"result is {type(result).__name__}, not a list")
    values: dict[str, list[str]] = {}
    for entry in result:
        value = entry["value"]
        values[entry["from_name"]] = [str(v) for v in (value.get("choices") or value.get("text") or [])]

    def one(control: str) -> str:
        return values[control][0] if values.get(control) else ""

    def yes(control: str) -> bool:
        if one(control) not in ("yes", "no"):
            raise ReviewError(f"{control} is {one(control)!r}; choose yes or no")
        return one(control) == "yes"

    criteria = {}
    if (config in QUESTION_CONFIGS and role == "annotator") or "criteria" in values:
        criteria = {c: c in values.get("criteria", []) for c in CRITERIA}
    return Annotation(
        verdict=one("verdict"), reason=one("reason"), answer="\n".join(values.get("answer", [])),
        criteria=criteria, urls=[u for text in values.get("urls", []) for u in text.split()],
        options={k: yes(k) for k in ("gold_right", "distractors_wrong") if values.get(k)},
        covered=yes("covered") if values.get("covered") else None, note="\n".join(values.get("note", [])))


def _person(ann: dict, users: dict[str, str]) -> tuple[str | None, str | None]:
    """Who an annotation is by: the name the file gives (zhbench's own export's name, else Label Studio's
    e-mail or user id) and the account it maps to (the same name when ``users`` does not map it)."""
    if ann.get("zhbench_person"):
        given = str(ann["zhbench_person"])
        return given, users.get(given, given)
    who = ann.get("completed_by")
    if isinstance(who, dict):
        named = [str(who[k]) for k in ("email", "id") if who.get(k) is not None and not isinstance(who[k], bool)]
        mapped = [n for n in named if n in users]
        if mapped:
            return mapped[0], users[mapped[0]]
        return (named[0], named[0]) if named else (None, None)
    if who is None or isinstance(who, bool):
        return None, None
    return str(who), users.get(str(who), str(who))


def _already_there(store: ReviewStore, name: str, version: str, item_id: str, person: str, role: str,
                   annotation: Annotation, config: str, request_id: str) -> bool:
    """This import stored it before, or the person gave the same label another way (the web app, another file)."""
    annotation.check(config, role)  # normalises it as the store will, so the comparison is fair
    labels = store.labels(name, version, item_id)
    if any(label["request_id"] == request_id for label in labels):
        return True
    return any(label["person"] == person and label["role"] == role
               and all(label[k] == getattr(annotation, k) for k in
                       ("verdict", "reason", "answer", "criteria", "urls", "options", "covered", "note"))
               for label in labels)
