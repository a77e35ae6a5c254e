"""Reading releases back: which there are (``list_releases``), what one holds (``show``) and how two differ
(``diff``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from schemas.releases import ReleaseError, config_files, list_versions, load_manifest, releases_root
from schemas.storage.shards import duck, sql_path_list

# The column that identifies a row of each config; a config not listed is keyed by all its columns.
KEYS = {"cdtp_pairs": ("pair_id",), "dropped_triples": ("pair_id", "relation", "tail", "raw_value", "reason")}
ITEM_KEY = ("item_id",)
# What an example row shows of itself.
LABEL = {"cdtp_pairs": "entity", "dropped_triples": "relation"}
EXAMPLES = 3


def resolve(data_dir: Path, name: str, release: str) -> Path:
    """A release directory from a version of ``name`` or a path; a clear error when neither exists."""
    candidate = Path(release)
    if (candidate / "manifest.json").is_file():
        return candidate
    directory = releases_root(Path(data_dir), name) / release
    if (directory / "manifest.json").is_file():
        return directory
    raise ReleaseError(f"no release {release!r}: neither a directory with a manifest.json nor a version of "
                       f"{name} under {releases_root(Path(data_dir), name)} (see `zhbench release list`)")


def list_releases(data_dir: Path, name: str) -> Iterator[str]:
    """One line per version of ``name``: when it was made, whether it was validated, rows per config and split."""
    versions = list_versions(Path(data_dir), name)
    if not versions:
        yield f"no releases of {name} under {Path(data_dir) / 'releases'}"
    for version in versions:
        manifest = load_manifest(releases_root(Path(data_dir), name) / version)
        rows = ", ".join(f"{f.config}/{f.split} {f.rows}" for f in manifest.files)
        gate = "validated" if manifest.validation.get("passed") else "not validated"
        yield f"{version}  {manifest.created_at}  {gate}  {rows}"


def show(directory: Path) -> str:
    """A readable account of one release: provenance, files, labels, validation and counts."""
    m = load_manifest(directory)
    lines = [f"{m.name} {m.version}  ({directory})",
             f"  created        {m.created_at}",
             f"  parent         {m.parent or '-'}",
             f"  code version   {m.code_version or '-'}",
             f"  source crawl   {m.source_snapshot or '-'}",
             f"  flow run       {m.flow_run_id or '-'}",
             f"  manifest       version {m.manifest_version}",
             "", f"  {'config':<16} {'split':<6} {'rows':>8} {'bytes':>10}  schema          sha256"]
    for f in m.files:
        lines.append(f"  {f.config:<16} {f.split:<6} {f.rows:>8} {f.bytes:>10}  "
                     f"{(f.schema + ' ' + f.schema_version):<15} {f.sha256[:16]}")
    evaluation = {c: v for c, v in m.hierarchy.items() if v.get("role") == "evaluation"}
    if evaluation:
        lines += ["", "  capability → task → dataset"]
        for config, labels in evaluation.items():
            lines.append(f"  {config:<9} {labels['capability']} → {labels['task']} → {labels['dataset']}")
    if m.validation:
        suites = m.validation.get("suites", {})
        total = sum(s["expectations"] for s in suites.values())
        lines += ["", f"  validation     {'passed' if m.validation.get('passed') else 'FAILED'}: {total} expectations "
                      f"in {len(suites)} suites ({m.validation.get('engine', '')})"]
    else:
        lines += ["", "  validation     none recorded (released before the gate existed, or with the gate off)"]
    counts = m.counts
    if "pairs_kept" in counts:
        lines.append(f"  pairs          {counts['pairs_kept']} kept of {counts.get('pairs_in', '?')}")
    kept = (counts.get("items") or {}).get("items_kept") or {}
    if kept:
        lines.append("  items          " + ", ".join(f"{k} {v}" for k, v in kept.items()))
    ran = ((counts.get("items") or {}).get("verification") or {}).get("verifiers_ran")
    if ran is not None:
        lines.append(f"  item verifiers {', '.join(ran) or 'none'}")
    return "\n".join(lines)


@dataclass
class ConfigDiff:
    config: str
    before: int = 0
    after: int = 0
    added: int = 0
    removed: int = 0
    changed: int = 0
    examples: dict[str, list[str]] = field(default_factory=dict)
    note: str = ""


def diff(old_dir: Path, new_dir: Path) -> list[ConfigDiff]:
    """Rows added, removed and changed per config between two releases, with examples.

    Rows are matched by their key (``pair_id`` for pairs, ``item_id`` for items); a row whose
    key is in both but whose content differs is changed, and its example names the columns
    that differ. A config's splits are compared together, so an item moving from train to eval
    is a change (of ``split``), not a removal and an addition.
    """
    old, new = load_manifest(old_dir), load_manifest(new_dir)
    configs = list(dict.fromkeys([f.config for f in old.files] + [f.config for f in new.files]))
    con = duck()
    result = []
    try:
        for config in configs:
            before = [old_dir / f.path for f in config_files(old, config)]
            after = [new_dir / f.path for f in config_files(new, config)]
            entry = ConfigDiff(config)
            if before:
                con.execute(f"CREATE OR REPLACE TEMP TABLE a AS SELECT * FROM read_parquet({sql_path_list(before)})")
            if after:
                con.execute(f"CREATE OR REPLACE TEMP TABLE b AS SELECT * FROM read_parquet({sql_path_list(after)})")
            if not before or not after:
                present = "b" if after else "a"
                rows = con.sql(f"SELECT count(*) FROM {present}").fetchall()[0][0]
                if after:
                    entry.after, entry.added = rows, rows
                else:
                    entry.before, entry.removed = rows, rows
                entry.note = "new config" if after else "config removed"
                result.append(entry)
                continue
            columns_a = [c[0] for c in con.sql("DESCRIBE a").fetchall()]
            columns_b = [c[0] for c in con.sql("DESCRIBE b").fetchall()]
            shared = [c for c in columns_a if c in columns_b]
            if columns_a != columns_b:
                entry.note = (f"columns differ (only before: {sorted(set(columns_a) - set(columns_b)) or '-'}; "
                              f"only after: {sorted(set(columns_b) - set(columns_a)) or '-'}); rows compared on "
                              "the shared columns")
            key = KEYS.get(config) or (ITEM_KEY if "item_id" in shared else tuple(shared))
            label = LABEL.get(config, "question" if "question" in shared else key[0])
            cols = ", ".join(f'"{c}"' for c in shared)
            keys = ", ".join(f'"{k}"' for k in key)
            con.execute(f"CREATE OR REPLACE TEMP TABLE ha AS SELECT {keys}, \"{label}\" AS label, "
                        f"md5(CAST(struct_pack({cols}) AS VARCHAR)) AS h FROM a")
            con.execute(f"CREATE OR REPLACE TEMP TABLE hb AS SELECT {keys}, \"{label}\" AS label, "
                        f"md5(CAST(struct_pack({cols}) AS VARCHAR)) AS h FROM b")
            entry.before = con.sql("SELECT count(*) FROM ha").fetchall()[0][0]
            entry.after = con.sql("SELECT count(*) FROM hb").fetchall()[0][0]
            on_h = " AND ".join(f'ha."{k}" IS NOT DISTINCT FROM hb."{k}"' for k in key)
            added = f"SELECT hb.* FROM hb ANTI JOIN ha ON {on_h}"
            removed = f"SELECT ha.* FROM ha ANTI JOIN hb ON {on_h}"
            changed = f"SELECT hb.* FROM hb JOIN ha ON {on_h} WHERE ha.h <> hb.h"
            for name, query in (("added", added), ("removed", removed), ("changed", changed)):
                setattr(entry, name, con.sql(f"SELECT count(*) FROM ({query})").fetchall()[0][0])
                rows = con.sql(f"SELECT {keys}, label FROM ({query}) ORDER BY {keys} LIMIT {EXAMPLES}").fetchall()
                examples = []
                for row in rows:
                    ident = ", ".join(str(v) for v in row[:len(key)])
                    text = _short(row[-1])
                    if name == "changed":
                        text += f"  (changed: {', '.join(_changed_columns(con, key, row[:len(key)], shared))})"
                    examples.append(f"{ident}: {text}")
                if examples:
                    entry.examples[name] = examples
            result.append(entry)
    finally:
        con.close()
    return result


def _changed_columns(con, key: tuple[str, ...], values: tuple, shared: list[str]) -> list[str]:
    where_a = " AND ".join(f'"{k}" IS NOT DISTINCT FROM ?' for k in key)
    a = con.execute(f"SELECT * FROM (SELECT {', '.join(chr(34) + c + chr(34) for c in shared)} FROM a) "
                    f"WHERE {where_a} LIMIT 1", list(values)).fetchone()
    b = con.execute(f"SELECT * FROM (SELECT {', '.join(chr(34) + c + chr(34) for c in shared)} FROM b) "
                    f"WHERE {where_a} LIMIT 1", list(values)).fetchone()
    return [c for c, x, y in zip(shared, a, b, strict=True) if x != y]


def _short(value, width: int = 40) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = text.replace("\n", " ")
    return text if len(text) <= width else text[:width - 1] + "…"


def format_diff(old: str, new: str, entries: list[ConfigDiff]) -> str:
    lines = [f"{old} → {new}", f"  {'config':<16} {'before':>8} {'after':>8} {'added':>7} {'removed':>8} {'changed':>8}"]
    for e in entries:
        lines.append(f"  {e.config:<16} {e.before:>8} {e.after:>8} {e.added:>7} {e.removed:>8} {e.changed:>8}"
                     + (f"  ({e.note})" if e.note else ""))
    for e in entries:
        for name, examples in e.examples.items():
            lines.append(f"  {e.config} {name}:")
            lines += [f"    {x}" for x in examples]
    return "\n".join(lines)
