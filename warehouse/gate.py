"""The release gate: great-expectations suites run over a release's files before it is published.

One suite per config (``zhbench.<config>``) checks all of its files together,
so an id unique in the suite is also never in both train and eval; the suite
``zhbench.questions`` checks across configs (no question in two of them). Checks that are
not single-column rules are computed as columns first with DuckDB (the number of
options, how often the gold occurs among them, whether it sits at the recorded
index) and then expected like any other column, so every failure is a
great-expectations result with counts and examples.

Results and the Data Docs site go to the run's ``validation/`` directory; a
failing expectation blocks the release (:class:`GateFailed`).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from schemas import ReleaseFile
from schemas.records import ITEM_KINDS
from schemas.releases import ReleaseError, by_config
from schemas.storage.shards import duck, sql_path_list

MCQ_CONFIGS = ("kgc", "qa")
ITEM_CONFIGS = ITEM_KINDS
# Questions compared across configs: lower case, no whitespace or punctuation.
_QUESTION_KEY = r"regexp_replace(lower(question), '[\s\p{P}]', '', 'g')"


class GateFailed(ReleaseError):
    """A validation suite failed: the release was not published."""


@dataclass
class GateRules:
    """What the suites expect, from the run's settings."""

    position_threshold: float = 0.75
    max_answer_chars: int = 20
    domains: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    subtopics: tuple[str, ...] = ()
    hierarchy: dict[str, dict] = field(default_factory=dict)  # config -> labels (role, capability, task, dataset)


def _item_columns() -> str:
    return """*, len(options) AS n_options,
        len(list_filter(options, lambda o: o = answer)) AS gold_count,
        CASE WHEN len(options) = 0 THEN NULL ELSE options[answer_index + 1] = answer END AS gold_at_index,
        length(answer) AS answer_chars"""


def _expectations(config: str, splits: list[str], rules: GateRules) -> list[tuple[str, dict]]:
    """(expectation class name, arguments) for a config's files, read as one table."""
    found: list[tuple[str, dict]] = []
    if config == "cdtp_pairs":
        found += [("ExpectColumnValuesToNotBeNull", {"column": "pair_id"}),
                  ("ExpectColumnValuesToBeUnique", {"column": "pair_id"}),
                  ("ExpectColumnValuesToBeBetween", {"column": "position_index", "min_value": rules.position_threshold,
                                                     "strict_min": True, "max_value": 1.0}),
                  ("ExpectColumnValuesToBeBetween", {"column": "n_triples", "min_value": 1})]
        if rules.domains:
            found.append(("ExpectColumnValuesToBeInSet", {"column": "domain", "value_set": list(rules.domains)}))
        if rules.topics:
            found.append(("ExpectColumnValuesToBeInSet", {"column": "topic", "value_set": list(rules.topics)}))
        return found
    if config == "dropped_triples":
        return [("ExpectColumnValuesToNotBeNull", {"column": "pair_id"}),
                ("ExpectColumnValuesToNotBeNull", {"column": "reason"})]
    if config not in ITEM_CONFIGS:
        return [("ExpectTableRowCountToBeBetween", {"min_value": 0})]
    found += [("ExpectColumnValuesToNotBeNull", {"column": "item_id"}),
              ("ExpectColumnValuesToBeUnique", {"column": "item_id"}),
              ("ExpectColumnValuesToNotBeNull", {"column": "question"}),
              ("ExpectColumnValuesToNotBeNull", {"column": "answer"}),
              ("ExpectColumnValuesToBeInSet", {"column": "kind", "value_set": [config]}),
              ("ExpectColumnValuesToBeInSet", {"column": "split", "value_set": splits}),
              ("ExpectColumnValuesToBeInSet", {"column": "decision", "value_set": ["kept"]})]
    if rules.domains:
        found.append(("ExpectColumnValuesToBeInSet", {"column": "domain", "value_set": list(rules.domains)}))
    if rules.topics:
        found.append(("ExpectColumnValuesToBeInSet", {"column": "primary_category", "value_set": list(rules.topics)}))
    if rules.subtopics:
        found.append(("ExpectColumnValuesToBeInSet",
                      {"column": "secondary_category", "value_set": list(rules.subtopics)}))
    labels = rules.hierarchy.get(config) or {}
    for level in ("capability", "task", "dataset"):
        if labels.get(level):
            found.append(("ExpectColumnValuesToBeInSet", {"column": level, "value_set": [labels[level]]}))
    if config in MCQ_CONFIGS:
        found += [("ExpectColumnValuesToBeBetween", {"column": "n_options", "min_value": 10, "max_value": 10}),
                  ("ExpectColumnValuesToBeInSet", {"column": "gold_count", "value_set": [1]}),
                  ("ExpectColumnValuesToNotBeNull", {"column": "gold_at_index"}),
                  ("ExpectColumnValuesToBeInSet", {"column": "gold_at_index", "value_set": [True]}),
                  ("ExpectColumnValuesToBeBetween", {"column": "answer_index", "min_value": 0, "max_value": 9})]
    if config == "simpleqa":
        found += [("ExpectColumnValuesToBeBetween", {"column": "answer_chars", "min_value": 1,
                                                     "max_value": rules.max_answer_chars}),
                  ("ExpectColumnValuesToNotBeNull", {"column": "primary_category"}),
                  ("ExpectColumnValuesToNotBeNull", {"column": "secondary_category"})]
    return found


@dataclass
class _Check:
    suite: str
    asset: str
    frame: Any  # pandas.DataFrame
    expectations: list[tuple[str, dict]]


def _checks(directory: Path, files: list[ReleaseFile], rules: GateRules) -> Iterator[_Check]:
    """Each suite with its table, read when the suite runs: only one table is held at a time, and none
    after the suites (a release of an 84k-page crawl ships 338,534 dropped triples)."""
    con = duck()
    try:
        for config, entries in by_config(files).items():
            source = f"read_parquet({sql_path_list(directory / e.path for e in entries)})"
            if config == "cdtp_pairs":
                query = f"SELECT pair_id, position_index, domain, topic, len(triples) AS n_triples FROM {source}"
            elif config == "dropped_triples":  # the columns its expectations read
                query = f"SELECT pair_id, reason FROM {source}"
            elif config in ITEM_CONFIGS:
                query = ("SELECT item_id, kind, question, answer, answer_index, split, decision, domain, "
                         "primary_category, secondary_category, capability, task, dataset, n_options, gold_count, "
                         f"gold_at_index, answer_chars FROM (SELECT {_item_columns()} FROM {source})")
            else:
                query = f"SELECT * FROM {source}"
            splits = sorted({e.split for e in entries})
            frame = con.sql(query).df()
            if config in ITEM_CONFIGS:  # the answer's length as the criteria measure it: its Chinese core,
                from builders.criteria import answer_length  # bracketed glosses left out, a Latin word one unit

                frame["answer_chars"] = [answer_length(a or "") for a in frame["answer"]]
            yield _Check(f"zhbench.{config}", f"{config} ({'+'.join(splits)})", frame,
                         _expectations(config, splits, rules))
            del frame
        # No question in two configs: one row per (config, question) must leave questions unique.
        item_files = [f for f in files if f.config in ITEM_CONFIGS]
        if item_files:
            frame = con.sql(f"""
                SELECT DISTINCT kind, {_QUESTION_KEY} AS question_key
                FROM read_parquet({sql_path_list(directory / f.path for f in item_files)})""").df()
            yield _Check("zhbench.questions", "all item configs", frame,
                         [("ExpectColumnValuesToBeUnique", {"column": "question_key"})])
    finally:
        con.close()


def run_gate(directory: Path, files: list[ReleaseFile], rules: GateRules, out_dir: Path,
             audit: tuple[dict, list[str], Path] | None = None) -> dict:
    """Run the suites, and with ``audit`` = (run settings, crawl page shards relative to the data
    directory, data directory) the release audit (warehouse.audit, its report in ``out_dir/audit.json``);
    store results and Data Docs under ``out_dir``; raise GateFailed on a failure.

    Returns ``{"suites": {suite: {"expectations": n, "failed": n}}, "audit": {...}, "passed": true}``:
    only counts, so two runs over the same files give the same summary.
    """
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    for name in ("great_expectations", "great_expectations.core", "great_expectations.data_context"):
        logging.getLogger(name).setLevel(logging.ERROR)
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    checks = _checks(Path(directory), files, rules)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    context = gx.get_context(mode="file", project_root_dir=str(out_dir))
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    context.variables.save()
    # One asset and one batch definition: each suite runs on its own dataframe, passed at run time,
    # so the project's YAML is written once instead of once per table.
    batch = context.data_sources.add_or_update_pandas("release").add_dataframe_asset(name="table") \
        .add_batch_definition_whole_dataframe("whole table")
    summary: dict[str, dict] = {}
    failures: list[str] = []
    for check in checks:
        suite = gx.ExpectationSuite(name=check.suite)
        for name, kwargs in check.expectations:
            suite.add_expectation(getattr(gx.expectations, name)(**kwargs))
        suite = context.suites.add_or_update(suite)
        definition = context.validation_definitions.add_or_update(
            gx.ValidationDefinition(name=check.suite, data=batch, suite=suite))
        result = definition.run(batch_parameters={"dataframe": check.frame}, result_format="SUMMARY")
        entry = summary.setdefault(check.suite, {"expectations": 0, "failed": 0})
        entry["expectations"] += len(result.results)
        for r in result.results:
            if r.success:
                continue
            entry["failed"] += 1
            config = r.expectation_config
            column = config.kwargs.get("column", "")
            examples = (r.result or {}).get("partial_unexpected_list", [])[:3]
            failures.append(f"{check.suite} on {check.asset}: {config.type}"
                            f"{f' ({column})' if column else ''} failed for {(r.result or {}).get('unexpected_count', '?')} "
                            f"rows, e.g. {examples}")
    context.build_data_docs()
    docs = out_dir / "gx" / "uncommitted" / "data_docs" / "local_site" / "index.html"
    audited = None
    if audit is not None:
        from warehouse.audit import audit_files, audit_json

        settings, crawl, data_dir = audit
        audited = audit_files(Path(directory), [f.path for f in files], settings, crawl, data_dir, "the release")
        (out_dir / "audit.json").write_text(audit_json(audited), encoding="utf-8")
    if failures or (audited is not None and not audited.ok):
        shown = "\n  ".join(failures[:10])
        more = f"\n  ... and {len(failures) - 10} more" if len(failures) > 10 else ""
        found = (f"\n  {shown}{more}" if failures else "") + \
            ("" if audited is None or audited.ok else "\n" + _indent(audited.table()))
        raise GateFailed(f"the release did not pass validation, so it was not published:{found}\n"
                         f"Results and Data Docs: {docs}" + (f"; audit: {out_dir / 'audit.json'}" if audited else ""))
    summary_out = {"passed": True, "suites": dict(sorted(summary.items())),
                   "engine": f"great_expectations {gx.__version__}"}
    if audited is not None:
        summary_out["audit"] = {"rows": sum(c.rows for c in audited.configs.values()), "violations": 0}
    return summary_out


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())
