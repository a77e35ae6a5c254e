"""Item verifiers: safety, criteria, evidence (RAG) and difficulty, each recording that it ran.

Each verifier looks at the kept question items (qa and simpleqa) and returns, per item,
a :class:`Check`: whether the item stays, the reason when it does not, and the
evidence. What runs depends on what is configured:

* **safety**: the reviewable term list ``verifiers/sensitive_terms.txt`` always;
  with an LLM, also a moderation prompt.
* **criteria**: with an LLM, the criteria prompt (objective, single answer, time
  invariant, in its category); offline, the rules of :mod:`builders.criteria`
  already applied when the item was made (recorded as ``criteria_rules``).
* **rag**: evidence from the search backend for the question; with an LLM, a judge
  reads the passages (llama-index nodes over the retrieved text) and the item is
  dropped when they contradict the answer or do not support it; offline, the
  retrieval check labels an item ``retrieval_support`` when a page other than its
  source names the entity and contains the answer, and drops nothing.
* **difficulty**: with a panel of answer models, each answers every question, a
  grader (the LLM judge, or normalised matching offline) labels each answer
  CORRECT / INCORRECT / NOT_ATTEMPTED, and questions every panel model answers
  correctly are dropped.

``verified_by`` on each item lists the verifiers that actually ran on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from filters.normalize import normalize
from schemas import Item
from verifiers.llm import LLMClient, Prompt
from verifiers.search import CachedSearch, SearchBackend

PROMPTS = Path(__file__).with_name("prompts")
TERMS = Path(__file__).with_name("sensitive_terms.txt")
GRADES = ("CORRECT", "INCORRECT", "NOT_ATTEMPTED")


@dataclass
class Check:
    keep: bool = True
    reason: str = ""
    evidence: dict = field(default_factory=dict)


def load_terms(path: Path = TERMS) -> list[str]:
    return [line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def _bools(keys: Iterable[str]):
    def validate(data: Any) -> str:
        if not isinstance(data, dict):
            return "expected a JSON object"
        missing = [k for k in keys if not isinstance(data.get(k), bool)]
        return f"missing true/false fields {missing}" if missing else ""
    return validate


class SafetyVerifier:
    name = "safety_terms"

    def __init__(self, terms: list[str], llm: LLMClient | None = None):
        self.terms, self.llm = [normalize(t) for t in terms], llm
        self.prompt = Prompt.load(PROMPTS / "moderation.txt")

    def check(self, items: list[Item]) -> dict[str, Check]:
        out: dict[str, Check] = {}
        for item in items:
            text = normalize(item.question + "。" + item.answer)
            hit = next((t for t in self.terms if t and t in text), None)
            out[item.item_id] = Check(False, f"safety:term:{hit}", {"term": hit}) if hit else Check()
        if self.llm is not None:
            rest = [i for i in items if out[i.item_id].keep]
            results = self.llm.map("safety", [self.prompt.messages(question=i.question, answer=i.answer)
                                              for i in rest], _bools(["flagged"]))
            for item, result in zip(rest, results, strict=True):
                if not result.ok:
                    out[item.item_id] = Check(True, "", {"moderation_error": result.error})
                elif result.data["flagged"]:
                    out[item.item_id] = Check(False, f"safety:moderation:{result.data.get('category', '')}",
                                              {"reason": result.data.get("reason", "")})
        return out

    def ran(self) -> list[str]:
        return ["safety_terms"] + (["safety_llm"] if self.llm is not None else [])


class CriteriaVerifier:
    def __init__(self, llm: LLMClient | None):
        self.llm = llm
        self.prompt = Prompt.load(PROMPTS / "criteria.txt")

    def check(self, items: list[Item]) -> dict[str, Check]:
        if self.llm is None:
            return {i.item_id: Check() for i in items}  # the rules ran when the items were made
        keys = ("objective", "single_answer", "time_invariant", "in_category")
        results = self.llm.map("criteria", [self.prompt.messages(
            category=f"{i.primary_category or ''}/{i.secondary_category or ''}", question=i.question, answer=i.answer)
            for i in items], _bools(keys))
        out = {}
        for item, result in zip(items, results, strict=True):
            if not result.ok:
                out[item.item_id] = Check(False, f"criteria:unverified:{result.error}", {})
                continue
            failed = [k for k in keys if not result.data[k]]
            out[item.item_id] = Check(not failed, f"criteria:{','.join(failed)}" if failed else "",
                                      {"reason": str(result.data.get("reason", ""))})
        return out

    def ran(self) -> list[str]:
        return ["criteria_llm"] if self.llm is not None else ["criteria_rules"]


class EvidenceVerifier:
    def __init__(self, search: SearchBackend, llm: LLMClient | None, k: int = 5, names: dict[str, list[str]] | None = None):
        self.search, self.llm, self.k = search, llm, k
        self.names = names or {}
        self.prompt = Prompt.load(PROMPTS / "rag_judge.txt")
        self.supported: set[str] = set()

    def _evidence(self, item: Item) -> list:
        """Passages for the question, ranked again by a llama-index BM25 index built over them."""
        hits = self.search.search(self.query(item), self.k * 2)
        if not hits:
            return []
        from llama_index.core.schema import TextNode
        from llama_index.retrievers.bm25 import BM25Retriever

        from verifiers.search import _segment

        nodes = [TextNode(id_=str(n), text=_segment(h.title + "。" + h.text)) for n, h in enumerate(hits)]
        retriever = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=min(self.k, len(nodes)),
                                                skip_stemming=True, token_pattern=r"(?u)\b\w+\b")
        return [hits[int(n.node.node_id)] for n in retriever.retrieve(_segment(item.question))]

    def query(self, item: Item) -> str:
        return f"{item.question} {item.answer}"

    def check(self, items: list[Item]) -> dict[str, Check]:
        evidence = {}
        for start in range(0, len(items), 2048):
            batch = items[start:start + 2048]
            if isinstance(self.search, CachedSearch):  # one cache read for the batch
                self.search.prefetch([self.query(i) for i in batch], self.k * 2)
            evidence.update((i.item_id, self._evidence(i)) for i in batch)
        out: dict[str, Check] = {}
        for item in items:
            names = [normalize(n) for n in [item.head, *self.names.get(item.item_id, [])] if n]
            answer = normalize(item.answer)
            support = [h.url for h in evidence[item.item_id]
                       if h.url not in item.urls and answer in normalize(h.text)
                       and any(n in normalize(h.title + h.text) for n in names)]
            if support:
                self.supported.add(item.item_id)
            out[item.item_id] = Check(True, "", {"urls": support})
        if self.llm is None:
            return out
        results = self.llm.map("rag", [self.prompt.messages(
            question=i.question, answer=i.answer,
            evidence="\n".join(f"[{n}] {h.url}\n{h.text}" for n, h in enumerate(evidence[i.item_id])) or "（无）")
            for i in items], _bools(["supported", "contradicted"]))
        for item, result in zip(items, results, strict=True):
            urls = [h.url for h in evidence[item.item_id]]
            if not result.ok:
                out[item.item_id] = Check(False, f"rag:unverified:{result.error}", {"urls": urls})
            elif result.data["contradicted"]:
                out[item.item_id] = Check(False, "rag:contradicted", {
                    "urls": urls, "quote": result.data.get("quote", ""), "other_answer": result.data.get("other_answer", "")})
            elif not result.data["supported"]:
                out[item.item_id] = Check(False, "rag:no_support", {"urls": urls})
            else:
                out[item.item_id] = Check(True, "", {"urls": urls, "quote": result.data.get("quote", "")})
        return out

    def ran_on(self, item_id: str) -> list[str]:
        if self.llm is not None:
            return ["rag_llm"]
        return ["retrieval_support"] if item_id in self.supported else []


def match_grade(answer: str, response: str) -> str:
    """The offline grader: normalised containment either way; empty or 不知道 is NOT_ATTEMPTED."""
    a, r = normalize(answer), normalize(response)
    if not r or r in ("不知道", "不清楚", "无法回答"):
        return "NOT_ATTEMPTED"
    return "CORRECT" if a and (a in r or r in a) else "INCORRECT"


class DifficultyFilter:
    def __init__(self, panel: list[LLMClient], grader: LLMClient | None = None):
        self.panel, self.grader = panel, grader
        self.answer_prompt = Prompt.load(PROMPTS / "answer.txt")
        self.grade_prompt = Prompt.load(PROMPTS / "grade.txt")

    def check(self, items: list[Item]) -> dict[str, Check]:
        if not self.panel:
            return {i.item_id: Check() for i in items}
        answers: dict[str, dict[str, Any]] = {i.item_id: {} for i in items}
        for model in self.panel:
            results = model.map("difficulty_answer", [self.answer_prompt.messages(question=i.question) for i in items],
                                lambda d: "" if isinstance(d, dict) and isinstance(d.get("answer"), str)
                                else 'expected {"answer": "..."}')
            for item, result in zip(items, results, strict=True):
                response = result.data["answer"] if result.ok else ""
                answers[item.item_id][model.settings.model] = {"response": response, "error": result.error}
        to_grade = [(item, name, answer["response"]) for item in items
                    for name, answer in answers[item.item_id].items() if not answer["error"]]
        grades = dict(zip([(item.item_id, name) for item, name, _ in to_grade], self._grades(to_grade), strict=True))
        out = {}
        for item in items:
            graded = {name: {**answer, "grade": grades.get((item.item_id, name), "ERROR")}
                      for name, answer in answers[item.item_id].items()}
            all_correct = bool(graded) and all(g["grade"] == "CORRECT" for g in graded.values())
            out[item.item_id] = Check(not all_correct, "difficulty:all_panel_models_correct" if all_correct else "",
                                      {"answers": graded})
        return out

    def _grades(self, to_grade: list[tuple[Item, str, str]]) -> list[str]:
        """The grade of each (item, model, response): the grader's, or normalised matching
        without a grader or when the grader fails."""
        if self.grader is None:
            return [match_grade(item.answer, response) for item, _, response in to_grade]
        results = self.grader.map("difficulty_grade", [self.grade_prompt.messages(
            question=item.question, answer=item.answer, response=response) for item, _, response in to_grade],
            lambda d: "" if isinstance(d, dict) and d.get("grade") in GRADES else f"grade must be one of {GRADES}")
        return [r.data["grade"] if r.ok else match_grade(item.answer, response)
                for (item, _, response), r in zip(to_grade, results, strict=True)]

    def ran(self) -> list[str]:
        return ["difficulty_panel"] if self.panel else []
