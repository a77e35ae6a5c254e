"""Item writing with an LLM, used when an endpoint is configured (prompts in ``builders/prompts/``).

* :class:`QuestionRewriter`: a QA item's template question rewritten into natural
  Chinese; the rewrite is kept only if it still names the entity, does not contain
  the answer and passes the criteria rules, else the template question stays.
* :class:`SimpleQAWriter`: short fact questions written from a pair's text with
  few-shot examples of its category, then reviewed by a critique prompt; questions
  the critique rejects are written again with its feedback, for at most
  ``rounds`` rounds. A question is kept only when the critique passes it, the
  criteria rules pass it and its answer occurs in the pair's text.

Every LLM call goes through :class:`schemas.llm.LLMClient` (cached, retried,
budgeted); a failed call leaves the template item in place and is counted.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builders.criteria import check_question
from filters.normalize import normalize
from schemas import Pair
from schemas.llm import LLMClient, Prompt

PROMPTS = Path(__file__).with_name("prompts")


def _examples(topic: str | None) -> str:
    table = tomllib.loads((PROMPTS / "simpleqa_examples.toml").read_text(encoding="utf-8"))
    chosen = table.get(topic or "", table["default"])["examples"]
    return "\n".join(f"问：{e['question']} 答：{e['answer']}" for e in chosen)


def _names_entity(question: str, names: list[str]) -> bool:
    text = normalize(question)
    return any(normalize(n) in text for n in names if n)


class QuestionRewriter:
    def __init__(self, llm: LLMClient, max_answer_chars: int = 20):
        self.llm, self.max_answer_chars = llm, max_answer_chars
        self.prompt = Prompt.load(PROMPTS / "qa_rewrite.txt")
        self.counts = {"rewritten": 0, "kept_template": 0, "failed": 0}

    def rewrite(self, requests: list[tuple[str, str, str, str, list[str]]]) -> list[str | None]:
        """(question, head, relation, answer, names) -> the rewritten question, or None to keep the template."""
        def validate(data: Any) -> str:
            return "" if isinstance(data, dict) and isinstance(data.get("question"), str) and data["question"].strip() \
                else 'expected {"question": "..."}'

        results = self.llm.map("qa_rewrite", [self.prompt.messages(question=q, head=h, relation=r, answer=a)
                                              for q, h, r, a, _ in requests], validate)
        out: list[str | None] = []
        for (question, _, relation, answer, names), result in zip(requests, results, strict=True):
            if not result.ok:
                self.counts["failed"] += 1
                out.append(None)
                continue
            candidate = result.data["question"].strip()
            if not _names_entity(candidate, names) or check_question(candidate, answer, relation,
                                                                     max(self.max_answer_chars, len(answer))):
                self.counts["kept_template"] += 1
                out.append(None)
                continue
            self.counts["rewritten"] += 1
            out.append(candidate)
        return out


@dataclass
class Written:
    question: str
    answer: str
    rounds: int


class SimpleQAWriter:
    def __init__(self, llm: LLMClient, max_answer_chars: int = 20, per_pair: int = 3, rounds: int = 2):
        self.llm, self.max_answer_chars, self.per_pair, self.rounds = llm, max_answer_chars, per_pair, rounds
        self.generate = Prompt.load(PROMPTS / "simpleqa_generate.txt")
        self.critique = Prompt.load(PROMPTS / "simpleqa_critique.txt")
        self.counts = {"proposed": 0, "rejected_by_critique": 0, "rejected_by_rules": 0, "answer_not_in_text": 0,
                       "kept": 0, "failed_calls": 0}

    @staticmethod
    def _items_shape(data: Any) -> str:
        if not isinstance(data, dict) or not isinstance(data.get("items"), list):
            return 'expected {"items": [...]}'
        if not all(isinstance(i, dict) and isinstance(i.get("question"), str) and isinstance(i.get("answer"), str)
                   for i in data["items"]):
            return "every item needs a question and an answer string"
        return ""

    @staticmethod
    def _reviews_shape(data: Any) -> str:
        if not isinstance(data, dict) or not isinstance(data.get("reviews"), list):
            return 'expected {"reviews": [...]}'
        if not all(isinstance(r, dict) and isinstance(r.get("index"), int) and isinstance(r.get("ok"), bool)
                   for r in data["reviews"]):
            return "every review needs an integer index and a boolean ok"
        return ""

    def write(self, pairs: list[Pair]) -> list[list[Written]]:
        """Accepted questions per pair, in pair order."""
        accepted: list[list[Written]] = [[] for _ in pairs]
        feedback = [""] * len(pairs)
        open_pairs = list(range(len(pairs)))
        for round_number in range(1, self.rounds + 1):
            if not open_pairs:
                break
            requests = [self.generate.messages(
                max_answer_chars=str(self.max_answer_chars), examples=_examples(pairs[i].topic),
                count=str(self.per_pair - len(accepted[i])), category=pairs[i].topic or "未分类",
                entity=pairs[i].entity, text=pairs[i].text, feedback=feedback[i]) for i in open_pairs]
            proposals = self.llm.map("simpleqa_generate", requests, self._items_shape)
            reviewed: list[tuple[int, list[dict]]] = []
            for i, result in zip(open_pairs, proposals, strict=True):
                if not result.ok:
                    self.counts["failed_calls"] += 1
                    continue
                candidates = self._rule_checked(pairs[i], result.data["items"][: self.per_pair])
                if candidates:
                    reviewed.append((i, candidates))
            critiques = self.llm.map("simpleqa_critique", [self.critique.messages(
                text=pairs[i].text,
                questions="\n".join(f"{k}. 问：{c['question']} 答：{c['answer']}" for k, c in enumerate(cands)))
                for i, cands in reviewed], self._reviews_shape)
            still_open = []
            for (i, candidates), critique in zip(reviewed, critiques, strict=True):
                if not critique.ok:
                    self.counts["failed_calls"] += 1
                    continue
                verdicts = {r["index"]: r for r in critique.data["reviews"]}
                problems = []
                for k, candidate in enumerate(candidates):
                    verdict = verdicts.get(k)
                    if verdict and verdict["ok"]:
                        accepted[i].append(Written(candidate["question"].strip(), candidate["answer"].strip(),
                                                   round_number))
                        self.counts["kept"] += 1
                    else:
                        self.counts["rejected_by_critique"] += 1
                        found = ", ".join(map(str, (verdict or {}).get("problems") or ["unreviewed"]))
                        problems.append(f"“{candidate['question']}”不合格：{found}")
                if problems and len(accepted[i]) < self.per_pair:
                    feedback[i] = "上一轮的问题：\n" + "\n".join(problems) + "\n请换一个角度重新出题。"
                    still_open.append(i)
            open_pairs = still_open
        return accepted

    def _rule_checked(self, pair: Pair, items: list[dict]) -> list[dict]:
        kept = []
        text = normalize(pair.text)
        for item in items:
            self.counts["proposed"] += 1
            question, answer = item["question"].strip(), item["answer"].strip()
            if check_question(question, answer, "", self.max_answer_chars):
                self.counts["rejected_by_rules"] += 1
            elif normalize(answer) not in text:
                self.counts["answer_not_in_text"] += 1
            else:
                kept.append({"question": question, "answer": answer})
        return kept
