"""Nine distractors per multiple-choice item, following the CDTP construction (paper, Appendix C.2).

For each item (head, relation, gold) the candidate pool comes from the knowledge
graph (:mod:`builders.graph`). A candidate must:

1. have the gold's format (:func:`builders.formats.compatible`: a date gold gets
   dates, a quantity gets the same unit at a similar magnitude, a person gets persons),
   judged by the candidate's own relation; a plain-text gold, whose format says nothing
   about what it is, only gets values of its relation's family (the relation and those
   sharing values with it: :meth:`builders.graph.Graph.relation_families`);
2. differ from the gold and from every other option after normalisation;
3. pass the semantic-feasibility filter: embedding similarity to the gold below
   ``synonym_max`` (else it is a near-synonym, a second right answer) and similarity
   to the question context at least ``context_min`` (else it is unrelated).

Survivors are scored for confusability (similarity to the gold) plus a bonus for
type consistency (the same relation) and for the sources that make hard
distractors (graph neighbours, other senses); nine are then picked greedily,
each pick lowering the score of candidates in an already used frequency bin and
source, so sets are spread over frequency and subdomain. An item without nine
acceptable candidates is dropped with a reason, never padded.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import numpy as np

from builders.formats import ValueFormat, compatible, value_format
from builders.graph import Candidate, Query
from filters.dedup import field_key
from filters.embeddings import Embedder

OPTIONS = 10
SOURCE_BONUS = {"neighbour": 0.15, "polysemy": 0.15, "same_relation": 0.1, "frequency": 0.0}
SAME_RELATION_BONUS = 0.2  # type consistency: the candidate is a value of the item's relation elsewhere
SAME_DOMAIN_BONUS = 0.1
# Formats that say nothing about what a value is: such a gold only gets values of its relation's family.
UNTYPED_KINDS = frozenset({"text", "latin"})
GREEDY_POOL = 40


@dataclass
class Choice:
    """The ten options of an item, shuffled, with where each distractor came from."""

    options: list[str]
    answer_index: int
    sources: list[str]  # per option: gold | neighbour | same_relation | frequency | polysemy
    similarity: list[float]  # per option: embedding similarity to the gold (1.0 for the gold)


@dataclass
class DistractorSettings:
    synonym_max: float = 0.92
    context_min: float = 0.0
    per_source: int = 30
    spread_penalty: float = 0.08
    seed: int = 13


@dataclass
class Selection:
    choice: Choice | None
    reason: str = ""
    rejected: dict[str, int] = field(default_factory=dict)


def shuffle_options(item_id: str, gold: str, distractors: list[tuple[str, str, float]], seed: int) -> Choice:
    """The gold and nine distractors in a seeded permutation of the item id."""
    entries = [(gold, "gold", 1.0), *distractors]
    order = list(range(len(entries)))
    random.Random(f"{seed}:{item_id}").shuffle(order)
    shuffled = [entries[i] for i in order]
    return Choice(options=[e[0] for e in shuffled], answer_index=order.index(0),
                  sources=[e[1] for e in shuffled], similarity=[round(float(e[2]), 6) for e in shuffled])


class DistractorPicker:
    """Choose nine distractors per item from graph candidate pools; see the module docstring."""

    def __init__(self, embedder: Embedder, settings: DistractorSettings | None = None,
                 frequency: dict[str, int] | None = None, families: dict[str, set[str]] | None = None):
        self.embedder = embedder
        self.settings = settings or DistractorSettings()
        self.frequency = frequency or {}
        self.families = families or {}
        self._formats: dict[tuple[str, str], ValueFormat] = {}

    def _format(self, value: str, relation: str) -> ValueFormat:
        key = (value, relation)
        found = self._formats.get(key)
        if found is None:
            if len(self._formats) > 500_000:
                self._formats.clear()
            found = self._formats[key] = value_format(value, relation)
        return found

    def pick_many(self, queries: list[Query], questions: dict[str, str],
                  pools: dict[str, list[Candidate]]) -> dict[str, Selection]:
        """Selections per item; one embedding call for all golds, candidates and questions of the batch."""
        texts: dict[str, None] = {}
        for q in queries:
            texts[q.gold] = None
            texts[questions[q.item]] = None
            for cand in pools.get(q.item, ()):
                texts[cand.value] = None
        order = list(texts)
        vectors = self.embedder.encode(order) if order else np.zeros((0, 1), dtype=np.float32)
        index = {t: i for i, t in enumerate(order)}
        return {q.item: self._pick(q, questions[q.item], pools.get(q.item, []), vectors, index) for q in queries}

    def _pick(self, q: Query, question: str, pool: list[Candidate], vectors: np.ndarray,
              index: dict[str, int]) -> Selection:
        s = self.settings
        gold_format = self._format(q.gold, q.relation)
        gold_vec, question_vec = vectors[index[q.gold]], vectors[index[question]]
        seen = {field_key(q.gold)}
        rejected: dict[str, int] = {}
        by_candidate: dict[str, list[Candidate]] = {}
        for candidate in pool:
            by_candidate.setdefault(candidate.value, []).append(candidate)
        names = sorted(by_candidate)
        rows = np.fromiter((index[c] for c in names), dtype=np.int64, count=len(names))
        similarity = vectors[rows] @ np.stack([gold_vec, question_vec]).T if len(rows) else np.zeros((0, 2))
        family = self.families.get(q.relation, {q.relation})
        scored = []
        for cand, (to_gold, to_question) in zip(names, similarity.tolist(), strict=True):
            found = by_candidate[cand]
            relations = found[0].relations
            # judged as a value of its own relation (the item's when it has it), not as the item's
            own = q.relation if q.relation in relations else (relations[0] if relations else "")
            reason = ""
            if not compatible(gold_format, self._format(cand, own)):
                reason = "format"
            elif gold_format.kind in UNTYPED_KINDS and family.isdisjoint(relations):
                reason = "type"
            elif (key := field_key(cand)) in seen:
                reason = "same_as_other_option"
            elif to_gold >= s.synonym_max:
                reason = "near_synonym"
            elif to_question < s.context_min:
                reason = "unrelated_to_question"
            else:
                seen.add(key)
                source = max((c.source for c in found), key=SOURCE_BONUS.__getitem__)
                bonus = SOURCE_BONUS[source]
                bonus += SAME_RELATION_BONUS if q.relation in relations else 0.0
                bonus += SAME_DOMAIN_BONUS if q.domain and found[0].domain == q.domain else 0.0
                scored.append([to_gold + bonus, cand, source, to_gold])
            if reason:
                rejected[reason] = rejected.get(reason, 0) + 1
        if len(scored) < OPTIONS - 1:
            return Selection(None, f"too_few_distractors:{len(scored)}", rejected)
        # Greedy spread over the best GREEDY_POOL by score (ties to the smaller string): each pick
        # lowers the candidates that share its frequency bin or its source.
        scored.sort(key=lambda e: (-e[0], e[1]))
        pool = [(e[0], e[1], e[2], e[3], self._bin(e[1])) for e in scored[:GREEDY_POOL]]
        chosen: list[tuple[str, str, float]] = []
        used_bins: dict[int, int] = {}
        used_sources: dict[str, int] = {}
        taken = [False] * len(pool)
        for _ in range(OPTIONS - 1):
            best, best_score = -1, -math.inf
            for i, (score, _, source, _, bin_) in enumerate(pool):
                if taken[i]:
                    continue
                adjusted = score - s.spread_penalty * (used_bins.get(bin_, 0) + used_sources.get(source, 0))
                if adjusted > best_score:
                    best, best_score = i, adjusted
            taken[best] = True
            _, cand, source, similarity, bin_ = pool[best]
            chosen.append((cand, source, similarity))
            used_bins[bin_] = used_bins.get(bin_, 0) + 1
            used_sources[source] = used_sources.get(source, 0) + 1
        return Selection(shuffle_options(q.item, q.gold, chosen, s.seed), "", rejected)

    def _bin(self, value: str) -> int:
        return int(math.log2(max(self.frequency.get(value, 1), 1)))
