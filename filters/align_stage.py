"""The alignment stage: pages -> data-text pairs, every triple and pair judged by the CDTP filters
(filters/align.py) and labelled with a domain. The relation vocabulary and the rules are counted once over the
whole crawl (``align_rules``); the pages are then judged in parts (``align_shard``) and the parts merged
(``merge_aligned``). ``align`` is the run's [align] settings section (flows.settings.AlignSettings)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from filters.align import AlignmentRules
from filters.rules.relation_frequency import frequent_relations
from filters.base import Funnel, apply_filters
from filters.clean import clean
from filters.cues_learned import CueLearner, as_table, write_learned
from filters.domains import DomainAssigner, label_pairs, load_taxonomy
from filters.embeddings import make_embedder
from filters.triples import page_to_pair, relation_aliases
from crawlers.snapshot import iter_page_range
from schemas import RELATION_SCHEMA, Page, Pair
from schemas.storage.shards import ShardWriter, bounded_duck, duck, iter_records, sql_path_list

@dataclass
class AlignResult:
    shards: list[Path]
    funnel: dict
    pages_by_status: dict[str, int]
    rules: Path | None = None  # the AlignmentRules the pairs were judged by, for later stages
    relations: Path | None = None  # the relation vocabulary as a RELATION_SCHEMA Parquet file
    part_shards: list[list[Path]] = field(default_factory=list)  # the pair shards of each part, in order


def relation_counts(page_shards: list[Path], aliases: dict[str, str], memory_limit: str = "64MB") -> dict[str, int]:
    """Per relation (after the alias table), how many content pages of the crawl have it.

    DuckDB on one thread within memory_limit, spilling beyond it: the distinct (relation, page)
    pairs are grouped by the page URL's 64-bit hash rather than the URL, so the grouping stays
    small (two of a million URLs share a hash with odds of about 1 in 30 million)."""
    if not page_shards:
        return {}
    with bounded_duck(memory_limit) as con:
        con.execute("CREATE TEMP TABLE aliases (alias VARCHAR, canonical VARCHAR)")
        con.executemany("INSERT INTO aliases VALUES (?, ?)", list(aliases.items()))
        rows = con.sql(f"""
            SELECT relation, count(*) FROM (
                SELECT DISTINCT coalesce(a.canonical, p.name) AS relation, hash(p.canonical_url) AS page
                FROM (SELECT canonical_url, unnest(infobox).name AS name
                      FROM read_parquet({sql_path_list(page_shards)}) WHERE status = 'ok') AS p
                LEFT JOIN aliases AS a ON a.alias = p.name)
            GROUP BY 1 ORDER BY 2 DESC, 1
        """).fetchall()
    return dict(rows)


def recurring_values(page_shards: list[Path], min_pages: int, memory_limit: str = "64MB") -> list[str]:
    """Single infobox values (as the alignment cleans them) that rows of at least ``min_pages`` content pages
    give, two characters or longer: the crawl's lexicon of facts (filters.mentions.Lexicon)."""
    if not page_shards:
        return []
    with bounded_duck(memory_limit) as con:
        rows = con.sql(f"""
            SELECT value FROM (
                SELECT DISTINCT unnest(e.values) AS value, hash(canonical_url) AS page
                FROM (SELECT canonical_url, unnest(infobox) AS e
                      FROM read_parquet({sql_path_list(page_shards)}) WHERE status = 'ok'))
            WHERE length(value) >= 2
            GROUP BY 1 HAVING count(*) >= {int(min_pages)} ORDER BY 1
        """).fetchall()
    return sorted({clean(v) for (v,) in rows if len(clean(v)) >= 2})


def learned_cues(page_shards: list[Path], align, out: Path) -> dict[str, list[str]]:
    """Relation cues learned from the words next to infobox values across the crawl's pages (at most
    ``align.cue_sample_pages`` of them), written to ``out`` in the cue table's format for review."""
    learner = CueLearner(min_pages=align.cue_min_pages)
    for page in iter_records(page_shards, Page, columns=("url", "canonical_url", "source", "status", "title",
                                                         "summary", "paragraphs", "infobox")):
        if page.status != "ok":
            continue
        pair = page_to_pair(page, align.text_scope)
        learner.add(pair.text, [(t.relation, t.tail) for t in pair.triples], [pair.entity])
        if learner.pages >= align.cue_sample_pages:
            break
    cues = learner.cues()
    write_learned(cues, out, learner.pages)
    return as_table(cues)


def align_stage(page_shards: list[Path], align, out_dir: Path,
                cache_dir: Path | None = None) -> AlignResult:
    """Pages -> pairs with every triple and pair judged by the CDTP filters and a domain label
    on each; writes pair shards. cache_dir keeps a model's embeddings for the next run (char-ngram's are not
    kept: see filters.embeddings.make_embedder).

    The same as ``align_rules`` over all pages, ``align_shard`` over each part of them and ``merge_aligned``
    (how the flow runs it, a part per task): a pair's verdict depends on its page and on the crawl's
    relation counts, never on which part its page is in."""
    rules = align_rules(page_shards, align, Path(out_dir) / "rules")
    part = align_shard(iter_records(page_shards, Page), rules, align, out_dir, cache_dir)
    return merge_aligned(rules, [part])


def align_rules(page_shards: list[Path], align, out_dir: Path, rejected: list[str] = ()) -> dict:
    """What every part of the alignment shares: the relation vocabulary counted over the whole crawl and the
    rules built from it, saved as ``rules.json`` and ``relations.parquet`` in ``out_dir``. ``rejected``:
    relations people rejected in review, left out whatever their frequency."""
    aliases = relation_aliases()
    counts = relation_counts(page_shards, aliases)
    rejected = sorted(set(rejected))
    keep = [r for r in frequent_relations(counts, align.min_relation_support, align.top_k_relations)
            if r not in rejected]
    learned = learned_cues(page_shards, align, Path(out_dir) / "learned_cues.tsv") if align.learn_cues else {}
    rules = AlignmentRules(counts, keep, aliases, align.position_threshold, align.enumerations_must_be_covered,
                           rejected, cut=align.cut,
                           lexicon=recurring_values(page_shards, align.lexicon_min_pages) if align.cut else [],
                           learned_cues=learned)
    relations = Path(out_dir) / "relations.parquet"
    saved = rules.save(relations.with_name("rules.json"))
    pq.write_table(pa.Table.from_pylist(rules.relation_rows(), RELATION_SCHEMA), relations)
    return {"rules": saved, "relations": relations,
            "report": {"kept": {n: counts[n] for n in keep}, "dropped": len(counts) - len(keep),
                       **({"rejected_in_review": [r for r in rejected if r in counts]} if rejected else {})}}


def align_shard(pages: Iterable[Page], rules: dict, align, out_dir: Path,
                cache_dir: Path | None = None) -> dict:
    """One part of the pages judged by the saved rules; returns its pair shards, funnel and page statuses."""
    funnel = Funnel()
    by_status: Counter = Counter()

    def content_pages() -> Iterator[Pair]:
        for page in pages:
            by_status[page.status] += 1
            if page.status == "ok":
                yield page_to_pair(page, align.text_scope)

    triple_filters, pair_filters, cutter = AlignmentRules.load(rules["rules"]).judge()
    assigner = DomainAssigner(load_taxonomy(align.taxonomy),
                              make_embedder(align.embedder, cache_dir / "embeddings" if cache_dir else None),
                              align.domain_rule_weight, topics=align.topics)
    judged = apply_filters(content_pages(), triple_filters, pair_filters, funnel, cutter)
    with ShardWriter(out_dir, "pairs", Pair) as writer:
        writer.write_all(label_pairs(judged, assigner))
    return {"shards": writer.paths, "funnel": funnel.as_dict(), "by_status": dict(by_status)}


def align_range(pages: Path, start: int, stop: int, rules: dict, align, out_dir: Path,
                cache_dir: Path | None = None) -> dict:
    """``align_shard`` over the snapshot's rows [start, stop): one part of the flow's alignment."""
    return align_shard(iter_page_range(pages, start, stop), rules, align, out_dir, cache_dir)


def merge_aligned(rules: dict, parts: list[dict]) -> AlignResult:
    """The parts of an alignment as one result, in the parts' order."""
    funnel: dict = {"pairs_in": 0, "pairs_kept": 0, "pairs_dropped": Counter(), "triples_in": 0, "triples_kept": 0,
                    "triples_dropped": Counter()}
    by_status: Counter = Counter()
    for part in parts:
        for key, value in part["funnel"].items():
            if isinstance(value, dict):
                funnel[key].update(value)
            else:
                funnel[key] += value
        by_status.update(part["by_status"])
    funnel = {k: dict(sorted(v.items())) if isinstance(v, Counter) else v for k, v in funnel.items()}
    return AlignResult(shards=[s for part in parts for s in part["shards"]],
                       funnel={**funnel, "relations": rules["report"]}, pages_by_status=dict(sorted(by_status.items())),
                       rules=rules["rules"], relations=rules["relations"],
                       part_shards=[part["shards"] for part in parts])


def kept_distribution(pair_shards: list[Path]) -> dict:
    """Kept pairs per domain, and per SimpleQA topic where labelled."""
    if not pair_shards:
        return {}
    con = duck()
    try:
        source = f"read_parquet({sql_path_list(pair_shards)})"
        domains = con.sql(f"SELECT domain, count(*) FROM {source} WHERE decision = 'kept' "
                          "GROUP BY 1 ORDER BY 2 DESC, 1").fetchall()
        topics = con.sql(f"SELECT topic, count(*) FROM {source} WHERE decision = 'kept' AND topic IS NOT NULL "
                         "GROUP BY 1 ORDER BY 2 DESC, 1").fetchall()
    finally:
        con.close()
    return {"domain": {str(k): v for k, v in domains}, "topic": {str(k): v for k, v in topics}}
