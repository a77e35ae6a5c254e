"""``zhbench questions check``: any question file against the short-answer criteria and a question database.

Input is JSON lines, one question per line: ``{"question", "answer", "id"?, "relation"?}``. The answer
may be empty when only contamination is asked: then the criteria that need an answer (length, the
answer in the question, an answer listing several) are not applied, and the question's own wording
is still checked (relative time, several things asked, subjective, no named referent). Every input
line gets one output line ``{"id", "accepted", "reasons", "contaminated_by"?}``; ``accepted`` is
true when no criterion failed and no registered question matched.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from builders.contamination import NewQuestion, QuestionDatabase, read_question_file
from builders.criteria import check_question, check_wording
from schemas.jsonl import JSONLinesError, read_jsonl


class QuestionFileError(ValueError):
    """A question file cannot be read; the message names the file, the line and the fix."""


@dataclass
class Question:
    id: str
    question: str
    answer: str = ""
    relation: str = ""


@dataclass
class Summary:
    checked: int = 0
    accepted: int = 0
    reasons: Counter = field(default_factory=Counter)
    contaminated: int = 0
    registered: int = 0

    def line(self) -> str:
        share = f" ({self.accepted / self.checked:.1%})" if self.checked else ""
        text = f"checked {self.checked} questions: {self.accepted} accepted{share}"
        if self.reasons:
            text += "; rejected by " + ", ".join(f"{k} {v}" for k, v in self.reasons.most_common())
        if self.registered:
            text += f"; {self.contaminated} match one of {self.registered} registered questions"
        return text


def read_questions(path: Path) -> list[Question]:
    """Every question of a JSON-lines file, or a QuestionFileError naming the first bad line."""
    path = Path(path)
    if not path.is_file():
        raise QuestionFileError(f"question file {path} does not exist")
    found: list[Question] = []
    seen: set[str] = set()
    hint = 'write one JSON object per line, e.g. {"question": "...", "answer": "..."}'
    try:
        for number, record in read_jsonl(path, hint=hint):
            if not isinstance(record.get("question"), str) or not record["question"].strip():
                raise QuestionFileError(f'{path}:{number}: no "question" string; each line needs '
                                        '{"question": "...", "answer": "..."} (the answer may be "")')
            answer = record.get("answer", "")
            if answer is None:
                answer = ""
            if not isinstance(answer, (str, int, float)):
                raise QuestionFileError(f'{path}:{number}: "answer" must be a string, got {type(answer).__name__}')
            question_id = str(record["id"]) if record.get("id") not in (None, "") else str(number)
            if question_id in seen:
                raise QuestionFileError(f"{path}:{number}: id {question_id!r} is used twice; give each line its "
                                        "own id (or leave ids out: line numbers are used)")
            seen.add(question_id)
            found.append(Question(question_id, record["question"], str(answer), str(record.get("relation") or "")))
    except JSONLinesError as exc:
        raise QuestionFileError(str(exc)) from None
    return found


def criteria_reasons(question: Question, max_answer_chars: int) -> list[str]:
    """The failed criteria of one question; without an answer, only those its wording decides."""
    if question.answer.strip():
        return check_question(question.question, question.answer, question.relation, max_answer_chars)
    return check_wording(question.question, question.relation)


def check_questions(questions: list[Question], against: list[Path], max_answer_chars: int = 20,
                    summary: Summary | None = None) -> Iterator[dict]:
    """One result per question, in input order (see the module docstring)."""
    summary = summary if summary is not None else Summary()
    matches: dict[str, list] = {}
    if against:
        database = QuestionDatabase(None)
        for path in against:
            summary.registered += database.add(read_question_file(path, answers=True))
        matches = database.matches([NewQuestion(q.id, q.question, q.answer, "", q.relation) for q in questions])
    for question in questions:
        reasons = criteria_reasons(question, max_answer_chars)
        result: dict = {"id": question.id, "accepted": not reasons, "reasons": reasons}
        if against:
            found = matches.get(question.id, [])
            result["contaminated_by"] = [{"question": m.matched_question, "similarity": m.similarity,
                                          "kind": m.kind, "id": m.matched_id} for m in found]
            if found:
                result["accepted"] = False
                summary.contaminated += 1
        summary.checked += 1
        summary.accepted += result["accepted"]
        summary.reasons.update(reasons)
        yield result
