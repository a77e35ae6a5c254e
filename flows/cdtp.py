"""The CDTP flow: crawl -> parse -> triples -> alignment -> dedup -> release.

Stage logic lives in plain functions (``crawl_stage``, ``align_stage``,
``publish_stage``) that take settings sections and file paths and return file
paths; the Prefect tasks are thin wrappers, so the logic is tested without the
engine and the engine is tested once.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import logging
import os
import shutil
from array import array
from collections import Counter
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Iterator
from urllib.parse import urlsplit

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from prefect import flow, task

from crawlers.crawl import CrawlError, CrawlResult, collect, run_crawl
from filters.base import Funnel, apply_filters
from filters.clean import clean
from filters.dedup import Deduplicator
from filters.domains import DomainAssigner, label_pairs, load_taxonomy
from filters.embeddings import make_embedder
from filters.normalize import clear_value_caches
from filters.align import AlignmentRules, frequent_relations
from filters.triples import page_to_pair, relation_aliases
from flows.items import item_tables, items_stage
from flows.verify import verify_stage
from flows import caching, progress
from flows.crawling import crawl_config, crawl_dir_of, crawls_root, due_only, parse_age, register_crawl, site_for
from flows.settings import (AlignSettings, DedupSettings, ItemsSettings, LLMSection, ReleaseSettings, ReviewSettings,
                            Settings, VerifySettings)
from schemas import DROPPED_TRIPLE_SCHEMA, PAGE_SCHEMA, PAIR_SCHEMA, RELATION_SCHEMA, Page, Pair
from warehouse import release as releases
from warehouse.catalog import Catalog
from warehouse.lock import data_dir_lock
from warehouse.hierarchy import Labels, load_hierarchy
from warehouse.validation import GateFailed, GateRules
from warehouse.shards import ShardWriter, bounded_duck, duck, iter_records, release_freed, sql_path_list

CODE_VERSION = "0.1.0"


@dataclass
class AlignResult:
    shards: list[Path]
    funnel: dict
    pages_by_status: dict[str, int]
    rules: Path | None = None  # the AlignmentRules the pairs were judged by, for later stages
    relations: Path | None = None  # the relation vocabulary as a RELATION_SCHEMA Parquet file


@dataclass
class RunSummary:
    release_dir: Path | None
    run_dir: Path
    pages: dict[str, int]
    funnel: dict
    crawl_stats: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    note: str = ""
    blocked: bool = False  # the validation gate failed: nothing was published
    repaired: list[str] = field(default_factory=list)  # what killed runs had left, settled at the start
    stages: list[dict] = field(default_factory=list)  # per stage: seconds, cached, records in and out


@dataclass
class Snapshot:
    shards: list[Path]
    digest: str  # of the pages' content: what the release names as its source crawl


# Pages in the order of their URL's path (the fetch address's host and port left out), so that every later
# stage reads them in one order however the concurrent crawl met them.
PAGES_QUERY = """
SELECT * FROM read_parquet($paths)
ORDER BY regexp_replace(coalesce(canonical_url, url), '^[a-z]+://[^/]*', ''), canonical_url, url, status,
         content_hash, fetched_at
"""
# What a page's content leaves out: when and how deep the crawl met it.
FETCH_FIELDS = ("fetched_at", "depth")


def crawl_digest(pages: Path, origin: str = "") -> str:
    """sha256 of the pages' records in their order, without FETCH_FIELDS and with ``origin`` (the fetch
    address, e.g. the mirror's http://127.0.0.1:<port>) cut out of every URL: the same pages found
    again, at another time, port or order, give the same digest; any page added, removed or parsed
    differently gives another."""
    digest = hashlib.sha256()
    columns = [name for name in PAGE_SCHEMA.names if name not in FETCH_FIELDS]
    for batch in pq.ParquetFile(pages, pre_buffer=False).iter_batches(1_000, columns=columns):
        for row in batch.to_pylist():
            line = json.dumps(row, ensure_ascii=False, sort_keys=True, default=str)
            digest.update((line.replace(origin, "") if origin else line).encode("utf-8") + b"\n")
    return digest.hexdigest()


# Several crawls of one site (a crawl and its recrawls, or the processes of a shared crawl): of a page fetched
# in several, the latest fetch.
LATEST_PAGES_QUERY = PAGES_QUERY.replace("ORDER BY", """QUALIFY row_number() OVER (
    PARTITION BY regexp_replace(coalesce(canonical_url, url), '^[a-z]+://[^/]*', '')
    ORDER BY fetched_at DESC, url) = 1
ORDER BY""", 1)


def _published(query: str, origins: dict[str, str]) -> str:
    """``query`` with each page's canonical URL moved to its site's published origin (by the page's source)."""
    cases = " ".join(f"WHEN '{source}' THEN regexp_replace(canonical_url, '^[a-z]+://[^/]*', '{origin}')"
                     for source, origin in sorted(origins.items()))
    return query.replace("SELECT * FROM", f"SELECT * REPLACE (CASE source {cases} ELSE canonical_url END "
                                          "AS canonical_url) FROM", 1)


def snapshot_stage(page_shards: list[Path], data_dir: Path, base_url: str = "", latest_per_url: bool = False,
                   published: dict[str, str] | None = None) -> Snapshot:
    """The crawl as the later stages and the release see it: its pages in PAGES_QUERY's order, in
    ``<data_dir>/snapshots/crawl-<digest>/pages.parquet``, named by ``crawl_digest`` (``latest_per_url``: of
    a page in several of the shards' crawls, its latest fetch). A crawl that found
    the same pages as an earlier one reuses its snapshot, so releases built from either name one crawl
    by one path, and the snapshot outlives the run directory it came from.

    ``published``: where the pages of each source are published, when that is not where they were fetched:
    the bundled mirror's entries exist on no real site, so their canonical URLs move from the mirror's
    address to the reserved hosts of ``crawlers.mirror.render.PUBLIC_ORIGIN`` (a crawl of a real site, or a
    copy of one, keeps the real site's URLs: crawlers.urls.public_url)."""
    if not page_shards:
        return Snapshot([], "")
    root = Path(data_dir) / "snapshots"
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        query = LATEST_PAGES_QUERY if latest_per_url else PAGES_QUERY
        if published:
            query = _published(query, published)
        releases.write_table(releases.TableSpec("pages", "all", PAGE_SCHEMA, query, page_shards), tmp / "pages.parquet")
        parts = urlsplit(base_url)
        digest = crawl_digest(tmp / "pages.parquet", f"{parts.scheme}://{parts.netloc}" if parts.netloc else "")[:16]
        final = root / f"crawl-{digest}"
        if (final / "pages.parquet").is_file():
            shutil.rmtree(tmp)
        else:
            os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Snapshot([final / "pages.parquet"], digest)


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


def learned_cues(page_shards: list[Path], align: AlignSettings, out: Path) -> dict[str, list[str]]:
    """Relation cues learned from the words next to infobox values across the crawl's pages (at most
    ``align.cue_sample_pages`` of them), written to ``out`` in the cue table's format for review."""
    from filters.cues_learned import CueLearner, as_table, write_learned

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


def align_stage(page_shards: list[Path], align: AlignSettings, out_dir: Path,
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


def align_rules(page_shards: list[Path], align: AlignSettings, out_dir: Path, rejected: list[str] = ()) -> dict:
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


def align_shard(pages: Iterable[Page], rules: dict, align: AlignSettings, out_dir: Path,
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
                       rules=rules["rules"], relations=rules["relations"])


def page_ranges(pages: Path, shard_pages: int) -> list[tuple[int, int]]:
    """The snapshot's rows in parts of ``shard_pages``: [start, stop) each."""
    rows = pq.ParquetFile(pages).metadata.num_rows
    return [(start, min(start + shard_pages, rows)) for start in range(0, rows, shard_pages)]


def iter_page_range(pages: Path, start: int, stop: int) -> Iterator[Page]:
    """The snapshot's pages in rows [start, stop), reading only the row groups that hold them."""
    parquet = pq.ParquetFile(pages, pre_buffer=False)
    offset = 0
    for group in range(parquet.metadata.num_row_groups):
        rows = parquet.metadata.row_group(group).num_rows
        if offset + rows <= start or offset >= stop:
            offset += rows
            continue
        for batch in parquet.iter_batches(batch_size=1_000, row_groups=[group]):
            low, high = max(start, offset) - offset, min(stop, offset + batch.num_rows) - offset
            if low < high:
                yield from Page.from_batch(batch.slice(low, high - low))
            offset += batch.num_rows


def released_texts(data_dir: Path, name: str) -> Iterator[tuple[str, str]]:
    """(\"<name> <version>:<pair_id>\", text) of every pair in every earlier release of that name: the text as
    crawled (a release before the cut ships it as its text), which a rerun's pair has whatever its cut."""
    for version in releases.list_versions(data_dir, name):
        path = releases.releases_root(data_dir, name) / version / "cdtp_pairs" / "all.parquet"
        if not path.is_file():
            continue
        parquet = pq.ParquetFile(path, pre_buffer=False)
        source = "source_text" in parquet.schema_arrow.names
        for batch in parquet.iter_batches(10_000, columns=["pair_id", "text", *(["source_text"] if source else [])]):
            texts = batch.column(1).to_pylist()
            sources = batch.column(2).to_pylist() if source else texts
            for pair_id, text, crawled in zip(batch.column(0).to_pylist(), texts, sources, strict=True):
                yield f"{name} {version}:{pair_id}", crawled or text


def dedup_reason(duplicate) -> str:
    return f"dedup:{'released_' if duplicate.reference else ''}{duplicate.kind}_duplicate"


DEDUP_REASONS = ("dedup:exact_duplicate", "dedup:near_duplicate", "dedup:released_exact_duplicate",
                 "dedup:released_near_duplicate")
DUPLICATE_SCHEMA = pa.schema([("pair_id", pa.string()), ("duplicate_of", pa.string()), ("kind", pa.string()),
                              ("released", pa.bool_()), ("similarity", pa.float64())])


def _id_key(pair_id: str) -> int:
    """A pair id as 64 bits: pair ids are 16 hex digits (exact); any other id is hashed."""
    if len(pair_id) == 16:
        try:
            return int(pair_id, 16)
        except ValueError:
            pass
    return int.from_bytes(hashlib.blake2b(pair_id.encode("utf-8"), digest_size=8).digest(), "big")


def dedup_finder(dedup: DedupSettings, work_dir: Path | None = None) -> Deduplicator:
    return Deduplicator(dedup.threshold, dedup.num_perm, dedup.shingle, dedup.n, work_dir=work_dir,
                        memory_limit=dedup.memory_limit)


def dedup_sign(pair_shards: list[Path], dedup: DedupSettings, out_dir: Path) -> Path:
    """Pass 1 of the dedup (MinHash signatures, band keys) for the kept pairs of ``pair_shards``, into
    ``out_dir``, for ``dedup_stage(signed=...)``."""
    kept = ((p.pair_id, p.source_text or p.text) for p in iter_records(pair_shards, Pair) if p.decision == "kept")
    dedup_finder(dedup).sign_part(kept, out_dir)
    return Path(out_dir)


def _write_duplicates(found: Path, out: Path, memory_limit: str) -> None:
    """duplicates.jsonl sorted by pair id, streamed from the Parquet the dedup wrote (DuckDB within
    memory_limit on one thread, sorting on disk beyond it)."""
    with bounded_duck(memory_limit) as con, open(out, "w", encoding="utf-8") as handle:
        query = f"SELECT * FROM read_parquet({sql_path_list([found])}) ORDER BY pair_id"
        for batch in con.sql(query).to_arrow_reader(8_192):
            for row in batch.to_pylist():
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def dedup_stage(pair_shards: list[Path], dedup: DedupSettings, funnel: dict, out_dir: Path,
                data_dir: Path | None = None, release_name: str = "cdtp", signed: list[Path] | None = None) -> dict:
    """Mark exact and near-duplicate kept pairs as dropped (the first id of a group survives), and
    with ``dedup.against_releases`` those that an earlier release of ``release_name`` holds.

    Rewrites the pair shards with the new decisions and returns the updated funnel; the groups
    go to duplicates.jsonl beside the shards. ``signed``: the kept pairs' signatures, signed apart by
    ``dedup_sign`` in the shards' order (the flow signs each alignment part in a task of its own); unset,
    they are signed here.
    """
    if not dedup.enabled or not pair_shards:
        return {"shards": pair_shards, "funnel": funnel}
    out_dir.mkdir(parents=True, exist_ok=True)
    finder = dedup_finder(dedup, out_dir / "work")
    references = 0
    if dedup.against_releases and data_dir is not None:
        references = finder.add_references(released_texts(Path(data_dir), release_name))
    # Pairs are one when their pages are: their texts as crawled, before the cut (which search validation
    # may redo), are compared.
    kept = ((p.pair_id, p.source_text or p.text) for p in iter_records(pair_shards, Pair) if p.decision == "kept")
    # The duplicates go to Parquet as they are found; memory keeps 8 bytes per duplicate (its id's
    # key) and 1 for its reason, so a million pairs mark their duplicates in a few megabytes.
    keys, codes, reasons = array("Q"), array("B"), list(DEDUP_REASONS)
    found_path = out_dir / "work" / "duplicates.parquet"
    with pq.ParquetWriter(found_path, DUPLICATE_SCHEMA) as found:
        batch: list[dict] = []
        for d in (finder.find(kept) if signed is None else finder.find_signed(signed)):
            keys.append(_id_key(d.doc_id))
            codes.append(reasons.index(dedup_reason(d)))
            batch.append({"pair_id": d.doc_id, "duplicate_of": d.duplicate_of, "kind": d.kind,
                          "released": d.reference, "similarity": round(d.similarity, 4)})
            if len(batch) == 50_000:
                found.write_table(pa.Table.from_pylist(batch, DUPLICATE_SCHEMA))
                batch = []
        if batch:
            found.write_table(pa.Table.from_pylist(batch, DUPLICATE_SCHEMA))
    order = np.argsort(np.frombuffer(keys, dtype=np.uint64), kind="stable")
    sorted_keys = np.frombuffer(keys, dtype=np.uint64)[order]
    sorted_codes = np.frombuffer(codes, dtype=np.uint8)[order]
    _write_duplicates(found_path, out_dir / "duplicates.jsonl", dedup.memory_limit)

    def marked() -> Iterator[Pair]:
        for pair in iter_records(pair_shards, Pair):
            if pair.decision == "kept" and len(sorted_keys):
                key = np.uint64(_id_key(pair.pair_id))
                at = int(np.searchsorted(sorted_keys, key))
                if at < len(sorted_keys) and sorted_keys[at] == key:
                    pair.decision, pair.reason = "dropped", reasons[sorted_codes[at]]
            yield pair

    with ShardWriter(out_dir, "pairs", Pair) as writer:
        writer.write_all(marked())
    shutil.rmtree(out_dir / "work", ignore_errors=True)
    counts = Counter(reasons[c] for c in codes)
    updated = dict(funnel, pairs_dropped=dict(funnel["pairs_dropped"]))
    for reason, count in counts.items():
        updated["pairs_dropped"][reason] = updated["pairs_dropped"].get(reason, 0) + count
    updated["pairs_dropped"] = dict(sorted(updated["pairs_dropped"].items()))
    updated["pairs_kept"] = funnel["pairs_kept"] - len(codes)
    updated["dedup"] = {"released_pairs_compared": references, "candidate_pairs": finder.counts["candidates"]}
    return {"shards": writer.paths, "funnel": updated}


PAIRS_QUERY = """
SELECT * REPLACE (list_filter(triples, lambda t: t.decision = 'kept') AS triples)
FROM read_parquet($paths)
WHERE decision = 'kept'
QUALIFY row_number() OVER (PARTITION BY pair_id ORDER BY page_hash) = 1
ORDER BY pair_id
"""

DROPPED_QUERY = """
SELECT pair_id, t.head AS head, t.relation AS relation, t.tail AS tail, t.raw_value AS raw_value,
       t.reason AS reason
FROM (SELECT pair_id, unnest(triples) AS t FROM read_parquet($paths)
      QUALIFY row_number() OVER (PARTITION BY pair_id ORDER BY page_hash) = 1)
WHERE t.decision = 'dropped'
ORDER BY pair_id, relation, tail
"""


RELATIONS_QUERY = "SELECT * FROM read_parquet($paths) ORDER BY pages DESC, relation"


def publish_stage(pair_shards: list[Path], release: ReleaseSettings, data_dir: Path, config: dict,
                  counts: dict, source_snapshot: str, flow_run_id: str | None,
                  item_tables: list[releases.TableSpec] | None = None,
                  hierarchy: dict[str, Labels] | None = None, gate_rules: GateRules | None = None,
                  validation_dir: Path | None = None, relations: Path | None = None,
                  page_shards: list[Path] | None = None, run_id: str | None = None) -> Path:
    """Write the release; with gate_rules, the validation suites and the audit must pass first (their
    results and Data Docs go to validation_dir). ``relations``: the alignment stage's relation table;
    ``page_shards``: the crawl (its snapshot: ``snapshot_stage``), recorded in the manifest (relative to
    data_dir) for audits. ``run_id`` and ``flow_run_id`` are recorded in the catalog."""
    sources = {"crawl": [_relative(p, data_dir) for p in page_shards or []]}
    gate = None
    if gate_rules is not None:
        from warehouse.validation import run_gate

        def gate(directory: Path, files: list) -> dict:
            return run_gate(directory, files, gate_rules, validation_dir or Path(data_dir) / "validation",
                            audit=(config, sources["crawl"], Path(data_dir)))
    tables = [
        releases.TableSpec("cdtp_pairs", "all", PAIR_SCHEMA, PAIRS_QUERY, pair_shards),
        releases.TableSpec("dropped_triples", "all", DROPPED_TRIPLE_SCHEMA, DROPPED_QUERY, pair_shards),
        *([releases.TableSpec("relations", "all", RELATION_SCHEMA, RELATIONS_QUERY, [relations])] if relations else []),
        *(item_tables or []),
    ]
    return releases.publish(data_dir, release.name, tables, config=config, counts=counts,
                            version=release.version, source_snapshot=source_snapshot,
                            flow_run_id=flow_run_id, code_version=CODE_VERSION,
                            hierarchy={c: labels.as_dict() for c, labels in (hierarchy or {}).items()}, gate=gate,
                            sources=sources, run_id=run_id)


def _relative(path: Path, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return str(Path(path).resolve())


def publish_checked(*args, **kwargs) -> tuple[Path | None, str]:
    """publish_stage, with a failed validation gate returned as (None, why) instead of raised: the
    run still writes its report, and the user reads one message, not a task failure."""
    try:
        return publish_stage(*args, **kwargs), ""
    except GateFailed as exc:
        return None, str(exc)


# --- the flow -------------------------------------------------------------------------------
#
# Each stage after the snapshot is a Prefect task submitted to the run's task runner (flows/runner.py) and
# cached by its key (flows/caching.py): a run killed at any point and started again takes every finished
# stage's result from the cache and computes from the first unfinished one. The crawl resumes from its fetch
# log; the snapshot is named by its pages' content.

# How a crawl runs, not what it finds: left out of the crawl's key.
CRAWL_RUN_ONLY = {"mirror_port", "concurrency", "reuse", "from_crawl", "recrawl_after"}
COMPLETE = ".complete"  # in a crawl directory: the crawl ran to its end


def _in_work_dir(out_dir: Path, compute):
    done, result = caching.finished(out_dir)
    if done:
        return result
    directory = caching.begin(out_dir)
    result = compute(directory)
    caching.finish(directory, result)
    return result


def align_rules_task_fn(key: str, out_dir: Path, page_shards: list[Path], align: AlignSettings,
                        rejected: list[str] = ()) -> dict:
    return _in_work_dir(out_dir, lambda d: align_rules(page_shards, align, d, rejected))


def align_shard_task_fn(key: str, out_dir: Path, pages: Path, start: int, stop: int, rules: dict,
                        align: AlignSettings, cache_dir: Path) -> dict:
    return _in_work_dir(out_dir, lambda d: align_shard(iter_page_range(pages, start, stop), rules, align, d,
                                                       cache_dir))


def dedup_sign_task_fn(key: str, out_dir: Path, pair_shards: list[Path], dedup: DedupSettings) -> Path:
    return _in_work_dir(out_dir, lambda d: dedup_sign(pair_shards, dedup, d))


def dedup_task_fn(key: str, out_dir: Path, pair_shards: list[Path], dedup: DedupSettings, funnel: dict,
                  data_dir: Path, release_name: str, signed: list[Path] | None = None) -> dict:
    return _in_work_dir(out_dir, lambda d: dedup_stage(pair_shards, dedup, funnel, d, data_dir, release_name,
                                                       signed))


def verify_task_fn(key: str, out_dir: Path, pair_shards: list[Path], page_shards: list[Path],
                   verify: VerifySettings, funnel: dict, catalog_path: Path, rules: Path | None) -> dict:
    return _in_work_dir(out_dir, lambda d: verify_stage(pair_shards, page_shards, verify, funnel, d, catalog_path,
                                                        rules))


def items_task_fn(key: str, out_dir: Path, pair_shards: list[Path], items: ItemsSettings, cache_dir: Path,
                  data_dir: Path | None, release_name: str, llm: LLMSection, catalog_path: Path,
                  verify: VerifySettings, page_shards: list[Path]) -> dict:
    return _in_work_dir(out_dir, lambda d: items_stage(pair_shards, items, d, cache_dir, data_dir, release_name, llm,
                                                       catalog_path, verify, page_shards))


def _cached_task(fn, name: str):
    return task(fn, name=name, cache_key_fn=caching.key_of, persist_result=True)


align_rules_task = _cached_task(align_rules_task_fn, "align-rules")
align_shard_task = _cached_task(align_shard_task_fn, "align")
dedup_sign_task = _cached_task(dedup_sign_task_fn, "dedup-sign")
dedup_task = _cached_task(dedup_task_fn, "dedup")
verify_task = _cached_task(verify_task_fn, "verify")
items_task = _cached_task(items_task_fn, "items")
publish_task = task(publish_checked, name="publish")

# Settings of the process that calls the flow, unmasked (``run_flow``): the flow's parameters carry them
# masked, so a URL's key never reaches Prefect's API, and the flow takes the real values from here.
_local: dict[str, Settings] = {}
# The run's stage clock, shared by the flow and its subflows (they run in its thread).
_clock: contextvars.ContextVar["StageClock"] = contextvars.ContextVar("zhbench_stage_clock")
# The verify settings the stages search with (flows.websearch.run_search): the configured ones, or pointed
# at the search of a mirror the run started. Stage keys are computed from the configured settings.
_searching: contextvars.ContextVar[VerifySettings] = contextvars.ContextVar("zhbench_search")


def searching(settings: Settings) -> VerifySettings:
    """The verify settings the run's stages search with (see _searching)."""
    return _searching.get(settings.verify)


def current_clock() -> "StageClock":
    """The running flow's stage clock. (Flow bodies call this rather than read ``_clock``: a task sent to a
    Dask worker carries its flow's function, pickled with the globals it names, and a ContextVar cannot be.)"""
    return _clock.get()


def run_flow(settings: Settings, name: str = "cdtp") -> RunSummary:
    """The ``cdtp`` or ``simpleqa`` flow in this process, its stage tasks on the task runner ``settings.engine``
    selects."""
    from flows.masking import mask_settings

    flows = {"cdtp": cdtp_flow, "simpleqa": simpleqa_flow}
    _local["settings"] = settings
    try:
        return flows[name](mask_settings(settings.model_dump(mode="json")))
    finally:
        _local.pop("settings", None)


def run_cdtp(settings: Settings) -> RunSummary:
    return run_flow(settings, "cdtp")


def resolve_settings(params: dict) -> Settings:
    """The flow's parameters as settings, masked values taken from this process's own settings: those of
    ``run_flow``'s caller, or, in a deployment's run, the config file named by ZHBENCH_CONFIG and the
    ZHBENCH_* environment."""
    from pydantic import ValidationError

    from flows.masking import mask_settings, restore_masked
    from flows.settings import invalid_setting

    real = _local.get("settings")
    if real is None:
        real = Settings.load(Path(os.environ["ZHBENCH_CONFIG"]) if os.environ.get("ZHBENCH_CONFIG") else None)
    # The parameters over this process's settings: a deployment may carry a few settings (prefect.yaml), the
    # config file the rest.
    data = restore_masked(_overlay(mask_settings(real.model_dump(mode="json")), params), real.model_dump(mode="json"))
    # Absolute: a task on another process or host (a Dask worker) reads the same files by path.
    data["data_dir"] = str(Path(data.get("data_dir") or real.data_dir).absolute())
    try:
        return Settings(**data)
    except ValidationError as exc:
        raise invalid_setting(exc, "flow parameters: ") from None


def _overlay(base: dict, given: dict) -> dict:
    """``base`` with the values ``given`` sets, section by section."""
    merged = dict(base)
    for key, value in given.items():
        merged[key] = _overlay(base[key], value) if isinstance(value, dict) and isinstance(base.get(key), dict) \
            else value
    return merged


@flow(name="cdtp", log_prints=False, persist_result=False)
def cdtp_flow(settings: dict) -> RunSummary:
    """CDTP data-text pairs and the items built on them (KGC, QA, triple-to-text, cloze, SimpleQA-style), from
    plain settings (``Settings.model_dump(mode="json")``, secrets masked). Holds the data directory's lock
    (taken before by ``zhbench run``, which refuses or, with --wait, waits; taken here, waiting, when the flow
    runs on its own, as in a deployment)."""
    resolved = resolve_settings(settings)
    with data_dir_lock(Path(resolved.data_dir), wait=True, waiting=_log_waiting):
        return _run(resolved)


@flow(name="simpleqa", log_prints=False, persist_result=False)
def simpleqa_flow(settings: dict) -> RunSummary:
    """Chinese SimpleQA-style questions: the same knowledge text as ``cdtp`` (its corpus subflow, cached
    alike), questions generated and checked (criteria, RAG evidence, difficulty, contamination), a release of
    their own (named ``simpleqa`` unless release.name says otherwise), every question queued for review."""
    resolved = simpleqa_settings(resolve_settings(settings))
    with data_dir_lock(Path(resolved.data_dir), wait=True, waiting=_log_waiting):
        return _run(resolved)


def _log_waiting(holder: dict) -> None:
    """A deployment's run that finds the data directory in use (a cdtp and a simpleqa run due at once) waits
    for it, and says so in its log."""
    from prefect.logging import get_run_logger

    from warehouse.lock import describe

    get_run_logger().warning("the data directory is in use by %s; waiting for it to finish", describe(holder))


def simpleqa_settings(settings: Settings) -> Settings:
    release = settings.release if settings.release.name != "cdtp" else \
        settings.release.model_copy(update={"name": "simpleqa"})
    items = settings.items.model_copy(update={"kinds": ["simpleqa"]})
    return settings.model_copy(update={"items": items, "release": release})


@flow(name="corpus", log_prints=False, persist_result=False)
def corpus_flow(settings: dict) -> dict:
    """Subflow shared by ``cdtp`` and ``simpleqa``: crawl -> snapshot -> alignment (rules, then the pages in
    parts) -> dedup -> search validation -> domains: the knowledge text, as pair shards and their funnel."""
    return _corpus(resolve_settings(settings), current_clock())


@flow(name="items", log_prints=False, persist_result=False)
def items_flow(settings: dict, pair_shards: list[str], page_shards: list[str], verify_key: str) -> dict:
    """Subflow: items of the configured kinds from the kept pairs, generated and verified."""
    return _items(resolve_settings(settings), [Path(p) for p in pair_shards], [Path(p) for p in page_shards],
                  verify_key, current_clock())


def manifest_config(settings: Settings) -> dict:
    """The settings as a release records them: without where this run fetched from or how it ran, secrets
    masked."""
    from flows.masking import mask_settings

    return mask_settings(settings.model_dump(mode="json", exclude={
        "data_dir": True, "engine": True, "schedule": True,
        "crawl": {"mirror_port", "reuse", "from_crawl", "recrawl_after"},
        # what the run queues and how long a lease lasts change nothing published; apply_verdicts does
        "review": {"enqueue", "all_configs", "sampled_configs", "sample_per_domain", "seed", "lease_minutes"}}))


def _run(settings: Settings) -> RunSummary:
    from prefect.exceptions import TerminationSignal
    from prefect.runtime import flow_run

    from flows.masking import mask_settings

    data_dir = Path(settings.data_dir)
    releases.release_time()  # a malformed SOURCE_DATE_EPOCH stops the run here, not after the crawl
    repaired = releases.repair(data_dir)
    started = time.monotonic()
    started_at = datetime.now(timezone.utc)
    stamp = started_at.strftime("%Y%m%dT%H%M%SZ")
    run_dir = data_dir / "runs" / f"{stamp}-{uuid.uuid4().hex[:6]}"
    flow_run_id = str(flow_run.id) if flow_run.id else None
    # The run's own settings go to the catalog; the release's leave out where and how this run ran.
    run_config = mask_settings(settings.model_dump(mode="json", exclude={"data_dir"}))
    catalog = Catalog(data_dir / "catalog.duckdb")
    catalog.start_run({"run_id": run_dir.name, "flow_run_id": flow_run_id, "started_at": started_at,
                       "release_name": settings.release.name, "settings": run_config})
    token = _clock.set(StageClock(_flow_run_logger()))
    try:
        return _stages(settings, data_dir, run_dir, flow_run_id, started, started_at, run_config, repaired)
    except BaseException as exc:
        stopped = isinstance(exc, (KeyboardInterrupt, TerminationSignal))  # Prefect's form of SIGTERM
        catalog.set_run_status(run_dir.name, "interrupted" if stopped else "failed", str(exc) or type(exc).__name__)
        raise
    finally:
        _clock.reset(token)


class StageClock:
    """Each stage's wall time, counts and whether its result came from the cache; sent to flows.progress
    as it goes and written to the report. As each stage ends, the value caches are emptied and the memory
    malloc holds free is given back (filters.normalize.clear_value_caches, warehouse.shards.release_freed)."""

    def __init__(self, log: logging.LoggerAdapter | None = None) -> None:
        self.stages: list[dict] = []
        self._started: dict[str, tuple[float, float]] = {}
        self._log = log  # the top flow run's logger: the stages of its subflows are logged there too

    def start(self, stage: str, total: int | None = None, unit: str = "") -> None:
        self._started[stage] = (time.monotonic(), time.time())
        progress.started(stage, total, unit)
        if self._log is not None:
            self._log.info("stage %s started%s", stage, f": {total} {unit} in" if total is not None else "")

    def finish(self, stage: str, records_in: int | None, records_out: int | None, unit: str,
               cached: bool = False) -> None:
        began, began_at = self._started.pop(stage)
        seconds = round(time.monotonic() - began, 3)
        # started_at (Unix time) places the stage on a clock outside the run (bench/flow_bench.py's memory samples)
        self.stages.append({"stage": stage, "seconds": seconds, "started_at": round(began_at, 3), "cached": cached,
                            "in": records_in, "out": records_out, "unit": unit})
        progress.finished(stage, seconds, records_in, records_out, unit, cached)
        if self._log is not None:
            counts = " → ".join(str(n) for n in (records_in, records_out) if n is not None)
            self._log.info("stage %s finished in %.1f s%s%s", stage, seconds,
                           f": {counts} {unit}".rstrip() if counts else "", " (from the cache)" if cached else "")
        clear_value_caches()  # the stage's values: the next stage's are others
        release_freed()


def _flow_run_logger() -> logging.LoggerAdapter | None:
    """The current flow run's logger: its lines go to the run's log (the Prefect UI's Logs tab). The terminal
    shows the live table instead: its console handler is quiet below WARNING (flows.engine.configure_prefect)."""
    from prefect.exceptions import MissingContextError
    from prefect.logging import get_run_logger

    try:
        return get_run_logger()
    except MissingContextError:
        return None


def releases_state(data_dir: Path, name: str) -> list:
    """What earlier releases of ``name`` a stage compares against: each version with its manifest's digest."""
    root = releases.releases_root(data_dir, name)
    return [[v, caching.file_digest(root / v / "manifest.json")] for v in releases.list_versions(data_dir, name)]


def _forget_run_counts(funnel: dict) -> dict:
    """A cached stage's funnel, with the counts of what its first run's caches answered set to 0: this run
    asked nothing."""
    funnel = json.loads(json.dumps(funnel))
    for section_name, key in RUN_ONLY_COUNTS:
        part = funnel.get(section_name)
        if isinstance(part, dict) and key in part:
            part[key] = _zeroed(part[key])
    items = funnel.get("report")
    if isinstance(items, dict) and "embedding_cache" in items:
        items["embedding_cache"] = _zeroed(items["embedding_cache"])
    return funnel


def _zeroed(value):
    if isinstance(value, dict):
        return {k: _zeroed(v) for k, v in value.items()}
    return 0 if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def crawl_run_stage(settings: Settings, data_dir: Path, clock: StageClock) -> tuple[list[CrawlResult], str]:
    """The run's crawls (oldest first: of a page in several, the snapshot keeps the latest fetch), and the
    origin (scheme://host:port) they fetched from.

    With ``crawl.from_crawl``: those finished crawls of the data directory, as they are. Otherwise the run's
    own, ``crawls/run-<key>*``, named by the crawl settings, the seeds' content and the site's address:

    * an unfinished one (a killed run's) is resumed;
    * a finished one is reused (``crawl.reuse``) with the recrawls made after it; when the last of them
      finished ``crawl.recrawl_after`` ago or more, a recrawl asks again, conditionally, for the pages
      fetched that long ago (``run-<key>-<time>``), so an unchanged site gives the same snapshot;
    * ``crawl.reuse = false``, or no finished crawl: a full crawl (``run-<key>`` or ``run-<key>-<time>``).
    """
    crawl = settings.crawl
    if crawl.from_crawl:
        clock.start("crawl", unit="pages")
        results = []
        for name in crawl.from_crawl:
            out = crawl_dir_of(data_dir, name)
            if not (out / "crawl-stats.json").exists():
                raise CrawlError(f"crawl {name} in {out} has not finished (no crawl-stats.json): continue it with "
                                 f"zhbench crawl --resume --name {out.name}, or name another crawl")
            results.append(_collected(out))
        clock.finish("crawl", None, sum(sum(r.by_status.values()) for r in results), "pages", cached=True)
        return results, _crawl_origin(Path(results[0].out_dir))
    with site_for(crawl, crawl.mirror_port) as base_url:
        key = caching.stage_key("crawl", {k: v for k, v in caching.section(crawl).items() if k not in CRAWL_RUN_ONLY},
                                base_url, code=False)
        root = crawls_root(data_dir)
        prefix = f"run-{key[:12]}"
        earlier = sorted(p for p in root.glob(prefix + "*") if (p / "fetched.jsonl").exists()) if root.is_dir() else []
        clock.start("crawl", unit="pages")
        latest = earlier[-1] if earlier else None
        if latest is not None and not (latest / COMPLETE).exists():
            kind = (latest / KIND).read_text(encoding="utf-8").strip() if (latest / KIND).exists() else "full"
            resumed = _crawl_into(settings, data_dir, base_url, latest, kind, resume=True)
            results = [*(_finished(earlier[:-1]) if kind == "recrawl" else []), resumed]
        elif latest is not None and crawl.reuse:
            results = _finished(earlier)
            due = crawl.recrawl_after and _finished_at(latest) <= datetime.now(timezone.utc) - parse_age(
                crawl.recrawl_after)
            if due:
                results.append(_crawl_into(settings, data_dir, base_url, root / f"{prefix}-{_stamp()}", "recrawl"))
        else:
            out = root / (prefix if latest is None else f"{prefix}-{_stamp()}")
            results = [_crawl_into(settings, data_dir, base_url, out, "full")]
        # Out: the fetches this run made (a recrawl's 304s included), or, reusing, the pages it reused.
        fetched_now = [r for r in results if not r.stats.get("zhbench/reused")]
        clock.finish("crawl", None, sum(sum(r.by_status.values()) for r in fetched_now or results), "pages",
                     cached=not fetched_now)
        return results, base_url


KIND = ".kind"  # in a crawl directory of a run: "full" or "recrawl"


def _stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def _crawl_into(settings: Settings, data_dir: Path, base_url: str, out: Path, kind: str,
                resume: bool = False) -> CrawlResult:
    """Crawl (or resume) into ``out``: a full crawl, or a recrawl that asks only for what is due."""
    crawl = settings.crawl
    out.mkdir(parents=True, exist_ok=True)
    (out / KIND).write_text(kind + "\n", encoding="utf-8")
    config = crawl_config(crawl, base_url, out, data_dir / "raw", resume=resume)
    if kind == "recrawl":
        due_only(config, data_dir, base_url, parse_age(crawl.recrawl_after or "0s"))

    def advanced(p: dict) -> None:
        if p:
            progress.advanced("crawl", int(p.get("pages", 0)), None, "pages")

    result = run_crawl(config, progress=advanced)
    (out / COMPLETE).write_text(datetime.now(timezone.utc).isoformat(timespec="seconds") + "\n", encoding="utf-8")
    register_crawl(data_dir, out.name, out)
    return result


def _finished(crawl_dirs: list[Path]) -> list[CrawlResult]:
    """The finished crawls a run builds from, oldest first: the last full crawl and the recrawls after it."""
    done = [p for p in crawl_dirs if (p / COMPLETE).exists()]
    full = [i for i, p in enumerate(done)
            if not (p / KIND).exists() or (p / KIND).read_text(encoding="utf-8").strip() == "full"]
    results = []
    for path in done[full[-1] if full else 0:]:
        result = _collected(path)
        result.stats = {**result.stats, "zhbench/reused": 1}
        results.append(result)
    return results


def _collected(crawl_dir: Path) -> CrawlResult:
    """A finished crawl as its directory holds it: fetch log, page shards and final counters."""
    return collect(crawl_dir, json.loads((crawl_dir / "crawl-stats.json").read_text(encoding="utf-8")))


def _finished_at(crawl_dir: Path) -> datetime:
    text = (crawl_dir / COMPLETE).read_text(encoding="utf-8").strip()
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return datetime.fromtimestamp((crawl_dir / COMPLETE).stat().st_mtime, timezone.utc)


def _crawl_origin(crawl_dir: Path) -> str:
    """scheme://host:port a finished crawl fetched from, from its saved config."""
    try:
        config = json.loads((crawl_dir / "crawl-config.json").read_text(encoding="utf-8"))
        parts = urlsplit(config["start_urls"][0])
        return f"{parts.scheme}://{parts.netloc}"
    except (OSError, ValueError, KeyError, IndexError):
        return ""


class _Stages:
    """Submits a run's stage tasks: each cached by its key, retried on passing failures, writing into its
    work directory (flows/caching.py)."""

    def __init__(self, settings: Settings, clock: StageClock) -> None:
        self.data_dir = Path(settings.data_dir)
        self.engine = settings.engine
        self.clock = clock
        self.storage = caching.result_storage(self.data_dir)

    def submit(self, stage_task, work: str, key: str, **params):
        from flows.runner import passing_failure

        out_dir = caching.work_dir(self.data_dir, work, key)
        configured = stage_task.with_options(
            result_storage=self.storage, refresh_cache=not caching.is_done(out_dir), retries=self.engine.retries,
            retry_delay_seconds=self.engine.retry_delay_s, retry_condition_fn=passing_failure)
        return configured.submit(key=key, out_dir=out_dir, **params)

    def run(self, stage: str, stage_task, key: str, records_in: int | None, unit: str, out_of, **params):
        self.clock.start(stage, records_in, unit)
        future = self.submit(stage_task, stage, key, **params)
        result = future.result()
        cached = future.state.name == "Cached"
        self.clock.finish(stage, records_in, out_of(result), unit, cached)
        return result, cached


def _mirror_origins(settings: Settings, origin: str) -> dict[str, str] | None:
    """Where the bundled mirror's pages are published, when the run's crawl is of the mirror: no site is
    configured and the pages came from a loopback address."""
    if settings.crawl.base_url:
        return None
    host = urlsplit(origin).hostname or ""
    if host != "localhost" and not host.startswith("127.") and host != "::1":
        return None
    from crawlers.mirror.render import PUBLIC_ORIGIN

    return PUBLIC_ORIGIN


def _corpus(settings: Settings, clock: StageClock) -> dict:
    data_dir = Path(settings.data_dir)
    stages = _Stages(settings, clock)
    crawls, origin = crawl_run_stage(settings, data_dir, clock)
    shards = [shard for crawl in crawls for shard in crawl.shards]
    fetched = sum(sum(crawl.by_status.values()) for crawl in crawls)
    clock.start("snapshot", fetched, "pages")
    pages = snapshot_stage(shards, data_dir, origin, latest_per_url=len(crawls) > 1,
                           published=_mirror_origins(settings, origin))
    clock.finish("snapshot", fetched, _rows(pages.shards), "pages")
    crawled = CrawlResult(crawls[-1].out_dir, shards, crawls[-1].stats, crawls[-1].by_status, crawls[-1].changes,
                          crawls[-1].failures)

    # Relations people rejected in review are left out, and every pair is judged again without them.
    rejected = rejected_relations(data_dir)
    align_key = caching.stage_key("align", pages.digest, caching.section(settings.align),
                                  *([{"rejected_relations": rejected}] if rejected else []))
    # The rules from the whole crawl, then the pages in parts (tasks the runner may run side by side); a killed
    # run resumes at the first part it had not finished.
    clock.start("align", None, "pairs")
    rules_future = stages.submit(align_rules_task, "align-rules", align_key, page_shards=pages.shards,
                                 align=settings.align, rejected=rejected)
    rules = rules_future.result()
    ranges = page_ranges(pages.shards[0], settings.engine.shard_pages) if pages.shards else []
    part_keys = [caching.stage_key("align-shard", align_key, start, stop) for start, stop in ranges]
    futures = [stages.submit(align_shard_task, "align", part_key, pages=pages.shards[0], start=start, stop=stop,
                             rules=rules, align=settings.align, cache_dir=data_dir / "cache")
               for part_key, (start, stop) in zip(part_keys, ranges)]
    parts = []
    for done, future in enumerate(futures, 1):
        parts.append(future.result())
        progress.advanced("align", done, len(futures), "shards")
    aligned = merge_aligned(rules, parts)
    clock.finish("align", None, aligned.funnel["pairs_kept"], "pairs",
                 cached=all(f.state.name == "Cached" for f in [rules_future, *futures]))

    against = releases_state(data_dir, settings.release.name) if settings.dedup.against_releases else None
    dedup_key = caching.stage_key("dedup", align_key, caching.section(settings.dedup), settings.release.name,
                                  against)
    # Pass 1 (signatures) a task per alignment part, like the alignment; then the groups over all of them.
    clock.start("dedup", aligned.funnel["pairs_kept"], "pairs")
    signing = [stages.submit(dedup_sign_task, "dedup-sign",
                             caching.stage_key("dedup-sign", part_key, caching.section(settings.dedup)),
                             pair_shards=part["shards"], dedup=settings.dedup)
               for part_key, part in zip(part_keys, parts)] if settings.dedup.enabled else []
    dedup_future = stages.submit(dedup_task, "dedup", dedup_key, pair_shards=aligned.shards, dedup=settings.dedup,
                                 funnel=aligned.funnel, data_dir=data_dir, release_name=settings.release.name,
                                 signed=[f.result() for f in signing] if signing else None)
    dedup_out = dedup_future.result()
    clock.finish("dedup", aligned.funnel["pairs_kept"], dedup_out["funnel"]["pairs_kept"], "pairs",
                 cached=all(f.state.name == "Cached" for f in [*signing, dedup_future]))

    verify_key = caching.stage_key("verify", dedup_key, pages.digest, caching.section(settings.verify))
    verified, cached = stages.run("verify", verify_task, verify_key, dedup_out["funnel"]["pairs_kept"], "pairs",
                                  lambda r: r["funnel"]["pairs_kept"], pair_shards=dedup_out["shards"],
                                  page_shards=pages.shards, verify=searching(settings), funnel=dedup_out["funnel"],
                                  catalog_path=data_dir / "catalog.duckdb", rules=aligned.rules)
    if cached:
        verified = dict(verified, funnel=_forget_run_counts(verified["funnel"]))
    verified["funnel"]["domains"] = kept_distribution(verified["shards"])
    return {"crawled": crawled, "pages": pages, "aligned": aligned, "dedup": dedup_out, "verified": verified,
            "verify_key": verify_key}


def _items(settings: Settings, pair_shards: list[Path], page_shards: list[Path], verify_key: str,
           clock: StageClock) -> dict:
    data_dir = Path(settings.data_dir)
    against = releases_state(data_dir, settings.release.name) if settings.dedup.against_releases else None
    items_key = caching.stage_key("items", verify_key, caching.section(settings.items), caching.section(settings.llm),
                                  caching.section(settings.verify), settings.release.name, against)
    items, cached = _Stages(settings, clock).run(
        "items", items_task, items_key, None, "items", lambda r: sum((r["report"].get("items_kept") or {}).values()),
        pair_shards=pair_shards, items=settings.items, cache_dir=data_dir / "cache",
        data_dir=data_dir if settings.dedup.against_releases else None, release_name=settings.release.name,
        llm=settings.llm, catalog_path=data_dir / "catalog.duckdb", verify=searching(settings), page_shards=page_shards)
    if cached:
        items = dict(items, report=_forget_run_counts({"report": items["report"]})["report"])
    return items


def _stages(settings: Settings, data_dir: Path, run_dir: Path, flow_run_id: str | None, started: float,
            started_at: datetime, run_config: dict, repaired: list[str]) -> RunSummary:
    from flows.masking import mask_settings
    from flows.runner import engine_for_run, make_task_runner
    from flows.websearch import run_search

    clock = _clock.get()
    with engine_for_run(settings.engine) as engine, run_search(settings) as verify:
        search = _searching.set(verify)
        try:
            # The subflows' tasks go to the run's task runner (a local Dask cluster is started once, above).
            params = mask_settings(settings.model_dump(mode="json"))
            corpus = corpus_flow.with_options(task_runner=make_task_runner(engine))(params)
            verified = corpus["verified"]
            items = {"shards": [], "report": {}}
            if verified["funnel"]["pairs_kept"] > 0:
                items = items_flow.with_options(task_runner=make_task_runner(engine))(
                    params, [str(p) for p in verified["shards"]], [str(p) for p in corpus["pages"].shards],
                    corpus["verify_key"])
        finally:
            _searching.reset(search)
    crawled, pages, aligned = corpus["crawled"], corpus["pages"], corpus["aligned"]
    funnel = verified["funnel"]
    funnel["items"] = items["report"]
    item_shards, pair_shards = items["shards"], verified["shards"]
    if settings.review.apply_verdicts and funnel["pairs_kept"] > 0 and (data_dir / "review.sqlite").is_file():
        from review.verdicts import apply_verdicts

        clock.start("verdicts", None, "items")
        item_shards, pair_shards, applied = apply_verdicts(data_dir / "review.sqlite", item_shards, pair_shards,
                                                           run_dir / "reviewed")
        clock.finish("verdicts", applied.get("reviewed"), applied.get("verified"), "items")
        if applied:
            funnel["review"] = applied
    counts = release_counts({"pages": aligned.pages_by_status, **funnel})
    release_dir, note, blocked = None, "", ""
    if funnel["pairs_kept"] > 0:
        hierarchy = load_hierarchy(settings.release.name, settings.release.hierarchy)
        clock.start("publish")
        # In the flow's process, which holds the data directory's lock: the release and the catalog have one
        # writer.
        release_dir, blocked = publish_task(
            pair_shards, settings.release, data_dir, manifest_config(settings), counts, pages.digest,
            flow_run_id, item_tables(item_shards, settings.items, hierarchy), hierarchy,
            gate_rules(settings, hierarchy) if settings.release.gate else None,
            run_dir / "validation", aligned.relations, pages.shards, run_dir.name)
        clock.finish("publish", None, None, "")
        note = blocked
    else:
        note = no_release_note(funnel, settings.release.name)
    if settings.review.enqueue and release_dir is not None:
        queued = review_stage(release_dir, data_dir, settings.review, items["shards"], clock)
        funnel["review"] = {**funnel.get("review", {}), "queued": queued}
    seconds = time.monotonic() - started
    report = {"run": run_dir.name, "release": str(release_dir) if release_dir else None, "note": note,
              "pages": aligned.pages_by_status, "funnel": funnel, "stages": clock.stages,
              "started_at": started_at.isoformat(timespec="seconds"), "seconds": round(seconds, 3)}
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "report.json").write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    from flows.artifacts import publish_artifacts
    from flows.report import load_previous

    publish_artifacts(report, release_dir, load_previous(run_dir))
    status = "published" if release_dir else ("blocked" if blocked else "nothing_new")
    Catalog(data_dir / "catalog.duckdb").record_run({
        "run_id": run_dir.name, "flow_run_id": flow_run_id, "started_at": started_at,
        "finished_at": datetime.now(timezone.utc), "status": status, "release_name": settings.release.name,
        "release_version": release_dir.name if release_dir else None, "note": note, "settings": run_config,
        "funnel": funnel},
        {"crawl": crawled.shards, "align": aligned.shards, "dedup": corpus["dedup"]["shards"],
         "verify": verified["shards"], "items": items["shards"]},
        data_dir)
    return RunSummary(release_dir=release_dir, run_dir=run_dir, pages=aligned.pages_by_status,
                      funnel=funnel, crawl_stats=crawled.stats,
                      problems=releases.verify(release_dir) if release_dir else [],
                      seconds=seconds, note=note, blocked=bool(blocked), repaired=repaired,
                      stages=clock.stages)


def rejected_relations(data_dir: Path) -> list[str]:
    """Relations people rejected in review (review/store.py); none while there is no review file."""
    from review.store import ReviewStore

    path = Path(data_dir) / "review.sqlite"
    return ReviewStore(path).rejected_relations() if path.is_file() else []


def review_stage(release_dir: Path, data_dir: Path, review: ReviewSettings, item_shards: list[Path],
                 clock: StageClock) -> int:
    """The release's items queued for two blind annotations each, by the review policy (review/queue.py), with
    what the verifiers recorded about them: the checks.jsonl beside the item stage's own shards ``item_shards``
    (not those the review verdicts rewrote into the run directory)."""
    from review.queue import Policy, queue_release

    policy = Policy(tuple(review.all_configs), tuple(review.sampled_configs), review.sample_per_domain, review.seed)
    checks = next((p for p in (Path(s).parent.parent / "checks.jsonl" for s in item_shards) if p.is_file()), None)
    clock.start("review", None, "items")
    queued = queue_release(data_dir, release_dir, policy, checks=checks)
    clock.finish("review", None, queued, "items")
    return queued


def _rows(shards: list[Path]) -> int:
    return sum(pq.ParquetFile(p).metadata.num_rows for p in shards)

# What a run's caches answered: it tells how much this run had to compute, not what the release holds, and
# differs between a run in a fresh data directory and one after it; the catalog keeps it with the run.
RUN_ONLY_COUNTS = (("search", "cache_hits"), ("search", "cache_misses"), ("items", "embedding_cache"))


def release_counts(funnel: dict) -> dict:
    """The run's funnel as the release records it: without RUN_ONLY_COUNTS."""
    counts = json.loads(json.dumps(funnel))
    for section, key in RUN_ONLY_COUNTS:
        if isinstance(counts.get(section), dict):
            counts[section].pop(key, None)
    return counts


def gate_rules(settings: Settings, hierarchy: dict[str, Labels]) -> GateRules:
    """What the release gate expects, from the run's settings and taxonomy."""
    taxonomy = load_taxonomy(settings.align.taxonomy)
    return GateRules(
        position_threshold=settings.align.position_threshold, max_answer_chars=settings.items.max_answer_chars,
        domains=tuple(d.id for d in taxonomy.domains),
        topics=tuple(t.id for t in taxonomy.topics) if settings.align.topics else (),
        subtopics=tuple(s.id for t in taxonomy.topics for s in t.subtopics) if settings.align.topics else (),
        hierarchy={c: labels.as_dict() for c, labels in hierarchy.items()})


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


def no_release_note(funnel: dict, name: str) -> str:
    released = sum(v for k, v in funnel["pairs_dropped"].items() if k.startswith("dedup:released_"))
    if released:
        return (f"none published: all {released} pairs that passed the filters are already in earlier "
                f"{name} releases (zhbench run --readmit publishes them again)")
    return "none published: no pair passed the filters"

