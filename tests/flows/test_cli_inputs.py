"""Bad input to the commands is one clear line naming where it is, never a traceback: JSON lines that
are nested too deep, not UTF-8 or hold a lone surrogate, repeated ids, numeric options out of range."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from flows.cli import main
from tests.warehouse.conftest import release  # noqa: F401 (the published release fixture)

ROOT = Path(__file__).resolve().parents[2]
PAIR = {"id": "a", "entity": "泰山", "text": "泰山主峰玉皇顶海拔1545米。", "triples": [["泰山", "海拔", "1545米"]]}
EXPECTED = 'expected {"id", "entity", "text", "triples": [[head, relation, tail], ...]}'


def pair_line(**changes) -> bytes:
    return json.dumps({**PAIR, **changes}, ensure_ascii=False).encode("utf-8")


def test_align_skips_each_unreadable_line_by_number_and_judges_every_other_pair():
    lines = [
        pair_line(),
        b"[" * 100_000,  # a RecursionError traceback before
        b'{"id": "b", "entity": "x", "text": "\xff", "triples": []}',
        b'{"id": "c", "entity": "\\ud800", "text": "x", "triples": []}',
        pair_line(id="a", entity="黄山", text="黄山海拔1864米。", triples=[["黄山", "海拔", "1864米"]]),
        pair_line(id="d", entity="黄山", text="黄山海拔1864米。", triples=[["黄山", "海拔", "1864米"]]),
    ]
    result = subprocess.run([sys.executable, "-m", "flows.cli", "align"], input=b"\n".join(lines) + b"\n",
                            capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    stderr = result.stderr.decode("utf-8")
    assert result.returncode == 1 and "Traceback" not in stderr
    assert stderr.splitlines() == [
        f"zhbench align: line 2: skipped, nested deeper than 100 levels; {EXPECTED}",
        f"zhbench align: line 3: skipped, not UTF-8 (byte 0xff at byte {lines[2].index(0xFF) + 1} of the line); "
        f"save the file as UTF-8; {EXPECTED}",
        "zhbench align: line 4: skipped, a lone surrogate \\ud800 in a string, which no UTF-8 text can hold; write "
        f"the character itself, or both halves of its surrogate pair; {EXPECTED}",
        "zhbench align: line 5: skipped, id 'a' is already used on line 1; give each pair its own id",
    ]
    judged = [json.loads(line) for line in result.stdout.decode("utf-8").splitlines()]
    assert [(r["id"], r["decision"]) for r in judged] == [("a", "keep"), ("d", "keep")]


def test_align_help_says_what_happens_to_a_repeated_id(capsys):
    with pytest.raises(SystemExit):
        main(["align", "--help"])
    assert "repeats an earlier line's id" in " ".join(capsys.readouterr().out.split())


def test_align_relations_file_that_is_not_utf8_is_one_line(tmp_path, capsys):
    relations = tmp_path / "relations.txt"
    relations.write_bytes("海拔\n".encode("gbk"))
    assert main(["align", "--relations", str(relations)]) == 2
    assert capsys.readouterr().err == f"zhbench: error: relations file {relations} is not UTF-8; save it as UTF-8\n"


def test_score_names_the_line_of_a_deeply_nested_prediction(tmp_path, capsys):
    from tests.warehouse.conftest import publish_release

    release = publish_release(tmp_path, tmp_path / "data", gate=False)
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_bytes(b'{"id": "a", "prediction": "x"}\n' + b"[" * 100_000 + b"\n")
    assert main(["score", str(release), "--predictions", str(predictions)]) == 1
    assert capsys.readouterr().err == (f"zhbench: error: {predictions}:2: nested deeper than 100 levels; each line "
                                       'must be an object like {"id": "...", "prediction": "..."}\n')


def test_questions_check_names_the_line_of_a_lone_surrogate(tmp_path, capsys):
    mine = tmp_path / "mine.jsonl"
    mine.write_bytes(b'{"question": "\xe6\xb3\xb0\xe5\xb1\xb1\xe6\x9c\x89\xe5\xa4\x9a\xe9\xab\x98\xef\xbc\x9f"}\n'
                     b'{"question": "\\udc80?"}\n')
    assert main(["questions", "check", str(mine)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(f"zhbench: error: {mine}:2: a lone surrogate \\udc80")


@pytest.mark.parametrize("args, message", [
    (["serve", "--port", "70000"], "argument --port: must be between 0 and 65535, got 70000"),
    (["serve", "--port", "-1"], "argument --port: must be between 0 and 65535, got -1"),
    (["serve", "--port", "http"], "argument --port: 'http' is not a whole number"),
    (["serve", "--synthetic", "-5"], "argument --synthetic: must be between 0 and 10000000, got -5"),
    (["serve", "--rate-limit", "nan"], "argument --rate-limit: must be 0 or a positive number, got nan"),
    (["serve", "--rate-limit", "-2"], "argument --rate-limit: must be 0 or a positive number, got -2"),
    (["serve", "--profile", "realistic", "--size", "0"], "argument --size: must be between 1 and 10000000, got 0"),
    (["synth", "--count", "-1", "--out", "x.jsonl"], "argument --count: must be between 1 and 10000000, got -1"),
    (["synth", "--count", "5", "--out", "x.jsonl", "--ungrounded-rate", "1.5"],
     "argument --ungrounded-rate: must be between 0 and 1, got 1.5"),
    (["synth", "--count", "5", "--out", "x.jsonl", "--near-duplicate-rate", "nan"],
     "argument --near-duplicate-rate: must be between 0 and 1, got nan"),
])
def test_mirror_numeric_options_out_of_range_are_one_line(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    assert main(["mirror", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"zhbench: error: {message}") and err.count("\n") == 1
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize("line, message", [
    (b"[" * 100_000, "a.jsonl:1: nested deeper than 100 levels; one entry object per line"),
    (b'{"title": "\xff"}', "a.jsonl:1: not UTF-8 (byte 0xff at byte 12 of the line)"),
    (b'{"title": 1, "sense": "", "domain": "history_politics", "type": "x", "summary": "", "infobox": [], '
     b'"sections": []}',
     "a.jsonl:1: title, sense and summary must be strings"),
])
def test_mirror_facts_file_with_a_bad_line_is_one_line(tmp_path, capsys, line, message):
    (tmp_path / "a.jsonl").write_bytes(line + b"\n")
    assert main(["mirror", "synth", "--count", "1", "--out", str(tmp_path / "x.jsonl"), "--facts", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"zhbench: error: {message}") and err.count("\n") == 1


def test_a_label_studio_export_nested_100000_deep_is_one_line(release, tmp_path, capsys):  # noqa: F811
    deep = tmp_path / "deep.json"
    deep.write_bytes(b"[" * 100_000)  # a RecursionError traceback before
    assert main(["review", "import", str(release), str(deep), "--data-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"zhbench: error: {deep} is not a Label Studio JSON export: nested too deep to be one; ")
    assert err.count("\n") == 1


@pytest.mark.parametrize("minutes", ["nan", "inf", "-1", "1e9"])
def test_lease_minutes_that_would_fail_or_never_end_every_lease_are_refused(tmp_path, monkeypatch, capsys, minutes):
    from review.store import ReviewStore

    ReviewStore.at(tmp_path).add_user("boss", "admin", "a-long-password-1")
    # from the settings (the flag has its own type: tests/fuzz/test_cli_fuzz.py)
    monkeypatch.setenv("ZHBENCH_REVIEW__LEASE_MINUTES", minutes)
    assert main(["review", "serve", "--data-dir", str(tmp_path), "--port", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("zhbench: error: setting review.lease_minutes: ") and err.count("\n") == 1
    if minutes in ("nan", "inf"):
        with pytest.raises(ValueError, match="lease_minutes must be a positive finite number"):
            ReviewStore(tmp_path / "review.sqlite", lease_minutes=float(minutes))
