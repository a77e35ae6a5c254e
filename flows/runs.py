"""A run's bookkeeping around the method: its directory and catalog row when it starts, the status a failure or
a kill leaves there, and when it ends its report (report.json, the Prefect artifacts), the catalog's record of
what each stage wrote, and the summary the CLI prints."""

from __future__ import annotations

import json
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator

from prefect.exceptions import TerminationSignal
from prefect.logging import get_run_logger
from prefect.runtime import flow_run

from flows.artifacts import publish_artifacts
from flows.masking import mask_settings
from flows.report import load_previous
from flows.settings import Settings
from flows.stages import StageClock, clock_running
from schemas.storage.catalog import Catalog
from warehouse import release as releases
from warehouse.lock import describe


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


def log_waiting(holder: dict) -> None:
    """A deployment's run that finds the data directory in use (a cdtp and a simpleqa run due at once) waits
    for it, and says so in its log."""
    get_run_logger().warning("the data directory is in use by %s; waiting for it to finish", describe(holder))


def simpleqa_settings(settings: Settings) -> Settings:
    release = settings.release if settings.release.name != "cdtp" else \
        settings.release.model_copy(update={"name": "simpleqa"})
    items = settings.items.model_copy(update={"kinds": ["simpleqa"]})
    return settings.model_copy(update={"items": items, "release": release})


def manifest_config(settings: Settings) -> dict:
    """The settings as a release records them: without where this run fetched from or how it ran, secrets
    masked."""
    return mask_settings(settings.model_dump(mode="json", exclude={
        "data_dir": True, "engine": True, "schedule": True,
        "crawl": {"mirror_port", "reuse", "from_crawl", "recrawl_after"}, "verify": {"search_concurrency"},
        # what the run queues and how long a lease lasts change nothing published; apply_verdicts does
        "review": {"enqueue", "all_configs", "sampled_configs", "sample_per_domain", "seed", "lease_minutes"}}))


@dataclass
class Run:
    """One run of a flow: where it writes, since when, with which settings (secrets masked)."""
    settings: Settings
    data_dir: Path
    run_dir: Path
    flow_run_id: str | None
    started: float
    started_at: datetime
    run_config: dict
    repaired: list[str]
    clock: StageClock


@contextmanager
def recorded_run(settings: Settings) -> Iterator[Run]:
    """A run started in the catalog (after settling what killed runs left: warehouse.release.repair), its stage
    clock running; a failure or a kill inside is recorded as the run's status, then raised."""
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
    with clock_running() as clock:
        try:
            yield Run(settings, data_dir, run_dir, flow_run_id, started, started_at, run_config, repaired, clock)
        except BaseException as exc:
            stopped = isinstance(exc, (KeyboardInterrupt, TerminationSignal))  # Prefect's form of SIGTERM
            catalog.set_run_status(run_dir.name, "interrupted" if stopped else "failed",
                                   str(exc) or type(exc).__name__)
            raise


def finish_run(run: Run, corpus: dict, items: dict, funnel: dict, release_dir: Path | None, note: str,
               blocked: str) -> RunSummary:
    """The run's report and its record in the catalog; the summary the CLI prints."""
    aligned, crawled = corpus["aligned"], corpus["crawled"]
    seconds = time.monotonic() - run.started
    report = {"run": run.run_dir.name, "release": str(release_dir) if release_dir else None, "note": note,
              "pages": aligned.pages_by_status, "funnel": funnel, "stages": run.clock.stages,
              "started_at": run.started_at.isoformat(timespec="seconds"), "seconds": round(seconds, 3)}
    run.run_dir.mkdir(parents=True, exist_ok=True)
    (run.run_dir / "report.json").write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    publish_artifacts(report, release_dir, load_previous(run.run_dir))
    status = "published" if release_dir else ("blocked" if blocked else "nothing_new")
    Catalog(run.data_dir / "catalog.duckdb").record_run({
        "run_id": run.run_dir.name, "flow_run_id": run.flow_run_id, "started_at": run.started_at,
        "finished_at": datetime.now(timezone.utc), "status": status, "release_name": run.settings.release.name,
        "release_version": release_dir.name if release_dir else None, "note": note, "settings": run.run_config,
        "funnel": funnel},
        {"crawl": crawled.shards, "align": aligned.shards, "dedup": corpus["dedup"]["shards"],
         "verify": corpus["verified"]["shards"], "items": items["shards"]},
        run.data_dir)
    return RunSummary(release_dir=release_dir, run_dir=run.run_dir, pages=aligned.pages_by_status,
                      funnel=funnel, crawl_stats=crawled.stats,
                      problems=releases.verify(release_dir) if release_dir else [],
                      seconds=seconds, note=note, blocked=bool(blocked), repaired=run.repaired,
                      stages=run.clock.stages)
