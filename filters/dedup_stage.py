"""The dedup stage: exact and near-duplicate kept pairs (MinHash LSH, filters/dedup.py) marked dropped, the
first of a group kept, and with ``against_releases`` the pairs an earlier release already holds. Pass 1 signs
each alignment part (``dedup_sign``); ``dedup_stage`` groups them all. ``dedup`` is the run's [dedup] settings
section (flows.settings.DedupSettings)."""

from __future__ import annotations

import hashlib
import json
import shutil
from array import array
from collections import Counter
from pathlib import Path
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from filters.dedup import Deduplicator
from schemas import Pair
from schemas.releases import list_versions, releases_root
from schemas.storage.shards import ShardWriter, bounded_duck, iter_records, sql_path_list

def released_texts(data_dir: Path, name: str) -> Iterator[tuple[str, str]]:
    """(\"<name> <version>:<pair_id>\", text) of every pair in every earlier release of that name: the text as
    crawled (a release before the cut ships it as its text), which a rerun's pair has whatever its cut."""
    for version in list_versions(data_dir, name):
        path = releases_root(data_dir, name) / version / "cdtp_pairs" / "all.parquet"
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


def dedup_finder(dedup, work_dir: Path | None = None) -> Deduplicator:
    return Deduplicator(dedup.threshold, dedup.num_perm, dedup.shingle, dedup.n, work_dir=work_dir,
                        memory_limit=dedup.memory_limit)


def dedup_sign(pair_shards: list[Path], dedup, out_dir: Path) -> Path:
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


def dedup_stage(pair_shards: list[Path], dedup, funnel: dict, out_dir: Path,
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
