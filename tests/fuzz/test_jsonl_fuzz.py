"""The JSON-lines readers on generated files: any bytes give the records of the good lines or a
JSONLinesError (or the reader's own error) naming the right line, never a traceback; good
lines read back as written.

The expected outcome of each line comes from a plain oracle: decode, ``json.loads``, then
measure the parsed value (type, lone surrogates, depth), where the reader checks depth and
surrogates before and while parsing.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from builders.contamination import ContaminationError, read_question_file
from flows.cli.questions import cmd_align
from flows.questions import QuestionFileError, read_questions
from schemas.jsonl import MAX_DEPTH, JSONLinesError, read_jsonl
from tests.fuzz.strategies import FUZZ, cjk_text, cjk_word
from warehouse.scoring import PredictionsError, read_predictions

pytestmark = pytest.mark.slow

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8) | cjk_text
# Two levels here; the deep ones come from _nested below.
json_values = scalars | st.lists(scalars, max_size=3) | st.dictionaries(st.text(max_size=5), scalars, max_size=3)
objects = st.dictionaries(st.sampled_from(["id", "question", "answer", "prediction", "ranking", "entity", "text",
                                           "triples", "relation"]) | st.text(max_size=6), json_values, max_size=5)
pair_records = st.fixed_dictionaries(
    {"id": st.sampled_from(["a", "b", "c", 1, 2]), "entity": cjk_word, "text": cjk_text,
     "triples": st.lists(st.lists(st.one_of(cjk_word, st.integers(0, 2000)), min_size=3, max_size=3), max_size=4)})


def _encoded(value, ascii_only: bool) -> bytes:
    return json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


def _nested(depth: int, brackets: str) -> bytes:
    opening, closing = ("[" * depth, "]" * depth) if brackets == "[" else ('{"a":' * depth, "}" * depth)
    return (opening + "1" + closing).encode() if brackets == "{" else (opening + closing).encode()


def _with_byte(line: bytes, at: int, junk: bytes) -> bytes:
    at = min(at, len(line))
    return line[:at] + junk + line[at:]


lines = st.one_of(
    st.builds(_encoded, st.one_of(objects, pair_records), st.booleans()),
    st.builds(_encoded, json_values, st.booleans()),  # not an object, mostly
    st.builds(_nested, st.one_of(st.integers(MAX_DEPTH - 2, MAX_DEPTH + 2), st.integers(0, 1500)),
              st.sampled_from("[{")).map(lambda b: b'{"id": ' + b + b"}" if b.startswith(b"[") else b),
    st.builds(_with_byte, st.builds(_encoded, objects, st.booleans()), st.integers(0, 40),
              st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\xe4\xb8", b"\x80", b"\xf4\x90\x80\x80"])),
    st.builds('{{"id": "x", "text": "a{}b"}}'.format, st.one_of(
        st.integers(0xD800, 0xDFFF).map("\\u{:04x}".format),
        st.integers(0xD800, 0xDFFF).map("\\u{:04X}".format),
        st.just("\\ud83d\\ude00"), st.just("\\\\ud800"))).map(str.encode),
    st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")),
    st.sampled_from([b"", b"   ", b"\t", b"\r", "\u3000".encode(), b"1" * 5000, b"{\"id\": " + b"9" * 4400 + b"}",
                     b"NaN", b'{"id": NaN}', b"\xef\xbb\xbf{}", b"[]", b"null", b'"\xe4\xb8\xad"']),
)
files = st.tuples(st.lists(lines, max_size=6), st.sampled_from([b"\n", b"\r\n"]), st.booleans(), st.booleans())


def _assemble(parts) -> bytes:
    body, end, final_newline, bom = parts
    data = end.join(body) + (end if final_newline and body else b"")
    return (b"\xef\xbb\xbf" if bom else b"") + data


def _depth(value) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


def oracle(data: bytes) -> tuple[list[tuple[int, object]], list[int]]:
    """(line, value) of the good lines and the numbers of the bad ones."""
    good, bad = [], []
    for number, raw in enumerate(data.split(b"\n"), 1):
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            bad.append(number)
            continue
        if not text.strip():
            continue
        try:
            value = json.loads(text)
            json.dumps(value, ensure_ascii=False).encode("utf-8")  # a lone surrogate does not encode
            too_deep = _depth(value) > MAX_DEPTH
        except (ValueError, RecursionError):
            bad.append(number)
            continue
        if too_deep or not isinstance(value, dict):
            bad.append(number)
        else:
            good.append((number, value))
    return good, bad


def _same(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@FUZZ
@given(files)
@example(([b"[" * 100_000], b"\n", True, False))  # the parser recursed once per level: RecursionError
@example(([b'{"id": "1", "text": "\\ud800"}'], b"\n", True, False))  # a lone surrogate, escaped
@example(([b"{}", b'{"id": "\xff"}'], b"\n", True, False))  # invalid UTF-8 on line 2
@example(([b"{}", b"1" * 5000], b"\n", True, False))  # over Python's 4300-digit limit: not a JSONDecodeError
def test_read_jsonl_reads_the_good_lines_and_names_each_bad_one(parts):
    data = _assemble(parts)
    good, bad = oracle(data)
    errors: list[JSONLinesError] = []
    read = list(read_jsonl(io.BytesIO(data), name="in.jsonl", on_error=errors.append))
    assert [e.line for e in errors] == bad
    assert [n for n, _ in read] == [n for n, _ in good] and all(_same(a, b) for (_, a), (_, b) in zip(read, good))
    for error in errors:
        assert str(error).startswith(f"in.jsonl:{error.line}: {error.reason}") and "\n" not in str(error)

    seen = []
    try:
        for number, _ in read_jsonl(io.BytesIO(data), name="in.jsonl"):
            seen.append(number)
    except JSONLinesError as error:
        assert bad and error.line == bad[0]
    else:
        assert not bad
    assert seen == [n for n, _ in good if not bad or n < bad[0]]


@pytest.fixture(scope="module")
def workdir():
    directory = Path(tempfile.mkdtemp(prefix="zhbench-fuzz-"))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


_LINE = re.compile(r":(\d+): ")


@FUZZ
@given(files)
def test_the_readers_of_question_and_prediction_files_name_the_first_bad_line(workdir, parts):
    data = _assemble(parts)
    _, bad = oracle(data)
    path = workdir / "lines.jsonl"
    path.write_bytes(data)
    for read, error in ((read_predictions, PredictionsError), (read_questions, QuestionFileError),
                        (lambda p: list(read_question_file(p, answers=True)), ContaminationError)):
        try:
            read(path)
        except error as exc:
            message = str(exc)
            assert message.startswith(f"{path}:") and "\n" not in message
            line = int(_LINE.search(message[len(str(path)):]).group(1))
            assert not bad or line <= bad[0]  # a line the reader's own rules refuse may come earlier
        else:
            assert not bad


@FUZZ
@given(files)
@example(([b'{"id": "a", "entity": "\xe6\xb3\xb0\xe5\xb1\xb1", "text": "\xe6\xb3\xb0\xe5\xb1\xb1", "triples": []}',
           b'{"id": "a", "entity": "x", "text": "y", "triples": []}'], b"\n", True, False))  # one id twice
def test_align_command_skips_bad_lines_by_number_and_judges_the_rest(parts):
    data = _assemble(parts)
    good, bad = oracle(data)
    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cmd_align(argparse.Namespace(threshold=0.75, relations=None, no_cut=False))  # main() less its parser
    finally:
        sys.stdin = stdin
    skipped = [int(m) for m in re.findall(r"^zhbench align: line (\d+): skipped, ", err.getvalue(), re.M)]
    assert len(skipped) == len(err.getvalue().splitlines())  # nothing but skipped lines on stderr
    assert set(bad) <= set(skipped) and skipped == sorted(skipped)
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(results) + len(skipped) == len(good) + len(bad)
    ids = [r["id"] for r in results]
    assert len(set(ids)) == len(ids)
    assert all(r["decision"] in ("keep", "drop") and (r["decision"] == "keep") == (r["reason"] == "")
               for r in results)
    assert code == (1 if skipped else 0)
