"""Evaluation items from kept pairs: KGC and QA multiple choice, triple-to-text, cloze, SimpleQA-style.

* **kgc**: ``（head，relation，？）`` with ten options; **qa**: a question from the
  relation's template (``builders/question_templates.tsv``) with the same ten options.
  Both share one distractor selection per triple (:mod:`builders.distractors`).
* **t2t**: the pair's kept triples (one per line, ``head｜relation｜tail``) -> its text.
* **cloze**: the tail blanked in the pair's own text, only when it occurs there exactly
  once and the rest of the text still names the entity.
* **simpleqa**: template questions whose triple passes the criteria rules can decide
  (:mod:`builders.criteria`), with the pair's SimpleQA topic and subtopic as categories.

Every item records where it came from (pair ids, URLs) and how it was generated.
Items that cannot be built properly are written with ``decision = "dropped"`` and
the reason, so the funnel can count them; releases take the kept ones.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from builders.criteria import check_question
from builders.distractors import DistractorPicker
from builders.formats import value_format
from builders.graph import Graph, Query
from builders.templates import question_for
from filters.triples import NAME_RELATIONS
from schemas import Item, Pair

BLANK = "＿＿＿"
# Relations whose values are names of the entity itself: as questions they have many right answers.
NO_MCQ_RELATIONS = frozenset({"中文名"})


def item_id(kind: str, *parts: str) -> str:
    return hashlib.sha256("\x1f".join((kind, *parts)).encode("utf-8")).hexdigest()[:16]


def length_bin(text: str) -> str:
    n = len(text)
    return "short" if n < 80 else "medium" if n < 200 else "long"


@dataclass
class ItemSettings:
    kinds: tuple[str, ...] = ("kgc", "qa", "t2t", "cloze", "simpleqa")
    max_answer_chars: int = 20
    batch_size: int = 2_000
    embedder_name: str = ""


@dataclass
class BuildStats:
    built: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)  # "kind:reason" -> count
    rejected_candidates: Counter = field(default_factory=Counter)
    gold_position: Counter = field(default_factory=Counter)
    distractor_sources: Counter = field(default_factory=Counter)
    similarity_bins: Counter = field(default_factory=Counter)  # distractor-to-gold similarity, 0.1 wide

    def as_dict(self) -> dict:
        return {
            "items_kept": dict(sorted(self.built.items())),
            "items_dropped": dict(sorted(self.dropped.items())),
            "rejected_candidates": dict(sorted(self.rejected_candidates.items())),
            "gold_position": {str(k): self.gold_position[k] for k in range(10)},
            "distractor_sources": dict(sorted(self.distractor_sources.items())),
            "distractor_similarity": {f"{k / 10:.1f}-{(k + 1) / 10:.1f}": v
                                      for k, v in sorted(self.similarity_bins.items())},
        }


class ItemBuilder:
    def __init__(self, graph: Graph, picker: DistractorPicker, templates: dict[str, str],
                 relation_counts: dict[str, int], settings: ItemSettings | None = None, llm=None):
        self.graph, self.picker, self.templates = graph, picker, templates
        self.relation_counts = relation_counts
        self.settings = settings or ItemSettings()
        self.stats = BuildStats()
        self.llm = llm
        self.rewriter = self.writer = None
        if llm is not None:
            from builders.llm_items import QuestionRewriter, SimpleQAWriter

            self.rewriter = QuestionRewriter(llm, self.settings.max_answer_chars)
            self.writer = SimpleQAWriter(llm, self.settings.max_answer_chars)

    def _provenance(self, generator: str, **extra) -> str:
        record = {"generator": generator, "embedder": self.settings.embedder_name, "verified_by": [], **extra}
        return json.dumps(record, ensure_ascii=False, sort_keys=True)

    def _stratum(self, pair: Pair, answer_kind: str, relation: str) -> str:
        support = self.relation_counts.get(relation, 1)
        return f"{pair.domain}|{answer_kind}|r{int(math.log2(max(support, 1)))}|{length_bin(pair.text)}"

    def _base(self, kind: str, pair: Pair, relation: str, tail: str, answer_kind: str) -> dict:
        return dict(item_id=item_id(kind, pair.pair_id, relation, tail), kind=kind, answer=tail,
                    source_pair_ids=[pair.pair_id], domain=pair.domain, head=pair.entity, sense=pair.sense,
                    relation=relation, answer_kind=answer_kind, primary_category=pair.topic,
                    secondary_category=pair.subtopic, urls=[pair.url] if pair.url else [],
                    stratum=self._stratum(pair, answer_kind, relation))

    def build(self, pairs: Iterable[Pair]) -> Iterator[Item]:
        """Items for kept pairs, a batch of pairs at a time (one graph query and one embedding call each)."""
        batch: list[Pair] = []
        for pair in pairs:
            if pair.decision != "kept":
                continue
            batch.append(pair)
            if sum(len(p.triples) for p in batch) >= self.settings.batch_size:
                yield from self._build_batch(batch)
                batch = []
        if batch:
            yield from self._build_batch(batch)

    def _build_batch(self, pairs: list[Pair]) -> Iterator[Item]:
        kinds = set(self.settings.kinds)
        queries: list[tuple[Pair, Query]] = []
        questions: dict[str, str] = {}
        for pair in pairs:
            for t in pair.kept_triples():
                if t.relation in NO_MCQ_RELATIONS:
                    continue
                query = Query(item_id("mcq", pair.pair_id, t.relation, t.tail), pair.entity, pair.sense or "",
                              t.relation, t.tail, pair.domain)
                queries.append((pair, query))
                questions[query.item] = question_for(pair.entity, t.relation, self.templates, pair.sense or "")
        selections = {}
        if queries and kinds & {"kgc", "qa"}:
            plain = [q for _, q in queries]
            pools = self.graph.candidates(plain, self.picker.settings.per_source)
            selections = self.picker.pick_many(plain, questions, pools)
        rewrites: dict[str, str] = {}
        if self.rewriter is not None and "qa" in kinds:
            wanted = [(pair, q) for pair, q in queries
                      if selections.get(q.item) is not None and selections[q.item].choice is not None]
            new = self.rewriter.rewrite([(questions[q.item], q.head, q.relation, q.gold, [pair.entity, *pair.aliases])
                                         for pair, q in wanted])
            rewrites = {q.item: text for (_, q), text in zip(wanted, new, strict=True) if text}
        for pair, query in queries:
            selection = selections.get(query.item)
            answer_kind = value_format(query.gold, query.relation).kind
            for kind in ("kgc", "qa"):
                if kind not in kinds or selection is None:
                    continue
                question = f"（{query.head}，{query.relation}，？）" if kind == "kgc" else questions[query.item]
                base = self._base(kind, pair, query.relation, query.gold, answer_kind)
                if selection.choice is None:
                    self.stats.dropped[f"{kind}:{selection.reason.split(':')[0]}"] += 1
                    yield Item(question=question, decision="dropped", reason=selection.reason,
                               provenance=self._provenance("template"), **base)
                    continue
                choice = selection.choice
                self.stats.built[kind] += 1
                provenance = self._provenance("template")
                if kind == "qa" and query.item in rewrites:
                    question = rewrites[query.item]
                    provenance = self._provenance("template+llm_rewrite", llm=self.llm.settings.model,
                                                  template_question=questions[query.item])
                if kind == "kgc":
                    self.stats.gold_position[choice.answer_index] += 1
                    self.stats.rejected_candidates.update(selection.rejected)
                    for source, sim in zip(choice.sources, choice.similarity):
                        if source != "gold":
                            self.stats.distractor_sources[source] += 1
                            self.stats.similarity_bins[min(int(max(sim, 0.0) * 10), 9)] += 1
                yield Item(question=question, options=choice.options, answer_index=choice.answer_index,
                           option_sources=choice.sources, option_similarity=choice.similarity,
                           provenance=provenance, **base)
        written = self.writer.write(pairs) if self.writer is not None and "simpleqa" in kinds else None
        for index, pair in enumerate(pairs):
            if "t2t" in kinds:
                yield from self._t2t(pair)
            if "cloze" in kinds:
                yield from self._cloze(pair)
            if "simpleqa" in kinds:
                yield from (self._simpleqa(pair) if written is None else self._simpleqa_written(pair, written[index]))

    def _t2t(self, pair: Pair) -> Iterator[Item]:
        triples = pair.kept_triples()
        if not triples:
            return
        question = "\n".join(f"{t.head}｜{t.relation}｜{t.tail}" for t in triples)
        base = self._base("t2t", pair, "", "", "text")
        base["item_id"] = item_id("t2t", pair.pair_id)
        base["answer"] = pair.text
        self.stats.built["t2t"] += 1
        yield Item(question=question, provenance=self._provenance("triples"), **base)

    def _cloze(self, pair: Pair) -> Iterator[Item]:
        names = [n for n in (pair.entity, *pair.aliases) if n]
        for t in pair.kept_triples():
            if t.relation in NAME_RELATIONS or len(t.tail) < 2:
                continue
            base = self._base("cloze", pair, t.relation, t.tail, value_format(t.tail, t.relation).kind)
            occurrences = pair.text.count(t.tail)
            reason = ""
            if occurrences != 1:
                reason = "tail_not_once_in_text" if occurrences else "tail_not_verbatim_in_text"
            else:
                masked = pair.text.replace(t.tail, BLANK)
                if not any(name in masked for name in names):
                    reason = "entity_not_named_outside_blank"
                elif len(masked) - len(BLANK) < 2 * len(t.tail) + 10:
                    reason = "too_little_context"
            if reason:
                self.stats.dropped[f"cloze:{reason}"] += 1
                continue
            self.stats.built["cloze"] += 1
            yield Item(question=masked, provenance=self._provenance("text"), **base)

    def _simpleqa(self, pair: Pair) -> Iterator[Item]:
        for t in pair.kept_triples():
            if t.relation in NAME_RELATIONS:
                continue
            if t.relation not in self.templates:
                self.stats.dropped["simpleqa:no_question_template"] += 1
                continue
            question = question_for(pair.entity, t.relation, self.templates, pair.sense or "")
            failed = check_question(question, t.tail, t.relation, self.settings.max_answer_chars)
            base = self._base("simpleqa", pair, t.relation, t.tail, value_format(t.tail, t.relation).kind)
            if failed:
                for reason in failed:
                    self.stats.dropped[f"simpleqa:{reason}"] += 1
                yield Item(question=question, decision="dropped", reason=",".join(failed),
                           provenance=self._provenance("template"), **base)
                continue
            self.stats.built["simpleqa"] += 1
            yield Item(question=question, provenance=self._provenance("template"), **base)


    def _simpleqa_written(self, pair: Pair, written) -> Iterator[Item]:
        for w in written:
            base = self._base("simpleqa", pair, "", w.answer, value_format(w.answer).kind)
            base["item_id"] = item_id("simpleqa", pair.pair_id, w.question)
            self.stats.built["simpleqa"] += 1
            yield Item(question=w.question, provenance=self._provenance(
                "llm", llm=self.llm.settings.model, rounds=w.rounds), **base)
