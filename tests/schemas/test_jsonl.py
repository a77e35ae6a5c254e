"""JSON lines: every bad line is a JSONLinesError naming the file, the line and why; the readers of
question, prediction and registered files report it in their own error class."""

from __future__ import annotations

import io
import json

import pytest

from builders.contamination import ContaminationError, read_question_file
from flows.questions import QuestionFileError, read_questions
from schemas.jsonl import MAX_DEPTH, JSONLinesError, read_jsonl
from warehouse.scoring import PredictionsError, read_predictions

GOOD = b'{"id": "a", "question": "\xe6\xb3\xb0\xe5\xb1\xb1\xe6\x9c\x89\xe5\xa4\x9a\xe9\xab\x98\xef\xbc\x9f", ' \
       b'"answer": "1545\xe7\xb1\xb3", "prediction": "x"}'


@pytest.mark.parametrize("line, reason", [
    (b"[" * 100_000, f"nested deeper than {MAX_DEPTH} levels"),  # json.loads recursed into a RecursionError
    (b'{"a": ' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1), f"nested deeper than {MAX_DEPTH} levels"),
    (b'{"id": "\xff\xfe"}', "not UTF-8 (byte 0xff at byte 9 of the line); save the file as UTF-8"),
    (b'{"id": "\xed\xa0\x80"}', "not UTF-8 (byte 0xed at byte 9 of the line); save the file as UTF-8"),
    (b'{"id": "\\ud800"}', "a lone surrogate \\ud800 in a string, which no UTF-8 text can hold; write the "
                           "character itself, or both halves of its surrogate pair"),
    (b'{"\\uDFFF": 1}', "a lone surrogate \\udfff in a string"),
    (b"{not json", "not JSON (Expecting property name enclosed in double quotes)"),
    (b"1" * 5000, "not JSON (Exceeds the limit (4300 digits) for integer string conversion"),
    (b"[1, 2]", "a list, not a JSON object"),
    (b'"text"', "a string, not a JSON object"),
    (b"null", "null, not a JSON object"),
])
def test_a_bad_line_is_named_by_file_and_number_after_the_good_ones(line, reason):
    data = GOOD + b"\n\n" + line + b"\n" + GOOD + b"\n"
    read = []
    with pytest.raises(JSONLinesError) as error:
        for number, record in read_jsonl(io.BytesIO(data), name="in.jsonl", hint="one object per line"):
            read.append(number)
    assert read == [1]
    assert (error.value.path, error.value.line) == ("in.jsonl", 3) and error.value.reason.startswith(reason)
    assert str(error.value).startswith(f"in.jsonl:3: {reason}") and str(error.value).endswith("; one object per line")


def test_with_on_error_every_bad_line_is_reported_and_the_rest_read():
    data = b"\n".join([GOOD, b"[" * 5000, b"\xff", GOOD, b'{"x": "\\udc00"}', b"[]", b'{"id": "b"}'])
    errors = []
    read = list(read_jsonl(io.BytesIO(data), on_error=errors.append))
    assert [e.line for e in errors] == [2, 3, 5, 6]
    assert [n for n, _ in read] == [1, 4, 7] and read[2][1] == {"id": "b"}


def test_good_lines_read_back_as_written_with_a_bom_crlf_blank_lines_and_surrogate_pairs(tmp_path):
    records = [{"id": "a", "text": "泰山😀", "n": [1, 2.5, None, True]}, {"emoji": "\ud83d\ude00"}, {}]
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(json.dumps(r, ensure_ascii=a).encode() for r, a in
                                                   zip(records, (False, True, True))) + b"\r\n  \r\n")
    assert list(read_jsonl(path)) == [(1, records[0]), (2, {"emoji": "😀"}), (3, {})]
    assert list(read_jsonl(io.StringIO('\ufeff{"a": 1}\n'))) == [(1, {"a": 1})]  # a text stream too


def test_nesting_up_to_the_limit_is_read():
    line = '{"a": ' * MAX_DEPTH + "1" + "}" * MAX_DEPTH
    assert list(read_jsonl(io.StringIO(line)))[0][0] == 1
    assert list(read_jsonl(io.StringIO('{"a": "' + "[" * 500 + '"}')))[0][1] == {"a": "[" * 500}  # in a string


@pytest.mark.parametrize("read, error", [
    (read_predictions, PredictionsError),
    (read_questions, QuestionFileError),
    (lambda path: list(read_question_file(path)), ContaminationError),
])
@pytest.mark.parametrize("line, reason", [
    (b"[" * 100_000, "nested deeper than 100 levels"),
    (b'{"id": "\xff"}', "not UTF-8"),
    (b'{"id": "b", "question": "\\ud800?", "prediction": "x"}', "a lone surrogate \\ud800"),
    (b"[1]", "a list, not a JSON object"),
])
def test_each_reader_names_the_file_and_line_of_a_bad_line(tmp_path, read, error, line, reason):
    path = tmp_path / "file.jsonl"
    path.write_bytes(GOOD + b"\n" + line + b"\n")
    with pytest.raises(error) as raised:
        read(path)
    assert str(raised.value).startswith(f"{path}:2: {reason}") and "\n" not in str(raised.value)


def test_a_registered_csv_file_that_is_not_utf8_or_not_csv_is_named(tmp_path):
    path = tmp_path / "old.csv"
    path.write_bytes("question,answer\n泰山有多高？,1545米\n".encode("gbk"))
    with pytest.raises(ContaminationError, match=r"old.csv: not UTF-8 \(byte 0xd3\); save the file as UTF-8"):
        list(read_question_file(path))
    path.write_bytes(b"question,answer\nq,a\n" + b"q" * 200_000 + b",a\n")
    with pytest.raises(ContaminationError, match=r"old.csv: not CSV after line 2 \(field larger than field limit"):
        list(read_question_file(path))
