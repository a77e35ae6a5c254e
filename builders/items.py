"""Evaluation items from kept pairs: KGC and QA multiple choice, triple-to-text, cloze, SimpleQA-style.

* **kgc**: the triple with one end missing, ``（head，relation，？）`` or ``（？，relation，tail）``,
  with ten options; **qa**: the same as a question (``builders/question_templates.tsv``),
  asking the tail, one of several tails, or the head (CDTP's QA: two components given, the
  third asked). Both share one distractor selection (:mod:`builders.distractors`).
* **t2t**: the pair's kept triples (one per line, ``head｜relation｜tail``) -> its text.
* **cloze**: one sentence of the pair's text as written that states a kept triple, with its value
  blanked (ChnEval: the value occurs once in its context, a sentence is never used twice), where the blank
  takes one filler (:mod:`builders.cloze`).
* **simpleqa**: template short-answer questions, with the pair's SimpleQA topic and subtopic, only
  where one answer is right: the crawl gives one value for (title, relation) on every page and in
  every sense, no row lists several (``several_values``); the relation names a fact, not a selection
  or a judgement (``not_one_fact``, ``builders/open_relations.txt``); the answer is not the relation's
  usual value (half its titles, or its most common value at 30% of 20 or more), nor one of its few values
  (``guessable``: 国籍 中国, 界 植物界); a
  shared title or a work with versions is named with the context its sense gives
  (``ambiguous_title``, ``needs_version``), and that context does not hold the answer
  (``context_gives_answer``; a 《tune·title》 asked its genre shows it: 词); the relation is not
  multi-valued in the crawl (``multi_valued_relation``), the page's text neither hedges nor contradicts
  the value (``disputed_in_text``), the page gives no value of a relation that measures the same thing
  (``several_measures``: 篇幅 16章 beside 字数 37万字, ``measure_groups.txt``); a region is asked at its
  answer's level (哪个省 for 四川省); the answer is not approximate (``approximate_answer``: 约, 余), a range
  (``range_answer``: 1636年—1912年, whose ends sources give differently) or a genre at one grain of
  several (``several_granularities``: 长篇讽刺小说 is also a 小说); and the criteria rules pass
  (:mod:`builders.criteria`).

One question, one gold: a head with several values of a relation gets one item for it (the
first kept value is the gold, the others are never options), a value shared by several heads
gets one head-asking item, and a polysemous title carries its sense. Every item records where
it came from (pair ids, URLs) and how it was generated. Items that cannot be built properly are
written with ``decision = "dropped"`` and the reason, so the funnel can count them; releases
take the kept ones.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import math
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Iterator

from builders.baselines import BaselinePanel
from builders.cloze import (BLANK, CLASS_RELATION, HELD_RELATIONS, coarser_places, fits_another_fact, names_subject,
                            open_blank, open_choice, shorter_places, without_gloss)
from builders.criteria import check_question, is_enumeration, load_word_list
from builders.difficulty import DifficultyProxy
from builders.distractors import DistractorPicker
from builders.eras import ERA_RELATIONS, NATION_STATES_FROM, born_before, lived_in, other_forms, other_granularity
from builders.formats import fragment, value_format
from builders.graph import Graph, Query
from builders.page_truth import PageTruth, page_title
from builders.places import born_abroad, may_be_same_place, place_key, place_level
from builders.templates import Templates, fit_question_word, question_for
from builders.types import FORMAT_KINDS, ValueTyper
from filters.normalize import is_approximate, is_cjk, normalize, value_forms, value_key
from filters.statements import dispute
from filters.triples import NAME_RELATIONS
from schemas import Item, Pair, Triple
from schemas.records import Hit

# Relations a short-answer question does not ask: their value is a selection or a judgement, not one fact.
OPEN_RELATIONS = Path(__file__).with_name("open_relations.txt")
# Kinds of values that a marker such as 约 or 余 makes approximate (a text value keeps its 近 of 近代).
APPROXIMABLE = frozenset({"quantity", "number", "date", "period", "year"})
# A day of a year BC (孔子 公元前551年9月28日) is a reckoning back from another calendar, one of several.
_RECONSTRUCTED = re.compile(r"公元前\d+年\d+月")
# A range (1636年—1912年, 10~20米): two values, each of which sources may give differently (清朝's first year is
# 1616, 1636 or 1644 by what one counts). An ISO date's hyphens are not a range.
_RANGE = re.compile(r"[\d年月日]\s*(?:[—–~～至到]|--)\s*(?:公元前?)?\d")
# A genre answered with its modifiers (长篇讽刺小说) is right at several grains: 小说, 长篇小说, 讽刺小说.
GENRE_RELATIONS = frozenset({"体裁", "文学体裁", "作品体裁"})
GENRE_MAX_CHARS = 3
# Relations that measure one thing (篇幅 and 字数): a short answer of one is answered by another's value too.
MEASURE_GROUPS = Path(__file__).with_name("measure_groups.txt")
# A short-answer question asking a region (「…归哪个地区管辖？」) names the level of its answer.
_LEVEL_WORDS = {"province": "哪个省", "city": "哪个市", "county": "哪个县", "township": "哪个乡镇"}
# Words with which a text says a fact is not settled (一般认为, 相传): its value is not one objective answer.
HEDGE_WORDS = Path(__file__).with_name("hedge_words.txt")
SENSE_DESCRIPTOR_CHARS = 16  # the longest sense put before a title to say which one is meant
# One fact is asked by one question: where a fact could be asked in several configs, the first of these
# keeps it (short-answer questions pass stricter criteria than multiple choice, and are scarcer).
FACT_OWNERS = ("simpleqa", "qa")
# Relations whose values are names of the entity itself: as questions they have many right answers.
NO_MCQ_RELATIONS = frozenset({"中文名"})
# One triple in HEAD_SHARE, chosen by hash, is asked by its head where the relation allows it.
HEAD_SHARE = 3
_SENTENCE = re.compile(r"(?<=[。！？；!?;])")


def item_id(kind: str, *parts: str) -> str:
    return hashlib.sha256("\x1f".join((kind, *parts)).encode("utf-8")).hexdigest()[:16]


def length_bin(text: str) -> str:
    n = len(text)
    return "short" if n < 80 else "medium" if n < 200 else "long"


def sentences(text: str) -> list[str]:
    """The text's sentences, each with its closing mark."""
    return [s for s in (part.strip() for part in _SENTENCE.split(text)) if s]


@dataclass
class ItemSettings:
    kinds: tuple[str, ...] = ("kgc", "qa", "t2t", "cloze", "simpleqa")
    max_answer_chars: int = 20
    batch_size: int = 2_000
    embedder_name: str = ""
    cloze_max_chars: int = 128


@dataclass
class BuildStats:
    built: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)  # "kind:reason" -> count
    rejected_candidates: Counter = field(default_factory=Counter)
    gold_position: Counter = field(default_factory=Counter)
    distractor_sources: Counter = field(default_factory=Counter)
    similarity_bins: Counter = field(default_factory=Counter)  # distractor-to-gold similarity, 0.1 wide
    asked: Counter = field(default_factory=Counter)  # which end of the triple KGC items ask

    def as_dict(self) -> dict:
        sources = sum(self.distractor_sources.values())
        candidates = self.built["kgc"] + sum(v for k, v in self.dropped.items()
                                             if k.startswith("kgc:too_few_distractors"))
        return {
            "items_kept": dict(sorted(self.built.items())),
            "items_dropped": dict(sorted(self.dropped.items())),
            "rejected_candidates": dict(sorted(self.rejected_candidates.items())),
            "gold_position": {str(k): self.gold_position[k] for k in range(10)},
            "distractor_sources": dict(sorted(self.distractor_sources.items())),
            "distractor_source_share": {k: round(v / sources, 4) for k, v in sorted(self.distractor_sources.items())}
            if sources else {},
            "distractor_similarity": {f"{k / 10:.1f}-{(k + 1) / 10:.1f}": v
                                      for k, v in sorted(self.similarity_bins.items())},
            "mcq_candidates": candidates,
            "mcq_with_nine_distractors": round(self.built["kgc"] / candidates, 4) if candidates else None,
            "asked": dict(sorted(self.asked.items())),
        }

    def counters(self) -> dict[str, dict]:
        """The counts as JSON can carry them (another process's part of the build: :meth:`add`)."""
        return {name: dict(getattr(self, name)) for name in self.__dataclass_fields__}

    def add(self, counters: dict[str, dict]) -> None:
        """Counts of another part of the build (:meth:`counters`), added to these."""
        for name, counts in counters.items():
            whole = name in ("gold_position", "similarity_bins")  # their keys are numbers
            getattr(self, name).update({int(k) if whole else k: v for k, v in counts.items()})


def batches(pairs: Iterable[Pair], batch_size: int) -> Iterator[list[Pair]]:
    """The kept pairs in the batches :meth:`ItemBuilder.build` takes them in: each up to the first pair that
    brings its triples to ``batch_size``."""
    batch: list[Pair] = []
    triples = 0
    for pair in pairs:
        if pair.decision != "kept":
            continue
        batch.append(pair)
        triples += len(pair.triples)
        if triples >= batch_size:
            yield batch
            batch, triples = [], 0
    if batch:
        yield batch


@dataclass
class _Ask:
    """One multiple-choice question to build: a triple, the end asked, and its pair."""

    pair: Pair
    triple: Triple
    asked: str  # tail | any | head
    query: Query


class ItemBuilder:
    """Items from kept pairs. ``stated(pair, relation, value)`` says whether the pair's text states
    value for the relation (the grounding rule), so such a value is never a distractor and the
    cloze blank sits where the fact is stated. ``elsewhere(pair, relation, value)``, when given,
    says whether another page states it for the entity (verifiers.web_facts): never a distractor
    either."""

    def __init__(self, graph: Graph, picker: DistractorPicker, templates: Templates,
                 relation_counts: dict[str, int], typer: ValueTyper, stated: Callable[[Pair, str, str], bool],
                 settings: ItemSettings | None = None, llm=None, polysemous: Iterable[str] = (),
                 difficulty: DifficultyProxy | None = None,
                 elsewhere: Callable[[Pair, str, str], bool] | None = None, baselines: BaselinePanel | None = None,
                 pages: PageTruth | None = None):
        """``polysemous``: titles several pages share; ``difficulty``: the offline difficulty proxy
        stored on each item (none: the column stays empty); ``baselines``: the offline panel whose solvers each
        item's provenance names (``easy_by``); ``pages``: what the entities' own pages say, whole
        (builders.page_truth: none, the pair's text as crawled alone)."""
        self.graph, self.picker, self.templates = graph, picker, templates
        self.relation_counts = relation_counts
        self.typer, self.stated, self.elsewhere = typer, stated, elsewhere
        self.pages = pages
        self.settings = settings or ItemSettings()
        self.polysemous = set(polysemous)
        self.adapted = graph.adapted()
        self.guessable = graph.majority_values()
        self.multi_valued = graph.multi_valued()
        picker.broad = {(r, v) for r, v in self.guessable if r in self.multi_valued or CLASS_RELATION.search(r)}
        self.difficulty = difficulty
        self.baselines = baselines
        self.stats = BuildStats()
        self.llm = llm
        self.rewriter = self.writer = None
        self._head_asked: set[tuple[str, str]] = set()  # (relation, value key) already asked by its head
        self.cloze_sentences: dict[str, str] = {}  # the value key of a sentence a cloze item uses -> the item
        if llm is not None:
            from builders.llm_items import QuestionRewriter, SimpleQAWriter

            self.rewriter = QuestionRewriter(llm, self.settings.max_answer_chars)
            self.writer = SimpleQAWriter(llm, self.settings.max_answer_chars)

    def _easy_by(self, pair: Pair, relation: str, answer: str, type_key: str = "", asked: str = "tail",
                  given: str = "", options=()) -> list[str]:
        """The offline baselines that answer the item (builders.baselines), [] without a panel."""
        if self.baselines is None:
            return []
        if not type_key and asked != "head":
            type_key = self.typer.value_type(answer, relation).key()
        return self.baselines.solved_by(pair.entity, relation, answer, type_key, asked, given, options)

    def _provenance(self, generator: str, **extra) -> str:
        # Which checks verified the item is its verified_by column (set by the verifiers and by review), not a
        # copy here that would go stale.
        record = {"generator": generator, "embedder": self.settings.embedder_name, **extra}
        return json.dumps(record, ensure_ascii=False, sort_keys=True)

    @staticmethod
    def _shown(pair: Pair) -> str:
        """The entity as its text writes it: a work titled in 《》 (《宿北永阁》创作于什么年代？)."""
        titled = f"《{pair.entity}》"
        return titled if not pair.entity.startswith("《") and titled in pair.text else pair.entity

    def _sense(self, pair: Pair) -> str:
        """The sense shown in a question: only for a title that several pages share."""
        return pair.sense or "" if pair.entity in self.polysemous else ""

    def _stratum(self, pair: Pair, relation: str) -> str:
        """domain | entity type | relation frequency bin | text length bin (CDTP §4.1's strata)."""
        support = self.relation_counts.get(relation, 1)
        head = self.typer.head_type(pair.entity)
        kind = "/".join(sorted(head.names)) if head.kind == "entity" else "untyped"
        return f"{pair.domain}|{kind}|r{int(math.log2(max(support, 1)))}|{length_bin(pair.text)}"

    def _base(self, kind: str, pair: Pair, relation: str, answer: str, answer_kind: str, asked: str = "tail",
              tail: str = "") -> dict:
        return dict(item_id=item_id(kind, pair.pair_id, relation, tail or answer, asked), kind=kind, answer=answer,
                    source_pair_ids=[pair.pair_id], domain=pair.domain, head=pair.entity, sense=pair.sense,
                    relation=relation, answer_kind=answer_kind, primary_category=pair.topic,
                    secondary_category=pair.subtopic, urls=[pair.url] if pair.url else [],
                    stratum=self._stratum(pair, relation), asked=asked, tail=tail,
                    difficulty=self.difficulty.score(pair.entity, pair.sense or "", relation)
                    if self.difficulty is not None else None)

    def build(self, pairs: Iterable[Pair], first: int = 0, stop: int | None = None) -> Iterator[Item]:
        """Items for kept pairs, a batch of pairs at a time (one graph query and one embedding call each).

        ``first`` and ``stop``: build only batches ``first`` to ``stop`` (one part of a build split between
        processes: flows/item_parts.py). The batches before are read for what they decide for later ones
        (which values their heads asked), without building them; a cloze sentence an earlier part used is
        for the caller to find (:attr:`cloze_sentences`)."""
        for number, batch in enumerate(batches(pairs, self.settings.batch_size)):
            if stop is not None and number >= stop:
                return
            if number < first:
                if {"kgc", "qa"} & set(self.settings.kinds):
                    for pair in batch:
                        for _ in self._asks(pair, replay=True):
                            pass
                continue
            yield from self._build_batch(batch)

    # --- multiple choice -----------------------------------------------------------------------

    def _asks(self, pair: Pair, replay: bool = False) -> Iterator[_Ask]:
        """The multiple-choice questions of a pair: per relation, one question for its tail (one of
        several when the page gives several), and head questions for some triples whose relation
        has head templates and whose value is an entity, each (relation, value) asked once.
        ``replay``: only remember the values asked by their head, and yield nothing."""
        values: dict[str, int] = Counter(t.relation for t in pair.triples if t.tail)
        by_relation: dict[str, list[Triple]] = defaultdict(list)
        held = load_word_list(HELD_RELATIONS)
        for t in pair.kept_triples():
            if t.relation in NO_MCQ_RELATIONS or fragment(t.tail):
                continue
            if t.relation in held:  # the value changes hands: another option may be right at another time
                if not replay:
                    self.stats.dropped["kgc:held_relation"] += 1
                continue
            if open_choice(t.relation):  # an open description or list: an option is right as often as not
                if not replay:
                    self.stats.dropped["kgc:open_choice_relation"] += 1
                continue
            key = (t.relation, value_key(t.tail))
            if (self.templates.has(t.relation, "head") and key not in self._head_asked
                    and value_format(t.tail, t.relation).kind not in FORMAT_KINDS
                    and int(hashlib.md5(f"{pair.entity}|{pair.sense}|{t.relation}|{t.tail}".encode()).hexdigest(), 16)
                    % HEAD_SHARE == 0):  # by the fact, not the URL: the same fact is asked the same way anywhere
                self._head_asked.add(key)
                if not replay:
                    yield self._ask(pair, t, "head")
            else:
                by_relation[t.relation].append(t)
        if replay:
            return
        for relation, triples in by_relation.items():
            yield self._ask(pair, triples[0], "any" if values[relation] > 1 else "tail")

    def _ask(self, pair: Pair, t: Triple, asked: str) -> _Ask:
        end = "head" if asked == "head" else "tail"
        gold = pair.entity if end == "head" else t.tail
        gold_type = self.typer.answer_type(gold, t.relation, end)
        sense_type = ""
        if end == "head" and gold_type.kind == "entity" and len(gold_type.names) > 1:
            # a title of several types (熊秀: a person, and a city): the options are of its own page's
            sense_type = self.typer.table.page_type({x.relation for x in pair.triples}) or ""
            if sense_type in gold_type.names:
                gold_type = replace(gold_type, names=frozenset({sense_type}))
            else:
                sense_type = ""
        query = Query(item_id("mcq", pair.pair_id, t.relation, t.tail, end), pair.entity, pair.sense or "",
                      t.relation, gold, pair.domain, end, t.tail, gold_type.key(), sense_type)
        return _Ask(pair, t, asked, query)

    def _questions(self, ask: _Ask) -> tuple[str, str]:
        """(KGC question, QA question) of one ask. A sense that holds the answer (林则徐's 清朝后期政治家 for
        所处时代) is left out: the options exclude every sense's values, and a question text another
        sense shares with another gold is dropped later (flows.items.question_conflicts)."""
        pair, t, q = ask.pair, ask.triple, ask.query
        sense = self._sense(pair)
        if sense and holds(sense, q.gold):
            sense = ""
        shown = self._shown(pair)
        head = f"{shown}（{sense}）" if sense else shown
        kind = self.typer.answer_kind(q.gold, t.relation, "head" if ask.asked == "head" else "tail")
        if ask.asked == "head":
            return (f"（？，{t.relation}，{t.tail}）", fit_question_word(
                self.templates.question(t.relation, "head", tail=t.tail, pick=q.item) or "", kind))
        return (f"（{head}，{t.relation}，？）", fit_question_word(
            self.templates.question(t.relation, ask.asked, head=shown, sense=sense, pick=q.item) or "", kind))

    def _mcq(self, pairs: list[Pair]) -> Iterator[Item]:
        kinds = set(self.settings.kinds)
        asks = [a for pair in pairs for a in self._asks(pair)]
        if not asks:
            return
        questions = {a.query.item: self._questions(a) for a in asks}
        plain = [a.query for a in asks]
        pools = self.graph.candidates(plain, self.picker.settings.per_source)
        truth = self.graph.truth(plain, among=pools)
        pair_of = {a.query.item: a.pair for a in asks}
        if self.elsewhere is not None and hasattr(self.elsewhere, "prefetch"):  # one cache read for the batch
            self.elsewhere.prefetch((a.pair.entity, a.query.relation) for a in asks if a.query.asked == "tail")
        # every value the crawl gives the entity for the relation (any page, any sense): right answers, whose families
        # no distractor comes from, and beside which a page's list names more right answers
        # and, where a place is given and the head asked, each candidate's own values (builders.places.place_key)
        known = self.graph.relation_values([
            *((a.pair.entity, a.query.relation) for a in asks if a.query.asked == "tail"),
            *((c.value, a.query.relation) for a in asks if a.query.asked == "head" and place_key(a.query.tail)
              for c in pools.get(a.query.item, ()))])
        anchors = {a.query.item: (a.query.gold, *dict.fromkeys(
            tail for _, tail, _ in known.get((a.pair.entity, a.query.relation), ()) if tail != a.query.gold))
            for a in asks if a.query.asked == "tail"}
        if self.pages is not None:
            self.pages.prefetch([*(a.pair.entity for a in asks),
                                 *(page_title(a.query.tail) for a in asks if a.query.asked == "head")])
        # the other right answers of each question (its also_true): the entity's other values for the relation in
        # the sense asked, the other entities with the value, and each candidate its pages list with a right answer
        also: dict[str, dict[str, str]] = defaultdict(dict)
        heads = self.graph.heads_with((a.query.relation, a.query.tail) for a in asks if a.query.asked == "head")
        for a in asks:
            q = a.query
            found = heads.get((q.relation, q.tail), ()) if q.asked == "head" else (
                tail for sense, tail, _ in known.get((a.pair.entity, q.relation), ()) if sense == (a.pair.sense or ""))
            for value in found:
                also[q.item].setdefault(value_key(value), value)

        def stated(q: Query, value: str) -> bool | str:
            where = _stated(q, value)
            if where == "page_list":  # listed with a right answer: right itself. A value the grounding rule finds
                # stated is never offered, but is no claim to ship (月球's page gives 地球's radius beside its own)
                also[q.item].setdefault(value_key(value), value)
            return where

        def _stated(q: Query, value: str) -> bool | str:
            """Whether a candidate is a right answer by what the sources say (True: the pair's text as crawled; a
            string: where else, counted as stated_on_<where>)."""
            if q.asked != "tail":
                if any(may_be_same_place(tail, q.tail) for _, tail, _ in known.get((value, q.relation), ())):
                    return "same_place"  # born in 美国纽约布鲁克林 is born in 美国纽约市布鲁克林区
                names = self.picker.families.names(q.tail) if self.picker.families is not None else ()
                return (self.pages.gives_head(value, q.relation, q.tail, q.gold, names) or False) if self.pages \
                    else False
            pair = pair_of[q.item]
            if self.stated(_as_crawled(pair), q.relation, value):  # never the cut text: what the cut took out is said
                return True
            if self.pages is not None:
                where = self.pages.states(pair.entity, pair.aliases, q.relation, value, anchors[q.item])
                if where:
                    return where
            if q.relation in ERA_RELATIONS and lived_in(pair.triples, value, self.graph,
                                                        self.pages.text(pair.entity) if self.pages else ""):
                return "life_years"  # born under one era, died under the next: both are right
            return "web" if self.elsewhere is not None and self.elsewhere(pair, q.relation, value,
                                                                          anchors[q.item]) else False

        selections = self.picker.pick_many(plain, {k: v[1] for k, v in questions.items()}, pools, truth, stated,
                                           anchors)
        rewrites: dict[str, str] = {}
        if self.rewriter is not None and "qa" in kinds:
            wanted = [a for a in asks if selections[a.query.item].choice is not None and a.asked != "head"]
            new = self.rewriter.rewrite([(questions[a.query.item][1], a.pair.entity, a.query.relation, a.query.gold,
                                          [a.pair.entity, *a.pair.aliases]) for a in wanted])
            rewrites = {a.query.item: text for a, text in zip(wanted, new, strict=True) if text}
        for ask in asks:
            q, pair = ask.query, ask.pair
            selection = selections[q.item]
            answer_kind = value_format(q.gold, q.relation).kind if q.asked == "tail" else "entity"
            gives_away = self._gives_away(ask, questions[q.item][1])
            for kind, question in zip(("kgc", "qa"), questions[q.item], strict=True):
                if kind not in kinds:
                    continue
                base = self._base(kind, pair, q.relation, q.gold, answer_kind, ask.asked, q.tail)
                reason = "answer_in_question" if gives_away else selection.reason
                if reason or selection.choice is None:
                    self.stats.dropped[f"{kind}:{reason.split(':')[0]}"] += 1
                    yield Item(question=question, decision="dropped", reason=reason,
                               provenance=self._provenance("template"), **base)
                    continue
                choice = selection.choice
                self.stats.built[kind] += 1
                easy = self._easy_by(pair, q.relation, q.gold, q.type_key, q.asked,
                                     q.tail if q.asked == "head" else "", choice.options)
                provenance = self._provenance("template", easy_by=easy)
                if kind == "qa" and q.item in rewrites:
                    question = rewrites[q.item]
                    provenance = self._provenance("template+llm_rewrite", llm=self.llm.settings.model,
                                                  template_question=questions[q.item][1], easy_by=easy)
                if kind == "kgc":
                    self.stats.asked[ask.asked] += 1
                    self.stats.gold_position[choice.answer_index] += 1
                    self.stats.rejected_candidates.update(selection.rejected)
                    for source, sim in zip(choice.sources, choice.similarity):
                        if source != "gold":
                            self.stats.distractor_sources[source] += 1
                            self.stats.similarity_bins[min(int(max(sim, 0.0) * 10), 9)] += 1
                gold_key = value_key(q.gold)
                yield Item(question=question, options=choice.options, answer_index=choice.answer_index,
                           option_sources=choice.sources, option_similarity=choice.similarity,
                           provenance=provenance,
                           also_true=sorted(v for k, v in also[q.item].items() if k and k != gold_key), **base)

    @staticmethod
    def _gives_away(ask: _Ask, question: str) -> bool:
        """The question holds the gold, or a head-asking question's value holds the head (郑和 for 郑和下西洋)."""
        if holds(question, ask.query.gold) or (ask.asked != "head"
                                                 and names_taxon(ask.query.head, question, ask.query.gold)):
            return True
        gold = value_key(ask.query.gold)
        return ask.asked == "head" and bool(value_key(ask.triple.tail)) and (
            value_key(ask.triple.tail) in gold or gold in value_key(ask.triple.tail))

    # --- the other kinds ------------------------------------------------------------------------

    def _build_batch(self, pairs: list[Pair]) -> Iterator[Item]:
        kinds = set(self.settings.kinds)
        if kinds & {"kgc", "qa"}:
            yield from self._mcq(pairs)
        written = self.writer.write(pairs) if self.writer is not None and "simpleqa" in kinds else None
        values = self.graph.relation_values((p.entity, t.relation) for p in pairs for t in p.kept_triples()) \
            if ("simpleqa" in kinds and written is None) or "cloze" in kinds else {}
        for index, pair in enumerate(pairs):
            if "t2t" in kinds:
                yield from self._t2t(pair)
            if "cloze" in kinds:
                yield from self._cloze(pair, values)
            if "simpleqa" in kinds:
                yield from (self._simpleqa(pair, values) if written is None
                            else self._simpleqa_written(pair, written[index]))

    def _t2t(self, pair: Pair) -> Iterator[Item]:
        triples = pair.kept_triples()
        if not triples:
            return
        question = "\n".join(f"{t.head}｜{t.relation}｜{t.tail}" for t in triples)
        base = self._base("t2t", pair, "", pair.text, "text", "")
        base["item_id"] = item_id("t2t", pair.pair_id)
        self.stats.built["t2t"] += 1
        yield Item(question=question, provenance=self._provenance("triples"), **base)

    def _cloze(self, pair: Pair, values: dict[tuple[str, str], list[tuple[str, str, str]]] | None = None
               ) -> Iterator[Item]:
        """At most one item per sentence: the sentence that states a kept triple, its value blanked.

        The value must occur once in the sentence, the sentence must name the entity outside the
        blank and keep enough context, be at most ``cloze_max_chars`` long, and not have been used
        by another item (sentences repeat across near-identical pages). Of several triples a
        sentence states, the one of the most frequent relation is blanked, never an era that another
        name fits as well (:func:`builders.eras.other_granularity`: 北宋 and 宋朝)."""
        # the entity by its title or a Chinese name: 「外文名为Cai Jianshou，＿＿＿出生」 says whose birth it is
        # to no one who does not already know the foreign name
        names = [n for n in (pair.entity, *pair.aliases) if n and any(is_cjk(ch) for ch in n)]
        by_sentence: dict[str, list[Triple]] = defaultdict(list)
        open_ = [t for t in pair.kept_triples() if t.relation not in NAME_RELATIONS and len(t.tail) >= 2]
        # Sentences outside, triples inside: each sentence is normalised and segmented once; a triple
        # goes to the first sentence that states it.
        for sentence in sentences(pair.source_text or pair.text):  # as written: a cut sentence may read broken
            probe = _sentence_pair(pair, sentence)
            for t in [t for t in open_ if sentence.count(t.tail) == 1 and self.stated(probe, t.relation, t.tail)]:
                by_sentence[sentence].append(t)
                open_.remove(t)
        self.stats.dropped["cloze:no_sentence_states_it"] += len(open_)
        for sentence, triples in by_sentence.items():
            triples.sort(key=lambda t: (-self.relation_counts.get(t.relation, 0), t.relation, t.tail))
            # A blank with another filler has two right answers to a blank scored by match: an era another name
            # fits as well (北宋 or 宋朝 before 开国皇帝), a member of a list, an open slot. The sentence's next
            # triple is blanked instead, if it has one.
            open_ = [self._other_filler(pair, sentence, t, values or {}) for t in triples]
            answerable = [t for t, why in zip(triples, open_) if not why]
            self.stats.dropped["cloze:sentence_has_another_item"] += len(triples) - 1
            if not answerable:
                self.stats.dropped[f"cloze:{open_[0]}"] += 1
                continue
            t = answerable[0]
            masked = without_gloss(sentence.replace(t.tail, BLANK))
            reason = ""
            if not names_subject(masked, names):
                reason = "entity_not_named_outside_blank"
            elif len(masked) - len(BLANK) < 2 * len(t.tail) + 10:
                reason = "too_little_context"
            elif len(masked) > self.settings.cloze_max_chars:
                reason = "sentence_too_long"
            elif value_key(sentence) in self.cloze_sentences:
                reason = "sentence_used_by_another_item"
            if reason:
                self.stats.dropped[f"cloze:{reason}"] += 1
                continue
            base = self._base("cloze", pair, t.relation, t.tail, value_format(t.tail, t.relation).kind)
            self.cloze_sentences[value_key(sentence)] = base["item_id"]
            self.stats.built["cloze"] += 1
            yield Item(question=masked, provenance=self._provenance(
                "text", easy_by=self._easy_by(pair, t.relation, t.tail)),
                also_true=[*other_forms(t.tail), *coarser_places(t.tail, t.relation, self.graph, self.typer.levels)],
                **base)

    def _other_filler(self, pair: Pair, sentence: str, t: Triple,
                      values: dict[tuple[str, str], list[tuple[str, str, str]]]) -> str:
        """Why the blank of ``t``'s value in the sentence takes another filler, or "" (builders.cloze)."""
        if other_granularity(t.tail):
            return "era_at_another_granularity_fits"
        if t.relation in self.multi_valued or several_values(values.get((pair.entity, t.relation), [])):
            return "open_blank"
        masked = sentence.replace(t.tail, BLANK)
        return open_blank(masked, t.relation) or (
            "blank_fits_another_fact" if fits_another_fact(pair, masked, t.relation) else "")

    def _simpleqa(self, pair: Pair, values: dict[tuple[str, str], list[tuple[str, str, str]]]) -> Iterator[Item]:
        """Template short-answer questions: one per relation of the pair whose value is the only one the
        crawl gives for (title, relation), in any sense and on any page, about a subject a reader can
        identify (:meth:`_subject`), passing the criteria rules."""
        seen: set[str] = set()
        for t in pair.kept_triples():
            if t.relation in NAME_RELATIONS or t.relation in seen:
                continue
            seen.add(t.relation)
            base = self._base("simpleqa", pair, t.relation, t.tail, value_format(t.tail, t.relation).kind)
            failed = []
            if open_relation(t.relation):
                failed.append("not_one_fact")
            elif t.relation not in self.templates:
                self.stats.dropped["simpleqa:no_question_template"] += 1
                continue
            if (t.relation, t.tail) in self.guessable:
                failed.append("guessable")  # 国籍 中国: the relation's usual value, right without knowing the entity
            if several_values(values.get((pair.entity, t.relation), [(pair.sense or "", t.tail, t.raw_value)])):
                failed.append("several_values")  # one short answer cannot be right
            elif t.relation in self.multi_valued:
                failed.append("multi_valued_relation")  # 职业: the one value this crawl gives is not the only one
            elif text_disputes(pair, t.relation, t.tail):
                failed.append("disputed_in_text")  # the infobox says one year, the page's own text another
            if base["answer_kind"] in APPROXIMABLE and (is_approximate(t.tail) or _RECONSTRUCTED.search(t.tail)):
                # 约33.76万平方千米: sources round it each their own way; 约公元前1046年: the date is not known
                failed.append("approximate_answer")
            if _RANGE.search(t.tail):
                failed.append("range_answer")
            if fragment(t.tail):
                failed.append("fragment_answer")  # 《又称蒋琬》: a piece of a sentence, no name
            if t.relation == "国籍" and born_before(pair.triples, NATION_STATES_FROM):
                failed.append("nationality_before_nation_states")
            elif t.relation == "国籍" and born_abroad(pair.triples):
                failed.append("born_in_another_country")  # 居里夫人: 法国, and 波兰
            if t.relation in GENRE_RELATIONS:
                if len(t.tail.strip()) > GENRE_MAX_CHARS:
                    failed.append("several_granularities")
                elif "·" in pair.entity:
                    failed.append("context_gives_answer")  # 《水调歌头·明月几时有》: a tune and a title make a 词
            subject = self._subject(pair)
            if subject is None:
                failed.append("ambiguous_title" if pair.entity in self.polysemous else "needs_version")
            elif subject != self._shown(pair) and _shares_two_chars(subject.replace(pair.entity, ""), t.tail):
                failed.append("context_gives_answer")  # 安神类矿物中药朱砂属于哪一类？安神药
            asked = at_level(question_for(subject or self._shown(pair), t.relation, self.templates,
                                          pick=base["item_id"]), t.tail)
            question = in_its_unit(asked, t.relation, t.tail)
            other = other_measure(pair, t)
            if other and (question == asked or other.strip()[-1:] == t.tail.strip()[-1:]):
                failed.append("several_measures")  # 篇幅 16章, and 字数 37万字: 「篇幅有多长？」 takes both
            failed += check_question(question, t.tail, t.relation, self.settings.max_answer_chars)
            if "answer_in_question" not in failed and names_taxon(pair.entity, question, t.tail):
                failed.append("answer_in_question")
            if failed:
                for reason in failed:
                    self.stats.dropped[f"simpleqa:{reason}"] += 1
                yield Item(question=question, decision="dropped", reason=",".join(failed),
                           provenance=self._provenance("template"), **base)
                continue
            self.stats.built["simpleqa"] += 1
            yield Item(question=question, provenance=self._provenance(
                "template", easy_by=self._easy_by(pair, t.relation, t.tail)),
                also_true=[*other_forms(t.tail), *shorter_places(t.tail, t.relation, self.typer.levels)], **base)

    def _subject(self, pair: Pair) -> str | None:
        """How a short-answer question names the entity so that one thing is meant, or None.

        A title that several pages share (天池 in 长白山 and in 天山), and a work that has versions or
        adaptations (三国演义, the novel and the 1994 series), need the context their sense gives:
        a name the page itself uses that puts a prefix of the sense before the title (长白山天池), else
        a short sense as a descriptor (1994年央视电视剧《三国演义》). Without one there is no question."""
        shown = self._shown(pair)
        work = shown.startswith("《") or bool({"work", "film"} & set(self.typer.head_type(pair.entity).names))
        if pair.entity not in self.polysemous and not (work and pair.entity in self.adapted):
            return shown
        sense = (pair.sense or "").strip()
        if not sense or sense == pair.entity:
            return None
        for name in sorted({n for n in pair.aliases if n.endswith(pair.entity) and n != pair.entity}, key=len):
            prefix = name[: -len(pair.entity)]
            if len(prefix) >= 2 and sense.startswith(prefix):
                return name
        if len(sense) <= SENSE_DESCRIPTOR_CHARS and is_cjk(sense[-1]):
            return f"{sense}{shown}"
        return None

    def _simpleqa_written(self, pair: Pair, written) -> Iterator[Item]:
        for w in written:
            base = self._base("simpleqa", pair, "", w.answer, value_format(w.answer).kind)
            base["item_id"] = item_id("simpleqa", pair.pair_id, w.question)
            self.stats.built["simpleqa"] += 1
            yield Item(question=w.question, provenance=self._provenance(
                "llm", llm=self.llm.settings.model, rounds=w.rounds), **base)


@lru_cache(maxsize=4096)
def open_relation(relation: str) -> bool:
    """Whether short-answer questions leave the relation alone (``builders/open_relations.txt``)."""
    return any(fnmatch.fnmatchcase(relation, pattern) for pattern in load_word_list(OPEN_RELATIONS))


def holds(text: str, value: str) -> bool:
    """Whether the text holds the value, as written or as a value key (明代 in 明代长篇神魔小说: its key
    明朝 is not in the text's key, which keeps 明代 inside a longer word)."""
    key, written = value_key(value), _bare(value)
    return bool(key and key in value_key(text)) or bool(written and written in _bare(text))


def _bare(text: str) -> str:
    return "".join(ch for ch in normalize(text) if not unicodedata.category(ch).startswith(("P", "Z")))


_RANK_SUFFIX = "界门纲目科属"  # 鼯鼠属: the rank word after the name of a taxon


def names_taxon(entity: str, text: str, answer: str) -> bool:
    """Whether the answer is a taxon the entity's name already says: 鼯鼠属 for 城安鼯鼠, 麂属 for 北平麂."""
    stem = answer.strip()[:-1] if answer.strip()[-1:] in _RANK_SUFFIX else ""
    return bool(stem) and (entity.endswith(stem) or (len(stem) >= 2 and stem in text))


def _shares_two_chars(context: str, answer: str) -> bool:
    """Whether two consecutive characters of the answer occur in the context (as value keys, or as written)."""
    for form in (value_key, _bare):
        text, value = form(context), form(answer)
        if any(value[i:i + 2] in text for i in range(len(value) - 1)):
            return True
    return False


def one_relation(a: str, b: str) -> bool:
    """Whether two relations of one entity and value ask one fact: the same, or one's name holds the
    other's (作者 and 原著作者)."""
    return a == b or bool(a and b and (a in b or b in a))


def several_values(rows: list[tuple[str, str, str]]) -> bool:
    """Whether (sense, tail, raw row value) rows give more than one answer: two values that are not one
    value written alike (:func:`filters.normalize.value_key`), or one infobox row that lists several
    (开皇、仁寿 split into two triples, or a row the parser could not split)."""
    if len({value_key(tail) for _, tail, _ in rows}) > 1:
        return True
    return any(raw and is_enumeration(raw) for _, _, raw in rows)


def text_disputes(pair: Pair, relation: str, value: str) -> str:
    """What in the pair's own text disputes the value, or "": a sentence that states the value with a word saying
    it is not settled (「夏朝，一般认为由禹建立」: ``hedge_words.txt``), or another year for the relation where the
    infobox gives one (「生于162年」 beside an infobox's 161年: verifiers.web_facts.dispute, read on the text)."""
    forms = value_forms(value)
    hedges = load_word_list(HEDGE_WORDS)
    for sentence in sentences(normalize(pair.text)):
        if any(f in sentence for f in forms):
            hedge = next((w for w in sorted(hedges) if w in sentence), None)
            if hedge:
                return hedge
    # clause by clause, each read as about the entity: 「生于161年，卒于223年」 dates the birth in its first clause
    # and the death in its second, never the death by the first
    clauses = [Hit("", pair.entity, f"{pair.entity}，{c}", 0.0) for c in re.split(r"[，,。；;！？]", pair.text) if c]
    found = dispute(clauses, pair.entity, pair.aliases, relation, value)
    return found[1] if found else ""


@lru_cache(maxsize=1)
def measure_groups() -> dict[str, frozenset[str]]:
    """relation -> the relations that measure the same thing (``measure_groups.txt``), itself included."""
    groups: dict[str, frozenset[str]] = {}
    for line in MEASURE_GROUPS.read_text(encoding="utf-8").splitlines():
        names = frozenset(line.split("#", 1)[0].split())
        for name in names:
            groups[name] = groups.get(name, frozenset()) | names
    return groups


def other_measure(pair: Pair, triple: Triple) -> str:
    """Another value the entity's page gives for a relation that measures what ``triple``'s does, or ""."""
    group = measure_groups().get(triple.relation)
    if not group:
        return ""
    own = value_key(triple.tail)
    return next((t.tail for t in pair.triples if t.relation in group and t.tail and value_key(t.tail) != own), "")


def at_level(question: str, answer: str) -> str:
    """A question that asks a region (哪个地区) asking it at its answer's level (哪个省 for 四川省, 哪个市 for 湖北省
    白福市): a region of another level is no answer to it."""
    word = _LEVEL_WORDS.get(place_level(answer)) if "哪个地区" in question else None
    return question.replace("哪个地区", word, 1) if word else question


_COUNTED = re.compile(r"^[约共全]?[\d一二三四五六七八九十百千万.,]+(?:万|余|多)?(回|章|卷|篇|集|页|字|册|部)$")


def in_its_unit(question: str, relation: str, answer: str) -> str:
    """A question on a measure (「西游记的篇幅有多长？」) asked in its answer's unit (「西游记共有多少回？」), where the
    answer counts in one: the length in 字 answers the first as rightly as 100回 (measure_groups.txt), not the
    second."""
    unit = _COUNTED.match(answer.strip())
    at = question.find(f"的{relation}")
    if not unit or at <= 0 or relation not in measure_groups():
        return question
    return f"{question[:at]}共有多少{unit.group(1)}？"


def _as_crawled(pair: Pair) -> Pair:
    """The pair with its text as crawled (its source text) where the cut changed it."""
    if not pair.source_text or pair.source_text == pair.text:
        return pair
    return Pair(pair_id=f"{pair.pair_id}#source", entity=pair.entity, text=pair.source_text, aliases=pair.aliases)


def _sentence_pair(pair: Pair, sentence: str) -> Pair:
    """The pair reduced to one sentence, to ask whether that sentence states a triple."""
    return Pair(pair_id=f"{pair.pair_id}#{hashlib.md5(sentence.encode()).hexdigest()[:8]}", entity=pair.entity,
                text=sentence, aliases=pair.aliases)


def stated_by(grounding) -> Callable[[Pair, str, str], bool]:
    """``stated(pair, relation, value)`` from a grounding triple filter (filters.rules.grounding.GroundingFilter)."""
    def stated(pair: Pair, relation: str, value: str) -> bool:
        return grounding.check(Triple(pair.entity, relation, value), pair).keep
    return stated

