"""Item verifiers: safety, criteria, evidence (RAG) and difficulty, each saying which checks gave a verdict.

Each verifier looks at the kept items and returns, per item, a :class:`Check`: whether
the item stays, the reason when it does not, the evidence, the checks that returned a
verdict on it (``verified``) and those that ran on it without one, with the error
(``unverified``: an LLM call that failed after its retries). Whether an item without a
verdict stays is decided by the flow (``verify.drop_unverified``), never here. What runs
depends on what is configured:

* **safety**: the reviewable term list ``verifiers/sensitive_terms.txt`` always
  (``safety_terms``); with an LLM, also a moderation prompt (``safety_llm``).
* **criteria**: the rules of :mod:`builders.criteria`, applied when the item was made
  (``criteria_rules``: deterministic, no LLM); with an LLM, also the criteria prompt
  (``criteria_llm``: objective, single answer, time invariant, in its category).
* **rag**: evidence from the search backend for the question (the search validation's query: the
  quoted entity and the relation). The retrieval check labels an item ``retrieval_support``
  when a page other than its source states the answer: a sentence about the entity that expresses
  the relation (verifiers.web_facts.sentences) holds it, a Latin or numeric answer as a whole
  token (Ca is not in Calcium); it keeps those pages (``sources``: URL and passage, one per
  site). A SimpleQA item needs its answer from ``min_sources`` sites (2: Chinese SimpleQA asks each answer for two supporting URLs), its own
  page counted, else it is dropped (``evidence:single_source``). A question whose dated answer
  another page gives another year for, in a sentence expressing the relation, is disputed and
  dropped (``evidence:disputed``: verifiers.web_facts). With an LLM, a judge reads the
  passages (llama-index nodes over the retrieved text) and must quote them verbatim
  (``rag_llm``): the item is dropped when they contradict the answer or do not support it,
  and when the quote is not in any of its passages after normalisation (``rag:unsupported``).
* **options** (kgc, qa): with an LLM, a judge reads each multiple-choice item as a test-taker who knows the
  world and names every right option (``options_llm``); an item with another right option, or without its gold
  right, is kept, marked, and queued for review first. Without an LLM it does not run, and the card says so.
* **difficulty**: with a panel of answer models, each answers every question, a
  grader (the LLM judge, or normalised matching offline or when it fails) labels each
  answer CORRECT / INCORRECT / NOT_ATTEMPTED, and questions every panel model answers
  correctly are dropped (``difficulty_panel``). A question some panel model could not
  answer (a failed call) while the others were right has no verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from filters.normalize import holds_form, normalize, value_forms
from schemas import Item
from schemas.llm import LLMClient, Prompt
from filters.statements import dispute, sentences
from verifiers.search import SearchBackend, search_many

PROMPTS = Path(__file__).with_name("prompts")
TERMS = Path(__file__).with_name("sensitive_terms.txt")
GRADES = ("CORRECT", "INCORRECT", "NOT_ATTEMPTED")


@dataclass
class Check:
    """One verifier's outcome for one item.

    ``by``: the check whose verdict dropped the item; ``verified``: the checks that returned a
    verdict on it; ``unverified``: the checks that ran on it without one, with the error."""

    keep: bool = True
    reason: str = ""
    evidence: dict = field(default_factory=dict)
    verified: list[str] = field(default_factory=list)
    unverified: dict[str, str] = field(default_factory=dict)
    by: str = ""


def load_terms(path: Path = TERMS) -> list[str]:
    return [line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def _bools(keys: Iterable[str], strings: Iterable[str] = ()):
    def validate(data: Any) -> str:
        if not isinstance(data, dict):
            return "expected a JSON object"
        missing = [k for k in keys if not isinstance(data.get(k), bool)]
        if missing:
            return f"missing true/false fields {missing}"
        wrong = [k for k in strings if not isinstance(data.get(k, ""), str)]
        return f"fields {wrong} must be strings" if wrong else ""
    return validate


class SafetyVerifier:
    name = "safety"

    def __init__(self, terms: list[str], llm: LLMClient | None = None):
        self.terms, self.llm = [normalize(t) for t in terms], llm
        self.prompt = Prompt.load(PROMPTS / "moderation.txt")

    def check(self, items: list[Item]) -> dict[str, Check]:
        out: dict[str, Check] = {}
        for item in items:
            text = normalize(item.question + "。" + item.answer)
            hit = next((t for t in self.terms if t and t in text), None)
            out[item.item_id] = (Check(False, f"safety:term:{hit}", {"term": hit}, ["safety_terms"], by="safety_terms")
                                 if hit else Check(verified=["safety_terms"]))
        if self.llm is not None:
            rest = [i for i in items if out[i.item_id].keep]
            results = self.llm.map("safety", [self.prompt.messages(question=i.question, answer=i.answer)
                                              for i in rest], _bools(["flagged"], ["category", "reason"]))
            for item, result in zip(rest, results, strict=True):
                check = out[item.item_id]
                if not result.ok:
                    check.unverified["safety_llm"] = result.error
                    check.evidence["moderation_error"] = result.error
                    continue
                check.verified.append("safety_llm")
                if result.data["flagged"]:
                    check.keep, check.by = False, "safety_llm"
                    check.reason = f"safety:moderation:{result.data.get('category', '')}"
                    check.evidence["reason"] = result.data.get("reason", "")
        return out


class CriteriaVerifier:
    """The criteria rules ran when each item was made (``criteria_rules``); with an LLM, the
    criteria prompt judges each question too (``criteria_llm``)."""

    name = "criteria"
    KEYS = ("objective", "single_answer", "time_invariant", "in_category")

    def __init__(self, llm: LLMClient | None):
        self.llm = llm
        self.prompt = Prompt.load(PROMPTS / "criteria.txt")

    def check(self, items: list[Item]) -> dict[str, Check]:
        out = {i.item_id: Check(verified=["criteria_rules"]) for i in items}
        if self.llm is None:
            return out
        results = self.llm.map("criteria", [self.prompt.messages(
            category=f"{i.primary_category or ''}/{i.secondary_category or ''}", question=i.question, answer=i.answer)
            for i in items], _bools(self.KEYS))
        for item, result in zip(items, results, strict=True):
            check = out[item.item_id]
            if not result.ok:
                check.unverified["criteria_llm"] = result.error
                check.evidence["error"] = result.error
                continue
            check.verified.append("criteria_llm")
            failed = [k for k in self.KEYS if not result.data[k]]
            check.evidence["reason"] = str(result.data.get("reason", ""))
            if failed:
                check.keep, check.reason, check.by = False, f"criteria:{','.join(failed)}", "criteria_llm"
        return out


LETTERS = "ABCDEFGHIJ"


def _letters(data: Any) -> str:
    if not isinstance(data, dict):
        return "expected a JSON object"
    right = data.get("right")
    if not isinstance(right, list) or not all(isinstance(r, str) and r.strip().upper() in LETTERS for r in right):
        return f"right must be a list of option letters A-J, got {right!r}"
    return "" if isinstance(data.get("reason", ""), str) else "reason must be a string"


class OptionsJudge:
    """With an LLM, reads each multiple-choice item as a test-taker who knows the world and names every right
    option (``options_llm``). An item it finds exactly the gold right in is confirmed; one where it finds another
    option right too, or not the gold, is kept and marked (``evidence["disagrees"]``): the review queue takes it
    first (review.queue), since a second right answer is for a person to decide. Without an LLM it does not run."""

    name = "options"

    def __init__(self, llm: LLMClient | None):
        self.llm = llm
        self.prompt = Prompt.load(PROMPTS / "options_judge.txt")

    def check(self, items: list[Item]) -> dict[str, Check]:
        if self.llm is None:
            return {}
        mcq = [i for i in items if i.options and i.answer_index is not None]
        results = self.llm.map("options", [self.prompt.messages(
            question=i.question, answer=f"{LETTERS[i.answer_index]}. {i.answer}",
            options="\n".join(f"{LETTERS[n]}. {o}" for n, o in enumerate(i.options))) for i in mcq], _letters)
        out: dict[str, Check] = {}
        for item, result in zip(mcq, results, strict=True):
            check = out[item.item_id] = Check()
            if not result.ok:
                check.unverified["options_llm"] = result.error
                check.evidence["error"] = result.error
                continue
            check.verified.append("options_llm")
            right = sorted({r.strip().upper() for r in result.data["right"]})
            check.evidence["right"] = [item.options[LETTERS.index(r)] for r in right]
            check.evidence["reason"] = str(result.data.get("reason", ""))
            if right != [LETTERS[item.answer_index]]:
                check.evidence["disagrees"] = True
        return out


def quoted_in(quote: str, passages: Iterable[str]) -> bool:
    """Whether a non-empty quote occurs, after normalisation, in one of the passages."""
    wanted = normalize(quote)
    return bool(wanted) and any(wanted in normalize(p) for p in passages)


class EvidenceVerifier:
    name = "evidence"

    def __init__(self, search: SearchBackend, llm: LLMClient | None, k: int = 5, names: dict[str, list[str]] | None = None,
                 min_sources: int = 2):
        self.search, self.llm, self.k, self.min_sources = search, llm, k, min_sources
        self.names = names or {}
        self.prompt = Prompt.load(PROMPTS / "rag_judge.txt")
        self.supported: set[str] = set()

    def _ranked(self, item: Item, hits: list) -> list:
        """The passages the judge reads: the search's hits for the question ranked again by a llama-index BM25
        index built over them, the best k."""
        if not hits:
            return hits
        from llama_index.core.schema import TextNode
        from llama_index.retrievers.bm25 import BM25Retriever

        from verifiers.bm25 import quiet_bm25s
        from verifiers.search import _segment

        quiet_bm25s()

        nodes = [TextNode(id_=str(n), text=_segment(h.title + "。" + h.text)) for n, h in enumerate(hits)]
        retriever = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=min(self.k, len(nodes)),
                                                skip_stemming=True, token_pattern=r"(?u)\b\w+\b")
        return [hits[int(n.node.node_id)] for n in retriever.retrieve(_segment(item.question))]

    def query(self, item: Item) -> str:
        from verifiers.search import SearchValidator

        # The search validation's query where the item names its fact: cached from the verify stage.
        return SearchValidator.query(item.head, item.relation) if item.head and item.relation else item.question

    def check(self, items: list[Item], own_texts: dict[str, str] | None = None) -> dict[str, Check]:
        """own_texts: item id -> the text of its own page (its source pair's); its site counts as a source only
        where that text holds the answer as written (a page giving only 南鹿市 does not state 山西省南鹿市).
        Without it, the item's own page is taken to state its answer."""
        found = {}  # item id -> the search's hits for its question
        for start in range(0, len(items), 2048):
            batch = items[start:start + 2048]
            # one cache read for the batch, and what it lacks asked at once where the search can
            found.update(zip((i.item_id for i in batch), search_many(self.search, [self.query(i) for i in batch],
                                                                     self.k * 2)))
        out: dict[str, Check] = {}
        for item in items:
            names = [normalize(n) for n in [item.head, *self.names.get(item.item_id, [])] if n]
            forms = value_forms(item.answer)
            own = (own_texts or {}).get(item.item_id)
            own_sites = {site_of(u) for u in item.urls}
            # the sites that state the answer: its own, where its text holds the answer, and one page of each other
            sites = set(own_sites) if own is None or holds_form(normalize(own), forms) else set()
            support, sources = [], []  # other pages that state the answer; of them, the first of each other site
            for h in found[item.item_id]:
                # the answer in the passage itself (what is kept as evidence), the entity in it or its title
                passage = normalize(h.text)
                if h.url in item.urls or h.url in support or not holds_form(passage, forms) \
                        or not any(n in passage or n in normalize(h.title) for n in names):
                    continue
                # a sentence about the entity that expresses the relation holds the answer: a page that gives
                # it as another fact (「出生地是和乐市」 for a 逝世地) or of another entity (a battle's era for
                # its leader's) supports nothing
                if item.relation and not any(holds_form(sentence, forms) for _, sentence, _ in sentences(
                        [h], item.head, self.names.get(item.item_id, []), item.relation)):
                    continue
                support.append(h.url)
                site = site_of(h.url)
                if site not in sites and site not in own_sites:
                    sites.add(site)
                    sources.append({"url": h.url, "passage": h.text})
            if support:
                self.supported.add(item.item_id)
            check = Check(True, "", {"urls": support, "sources": sources}, ["retrieval_support"] if support else [])
            disputed = dispute(found[item.item_id], item.head, self.names.get(item.item_id, []), item.relation,
                               item.answer, exclude=item.urls, sense=item.sense) \
                if item.relation and item.head else None
            if disputed:  # sites disagree: no one answer
                check.keep, check.reason, check.by = False, "evidence:disputed", "retrieval_support"
                check.evidence["disputed_by"] = {"url": disputed[0], "gives": disputed[1]}
            elif item.kind == "simpleqa" and len(sites) < self.min_sources:  # the answer on too few sites
                check.keep, check.reason, check.by = False, "evidence:single_source", "retrieval_support"
            out[item.item_id] = check
        if self.llm is None:
            return out
        evidence = {i.item_id: self._ranked(i, found[i.item_id]) for i in items}  # what the judge reads
        results = self.llm.map("rag", [self.prompt.messages(
            question=i.question, answer=i.answer,
            evidence="\n".join(f"[{n}] {h.url}\n{h.text}" for n, h in enumerate(evidence[i.item_id])) or "（无）")
            for i in items], _bools(["supported", "contradicted"], ["quote", "other_answer"]))
        for item, result in zip(items, results, strict=True):
            passages = evidence[item.item_id]
            urls = [h.url for h in passages]
            check = out[item.item_id]
            check.evidence = {"retrieval_support": check.evidence["urls"], "sources": check.evidence["sources"],
                              "urls": urls}
            if not result.ok:
                check.unverified["rag_llm"] = result.error
                check.evidence["error"] = result.error
                continue
            check.verified.append("rag_llm")
            quote = str(result.data.get("quote") or "")
            check.evidence["quote"] = quote
            claims = result.data["contradicted"] or result.data["supported"]
            if claims and not quoted_in(quote, (h.text for h in passages)):  # a verdict the passages do not bear out
                check.keep, check.reason, check.by = False, "rag:unsupported", "rag_llm"
            elif result.data["contradicted"]:
                check.keep, check.reason, check.by = False, "rag:contradicted", "rag_llm"
                check.evidence["other_answer"] = result.data.get("other_answer", "")
            elif not result.data["supported"]:
                check.keep, check.reason, check.by = False, "rag:no_support", "rag_llm"
        return out


def site_of(url: str) -> str:
    """The site a URL is on: its host, less a leading www. (two pages of one site are one source)."""
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return url
    return host.removeprefix("www.")


def match_grade(answer: str, response: str) -> str:
    """The offline grader: normalised containment either way; empty or 不知道 is NOT_ATTEMPTED."""
    a, r = normalize(answer), normalize(response)
    if not r or r in ("不知道", "不清楚", "无法回答"):
        return "NOT_ATTEMPTED"
    return "CORRECT" if a and (a in r or r in a) else "INCORRECT"


class DifficultyFilter:
    name = "difficulty"

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
            failed = [g["error"] for g in graded.values() if g["error"]]
            answered_wrong = any(g["grade"] != "CORRECT" for g in graded.values() if not g["error"])
            if failed and not answered_wrong:
                # the models that answered were all right: whether every model is, nobody knows
                out[item.item_id] = Check(True, "", {"answers": graded}, unverified={"difficulty_panel": failed[0]})
            elif answered_wrong:
                out[item.item_id] = Check(True, "", {"answers": graded}, ["difficulty_panel"])
            else:
                out[item.item_id] = Check(False, "difficulty:all_panel_models_correct", {"answers": graded},
                                          ["difficulty_panel"], by="difficulty_panel")
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
