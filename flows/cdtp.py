"""The CDTP flow: crawl -> parse -> triples -> alignment -> dedup -> release.

Stage logic lives in plain functions (``crawl_stage``, ``align_stage``,
``publish_stage``) that take settings sections and file paths and return file
paths; the Prefect tasks are thin wrappers, so the logic is tested without the
engine and the engine is tested once.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from array import array
from collections import Counter
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from prefect import flow, task

from crawlers.crawl import CrawlResult, run_crawl
from filters.base import Funnel, apply_filters
from filters.dedup import Deduplicator
from filters.domains import DomainAssigner, label_pairs, load_taxonomy
from filters.embeddings import make_embedder
from filters.align import AlignmentRules, frequent_relations
from filters.triples import page_to_pair, relation_aliases
from flows.items import item_tables, items_stage
from flows.verify import verify_stage
from flows.crawling import crawl_config, register_crawl, site_for
from flows.settings import AlignSettings, CrawlSettings, DedupSettings, ReleaseSettings, Settings
from schemas import DROPPED_TRIPLE_SCHEMA, PAGE_SCHEMA, PAIR_SCHEMA, RELATION_SCHEMA, Page, Pair
from warehouse import release as releases
from warehouse.catalog import Catalog
from warehouse.lock import data_dir_lock
from warehouse.hierarchy import Labels, load_hierarchy
from warehouse.validation import GateFailed, GateRules
from warehouse.shards import ShardWriter, bounded_duck, duck, iter_records, sql_path_list

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


@dataclass
class Snapshot:
    shards: list[Path]
    digest: str  # of the pages' content: what the release names as its source crawl


def crawl_stage(crawl: CrawlSettings, base_url: str, out_dir: Path, data_dir: Path) -> CrawlResult:
    result = run_crawl(crawl_config(crawl, base_url, out_dir, data_dir / "raw"))
    register_crawl(data_dir, f"run-{out_dir.parent.name}", out_dir)
    return result


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


def snapshot_stage(page_shards: list[Path], data_dir: Path, base_url: str = "") -> Snapshot:
    """The crawl as the later stages and the release see it: its pages in PAGES_QUERY's order, in
    ``<data_dir>/snapshots/crawl-<digest>/pages.parquet``, named by ``crawl_digest``. A crawl that found
    the same pages as an earlier one reuses its snapshot, so releases built from either name one crawl
    by one path, and the snapshot outlives the run directory it came from."""
    if not page_shards:
        return Snapshot([], "")
    root = Path(data_dir) / "snapshots"
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        releases.write_table(releases.TableSpec("pages", "all", PAGE_SCHEMA, PAGES_QUERY, page_shards),
                             tmp / "pages.parquet")
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


def align_stage(page_shards: list[Path], align: AlignSettings, out_dir: Path,
                cache_dir: Path | None = None) -> AlignResult:
    """Pages -> pairs with every triple and pair judged by the CDTP filters and a domain label
    on each; writes pair shards. cache_dir keeps the embeddings for the next run."""
    funnel = Funnel()
    by_status: dict[str, int] = {}

    def content_pages() -> Iterator[Pair]:
        for page in iter_records(page_shards, Page):
            by_status[page.status] = by_status.get(page.status, 0) + 1
            if page.status == "ok":
                yield page_to_pair(page, align.text_scope)

    aliases = relation_aliases()
    counts = relation_counts(page_shards, aliases)
    keep = frequent_relations(counts, align.min_relation_support, align.top_k_relations)
    rules = AlignmentRules(counts, keep, aliases, align.position_threshold, align.enumerations_must_be_covered)
    triple_filters, pair_filters = rules.filters()
    assigner = DomainAssigner(load_taxonomy(align.taxonomy),
                              make_embedder(align.embedder, cache_dir / "embeddings" if cache_dir else None),
                              align.domain_rule_weight, topics=align.topics)
    judged = apply_filters(content_pages(), triple_filters, pair_filters, funnel)
    with ShardWriter(out_dir, "pairs", Pair) as writer:
        writer.write_all(label_pairs(judged, assigner))
    report = {**funnel.as_dict(), "relations": {"kept": {n: counts[n] for n in keep},
                                                "dropped": len(counts) - len(keep)}}
    # Beside the shards, not among them: readers glob the shard directory.
    relations = Path(out_dir) / "rules" / "relations.parquet"
    saved = rules.save(relations.with_name("rules.json"))
    pq.write_table(pa.Table.from_pylist(rules.relation_rows(), RELATION_SCHEMA), relations)
    return AlignResult(shards=writer.paths, funnel=report, pages_by_status=dict(sorted(by_status.items())),
                       rules=saved, relations=relations)


def released_texts(data_dir: Path, name: str) -> Iterator[tuple[str, str]]:
    """(\"<name> <version>:<pair_id>\", text) of every pair in every earlier release of that name."""
    for version in releases.list_versions(data_dir, name):
        path = releases.releases_root(data_dir, name) / version / "cdtp_pairs" / "all.parquet"
        if not path.is_file():
            continue
        for batch in pq.ParquetFile(path, pre_buffer=False).iter_batches(10_000, columns=["pair_id", "text"]):
            for pair_id, text in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True):
                yield f"{name} {version}:{pair_id}", text


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


def _write_duplicates(found: Path, out: Path, memory_limit: str) -> None:
    """duplicates.jsonl sorted by pair id, streamed from the Parquet the dedup wrote (DuckDB within
    memory_limit on one thread, sorting on disk beyond it)."""
    with bounded_duck(memory_limit) as con, open(out, "w", encoding="utf-8") as handle:
        query = f"SELECT * FROM read_parquet({sql_path_list([found])}) ORDER BY pair_id"
        for batch in con.sql(query).to_arrow_reader(8_192):
            for row in batch.to_pylist():
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def dedup_stage(pair_shards: list[Path], dedup: DedupSettings, funnel: dict, out_dir: Path,
                data_dir: Path | None = None, release_name: str = "cdtp") -> dict:
    """Mark exact and near-duplicate kept pairs as dropped (the first id of a group survives), and
    with ``dedup.against_releases`` those that an earlier release of ``release_name`` holds.

    Rewrites the pair shards with the new decisions and returns the updated funnel; the groups
    go to duplicates.jsonl beside the shards.
    """
    if not dedup.enabled or not pair_shards:
        return {"shards": pair_shards, "funnel": funnel}
    out_dir.mkdir(parents=True, exist_ok=True)
    finder = Deduplicator(dedup.threshold, dedup.num_perm, dedup.shingle, dedup.n,
                          work_dir=out_dir / "work", memory_limit=dedup.memory_limit)
    references = 0
    if dedup.against_releases and data_dir is not None:
        references = finder.add_references(released_texts(Path(data_dir), release_name))
    kept = ((p.pair_id, p.text) for p in iter_records(pair_shards, Pair) if p.decision == "kept")
    # The duplicates go to Parquet as they are found; memory keeps 8 bytes per duplicate (its id's
    # key) and 1 for its reason, so a million pairs mark their duplicates in a few megabytes.
    keys, codes, reasons = array("Q"), array("B"), list(DEDUP_REASONS)
    found_path = out_dir / "work" / "duplicates.parquet"
    with pq.ParquetWriter(found_path, DUPLICATE_SCHEMA) as found:
        batch: list[dict] = []
        for d in finder.find(kept):
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


crawl_task = task(crawl_stage, name="crawl")
snapshot_task = task(snapshot_stage, name="snapshot")
align_task = task(align_stage, name="align")
dedup_task = task(dedup_stage, name="dedup")
verify_task = task(verify_stage, name="verify")
items_task = task(items_stage, name="items")
publish_task = task(publish_checked, name="publish")


@flow(name="cdtp", log_prints=False)
def cdtp_flow(settings: Settings) -> RunSummary:
    """The whole run, holding the data directory's lock (taken before by ``zhbench run``, which can
    wait for it; taken here when the flow is called on its own)."""
    with data_dir_lock(Path(settings.data_dir)):
        return _cdtp(settings)


def _cdtp(settings: Settings) -> RunSummary:
    from prefect.runtime import flow_run

    data_dir = Path(settings.data_dir)
    releases.release_time()  # a malformed SOURCE_DATE_EPOCH stops the run here, not after the crawl
    repaired = releases.repair(data_dir)
    started = time.monotonic()
    started_at = datetime.now(timezone.utc)
    stamp = started_at.strftime("%Y%m%dT%H%M%SZ")
    run_dir = data_dir / "runs" / f"{stamp}-{uuid.uuid4().hex[:6]}"
    flow_run_id = str(flow_run.id) if flow_run.id else None
    # The run's own settings go to the catalog; the release's leave out where this run fetched from.
    run_config = settings.model_dump(mode="json", exclude={"data_dir"})
    config = settings.model_dump(mode="json", exclude={"data_dir": True, "crawl": {"mirror_port"}})
    catalog = Catalog(data_dir / "catalog.duckdb")
    catalog.start_run({"run_id": run_dir.name, "flow_run_id": flow_run_id, "started_at": started_at,
                       "release_name": settings.release.name, "settings": run_config})
    try:
        return _stages(settings, data_dir, run_dir, flow_run_id, started, started_at, config, run_config, repaired)
    except BaseException as exc:
        status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
        catalog.set_run_status(run_dir.name, status, str(exc) or type(exc).__name__)
        raise


def _stages(settings: Settings, data_dir: Path, run_dir: Path, flow_run_id: str | None, started: float,
            started_at: datetime, config: dict, run_config: dict, repaired: list[str]) -> RunSummary:
    with site_for(settings.crawl, settings.crawl.mirror_port) as base_url:
        crawled = crawl_task(settings.crawl, base_url, run_dir / "crawl", data_dir)
    pages = snapshot_task(crawled.shards, data_dir, base_url)
    aligned = align_task(pages.shards, settings.align, run_dir / "pairs", data_dir / "cache")
    dedup_out = dedup_task(aligned.shards, settings.dedup, aligned.funnel, run_dir / "pairs-dedup",
                           data_dir, settings.release.name)
    deduped = verify_task(dedup_out["shards"], pages.shards, settings.verify, dedup_out["funnel"],
                          run_dir / "pairs-verified", data_dir / "catalog.duckdb", aligned.rules)
    deduped["funnel"]["domains"] = kept_distribution(deduped["shards"])
    items = {"shards": [], "report": {}}
    if deduped["funnel"]["pairs_kept"] > 0:
        items = items_task(deduped["shards"], settings.items, run_dir / "items", data_dir / "cache",
                           data_dir if settings.dedup.against_releases else None,
                           settings.release.name, settings.llm,
                           data_dir / "catalog.duckdb", settings.verify, pages.shards)
    deduped["funnel"]["items"] = items["report"]
    counts = release_counts({"pages": aligned.pages_by_status, **deduped["funnel"]})
    release_dir, note, blocked = None, "", ""
    if deduped["funnel"]["pairs_kept"] > 0:
        hierarchy = load_hierarchy(settings.release.name, settings.release.hierarchy)
        release_dir, blocked = publish_task(deduped["shards"], settings.release, data_dir, config, counts,
                                            pages.digest, flow_run_id,
                                            item_tables(items["shards"], settings.items, hierarchy), hierarchy,
                                            gate_rules(settings, hierarchy) if settings.release.gate else None,
                                            run_dir / "validation", aligned.relations, pages.shards, run_dir.name)
        note = blocked
    else:
        note = no_release_note(deduped["funnel"], settings.release.name)
    report = {"run": run_dir.name, "release": str(release_dir) if release_dir else None, "note": note,
              "pages": aligned.pages_by_status, "funnel": deduped["funnel"]}
    (run_dir / "report.json").write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    status = "published" if release_dir else ("blocked" if blocked else "nothing_new")
    Catalog(data_dir / "catalog.duckdb").record_run({
        "run_id": run_dir.name, "flow_run_id": flow_run_id, "started_at": started_at,
        "finished_at": datetime.now(timezone.utc), "status": status, "release_name": settings.release.name,
        "release_version": release_dir.name if release_dir else None, "note": note, "settings": run_config,
        "funnel": deduped["funnel"]},
        {"crawl": crawled.shards, "align": aligned.shards, "dedup": dedup_out["shards"], "verify": deduped["shards"],
         "items": items["shards"]},
        data_dir)
    return RunSummary(release_dir=release_dir, run_dir=run_dir, pages=aligned.pages_by_status,
                      funnel=deduped["funnel"], crawl_stats=crawled.stats,
                      problems=releases.verify(release_dir) if release_dir else [],
                      seconds=time.monotonic() - started, note=note, blocked=bool(blocked), repaired=repaired)


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

