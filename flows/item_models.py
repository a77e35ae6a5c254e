"""The crawl's models the item builder reads (value types, the knowledge graph, the distractor picker, the
difficulty panel, the offline baselines, the web's statements), built from the kept pairs and the crawl's pages,
and the builder over them: one in the item stage's process, one in each process a split build starts
(flows/item_parts.py), from the same shards.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterable, Iterator

import pyarrow.parquet as pq

from builders.baselines import BaselinePanel
from builders.difficulty import DifficultyProxy
from builders.distractors import DistractorPicker, DistractorSettings
from builders.families import Families, crawl_families, descriptions, learn_near, write_table
from builders.graph import Graph
from filters.triples import NAME_RELATIONS
from builders.page_truth import PageTruth
from builders.items import ItemBuilder, ItemSettings, stated_by
from schemas import Pair
from schemas.storage.shards import iter_records


# Triples the item builder takes at once: one graph query and one embedding call for them (builders.items).
BATCH_TRIPLES = 2_000


@contextlib.contextmanager
def item_builder(pair_shards, settings, embedder, templates, client, page_shards, verify=None,
                 cache=None, batch_size: int = BATCH_TRIPLES, rules_dir: Path | None = None) -> Iterator[ItemBuilder]:
    """The item builder over the crawl's models, while they are held; it takes ``batch_size`` triples at once.
    ``rules_dir``: where to write the value families it used (value_families.tsv), for review."""
    from builders.types import ValueTyper
    from filters.rules.grounding import GroundingFilter

    typer = ValueTyper.from_sources(page_shards, iter_records(pair_shards, Pair))
    with Graph(pair_shards) as graph:
        graph.load_pages(page_shards)
        relation_counts = dict(graph.con.sql("SELECT relation, count(*) FROM facts GROUP BY 1").fetchall())
        graph.set_types(_type_keys(graph, typer))
        families = crawl_families(page_shards) if page_shards else Families.load(learned=learn_near(
            descriptions(graph.grouped_facts(skip=NAME_RELATIONS), None, set())))
        if rules_dir is not None:
            write_table(families, Path(rules_dir) / "value_families.tsv")
        picker = DistractorPicker(embedder, typer, DistractorSettings(settings.synonym_max, settings.context_min,
                                                                      settings.per_source, seed=settings.seed),
                                  families=families)
        difficulty = (DifficultyProxy.from_pages(page_shards).restricted(_kept_heads(pair_shards))
                      if page_shards else None)  # it scores the kept pairs' entities, against every page
        baselines = BaselinePanel((head, relation, tail, typer.value_type(tail, relation).key())
                                  for head, relation, tail in graph.facts())
        with _web_facts(verify, page_shards, cache) as web:
            yield ItemBuilder(graph, picker, templates, relation_counts, typer, stated_by(GroundingFilter()),
                              ItemSettings(tuple(settings.kinds), settings.max_answer_chars, batch_size,
                                           embedder_name=embedder.name, cloze_max_chars=settings.cloze_max_chars),
                              llm=client, polysemous=graph.senses(), difficulty=difficulty,
                              elsewhere=_elsewhere(web), baselines=baselines,
                              pages=PageTruth(graph.page_texts, GroundingFilter()) if page_shards else None)


def _elsewhere(web) -> "Elsewhere | None":
    """Whether another page of the search's results states a value for the entity's relation; None without a
    search."""
    return None if web is None else Elsewhere(web)


class Elsewhere:
    """``elsewhere(pair, relation, value)``: whether another page of the search's results states value for the
    entity's relation (verifiers.web_facts): a right answer, never a distractor. ``prefetch`` reads a batch's
    cached results at once."""

    def __init__(self, web):
        self.web = web

    def prefetch(self, asked: Iterable[tuple[str, str]]) -> None:
        self.web.prefetch(asked)

    def __call__(self, pair: Pair, relation: str, value: str, anchors: Iterable[str] = ()) -> bool:
        """Stated for the relation, or listed with one of ``anchors`` (the question's right answers)."""
        return (self.web.states(pair.entity, relation, value, pair.aliases, exclude=(pair.url,)) is not None
                or bool(anchors) and self.web.lists(pair.entity, relation, value, anchors, pair.aliases,
                                                    exclude=(pair.url,)) is not None)


@contextlib.contextmanager
def _web_facts(verify, page_shards, cache):
    """What the configured search says about the items' facts, while the items are built; None without one."""
    if verify is None or not verify.search or cache is None or (
            verify.searches_the_crawl and not page_shards):  # no crawl to search
        yield None
        return
    from flows.verify import search_backend
    from verifiers.search import CachedSearch
    from verifiers.web_facts import WebFacts

    backend = search_backend(verify, page_shards, cache)
    search = CachedSearch(backend, cache)
    try:
        yield WebFacts(search, verify.k)
    finally:
        search.close()
        backend.close()


def _kept_heads(pair_shards: list[Path]) -> set[str]:
    """The entities of the kept pairs: what the items are about."""
    heads: set[str] = set()
    for path in pair_shards:
        table = pq.read_table(path, columns=["entity", "decision"])
        heads.update(e for e, d in zip(table.column("entity").to_pylist(), table.column("decision").to_pylist())
                     if d == "kept")
    return heads


def _type_keys(graph: Graph, typer) -> Iterator[tuple[str, str]]:
    """(node, type key) for every node of the graph: as a value of the relation it is most often the
    tail of, and as an entity where it is a head."""
    for node, relation, relations, is_head in graph.nodes():
        if relation:
            yield node, typer.value_type(node, relation, relations).key()
        if is_head:
            yield node, typer.head_type(node).key()
