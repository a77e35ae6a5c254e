"""``zhbench questions check``: any question file against the short-answer criteria and a question database.

Input is JSON lines, one question per line: ``{"question", "answer", "id"?, "relation"?}``. The answer
may be empty when only contamination is asked: then the criteria that need an answer (length, the
answer in the question, an answer listing several) are not applied, and the question's own wording
is still checked (relative time, several things asked, subjective, no named referent). Every input
line gets one output line ``{"id", "accepted", "reasons", "explain"?, "contaminated_by"?}``;
``accepted`` is true when no criterion failed and no registered question matched. With ``explain``,
each failure comes with the text that triggered it: ``{"reason", "field", "span"}``.

With an LLM (``CriteriaJudge``), the registered questions a new one may repeat in other relation words
are put to it as well (match kind ``llm``), and the questions the rules accept that carry an answer are
read by the model too, against the points the rules cannot see (an ambiguous subject, a garbled question, an answer
that does not answer); its failed points come back as ``llm:<point>`` reasons, the line names the
model under ``judged_by``, and a reply that could not be used is ``llm_error``: that question was not
judged, and the line does not say it was.

A sense list (``read_senses``) tells the check which titles several entries share, so that a
question naming one of them without saying which fails ``underspecified_subject``: a TSV of
``title<TAB>sense label`` lines, or the pages of a crawl or release (Parquet with ``title`` and
``senses``: a disambiguation page's or a polysemous entry's list of senses).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from builders.contamination import NewQuestion, QuestionDatabase, read_question_file
from builders.criteria import Failure, explain_question, explain_wording
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
    judged: int = 0
    judge_errors: int = 0
    judge_model: str = ""

    def line(self) -> str:
        share = f" ({self.accepted / self.checked:.1%})" if self.checked else ""
        text = f"checked {self.checked} questions: {self.accepted} accepted{share}"
        if self.reasons:
            text += "; rejected by " + ", ".join(f"{k} {v}" for k, v in self.reasons.most_common())
        if self.registered:
            text += f"; {self.contaminated} match one of {self.registered} registered questions"
        if self.judge_model:
            text += f"; {self.judged} judged by {self.judge_model}"
            if self.judge_errors:
                text += f", {self.judge_errors} not judged (the model's reply could not be used)"
        return text


JUDGE_POINTS = ("objective", "single_answer", "time_invariant", "unambiguous", "answers_question", "well_formed")
JUDGE_PROMPT = Path(__file__).resolve().parents[1] / "verifiers" / "prompts" / "question_check.txt"


class CriteriaJudge:
    """An LLM reading each question with its answer against :data:`JUDGE_POINTS`."""

    def __init__(self, llm):
        from schemas.llm import Prompt

        self.llm = llm
        self.prompt = Prompt.load(JUDGE_PROMPT)

    @property
    def model(self) -> str:
        return self.llm.settings.model

    def judge(self, questions: list[Question]) -> dict[str, dict]:
        """id -> {"failed": [points], "reason": ...} or {"error": ...}."""
        def validate(data) -> str:
            if not isinstance(data, dict):
                return "expected a JSON object"
            missing = [k for k in JUDGE_POINTS if not isinstance(data.get(k), bool)]
            return f"expected true or false for {', '.join(missing)}" if missing else ""

        results = self.llm.map("question_check", [self.prompt.messages(question=q.question, answer=q.answer)
                                                  for q in questions], validate)
        out = {}
        for question, result in zip(questions, results, strict=True):
            if not result.ok:
                out[question.id] = {"error": result.error}
                continue
            out[question.id] = {"failed": [k for k in JUDGE_POINTS if not result.data[k]],
                                "reason": str(result.data.get("reason", ""))}
        return out


@contextlib.contextmanager
def llm_judge(model: str | None, base_url: str, api_key_env: str, data_dir: Path) -> Iterator[CriteriaJudge | None]:
    """A judge reading with ``model`` (an OpenAI-compatible endpoint), its replies cached in ``data_dir``'s
    catalog, for the block; None without a model."""
    if not model:
        yield None
        return
    from schemas.llm import LLMClient, LLMSettings

    Path(data_dir).mkdir(parents=True, exist_ok=True)
    llm = LLMClient(LLMSettings(base_url=base_url, model=model, api_key_env=api_key_env),
                    Path(data_dir) / "catalog.duckdb")
    try:
        yield CriteriaJudge(llm)
    finally:
        llm.close()


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


def read_senses(path: Path) -> dict[str, list[str]]:
    """Title -> the labels of its senses, from a TSV (``title<TAB>label`` per line, ``#`` comments) or from
    pages in Parquet (a crawl's or a release's ``pages.parquet``); a QuestionFileError names what is wrong."""
    path = Path(path)
    if not path.exists():
        raise QuestionFileError(f"sense list {path} does not exist; give a TSV of title<TAB>sense lines or a "
                                "pages.parquet")
    senses: dict[str, list[str]] = {}
    if path.suffix == ".parquet" or path.is_dir():
        import pyarrow.dataset as ds

        try:
            table = ds.dataset(path, format="parquet").to_table(columns=["title", "senses"])
        except Exception as exc:  # a file that is not Parquet, or pages without senses
            raise QuestionFileError(f"{path}: not pages with a title and senses ({exc}); give a release's or a "
                                    "crawl's pages, or a TSV of title<TAB>sense lines") from None
        for title, listed in zip(table.column("title").to_pylist(), table.column("senses").to_pylist(), strict=True):
            labels = [s["label"] for s in listed or () if s.get("label")]
            if title and len(labels) > 1:
                known = senses.setdefault(title, [])
                known.extend(label for label in labels if label not in known)  # each page of the title lists them all
        return senses
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise QuestionFileError(f"{path}: not UTF-8; save the sense list as UTF-8") from None
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 2 or not parts[0].strip():
            raise QuestionFileError(f"{path}:{number}: expected title<TAB>sense label, got {line!r}")
        senses.setdefault(parts[0].strip(), []).append(parts[1].strip())
    return senses


def criteria_failures(question: Question, max_answer_chars: int, senses: dict | None = None) -> list[Failure]:
    """The failed criteria of one question; without an answer, only those its wording decides."""
    if question.answer.strip():
        return explain_question(question.question, question.answer, question.relation, max_answer_chars, senses)
    return explain_wording(question.question, question.relation, senses)


def check_questions(questions: list[Question], against: list[Path], max_answer_chars: int = 20,
                    summary: Summary | None = None, explain: bool = False,
                    senses: dict | None = None, judge: CriteriaJudge | None = None) -> Iterator[dict]:
    """One result per question, in input order (see the module docstring)."""
    summary = summary if summary is not None else Summary()
    matches: dict[str, list] = {}
    if against:
        database = QuestionDatabase(None, judge=judge.llm if judge is not None else None)
        for path in against:
            summary.registered += database.add(read_question_file(path, answers=True))
        matches = database.matches([NewQuestion(q.id, q.question, q.answer, "", q.relation) for q in questions])
    failures = {q.id: criteria_failures(q, max_answer_chars, senses) for q in questions}
    verdicts: dict[str, dict] = {}
    if judge is not None:
        summary.judge_model = judge.model
        verdicts = judge.judge([q for q in questions if not failures[q.id] and q.answer.strip()])
    for question in questions:
        reasons = [f.reason for f in failures[question.id]]
        verdict = verdicts.get(question.id)
        if verdict is not None and "error" not in verdict:
            reasons += [f"llm:{point}" for point in verdict["failed"]]
        result: dict = {"id": question.id, "accepted": not reasons, "reasons": reasons}
        if explain:
            result["explain"] = [f.as_dict() for f in failures[question.id]]
        if verdict is not None:
            if "error" in verdict:
                result["llm_error"] = verdict["error"]
                summary.judge_errors += 1
            else:
                result["judged_by"] = judge.model
                summary.judged += 1
                if explain:
                    result["explain"] += [{"reason": f"llm:{p}", "field": "question", "span": verdict["reason"]}
                                          for p in verdict["failed"]]
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
