"""Versioned, immutable Parquet releases with a manifest, checksums and a dataset card.

A release is assembled in a temporary directory beside its final place and moved
into ``<data_dir>/releases/<name>/<version>/`` with one rename, so readers see a
whole release or none. An existing version is never overwritten.

Publishing holds the data directory's lock (``warehouse.lock``) and registers the release in
the catalog around the rename: a "pending" row before it, "published" after it, and with the
row what the release owes the review queue (``review.queue.review_plan``), marked done once
queued. A kill in between leaves a pending row (or, with an older catalog, none) beside a
complete release, or a release not yet queued; ``repair``, run at the next start, registers
and queues it, and removes what killed writers left.

A release is sealed before its rename: files 0444, directories 0555, so nothing writes into a
published version by accident (``verify`` also fails on any file its manifest does not list).

The files depend only on the input and the settings: rows in a fixed order, fixed writer
options, and no run id, fetch port or temporary name in them. The manifest's one timestamp,
``created_at``, is ``SOURCE_DATE_EPOCH`` when that is set (https://reproducible-builds.org/
specs/source-date-epoch/), so two builds of the same input are the same bytes; the catalog
keeps when and by which run each release was really published.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping

import pyarrow as pa
import pyarrow.parquet as pq
from packaging.version import Version

from review.queue import queue_for_review
from review.store import ReviewError
from schemas import ReleaseFile, ReleaseManifest, schema_name, schema_version
from schemas.releases import SEMVER, ReleaseError, by_config, list_versions, load_manifest, releases_root
from schemas.storage.tables import TableSpec, write_table
from schemas.storage.catalog import Catalog
from warehouse.lock import data_dir_lock
from schemas.storage.shards import duck, sha256_file, sql_path_list


def schema_changes(data_dir: Path, name: str, schemas: dict[str, str]) -> list[str]:
    """How the configs' schemas ({config: "schema version"}) differ from the latest release's; a
    config that disappears counts, a new config does not (old readers never ask for it)."""
    versions = list_versions(data_dir, name)
    if not versions:
        return []
    latest = load_manifest(releases_root(data_dir, name) / versions[-1])
    before = {f.config: f"{f.schema} {f.schema_version}" for f in latest.files}
    changes = []
    for config, old in sorted(before.items()):
        new = schemas.get(config)
        if new is None:
            changes.append(f"{config} is gone")
        elif new != old:
            changes.append(f"{config}: schema {old} -> {new}")
    return changes


def next_version(data_dir: Path, name: str, schemas: dict[str, str] | None = None) -> str:
    """0.1.0 for the first release; after that the major number rises when a schema changed (see
    ``schema_changes``), else the minor number."""
    versions = list_versions(data_dir, name)
    if not versions:
        return "0.1.0"
    latest = Version(versions[-1])
    if schemas is not None and schema_changes(data_dir, name, schemas):
        return f"{latest.major + 1}.0.0"
    return f"{latest.major}.{latest.minor + 1}.0"


def check_version(data_dir: Path, name: str, version: str, schemas: dict[str, str]) -> None:
    """A chosen version must be semantic, newer than every release of the name, and raise the
    major number when a schema changed."""
    if not SEMVER.match(version):
        raise ReleaseError(f"version {version!r} is not semantic (MAJOR.MINOR.PATCH, e.g. 1.2.0)")
    versions = list_versions(data_dir, name)
    if not versions:
        return
    latest = versions[-1]
    if Version(version) <= Version(latest):
        if version in versions:
            raise ReleaseError(f"release {name} {version} already exists at {releases_root(data_dir, name) / version}; "
                               "releases are immutable, choose another version")
        raise ReleaseError(f"version {version} is not newer than the latest release of {name}, {latest}; "
                           f"use {next_version(data_dir, name, schemas)} or leave the version unset")
    changes = schema_changes(data_dir, name, schemas)
    if changes and Version(version).major == Version(latest).major:
        raise ReleaseError(f"the schema changed since {name} {latest} ({'; '.join(changes)}), so the major number "
                           f"must rise: use {Version(latest).major + 1}.0.0 or leave the version unset")


def release_time(environ: Mapping[str, str] = os.environ) -> str:
    """A release's ``created_at``: ``SOURCE_DATE_EPOCH`` (whole seconds since 1970, UTC) when it is set,
    else the current time."""
    epoch = environ.get("SOURCE_DATE_EPOCH", "")
    if not epoch:
        when = datetime.now(timezone.utc)
    elif epoch.isascii() and epoch.isdigit():
        when = datetime.fromtimestamp(int(epoch), timezone.utc)
    else:
        raise ReleaseError(f"SOURCE_DATE_EPOCH must be whole seconds since 1970-01-01 UTC (e.g. "
                           f"$(git log -1 --format=%ct)), got {epoch!r}")
    return when.isoformat(timespec="seconds")


def publish(data_dir: Path, name: str, tables: list[TableSpec], config: dict[str, Any],
            counts: dict[str, Any], version: str | None = None, card: str = "",
            source_snapshot: str = "", flow_run_id: str | None = None, code_version: str = "",
            hierarchy: dict[str, dict] | None = None,
            gate: Callable[[Path, list[ReleaseFile]], dict] | None = None,
            sources: dict[str, Any] | None = None, run_id: str | None = None, review: dict | None = None) -> Path:
    """Write a release, register it in the data directory's catalog and return its directory.

    ``hierarchy``: capability/task/dataset labels per config, recorded in the manifest and card.
    ``gate(directory, files)`` validates the written files before the release becomes visible; it
    returns a summary kept in the manifest, or raises (a ``ReleaseError`` naming what failed), and
    then nothing is published. ``run_id`` and ``flow_run_id`` go to the catalog, not the release:
    they differ from run to run. ``review``: what the release owes the review queue, kept with its
    registration (``review.queue.queue_for_review`` queues it; ``repair`` does when a kill came first).
    """
    data_dir = Path(data_dir)
    with data_dir_lock(data_dir):
        return _publish(data_dir, name, tables, config, counts, version, card, source_snapshot, flow_run_id,
                        code_version, hierarchy, gate, sources, run_id, review)


def _publish(data_dir, name, tables, config, counts, version, card, source_snapshot, flow_run_id, code_version,
             hierarchy, gate, sources, run_id, review) -> Path:
    created_at = release_time()
    schemas = {spec.config: f"{schema_name(spec.schema)} {schema_version(spec.schema)}" for spec in tables}
    version = version or next_version(data_dir, name, schemas)
    check_version(data_dir, name, version, schemas)
    root = releases_root(data_dir, name)
    final = root / version
    if final.exists():
        raise ReleaseError(f"release {name} {version} already exists at {final}; releases are immutable, "
                           "choose another version")
    previous = list_versions(data_dir, name)
    root.mkdir(parents=True, exist_ok=True)
    remove_stale(root)
    tmp = root / f".tmp-{version}-{os.getpid()}"
    remove_tree(tmp)
    tmp.mkdir()
    catalog = Catalog(data_dir / "catalog.duckdb")
    try:
        files = []
        for spec in tables:
            relative = Path(spec.config) / f"{spec.split}.parquet"
            target = tmp / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            rows = write_table(spec, target)
            files.append(ReleaseFile(
                path=relative.as_posix(), config=spec.config, split=spec.split, rows=rows,
                bytes=target.stat().st_size, sha256=sha256_file(target),
                schema=schema_name(spec.schema),
                schema_version=schema_version(spec.schema),
            ))
        validation = gate(tmp, files) if gate is not None else {}
        manifest = ReleaseManifest(
            name=name, version=version, files=files, config=config, counts=counts,
            code_version=code_version, parent=previous[-1] if previous else None,
            source_snapshot=source_snapshot, flow_run_id=None,
            hierarchy={c: v for c, v in (hierarchy or {}).items() if c in {f.config for f in files}},
            validation=validation, sources=sources or {}, created_at=created_at,
        )
        (tmp / "manifest.json").write_text(manifest.to_json(), encoding="utf-8")
        (tmp / "README.md").write_text(card or default_card(manifest, category_counts(tmp, files)), encoding="utf-8")
        seal(tmp)  # before the rename: no reader sees a published release that is not read-only
        catalog.register_release(tmp, run_id, data_dir, flow_run_id, state="pending", final=final, review=review)
        try:
            os.rename(tmp, final)
        except BaseException:
            catalog.forget_release(name, version)
            raise
    except BaseException:
        remove_tree(tmp)
        raise
    catalog.set_published(name, version)
    return final


FILE_MODE, DIRECTORY_MODE = 0o444, 0o555  # a sealed release: read-only for everyone, its owner included


def seal(directory: Path) -> None:
    """Make a release directory read-only: its files 0444, its directories 0555, the deepest first."""
    directory = Path(directory)
    for path in sorted(directory.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if not path.is_symlink():
            path.chmod(DIRECTORY_MODE if path.is_dir() else FILE_MODE)
    directory.chmod(DIRECTORY_MODE)


def sealed(directory: Path) -> bool:
    """Whether a release directory is read-only as ``seal`` leaves it."""
    return all(stat.S_IMODE(p.lstat().st_mode) == (DIRECTORY_MODE if p.is_dir() else FILE_MODE)
               for p in (Path(directory), *Path(directory).rglob("*")) if not p.is_symlink())


def remove_tree(path: Path) -> None:
    """Delete a directory tree a publisher wrote and never published, sealed or not (its directories are made
    writable first: a sealed directory's entries cannot be unlinked); nothing when it is not there."""
    path = Path(path)
    if path.is_symlink() or not path.is_dir():
        return
    for directory in (path, *(p for p in path.rglob("*") if p.is_dir() and not p.is_symlink())):
        directory.chmod(0o755)
    shutil.rmtree(path, ignore_errors=True)


def remove_stale(root: Path) -> list[Path]:
    """Delete the temporary directories that publishing processes killed mid-write left under ``root``.
    Called with the data directory's lock held, so no other process is writing one."""
    removed = []
    for path in sorted(root.glob(".tmp-*")) if root.is_dir() else []:
        if path.name.rsplit("-", 1)[-1] == str(os.getpid()):
            continue
        remove_tree(path)
        removed.append(path)
    return removed


def repair(data_dir: Path) -> list[str]:
    """Settle what killed runs left in the data directory, with its lock held; one line per change.

    * a release directory with a sound manifest (every file present, its checksum right) that the
      catalog lacks or holds as pending is registered; one with problems is named and left alone,
      never registered;
    * a pending catalog row without its directory (killed before the rename) is removed;
    * a published release whose review plan is not queued yet (its run was killed at the rename or while it
      queued) is queued now (``review.queue.queue_for_review``);
    * a registered release that is not read-only (published before releases were sealed) is sealed;
    * temporary release and snapshot directories are removed;
    * a run whose release is registered is marked ``published``; other runs still recorded as running are
      marked ``interrupted``.
    """
    data_dir = Path(data_dir)
    with data_dir_lock(data_dir):
        if not (data_dir / "catalog.duckdb").exists() and not (data_dir / "releases").is_dir():
            return []
        catalog = Catalog(data_dir / "catalog.duckdb")
        lines = [f"removed {_relative(leftover, data_dir)}, a crawl snapshot a killed run was writing"
                 for leftover in remove_stale(data_dir / "snapshots")]
        pending = {(r["name"], r["version"]): r for r in catalog.releases(state="pending")}
        published = {(r["name"], r["version"]) for r in catalog.releases()}
        runs_released: dict[str, str] = {}
        names = sorted(p for p in (data_dir / "releases").iterdir() if p.is_dir()) \
            if (data_dir / "releases").is_dir() else []
        for root in names:
            for leftover in remove_stale(root):
                lines.append(f"removed {_relative(leftover, data_dir)}, a release a killed run was writing "
                             "(never published)")
            for directory in sorted(p for p in root.iterdir() if SEMVER.match(p.name) and p.is_dir()):
                key = (root.name, directory.name)
                if key in published:
                    continue
                row = pending.pop(key, None) or {}
                problems = _unsound(directory, key)
                if problems:
                    if row:
                        catalog.forget_release(*key)
                    lines.append(f"not registered: {_relative(directory, data_dir)} ({'; '.join(problems)})")
                    continue
                catalog.register_release(directory, row.get("run_id"), data_dir, row.get("flow_run_id"),
                                         review=json.loads(row["review_plan"]) if row.get("review_plan") else None)
                if row.get("run_id"):
                    runs_released[row["run_id"]] = directory.name
                lines.append(f"registered {key[0]} {key[1]} ({_relative(directory, data_dir)}), published by "
                             + (f"run {row['run_id']}" if row.get("run_id") else "a run")
                             + " killed before the catalog recorded it")
        for name, version in sorted(pending):
            catalog.forget_release(name, version)
            lines.append(f"forgot {name} {version}: its run was killed before the release was moved into place")
        lines += [_queue_owed(data_dir, owed) for owed in catalog.review_owed()]
        for release in catalog.releases():
            directory = data_dir / release["path"]
            if directory.is_dir() and not sealed(directory):  # published before releases were sealed, or unsealed
                seal(directory)
                lines.append(f"sealed {_relative(directory, data_dir)}: made read-only (files 0444, directories "
                             "0555), as publishing leaves every release")
        for run_id, version in sorted(runs_released.items()):
            catalog.set_run_status(run_id, "published", f"stopped after it published {version}, before the "
                                   "catalog recorded it; recorded by the next start", version)
        released_by = {r["run_id"]: r for r in catalog.releases() if r["run_id"]}
        for run in catalog.runs(status="running"):
            release = released_by.get(run["run_id"])
            if release is not None:  # killed after its release's rename: in the review stage, or later
                catalog.set_run_status(run["run_id"], "published", f"stopped after it published {release['version']}, "
                                       "before it finished; recorded by the next start", release["version"])
                lines.append(f"marked run {run['run_id']} published: it published {release['name']} "
                             f"{release['version']} and stopped before it finished")
                continue
            catalog.set_run_status(run["run_id"], "interrupted", "killed or stopped before it finished; "
                                   "found by the next start")
            lines.append(f"marked run {run['run_id']} interrupted: it stopped before it finished")
        return lines


def _queue_owed(data_dir: Path, owed: dict) -> str:
    """Queue for review a published release its run was killed before queueing; the repair's line."""
    key, by = f"{owed['name']} {owed['version']}", f"run {owed['run_id']}" if owed.get("run_id") else "its run"
    try:
        added = queue_for_review(data_dir / owed["path"], data_dir)
    except (ReviewError, ReleaseError, OSError) as exc:
        return f"not queued for review: {key} ({exc}); the next start tries again"
    return f"queued {key} for review, which {by} was killed before it finished: {added} items added to the queue"


def _unsound(directory: Path, key: tuple[str, str]) -> list[str]:
    """Why a release directory is not one to register (empty when it is)."""
    try:
        manifest = load_manifest(directory)
    except ReleaseError as exc:
        return [str(exc)]
    if (manifest.name, manifest.version) != key:
        return [f"its manifest says {manifest.name} {manifest.version}"]
    return verify(directory)


def _relative(path: Path, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return str(path)


def verify(release_dir: Path) -> list[str]:
    """Check every file against the manifest, and that the directory holds nothing else (a file added to a
    release is read by any glob over it); returns the problems found (empty when sound)."""
    release_dir = Path(release_dir)
    manifest = load_manifest(release_dir)
    problems = []
    for item in manifest.files:
        path = release_dir / item.path
        if not path.is_file():
            problems.append(f"{item.path}: missing")
            continue
        digest = sha256_file(path)
        if digest != item.sha256:
            try:
                pq.ParquetFile(path).metadata
                state = "changed since it was released"
            except (pa.ArrowException, OSError):
                state = "corrupted: it is no longer readable Parquet"
            problems.append(f"{item.path}: sha256 {digest[:12]}… differs from the manifest's {item.sha256[:12]}… "
                            f"({state})")
            continue
        rows = pq.ParquetFile(path).metadata.num_rows
        if rows != item.rows:
            problems.append(f"{item.path}: {rows} rows, the manifest says {item.rows}")
    return problems + _unlisted(release_dir, manifest)


def _unlisted(release_dir: Path, manifest: ReleaseManifest) -> list[str]:
    """What the release directory holds besides its listed files, manifest.json and its card README.md."""
    listed = {f.path for f in manifest.files} | {"manifest.json", "README.md"}
    parents = {parent.as_posix() for path in listed for parent in Path(path).parents}
    problems = []
    for path in sorted(release_dir.rglob("*")):
        relative = path.relative_to(release_dir).as_posix()
        if path.is_dir() and not path.is_symlink():
            if relative not in parents and not any(path.iterdir()):
                problems.append(f"{relative}/: an empty directory the manifest does not list")
        elif relative not in listed:
            problems.append(f"{relative}: not in the manifest (added after the release was written); "
                            "readers that glob the directory would load it")
    return problems


def _llm_lines(llm: dict | None) -> list[str]:
    """What the card says about LLM use: only what the run's counts show."""
    rules = ("the criteria rules of `builders/criteria.py` (answer length, the answer not in the question, one "
             "answer asked, no relative time, not subjective, a named referent)")
    if not llm:
        return ["- Questions come from the templates in `builders/question_templates.tsv`; no LLM wrote or "
                "checked any item of this release.",
                "- SimpleQA-style items ask only where the crawl gives the entity one value for the relation on "
                "every page and in every sense, about a fact (not a selection or a judgement), with an answer that "
                "is not the relation's usual value, naming a shared title or a work with versions by its sense; "
                f"and they passed {rules}."]
    model = llm.get("model")
    stages = llm.get("stages", {})
    calls = sum(s.get("calls", 0) for s in stages.values())
    hits = sum(s.get("cache_hits", 0) for s in stages.values())
    failures = sum(s.get("failures", 0) for s in stages.values())
    errors: dict[str, int] = {}
    for stage in stages.values():
        for error, count in stage.get("errors", {}).items():
            errors[error] = errors.get(error, 0) + count
    spent = llm.get("usd", sum(s.get("usd", 0) for s in stages.values()))
    rewrite, writer = llm.get("qa_rewrite", {}), llm.get("simpleqa_writer", {})
    lines = [f"- LLM `{model}`: {calls} requests answered, {hits} replies from the cache, {failures} calls failed"
             + (f" ({_counts(errors)})" if errors else "") + f"; ${spent:.4f} spent"
             + (f" of a ${llm['budget_usd']:.2f} budget" if llm.get("budget_usd") is not None else "") + ".",
             f"- QA questions: {rewrite.get('rewritten', 0)} rewritten by `{model}` from the templates in "
             f"`builders/question_templates.tsv`; the others kept the template question (rewrites failing the "
             f"rules {rewrite.get('kept_template', 0)}, failed calls {rewrite.get('failed', 0)})."]
    if writer.get("kept", 0):
        lines.append(f"- SimpleQA-style items: written by `{model}` from the pair texts, kept only when its critique "
                     f"prompt passed them, {rules} held, and the answer occurs in the text ({writer.get('kept', 0)} "
                     f"kept of {writer.get('proposed', 0)} proposed; {writer.get('failed_calls', 0)} calls failed).")
    else:
        lines.append(f"- SimpleQA-style items: `{model}` wrote none that passed ({writer.get('proposed', 0)} proposed, "
                     f"{writer.get('failed_calls', 0)} calls failed).")
    return lines


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


# What each item check is, in the card's words; LLM checks are the ones whose name ends in _llm or
# that ask a panel of models.
CHECKS = {
    "safety_terms": "the term list `verifiers/sensitive_terms.txt`: deterministic, no LLM",
    "safety_llm": "LLM moderation prompt",
    "criteria_rules": "the criteria rules of `builders/criteria.py`, applied when each item was made: "
                      "deterministic, no LLM",
    "criteria_llm": "LLM criteria judge: objective, single answer, time invariant, in its category",
    "retrieval_support": "web evidence, deterministic, no LLM: pages of the search's results that name the entity "
                         "and state the answer; a SimpleQA answer stated on fewer than `verify.min_sources` sites "
                         "(its own page counted) is dropped (`evidence:single_source`), and so is a question whose "
                         "dated answer a page on the entity dates otherwise (`evidence:disputed`); the other sites' "
                         "passages are in each item's provenance (`evidence`)",
    "rag_llm": "LLM judge of the retrieved passages; its quote must be in one of them",
    "options_llm": "LLM judge of each multiple-choice item, as a test-taker who knows the world: every option it "
                   "finds right; an item with a second right option, or without its gold right, is queued for "
                   "review first",
    "difficulty_panel": "panel of answer models; questions every model answers correctly are dropped",
}
LLM_CHECKS = ("safety_llm", "criteria_llm", "options_llm", "rag_llm", "difficulty_panel")


def _verification_lines(verification: dict | None) -> list[str]:
    if not verification:
        return ["- No item verifier ran."]
    checks = verification.get("checks", {})
    lines = ["- Item checks: `verified_by` on an item lists the checks that returned a verdict on it, "
             "`unverified_by` those that ran on it without one."]
    for name in [*CHECKS, *sorted(set(checks) - set(CHECKS))]:
        if name not in checks:
            continue
        c = checks[name]
        what = CHECKS.get(name, name)
        if name == "retrieval_support":
            lines.append(f"  - `{name}` ({what}): {c['verdicts']} of {c['checked']} questions supported by another "
                         f"page, {c.get('dropped', 0)} dropped.")
            continue
        line = f"  - `{name}` ({what}): {c['checked']} checked, {c['verdicts']} verdicts"
        failed = sum(c.get("failures", {}).values())
        if failed:
            line += f", {failed} without a verdict ({_counts(c['failures'])})"
        line += f", {c.get('dropped', 0)} dropped by its verdicts"
        if c.get("dropped_unverified"):
            line += f", {c['dropped_unverified']} dropped for want of a verdict"
        line += "."
        if name in LLM_CHECKS and c["checked"] and not c["verdicts"]:
            line += " No call returned a verdict: this check judged no item."
        lines.append(line)
    if any(sum(c.get("failures", {}).values()) for c in checks.values()):
        dropped = verification.get("drop_unverified", [])
        lines.append(f"- Items a check returned no verdict on were dropped from {', '.join(dropped) or 'no config'} "
                     "(reason `unverified:<check>:<error>`) and kept in the other configs, the check named in "
                     "their `unverified_by`.")
    if not any(checks.get(n, {}).get("verdicts") for n in LLM_CHECKS):
        lines.append("- No LLM returned a verdict on any item: no item was judged or moderated by an LLM, criteria "
                     "are the rules, evidence is the retrieval check, and no difficulty panel decided.")
    options = checks.get("options_llm", {})
    if not options.get("verdicts"):
        lines.append("- The options judge did not run: no LLM said of any multiple-choice item whether exactly one "
                     "option is right. Each item's options were chosen by the rules alone (distractors no page of "
                     "the entity states, outside its answer's value family, of its kind).")
    else:
        disagrees = (verification.get("options") or {}).get("disagrees", 0)
        lines.append(f"- The options judge found a second right option, or not the gold, in {disagrees} of "
                     f"{options['verdicts']} multiple-choice items; they are kept and queued for review first.")
    return lines


def category_counts(directory: Path, files: list[ReleaseFile]) -> dict[str, dict[str, dict[str, int]]]:
    """Rows per domain and per primary category (SimpleQA topic), for each config that has them."""
    con = duck()
    found: dict[str, dict[str, dict[str, int]]] = {}
    try:
        for config, entries in by_config(files).items():
            source = f"read_parquet({sql_path_list(directory / f.path for f in entries)})"
            columns = {c[0] for c in con.sql(f"DESCRIBE SELECT * FROM {source}").fetchall()}
            for column, label in (("domain", "domain"), ("primary_category", "category"), ("topic", "category")):
                if column in columns:
                    rows = con.sql(f"SELECT coalesce({column}, '(none)'), count(*) FROM {source} "
                                   "GROUP BY 1 ORDER BY 2 DESC, 1").fetchall()
                    found.setdefault(config, {})[label] = {str(k): v for k, v in rows}
    finally:
        con.close()
    return found


def _answers_lines(multi_valued: list[str] | None) -> list[str]:
    """What a multiple-choice item's one right answer means: the relations that take several values here."""
    lines = ["- Each multiple-choice item has one right option: no distractor is a value the entity's pages give "
             "(the text as crawled, every page and sense) or the web's pages state for it, nor one of a right "
             "answer's value family (`builders/value_families.tsv` and what the crawl teaches), nor of another "
             "kind; `also_true` lists the other right answers known (the filtered setting of link prediction: "
             "rank them out)."]
    if multi_valued:
        lines.append(f"- Relations that take several values per entity in this crawl ({len(multi_valued)}): "
                     + "、".join(multi_valued) + ". Their items ask for one of the values (「之一」) and take "
                     "distractors outside every known value's family; cloze never blanks them.")
    return lines


def _difficulty_lines(difficulty: dict | None) -> list[str]:
    """The ``difficulty`` column, named for what it is: a proxy computed from the crawl."""
    if not difficulty or not difficulty.get("quartiles"):
        return []
    lines = [f"- `difficulty` on each item is an {difficulty.get('proxy', 'offline proxy')}; subsets favour higher "
             "values (`items.subset_prefer_hard`). Quartiles (q1 / median / q3) of the kept items:"]
    for kind, q in difficulty["quartiles"].items():
        lines.append(f"  - {kind}: {q['q1']:.2f} / {q['median']:.2f} / {q['q3']:.2f}")
    return lines


def _baseline_lines(baselines: dict | None) -> list[str]:
    """The offline baselines' panel: what each answers per config, and the easy share kept (builders.baselines)."""
    if not baselines or not baselines.get("configs"):
        return []
    names = sorted({name for row in baselines["configs"].values() for name in row["solved"]})
    panel = baselines.get("panel", "").removeprefix("offline baselines, no model: ")
    lines = [f"- Offline baselines (no model answers here: {panel}): an item one of them "
             f"answers is easy, and easy items past {100 * baselines.get('max_share', 0):.0f}% of a config are "
             "dropped (`difficulty:easy_over_budget`); `easy_by` in an item's provenance names its baselines.", "",
             "| config | items | " + " | ".join(names) + " | easy | dropped past the budget | easy share kept |",
             "|---|---:|" + "---:|" * len(names) + "---:|---:|---:|"]
    for kind, row in baselines["configs"].items():
        if kind == "t2t":
            continue
        lines.append(f"| {kind} | {row['items']} | " + " | ".join(str(row["solved"].get(n, 0)) for n in names)
                     + f" | {row['easy']} | {row['dropped_over_budget']} | {100 * row['easy_share']:.1f}% |")
    return lines


def _review_lines(review: dict | None) -> list[str]:
    """The card's account of the human review applied to this release (review/verdicts.py)."""
    if not review or not review.get("reviewed"):
        return []
    return ["", "## Human review", "",
            "Items checked by two blind annotators, disagreements settled by a third (zhbench review); "
            "`verified_by` holds `human_review` on every item people accepted; where an adjudicator set another "
            "answer, it holds only `human_review` (the automatic checks judged the old answer).", "",
            "| reviewed | agreed | adjudicated | kept, human-verified | answers set by an adjudicator | dropped |",
            "|---|---|---|---|---|---|",
            f"| {review['reviewed']} | {review.get('agreed', 0)} | {review.get('adjudicated', 0)} | "
            f"{review.get('verified', 0)} | {review.get('answers_applied', 0)} | {review.get('dropped', 0)} |", "",
            "Dropped: " + ", ".join(f"{n} {label}" for label, n in (
                ("rejected", review.get("dropped_rejected", 0)),
                ("whose human answer differs from the pipeline's after normalisation",
                 review.get("dropped_answer_differs", 0)),
                ("whose adjudicated answer is not among the options", review.get("dropped_answer_not_in_options", 0)),
                ("triple-to-text items of a rejected pair", review.get("dropped_pair_rejected", 0)))) + "; "
            f"pairs rejected: {review.get('pairs_dropped_rejected', 0)}."]


def card_split(split: str) -> str:
    """A split's name in the card's YAML, which ``datasets.load_dataset`` reads. ``all`` (a config that is not
    split: pairs, relations, dropped triples) is a reserved word there, so it loads as ``train``, the name the
    Hub gives a dataset's only split."""
    return "train" if split == "all" else split


def default_card(manifest: ReleaseManifest, categories: dict | None = None) -> str:
    # datasets refuses a split of no rows ("corresponds to no data"): an empty file stays in the manifest and
    # the table below, not in the YAML that load_dataset reads.
    configs = {c: [f for f in items if f.rows] for c, items in by_config(manifest.files).items()}
    configs = {c: items for c, items in configs.items() if items}
    lines = ["---", "configs:"]
    for n, (config, items) in enumerate(configs.items()):
        lines.append(f"- config_name: {config}")
        if n == 0:  # load_dataset(release_dir) with no name loads the first: the release's own records
            lines.append("  default: true")
        lines.append("  data_files:")
        for item in items:
            lines.append(f"  - split: {card_split(item.split)}")
            lines.append(f"    path: {item.path}")
    lines += ["language:", "- zh", "---", "", f"# {manifest.name} {manifest.version}", ""]
    first = next(iter(configs), None)
    if first is not None:
        lines += [f"Load a config by name: `datasets.load_dataset(\"<release directory>\", \"{first}\")` (the "
                  "default); each config below loads the same way. A config that is not split (`all`) loads as the "
                  "split `train`, since `datasets` reserves `all`; a split of 0 rows is not offered to `datasets`, "
                  "which refuses an empty split.", ""]
    lines.append("| config | split | rows | sha256 |")
    lines.append("|---|---|---|---|")
    for item in manifest.files:
        lines.append(f"| {item.config} | {item.split} | {item.rows} | `{item.sha256[:16]}` |")
    labelled = {c: v for c, v in manifest.hierarchy.items() if v.get("role") == "evaluation"}
    if labelled:
        lines += ["", "## Tasks (CUGE-style levels)", "", "| config | capability | task | dataset | metrics |",
                  "|---|---|---|---|---|"]
        for config, v in labelled.items():
            lines.append(f"| {config} | {v['capability']} ({v.get('capability_zh', '')}) | {v['task']} "
                         f"({v.get('task_zh', '')}) | {v['dataset']} | {', '.join(v.get('metrics', []))} |")
    if categories:
        lines += ["", "## Distribution", "", "| config | by domain | by category (Chinese SimpleQA topic) |",
                  "|---|---|---|"]
        for config, split in categories.items():
            shown = [", ".join(f"{k} {v}" for k, v in split.get(key, {}).items()) or "-"
                     for key in ("domain", "category")]
            lines.append(f"| {config} | {shown[0]} | {shown[1]} |")
    if manifest.validation:
        suites = manifest.validation.get("suites", {})
        lines += ["", "## Validation", "",
                  f"Passed before publishing: {sum(x['expectations'] for x in suites.values())} expectations in "
                  f"{len(suites)} suites ({manifest.validation.get('engine', '')}): "
                  + ", ".join(f"`{name}`" for name in suites) + "."]
    items = manifest.counts.get("items") or {}
    if items:
        lines += ["", "## How the items were made", "",
                  f"- Distractors and the contamination check were scored with the `{items.get('embedder', '?')}` "
                  "embedder" + (" (character n-grams: it measures shared characters, not meaning)."
                                if str(items.get("embedder", "")).startswith("char-ngram") else "."),
                  *_llm_lines(items.get("llm")), *_verification_lines(items.get("verification")),
                  *_answers_lines(items.get("multi_valued_relations")),
                  *_difficulty_lines(items.get("difficulty")), *_baseline_lines(items.get("baselines"))]
    lines += _review_lines(manifest.counts.get("review"))
    lines += ["", "## Funnel", "", "```json", json.dumps(manifest.counts, ensure_ascii=False, indent=2), "```", ""]
    return "\n".join(lines)
