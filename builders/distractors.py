"""Nine distractors per multiple-choice item, following the CDTP construction (paper, Appendix C.2).

For each item (a triple, and which end of it is asked) the candidate pool comes from the
knowledge graph of everything the crawl states (:mod:`builders.graph`: neighbours, values of
the gold's type in a similar frequency bin, values of the relation, other senses). A
candidate must:

1. be wrong: never a value that is true for the entity, as the graph's :meth:`truth` gives
   it (every value its pages give for the relation, kept or dropped, in every sense, every
   name of the entity and of the gold, what contains the gold or is part of it), nor the gold
   written another way (simplified or traditional, with or without 《》, another date
   notation, an approximate marker: one value key), nor a value holding the gold or held by
   it (春秋 for 春秋时期) or naming an era that overlaps the gold's (元末明初 for 明代, 汉代 for 东汉末年:
   :mod:`builders.eras`), nor a value the pair's own text as crawled states for the relation, the entity's
   pages state or list with a right answer, or another site states (checked on the candidates chosen:
   :mod:`builders.page_truth`, verifiers.web_facts), nor one of a right answer's value family
   (:mod:`builders.families`: 文学家 for 诗人), nor a value most entities of a class or multi-valued relation
   have (家常菜), nor the gold with one character read alike (北卡罗来纳大学 for 北卡罗莱纳大学) or written with more or
   fewer of the regions that hold it (山东省枣庄市滕州市 for 山东省滕州市), nor a piece of a sentence (《又称蒋琬》);
2. be of the gold's type (:mod:`builders.types`: format, entity type, or relation family;
   an untyped candidate is never used for a typed gold);
3. differ from every other option after normalisation, and be none of its other names (史学家 and 历史学家) nor
   its place written with more or fewer regions;
4. pass the semantic-feasibility filter: embedding similarity to the gold below
   ``synonym_max`` (else it is a near-synonym, a second right answer) and similarity
   to the question at least ``context_min`` (else it is unrelated; about 0.2 with a
   Chinese sentence model, 0 with character n-grams, which measure shared characters).

Survivors are scored for confusability (similarity to the gold) plus a bonus for the
sources that make hard distractors (graph neighbours, other senses), for values of the same
relation elsewhere (the closest kind) and for the same domain; nine are then picked greedily,
each pick lowering the score of candidates in an already used frequency bin and source, so
sets are spread over frequency and subdomain.
An item without nine acceptable candidates is dropped with a reason, never padded.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

import numpy as np

from builders.eras import eras_overlap
from builders.families import Families
from builders.formats import fragment
from builders.graph import Candidate, Query
from builders.places import last_region
from builders.types import ValueTyper
from filters.embeddings import Embedder
from filters.normalize import value_key

OPTIONS = 10
SOURCE_BONUS = {"neighbour": 0.15, "polysemy": 0.15, "same_type": 0.05, "same_relation": 0.1}
SAME_DOMAIN_BONUS = 0.1
SAME_RELATION_BONUS = 0.2  # the candidate answers the same relation elsewhere: the closest kind there is
GREEDY_POOL = 40
PICK_TEXTS = 4096  # texts embedded at once by pick_many (a group of items stops at the first item past it)


@dataclass
class Choice:
    """The ten options of an item, shuffled, with where each distractor came from."""

    options: list[str]
    answer_index: int
    sources: list[str]  # per option: gold | neighbour | same_type | same_relation | polysemy
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


def overlaps_gold(value: str, key: str, gold: str, gold_keys: Iterable[str]) -> bool:
    """Whether ``value`` (its value key ``key``) is the gold at another granularity, a right answer in other
    words: it holds one of ``gold_keys`` or is held by one (春秋 for 春秋时期, 清朝末年 for 清朝), or it names
    an era that overlaps the gold's (元末明初 for 明代: :mod:`builders.eras`)."""
    return any(key in w or w in key for w in gold_keys if key and w) or eras_overlap(gold, value)


_RANKS = ("亚界", "亚门", "亚纲", "亚目", "亚科", "亚属", "亚种", "界", "门", "纲", "目", "科", "属", "种", "组", "族")


def _rank(value: str) -> str:
    """The taxonomic rank a value or a relation ends with (亚属 of 柑橘亚属, 科 of the relation 科), or ""."""
    return next((r for r in _RANKS if value.strip().endswith(r)), "")


def spelled_alike(a: str, b: str) -> bool:
    """Whether two names of five or more characters differ by one Chinese character read alike (莱 and 来 of 北卡罗
    莱纳大学 and 北卡罗来纳大学: a transliteration written two ways, one name)."""
    if len(a) != len(b) or len(a) < 5 or a == b:
        return False
    diffs = [(x, y) for x, y in zip(a, b) if x != y]
    if len(diffs) != 1 or not all("\u4e00" <= ch <= "\u9fff" for ch in diffs[0]):
        return False
    from pypinyin import lazy_pinyin

    return lazy_pinyin(diffs[0][0]) == lazy_pinyin(diffs[0][1])


def shuffle_options(item_id: str, gold: str, distractors: list[tuple[str, str, float]], seed: int) -> Choice:
    """The gold and nine distractors in a seeded permutation of the item id."""
    entries = [(gold, "gold", 1.0), *distractors]
    order = list(range(len(entries)))
    random.Random(f"{seed}:{item_id}").shuffle(order)
    shuffled = [entries[i] for i in order]
    return Choice(options=[e[0] for e in shuffled], answer_index=order.index(0),
                  sources=[e[1] for e in shuffled], similarity=[round(float(e[2]), 6) for e in shuffled])


class DistractorPicker:
    """Choose nine distractors per item from graph candidate pools; see the module docstring.

    typer: types the gold and the candidates; frequency: corpus frequency of a node, for the spread
    over frequency bins, where its candidate does not carry one (Graph.candidates gives each its own)."""

    def __init__(self, embedder: Embedder, typer: ValueTyper, settings: DistractorSettings | None = None,
                 frequency: dict[str, int] | None = None, families: Families | None = None):
        self.embedder = embedder
        self.typer = typer
        self.families = families
        # (relation, value) that most entities with the relation have (家常菜 of a dish's 分类): true of this entity
        # as likely as not, so no wrong answer (set by the item builder for the class and multi-valued relations)
        self.broad: set[tuple[str, str]] = set()
        self.settings = settings or DistractorSettings()
        self.frequency = frequency or {}
        self._types: dict[tuple[str, str, str], object] = {}

    def _type(self, value: str, relation: str, asked: str):
        key = (value, relation, asked)
        found = self._types.get(key)
        if found is None:
            if len(self._types) > 500_000:
                self._types.clear()
            found = self._types[key] = self.typer.option_type(value, relation, asked)
        return found

    def pick_many(self, queries: list[Query], questions: dict[str, str], pools: dict[str, list[Candidate]],
                  truth: dict[str, set[str]],
                  stated: Callable[[Query, str], bool] | None = None,
                  anchors: dict[str, tuple[str, ...]] | None = None) -> dict[str, Selection]:
        """Selections per item; one embedding call for the golds, candidates and questions of a group
        of items.

        truth: item -> values that answer it rightly (Graph.truth); stated(query, value): whether the
        pair's own text states value for the query's relation (then it is a right answer too): True, or
        where else it is stated ("web": a page of the search's results), counted as ``stated_on_<where>``;
        anchors: item -> its right answers (the gold and the other values the crawl gives), whose value families
        (builders.families) no distractor may come from.

        The items are taken in groups of about ``PICK_TEXTS`` texts to embed (a batch of 2,000 triples
        of the 84k-page crawl had 36,634 candidates; a vector is 4 KB at 1,024 dimensions). An item's
        pick reads its own texts' vectors only, so the groups do not change it."""
        selections: dict[str, Selection] = {}
        group: list[Query] = []
        texts: dict[str, None] = {}
        for q in queries:
            texts[q.gold] = None
            texts[questions[q.item]] = None
            for cand in pools.get(q.item, ()):
                texts[cand.value] = None
            group.append(q)
            if len(texts) >= PICK_TEXTS:
                selections.update(self._pick_group(group, list(texts), questions, pools, truth, stated, anchors))
                group, texts = [], {}
        if group:
            selections.update(self._pick_group(group, list(texts), questions, pools, truth, stated, anchors))
        return selections

    def _pick_group(self, queries: list[Query], order: list[str], questions: dict[str, str],
                    pools: dict[str, list[Candidate]], truth: dict[str, set[str]],
                    stated: Callable[[Query, str], bool] | None,
                    anchors: dict[str, tuple[str, ...]] | None) -> dict[str, Selection]:
        vectors = self.embedder.encode(order) if order else np.zeros((0, 1), dtype=np.float32)
        index = {t: i for i, t in enumerate(order)}
        return {q.item: self._pick(q, questions[q.item], pools.get(q.item, []), truth.get(q.item, set()), stated,
                                   vectors, index, (anchors or {}).get(q.item) or (q.gold,)) for q in queries}

    def _pick(self, q: Query, question: str, pool: list[Candidate], truth: set[str],
              stated: Callable[[Query, str], bool] | None, vectors: np.ndarray, index: dict[str, int],
              anchors: tuple[str, ...] = ()) -> Selection:
        s = self.settings
        gold_type = self._type(q.gold, q.relation, q.asked)
        if q.sense_type:  # the asked head's own sense: 熊秀 the person takes persons, not the city 熊秀's kind
            gold_type = replace(gold_type, names=frozenset({q.sense_type}))
        gold_vec, question_vec = vectors[index[q.gold]], vectors[index[question]]
        gold_key, tail_key = value_key(q.gold), value_key(q.tail)
        wrong_keys = {value_key(v) for v in truth} | {gold_key, value_key(q.head), tail_key}
        seen: set[str] = set()
        gold_place, seen_places = last_region(q.gold), set()
        rejected: dict[str, int] = {}
        by_candidate: dict[str, list[Candidate]] = {}
        for candidate in pool:
            by_candidate.setdefault(candidate.value, []).append(candidate)
        names = sorted(by_candidate)
        rows = np.fromiter((index[c] for c in names), dtype=np.int64, count=len(names))
        similarity = vectors[rows] @ np.stack([gold_vec, question_vec]).T if len(rows) else np.zeros((0, 2))
        scored = []
        for cand, (to_gold, to_question) in zip(names, similarity.tolist(), strict=True):
            found = by_candidate[cand]
            key = value_key(cand)
            reason = ""
            if not key or key in wrong_keys:
                reason = "true_value"
            elif fragment(cand):
                reason = "fragment"  # 《又称蒋琬》: a piece of a sentence, no name
            elif overlaps_gold(cand, key, q.gold, (gold_key, tail_key)):
                reason = "overlaps_gold"
            elif (q.relation, cand) in self.broad:
                reason = "broad_value"
            elif q.relation in _RANKS and _rank(cand) != q.relation and _rank(q.gold) == q.relation:
                reason = "type"  # 茄亚属隐果组, a section, is no 亚属
            elif spelled_alike(cand, q.gold) or (gold_place and last_region(cand) == gold_place):
                # 北卡罗来纳大学 for 北卡罗莱纳大学: one name transliterated two ways; 山东省枣庄市滕州市 for 山东省滕州市:
                # one city
                reason = "variant_of_gold"
            elif self.families is not None and self.families.related(cand, anchors or (q.gold,), q.relation):
                reason = "family"  # 文学家 for 诗人, 思想家 for 哲学家: right too
            elif not self.typer.same_type(gold_type, self._type(cand, q.relation, q.asked), q.relation):
                reason = "type"
            elif key in seen or (self.families is not None and not self.families.names(cand).isdisjoint(seen)) or (
                    (last_region(cand) or cand) in seen_places):
                reason = "same_as_other_option"  # 史学家 beside 历史学家, 山东省滕州市 beside 山东省枣庄市滕州市
            elif to_gold >= s.synonym_max:
                reason = "near_synonym"
            elif to_question < s.context_min:
                reason = "unrelated_to_question"
            else:
                seen.add(key)
                seen_places.add(last_region(cand) or cand)
                source = max((c.source for c in found), key=SOURCE_BONUS.__getitem__)
                bonus = SOURCE_BONUS[source]
                bonus += SAME_DOMAIN_BONUS if q.domain and found[0].domain == q.domain else 0.0
                bonus += SAME_RELATION_BONUS if self.typer.is_value_of(cand, q.relation, q.asked) else 0.0
                scored.append([to_gold + bonus, cand, source, to_gold, found[0].freq])
            if reason:
                rejected[reason] = rejected.get(reason, 0) + 1
        if len(scored) < OPTIONS - 1:
            return Selection(None, f"too_few_distractors:{len(scored)}", rejected)
        # Greedy spread over the best GREEDY_POOL by score (ties to the smaller string): each pick
        # lowers the candidates that share its frequency bin or its source. A pick the pair's own
        # text states for the relation is a right answer: it is skipped and the next one taken.
        scored.sort(key=lambda e: (-e[0], e[1]))
        chosen: list[tuple[str, str, float]] = []
        used_bins: dict[int, int] = {}
        used_sources: dict[str, int] = {}
        start = 0
        while len(chosen) < OPTIONS - 1 and start < len(scored):
            pool_ = [(e[0], e[1], e[2], e[3], self._bin(e[1], e[4])) for e in scored[start:start + GREEDY_POOL]]
            taken = [False] * len(pool_)
            for _ in range(len(pool_)):
                if len(chosen) == OPTIONS - 1:
                    break
                best, best_score = -1, -math.inf
                for i, (score, _, source, _, bin_) in enumerate(pool_):
                    if taken[i]:
                        continue
                    adjusted = score - s.spread_penalty * (used_bins.get(bin_, 0) + used_sources.get(source, 0))
                    if adjusted > best_score:
                        best, best_score = i, adjusted
                taken[best] = True
                _, cand, source, similarity_, bin_ = pool_[best]
                where = stated(q, cand) if stated is not None else False
                if where:  # True: the pair's text; a string: where else (the web) it is stated
                    reason = f"stated_on_{where}" if isinstance(where, str) else "stated_in_text"
                    rejected[reason] = rejected.get(reason, 0) + 1
                    continue
                chosen.append((cand, source, similarity_))
                used_bins[bin_] = used_bins.get(bin_, 0) + 1
                used_sources[source] = used_sources.get(source, 0) + 1
            start += GREEDY_POOL
        if len(chosen) < OPTIONS - 1:
            return Selection(None, f"too_few_distractors:{len(chosen)}", rejected)
        return Selection(shuffle_options(q.item, q.gold, chosen, s.seed), "", rejected)

    def _bin(self, value: str, freq: int = 0) -> int:
        return int(math.log2(max(freq or self.frequency.get(value, 1), 1)))
