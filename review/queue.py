"""What goes to the review queue, and what an annotator sees of it.

A queued item carries its payload: the item as released, the source pairs it was built from
(text and triples with the URLs the search validation found) and what every verifier recorded
about it (the run's ``checks.jsonl``). The web app shows the payload and never reads the
release or the catalog, so annotators keep working while a run writes.

The policy (``[review]`` settings) follows the two methods: every SimpleQA question is checked
by people (Chinese SimpleQA §3.3); of the CDTP pairs and the multiple-choice items, a seeded
sample per domain (CDTP checks its relations and a sample of its data by hand).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from review.store import MCQ_CONFIGS, ReviewError, ReviewStore
from schemas.releases import by_config, load_manifest
from schemas.storage.catalog import Catalog

SAMPLED_CONFIGS = ("cdtp_pairs", *MCQ_CONFIGS)


@dataclass(frozen=True)
class Policy:
    """Which items of a release are queued: ``all_configs`` in full, ``sample_per_domain`` items of
    each of ``sampled_configs`` per domain (0: none), drawn by a seeded hash of the id."""

    all_configs: tuple[str, ...] = ("simpleqa",)
    sampled_configs: tuple[str, ...] = SAMPLED_CONFIGS
    sample_per_domain: int = 20
    seed: int = 0

    def __post_init__(self):
        if self.sample_per_domain < 0:
            raise ValueError(f"sample_per_domain must be >= 0, got {self.sample_per_domain}")


def _draw(ids: list[str], seed: int, n: int | None) -> list[str]:
    ranked = sorted(ids, key=lambda i: hashlib.sha256(f"{seed}:{i}".encode()).hexdigest())
    return sorted(ranked if n is None else ranked[:n])


def release_configs(release_dir: Path) -> dict[str, list[Path]]:
    """{config: its files} of the configs that can be reviewed: items and cdtp_pairs."""

    manifest = load_manifest(release_dir)
    out = {}
    for config, files in by_config(manifest.files).items():
        names = pq.read_schema(Path(release_dir) / files[0].path).names
        if "item_id" in names or config == "cdtp_pairs":
            out[config] = [Path(release_dir) / f.path for f in files]
    return out


def select(release_dir: Path, policy: Policy | None = None, configs: list[str] | None = None,
           sample: int | None = None, seed: int = 0, split: str = "all") -> dict[str, list[str]]:
    """{config: ids} to queue. With ``policy``, the policy's choice; otherwise ``configs`` (all when
    None), each in full or a seeded ``sample`` of it, items of ``split`` only."""

    available = release_configs(release_dir)
    manifest = load_manifest(release_dir)
    if not available:
        raise ReviewError(f"{manifest.name} {manifest.version} has nothing to review (no items or pairs); "
                          "review a release built with items")
    unknown = sorted(set(configs or []) - set(available))
    if unknown:
        raise ReviewError(f"{manifest.name} {manifest.version} has no config {', '.join(unknown)} to review; "
                          f"choose from {', '.join(available)}")
    chosen: dict[str, list[str]] = {}
    for config, files in available.items():
        id_column = "pair_id" if config == "cdtp_pairs" else "item_id"
        table = pa.concat_tables([pq.read_table(f, columns=[id_column, "domain"]) for f in files
                                  if split == "all" or config == "cdtp_pairs" or f.stem == split])
        ids, domains = table.column(0).to_pylist(), table.column(1).to_pylist()
        if policy is not None:
            if config in policy.all_configs:
                chosen[config] = sorted(ids)
            elif config in policy.sampled_configs and policy.sample_per_domain:
                by_domain: dict[str, list[str]] = {}
                for i, d in zip(ids, domains, strict=True):
                    by_domain.setdefault(d or "", []).append(i)
                chosen[config] = sorted(i for group in by_domain.values()
                                        for i in _draw(group, policy.seed, policy.sample_per_domain))
        elif configs is None or config in configs:
            chosen[config] = _draw(ids, seed, sample)
    return {c: ids for c, ids in chosen.items() if ids}


def payloads(release_dir: Path, chosen: dict[str, list[str]], checks: Path | None = None) -> list[dict]:
    """The queue rows of ``chosen``: each item with its source pairs and its verifiers' records."""
    available = release_configs(release_dir)
    pair_files = available.get("cdtp_pairs", [])
    rows = {config: _rows(available[config], "pair_id" if config == "cdtp_pairs" else "item_id", ids)
            for config, ids in chosen.items()}
    needed = {p for config, found in rows.items() if config != "cdtp_pairs"
              for row in found.values() for p in row.get("source_pair_ids") or []}
    pairs = _rows(pair_files, "pair_id", needed) if needed else {}
    evidence = _checks(checks, {i for config, found in rows.items() if config != "cdtp_pairs" for i in found})
    out = []
    for config, found in rows.items():
        for item_id, row in sorted(found.items()):
            if config == "cdtp_pairs":
                item = {"item_id": item_id, "kind": "cdtp_pairs", "question": "", "answer": "",
                        "head": row["entity"], "sense": row.get("sense") or "", "domain": row.get("domain") or "",
                        "primary_category": row.get("topic") or "", "urls": [row["url"]]}
                source = [row]
            else:
                item, source = row, [pairs[p] for p in row.get("source_pair_ids") or [] if p in pairs]
            records = evidence.get(item_id, [])
            payload = {"item": item, "pairs": [_pair(p) for p in source], "checks": records}
            if any((r.get("evidence") or {}).get("disagrees") for r in records):
                payload["first"] = True  # the options judge found another right option: a person decides first
            out.append({"item_id": item_id, "config": config,
                        "category": item.get("primary_category") or item.get("domain") or "",
                        "payload": payload})
    return out


def disagreed(checks: Path | None) -> set[str]:
    """The items of a run's checks.jsonl whose options judge found another right option (or not the gold)."""
    found: set[str] = set()
    if checks is None or not Path(checks).is_file():
        return found
    with open(checks, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if (record.get("evidence") or {}).get("disagrees"):
                found.add(record["item_id"])
    return found


def _rows(files: list[Path], id_column: str, ids) -> dict[str, dict]:
    """{id: row} of the rows of ``files`` whose ``id_column`` is one of ``ids``."""
    wanted = pa.array(sorted(ids), pa.string())
    out = {}
    for f in files:
        table = pq.read_table(f)
        for row in table.filter(pc.is_in(table[id_column], value_set=wanted)).to_pylist():
            out[row[id_column]] = row
    return out


def _pair(row: dict) -> dict:
    keep = ("pair_id", "entity", "sense", "url", "source", "text", "triples", "domain", "topic", "source_text", "cuts")
    return {k: row.get(k) for k in keep}


def _checks(path: Path | None, ids: set[str]) -> dict[str, list[dict]]:
    """{item_id: the verifiers' records} from a run's checks.jsonl (what each verifier found)."""
    out: dict[str, list[dict]] = {}
    if path is None or not Path(path).is_file() or not ids:
        return out
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if record.get("item_id") in ids:
                out.setdefault(record["item_id"], []).append(record)
    return out


def checks_of(data_dir: Path, name: str, version: str) -> Path | None:
    """The checks.jsonl of the run that published a release, found through the catalog; None when the
    run's work files are gone."""

    catalog = Path(data_dir) / "catalog.duckdb"
    if not catalog.is_file():
        return None
    rows = Catalog(catalog).transaction(lambda con: con.execute(
        "SELECT s.path FROM stage_outputs s JOIN releases r ON r.run_id = s.run_id "
        "WHERE r.name = ? AND r.version = ? AND s.stage = 'items' ORDER BY s.path LIMIT 1",
        [name, version]).fetchall())
    if not rows:
        return None
    path = (Path(data_dir) / rows[0][0]).parent.parent / "checks.jsonl"
    return path if path.is_file() else None


def queue_release(data_dir: Path, release_dir: Path, policy: Policy | None = None, configs: list[str] | None = None,
                  sample: int | None = None, seed: int = 0, split: str = "all",
                  checks: Path | None = None) -> int:
    """Queue a release's items (by ``policy``, or ``configs``/``sample`` as in :func:`select`); returns
    how many were added (items already queued stay as they are)."""

    manifest = load_manifest(release_dir)
    chosen = select(release_dir, policy, configs, sample, seed, split)
    checks = checks or checks_of(data_dir, manifest.name, manifest.version)
    if policy is not None:  # whatever the sample, every item the options judge disagreed with is reviewed
        first = disagreed(checks)
        if first:
            for config, ids in select(release_dir, None, [c for c in ("kgc", "qa")
                                                          if c in release_configs(release_dir)]).items():
                chosen[config] = sorted(set(chosen.get(config, [])) | (first & set(ids)))
    return ReviewStore.at(data_dir).enqueue(manifest.name, manifest.version, payloads(release_dir, chosen, checks))


def review_plan(review, item_shards: list[Path], data_dir: Path) -> dict | None:
    """What a run's release owes the review queue, by the run's [review] settings (``review``:
    flows.settings.ReviewSettings): the policy, and the checks.jsonl beside the item stage's own shards
    ``item_shards`` (not those the review verdicts rewrote into the run directory), relative to ``data_dir``.
    None when the run queues nothing. The catalog keeps it with the release's registration, so that the queue
    is part of the release's commit: a run killed after the rename has its release queued at the next start."""
    if not review.enqueue:
        return None
    checks = next((p for p in (Path(s).parent.parent / "checks.jsonl" for s in item_shards) if p.is_file()), None)
    if checks is not None:
        try:
            checks = checks.resolve().relative_to(Path(data_dir).resolve())
        except ValueError:
            checks = checks.resolve()
    return {"all_configs": list(review.all_configs), "sampled_configs": list(review.sampled_configs),
            "sample_per_domain": review.sample_per_domain, "seed": review.seed,
            "checks": checks.as_posix() if checks is not None else None}


def queue_for_review(release_dir: Path, data_dir: Path) -> int:
    """Queue what a published release owes the review queue (its plan in the catalog, recorded when it was
    registered: ``review_plan``) for two blind annotations each, then record it queued; returns how many items
    were added. Owing nothing (no plan, or queued already) is 0. Safe to repeat: items already queued stay as
    they are, so a run killed between the queue and the catalog loses nothing when the next start does it again."""
    manifest = load_manifest(release_dir)
    catalog = Catalog(Path(data_dir) / "catalog.duckdb")
    owed = next((r for r in catalog.review_owed() if (r["name"], r["version"]) == (manifest.name, manifest.version)),
                None)
    if owed is None:
        return 0
    plan = owed["review_plan"]
    policy = Policy(tuple(plan["all_configs"]), tuple(plan["sampled_configs"]), plan["sample_per_domain"], plan["seed"])
    checks = Path(data_dir) / plan["checks"] if plan.get("checks") else None
    added = queue_release(data_dir, release_dir, policy, checks=checks if checks and checks.is_file() else None)
    catalog.set_review_queued(manifest.name, manifest.version)
    return added
