"""The method, top to bottom, as Prefect flows:

    crawl → snapshot → align → dedup → validate → items → verify → review verdicts → gate → publish → queue for review

Each step is one call to a stage function of its own package, on plain inputs (paths, a settings section).
flows/stages.py runs them (a cached task per stage, its work directory, retries, the stage clock, the settings
unmasked in this process); flows/runs.py keeps the run's books.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, task

from crawlers.crawl import CrawlResult
from crawlers.snapshot import mirror_origins, page_ranges, row_count, snapshot_stage
from filters.align_stage import align_range, align_rules, kept_distribution, merge_aligned
from filters.dedup_stage import dedup_sign, dedup_stage
from flows import caching
from flows.crawling import crawl_run_stage
from flows.items import item_tables, items_stage
from flows.masking import mask_settings
from flows.runner import engine_for_run, make_task_runner
from flows.runs import (RunSummary, finish_run, log_waiting, manifest_config, recorded_run,
                        simpleqa_settings)
from flows.search_ahead import search_ahead
from flows.settings import Settings
from flows.stages import (Stages, all_cached, current_clock, forget_run_counts, releases_state, resolve_settings,
                          searching, searching_with, settings_of_this_process)
from flows.verify import verify_stage
from flows.websearch import run_search
from review.queue import queue_for_review, review_plan
from review.verdicts import apply_verdicts, rejected_relations
from warehouse.hierarchy import load_hierarchy
from warehouse.lock import data_dir_lock
from warehouse.publish import gate_rules, no_release_note, publish_checked, release_counts

# In the flow's process, which holds the data directory's lock: the release and the catalog have one writer.
publish_task = task(publish_checked, name="publish")


@flow(name="cdtp", log_prints=False, persist_result=False)
def cdtp_flow(settings: dict) -> RunSummary:
    """CDTP data-text pairs and the items built on them (KGC, QA, triple-to-text, cloze, SimpleQA-style), from
    plain settings (``Settings.model_dump(mode="json")``, secrets masked). Holds the data directory's lock
    (taken before by ``zhbench run``, which refuses or, with --wait, waits; taken here, waiting, when the flow
    runs on its own, as in a deployment)."""
    resolved = resolve_settings(settings)
    with data_dir_lock(Path(resolved.data_dir), wait=True, waiting=log_waiting):
        return method(resolved)


@flow(name="simpleqa", log_prints=False, persist_result=False)
def simpleqa_flow(settings: dict) -> RunSummary:
    """Chinese SimpleQA-style questions: the same knowledge text as ``cdtp`` (its corpus subflow, cached
    alike), questions generated and checked (criteria, RAG evidence, difficulty, contamination), a release of
    their own (named ``simpleqa`` unless release.name says otherwise), every question queued for review."""
    resolved = simpleqa_settings(resolve_settings(settings))
    with data_dir_lock(Path(resolved.data_dir), wait=True, waiting=log_waiting):
        return method(resolved)


def method(settings: Settings) -> RunSummary:
    """One run: the corpus, the items, the review verdicts, the gated release, the review queue."""
    with recorded_run(settings) as run:
        corpus, items = subflows(settings)
        stages, data_dir, verified = Stages(settings, run.clock), run.data_dir, corpus["verified"]
        funnel = verified["funnel"]
        funnel["items"] = items["report"]
        item_shards, pair_shards = items["shards"], verified["shards"]
        if settings.review.apply_verdicts and funnel["pairs_kept"] > 0 and (data_dir / "review.sqlite").is_file():
            run.clock.start("verdicts", None, "items")
            item_shards, pair_shards, applied = apply_verdicts(data_dir / "review.sqlite", item_shards, pair_shards,
                                                               run.run_dir / "reviewed")
            run.clock.finish("verdicts", applied.get("reviewed"), applied.get("verified"), "items")
            if applied:
                funnel["review"] = applied
        release_dir, blocked, note = None, "", no_release_note(funnel, settings.release.name)
        # What the release owes the review queue is registered with it: a kill after the rename leaves it
        # to the next start's repair, which queues it (the queue is part of the release's commit).
        plan = review_plan(settings.review, items["shards"], data_dir)
        if funnel["pairs_kept"] > 0:
            hierarchy = load_hierarchy(settings.release.name, settings.release.hierarchy)
            release_dir, blocked = stages.timed("publish", lambda: publish_task(
                pair_shards, settings.release, data_dir, manifest_config(settings),
                release_counts({"pages": corpus["aligned"].pages_by_status, **funnel}), corpus["pages"].digest,
                run.flow_run_id, item_tables(item_shards, settings.items, hierarchy), hierarchy,
                gate_rules(settings, hierarchy) if settings.release.gate else None, run.run_dir / "validation",
                corpus["aligned"].relations, corpus["pages"].shards, run.run_dir.name, review=plan))
            note = blocked
        if plan is not None and release_dir is not None:
            queued = stages.timed("review", lambda: queue_for_review(release_dir, data_dir), unit="items", out_of=int)
            funnel["review"] = {**funnel.get("review", {}), "queued": queued}
        return finish_run(run, corpus, items, funnel, release_dir, note, blocked)


def subflows(settings: Settings) -> tuple[dict, dict]:
    """The corpus, then the items built on its kept pairs, their tasks on the run's task runner (a local Dask
    cluster is started once, here), searching the configured search or the search of a mirror started here."""
    with engine_for_run(settings.engine) as engine, run_search(settings) as verify, searching_with(verify):
        params = mask_settings(settings.model_dump(mode="json"))
        corpus = corpus_flow.with_options(task_runner=make_task_runner(engine))(params)
        verified, items = corpus["verified"], {"shards": [], "report": {}}
        if verified["funnel"]["pairs_kept"] > 0:
            items = items_flow.with_options(task_runner=make_task_runner(engine))(
                params, [str(p) for p in verified["shards"]], [str(p) for p in corpus["pages"].shards],
                corpus["verify_key"])
        return corpus, items


@flow(name="corpus", log_prints=False, persist_result=False)
def corpus_flow(params: dict) -> dict:
    """Subflow shared by ``cdtp`` and ``simpleqa``: crawl → snapshot → align (rules over the whole crawl, then
    the pages in parts) → dedup → search validation → domains: the knowledge text, as pair shards and a funnel."""
    settings = resolve_settings(params)
    data_dir, stages = Path(settings.data_dir), Stages(settings, current_clock())
    crawls, origin = crawl_run_stage(settings, data_dir, stages.clock)
    shards = [shard for crawl in crawls for shard in crawl.shards]
    fetched = sum(sum(crawl.by_status.values()) for crawl in crawls)
    pages = stages.timed("snapshot", lambda: snapshot_stage(
        shards, data_dir, origin, latest_per_url=len(crawls) > 1,
        published=mirror_origins(settings.crawl.base_url, origin)), fetched, "pages", lambda p: row_count(p.shards))
    crawled = CrawlResult(crawls[-1].out_dir, shards, crawls[-1].stats, crawls[-1].by_status, crawls[-1].changes,
                          crawls[-1].failures)

    # Relations people rejected in review are left out, and every pair is judged again without them.
    rejected = rejected_relations(data_dir)
    align_key = caching.stage_key("align", pages.digest, caching.section(settings.align),
                                  *([{"rejected_relations": rejected}] if rejected else []))
    stages.clock.start("align", None, "pairs")
    rules_future = stages.submit("align-rules", align_rules, align_key, page_shards=pages.shards,
                                 align=settings.align, rejected=rejected)
    rules = rules_future.result()
    ranges = page_ranges(pages.shards[0], settings.engine.shard_pages) if pages.shards else []
    part_keys = [caching.stage_key("align-shard", align_key, start, stop) for start, stop in ranges]
    futures = [stages.submit("align", align_range, key, pages=pages.shards[0], start=start, stop=stop, rules=rules,
                             align=settings.align, cache_dir=data_dir / "cache")
               for key, (start, stop) in zip(part_keys, ranges)]
    against = releases_state(data_dir, settings.release.name) if settings.dedup.against_releases else None
    dedup_key = caching.stage_key("dedup", align_key, caching.section(settings.dedup), settings.release.name,
                                  against)
    verify_key = caching.stage_key("verify", dedup_key, pages.digest, caching.section(settings.verify))
    # The search validation's searches start as each part is aligned (flows/search_ahead.py); the verify
    # stage's time includes the wait for the last of them.
    with search_ahead(searching(settings), data_dir, verify_key) as ahead:
        aligned = merge_aligned(rules, stages.parts("align", futures, "shards", each=ahead.feed))
        stages.clock.finish("align", None, aligned.funnel["pairs_kept"], "pairs", all_cached([rules_future, *futures]))
        # Pass 1 (signatures) a task per alignment part, like the alignment; then the groups over all of them.
        stages.clock.start("dedup", aligned.funnel["pairs_kept"], "pairs")
        section = caching.section(settings.dedup)
        signing = [stages.submit("dedup-sign", dedup_sign, caching.stage_key("dedup-sign", key, section),
                                 pair_shards=part, dedup=settings.dedup)
                   for key, part in zip(part_keys, aligned.part_shards)] if settings.dedup.enabled else []
        dedup_future = stages.submit("dedup", dedup_stage, dedup_key, pair_shards=aligned.shards, dedup=settings.dedup,
                                     funnel=aligned.funnel, data_dir=data_dir, release_name=settings.release.name,
                                     signed=[f.result() for f in signing] if signing else None)
        deduped = dedup_future.result()
        stages.clock.finish("dedup", aligned.funnel["pairs_kept"], deduped["funnel"]["pairs_kept"], "pairs",
                            all_cached([*signing, dedup_future]))
        verified, cached = stages.run("verify", verify_stage, verify_key, deduped["funnel"]["pairs_kept"], "pairs",
                                      lambda r: r["funnel"]["pairs_kept"], first=ahead.close,
                                      pair_shards=deduped["shards"], page_shards=pages.shards,
                                      settings=searching(settings), funnel=deduped["funnel"],
                                      catalog_path=data_dir / "catalog.duckdb", rules=aligned.rules)
    if cached:
        verified = dict(verified, funnel=forget_run_counts(verified["funnel"]))
    verified["funnel"]["domains"] = kept_distribution(verified["shards"])
    return {"crawled": crawled, "pages": pages, "aligned": aligned, "dedup": deduped, "verified": verified,
            "verify_key": verify_key}


@flow(name="items", log_prints=False, persist_result=False)
def items_flow(params: dict, pair_shards: list[str], page_shards: list[str], verify_key: str) -> dict:
    """Subflow: items of the configured kinds from the kept pairs, generated and verified."""
    settings = resolve_settings(params)
    data_dir = Path(settings.data_dir)
    against = releases_state(data_dir, settings.release.name) if settings.dedup.against_releases else None
    items_key = caching.stage_key("items", verify_key, caching.section(settings.items), caching.section(settings.llm),
                                  caching.section(settings.verify), settings.release.name, against)
    items, cached = Stages(settings, current_clock()).run(
        "items", items_stage, items_key, None, "items", lambda r: sum((r["report"].get("items_kept") or {}).values()),
        pair_shards=[Path(p) for p in pair_shards], settings=settings.items, cache_dir=data_dir / "cache",
        data_dir=data_dir if settings.dedup.against_releases else None, release_name=settings.release.name,
        llm=settings.llm, catalog_path=data_dir / "catalog.duckdb", verify=searching(settings),
        page_shards=[Path(p) for p in page_shards], processes=settings.engine.workers)
    if cached:
        items = dict(items, report=forget_run_counts({"report": items["report"]})["report"])
    return items


def run_flow(settings: Settings, name: str = "cdtp") -> RunSummary:
    """The ``cdtp`` or ``simpleqa`` flow in this process, its stage tasks on the task runner ``settings.engine``
    selects. The flow's parameters carry the settings masked; its stages take the real ones from here."""
    with settings_of_this_process(settings):
        return {"cdtp": cdtp_flow, "simpleqa": simpleqa_flow}[name](mask_settings(settings.model_dump(mode="json")))
