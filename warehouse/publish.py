"""The publish stage: the kept pairs, their dropped triples, the relation table and the item tables written as
one release (warehouse/release.py), after the release gate passes (warehouse/gate.py)."""

from __future__ import annotations

import json
from pathlib import Path

from filters.domains import load_taxonomy
from schemas import DROPPED_TRIPLE_SCHEMA, PAIR_SCHEMA, RELATION_SCHEMA
from schemas.storage.tables import TableSpec
from warehouse import release as releases
from warehouse.gate import GateFailed, GateRules, run_gate
from warehouse.hierarchy import Labels

CODE_VERSION = "0.1.0"


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


def publish_stage(pair_shards: list[Path], release, data_dir: Path, config: dict,
                  counts: dict, source_snapshot: str, flow_run_id: str | None,
                  item_tables: list[TableSpec] | None = None,
                  hierarchy: dict[str, Labels] | None = None, gate_rules: GateRules | None = None,
                  validation_dir: Path | None = None, relations: Path | None = None,
                  page_shards: list[Path] | None = None, run_id: str | None = None,
                  review: dict | None = None) -> Path:
    """Write the release; with gate_rules, the validation suites and the audit must pass first (their
    results and Data Docs go to validation_dir). ``relations``: the alignment stage's relation table;
    ``page_shards``: the crawl (its snapshot: ``snapshot_stage``), recorded in the manifest (relative to
    data_dir) for audits. ``run_id``, ``flow_run_id`` and ``review`` (what the release owes the review queue:
    ``review.queue.review_plan``) are recorded in the catalog."""
    sources = {"crawl": [_relative(p, data_dir) for p in page_shards or []]}
    gate = None
    if gate_rules is not None:
        def gate(directory: Path, files: list) -> dict:
            return run_gate(directory, files, gate_rules, validation_dir or Path(data_dir) / "validation",
                            audit=(config, sources["crawl"], Path(data_dir)))
    tables = [
        TableSpec("cdtp_pairs", "all", PAIR_SCHEMA, PAIRS_QUERY, pair_shards),
        TableSpec("dropped_triples", "all", DROPPED_TRIPLE_SCHEMA, DROPPED_QUERY, pair_shards),
        *([TableSpec("relations", "all", RELATION_SCHEMA, RELATIONS_QUERY, [relations])] if relations else []),
        *(item_tables or []),
    ]
    return releases.publish(data_dir, release.name, tables, config=config, counts=counts,
                            version=release.version, source_snapshot=source_snapshot,
                            flow_run_id=flow_run_id, code_version=CODE_VERSION,
                            hierarchy={c: labels.as_dict() for c, labels in (hierarchy or {}).items()}, gate=gate,
                            sources=sources, run_id=run_id, review=review)


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


def gate_rules(settings, hierarchy: dict[str, Labels]) -> GateRules:
    """What the release gate expects, from the run's settings and taxonomy."""
    taxonomy = load_taxonomy(settings.align.taxonomy)
    return GateRules(
        position_threshold=settings.align.position_threshold, max_answer_chars=settings.items.max_answer_chars,
        domains=tuple(d.id for d in taxonomy.domains),
        topics=tuple(t.id for t in taxonomy.topics) if settings.align.topics else (),
        subtopics=tuple(s.id for t in taxonomy.topics for s in t.subtopics) if settings.align.topics else (),
        hierarchy={c: labels.as_dict() for c, labels in hierarchy.items()})


def no_release_note(funnel: dict, name: str) -> str:
    released = sum(v for k, v in funnel["pairs_dropped"].items() if k.startswith("dedup:released_"))
    if released:
        return (f"none published: all {released} pairs that passed the filters are already in earlier "
                f"{name} releases (zhbench run --readmit publishes them again)")
    return "none published: no pair passed the filters"
