"""The layer the flow runs its stages through, so that flows/cdtp.py reads as the method:

* each stage after the snapshot is a Prefect task named after it (``stage_task``), cached by its key
  (flows/caching.py) and writing into its work directory, retried on passing failures, submitted to the run's
  task runner (flows/runner.py) by :class:`Stages`: a run killed at any point and started again takes every
  finished stage's result from the cache and computes from the first unfinished one;
* :class:`StageClock` times each stage, counts what went in and out, and tells flows.progress;
* :func:`resolve_settings` turns the flow's parameters (secrets masked) back into this process's settings.

The stage functions themselves live in their packages and take plain inputs."""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import os
import time
from pathlib import Path

from typing import Any, Callable, Iterator

from prefect import task
from pydantic import ValidationError

from filters.normalize import clear_value_caches
from flows import caching, progress
from flows.masking import mask_settings, restore_masked
from flows.runner import passing_failure
from flows.settings import Settings, VerifySettings, invalid_setting
from schemas.releases import list_versions, releases_root
from schemas.storage.shards import release_freed
from warehouse.publish import RUN_ONLY_COUNTS


# Settings of the process that calls the flow, unmasked (``run_flow``): the flow's parameters carry them
# masked, so a URL's key never reaches Prefect's API, and the flow takes the real values from here.
_local: dict[str, Settings] = {}


# The run's stage clock, shared by the flow and its subflows (they run in its thread).
_clock: contextvars.ContextVar["StageClock"] = contextvars.ContextVar("zhbench_stage_clock")


# The verify settings the stages search with (flows.websearch.run_search): the configured ones, or pointed
# at the search of a mirror the run started. Stage keys are computed from the configured settings.
_searching: contextvars.ContextVar[VerifySettings] = contextvars.ContextVar("zhbench_search")


@contextlib.contextmanager
def settings_of_this_process(settings: Settings) -> Iterator[None]:
    """While a flow called here runs, its stages take masked values from ``settings`` (see _local)."""
    _local["settings"] = settings
    try:
        yield
    finally:
        _local.pop("settings", None)


@contextlib.contextmanager
def clock_running() -> Iterator[StageClock]:
    """A new stage clock for the run (its lines go to the flow run's log), read by the subflows' stages."""
    clock = StageClock(_flow_run_logger())
    token = _clock.set(clock)
    try:
        yield clock
    finally:
        _clock.reset(token)


@contextlib.contextmanager
def searching_with(verify: VerifySettings) -> Iterator[None]:
    """The stages search with ``verify`` (flows.websearch.run_search: the configured search, or a mirror's)."""
    token = _searching.set(verify)
    try:
        yield
    finally:
        _searching.reset(token)


def searching(settings: Settings) -> VerifySettings:
    """The verify settings the run's stages search with (see _searching)."""
    return _searching.get(settings.verify)


def current_clock() -> "StageClock":
    """The running flow's stage clock. (Flow bodies call this rather than read ``_clock``: a task sent to a
    Dask worker carries its flow's function, pickled with the globals it names, and a ContextVar cannot be.)"""
    return _clock.get()


def resolve_settings(params: dict) -> Settings:
    """The flow's parameters as settings, masked values taken from this process's own settings: those of
    ``run_flow``'s caller, or, in a deployment's run, the config file named by ZHBENCH_CONFIG and the
    ZHBENCH_* environment."""
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


class StageClock:
    """Each stage's wall time, counts and whether its result came from the cache; sent to flows.progress
    as it goes and written to the report. As each stage ends, the value caches are emptied and the memory
    malloc holds free is given back (filters.normalize.clear_value_caches, schemas.storage.shards.release_freed)."""

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
    root = releases_root(data_dir, name)
    return [[v, caching.file_digest(root / v / "manifest.json")] for v in list_versions(data_dir, name)]


def forget_run_counts(funnel: dict) -> dict:
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


def in_work_dir(out_dir: Path, compute: Callable[[Path], Any]) -> Any:
    """``compute(directory)`` once: a finished work directory answers with its saved result (flows/caching.py)."""
    done, result = caching.finished(out_dir)
    if done:
        return result
    directory = caching.begin(out_dir)
    result = compute(directory)
    caching.finish(directory, result)
    return result


def run_stage(key: str, out_dir: Path, stage: Callable[..., Any], params: dict) -> Any:
    """The body of every cached stage task: ``stage(**params, out_dir=<its work directory>)``."""
    return in_work_dir(out_dir, lambda directory: stage(**params, out_dir=directory))


stage_task = task(run_stage, name="stage", cache_key_fn=caching.key_of, persist_result=True)


class Stages:
    """Submits a run's stages as tasks: each named after its stage, cached by its key, retried on passing
    failures, writing into its work directory ``<data_dir>/work/<name>/<key>`` (flows/caching.py)."""

    def __init__(self, settings: Settings, clock: StageClock) -> None:
        self.data_dir = Path(settings.data_dir)
        self.engine = settings.engine
        self.clock = clock
        self.storage = caching.result_storage(self.data_dir)

    def submit(self, name: str, stage: Callable[..., Any], key: str, **params):
        """A future of ``stage(**params, out_dir=...)`` run as the task ``name``."""
        out_dir = caching.work_dir(self.data_dir, name, key)
        configured = stage_task.with_options(
            name=name, result_storage=self.storage, refresh_cache=not caching.is_done(out_dir),
            retries=self.engine.retries, retry_delay_seconds=self.engine.retry_delay_s,
            retry_condition_fn=passing_failure)
        return configured.submit(key=key, out_dir=out_dir, stage=stage, params=params)

    def run(self, name: str, stage: Callable[..., Any], key: str, records_in: int | None, unit: str,
            out_of: Callable[[Any], int | None], first: Callable[[], None] | None = None,
            **params) -> tuple[Any, bool]:
        """One stage, timed by the clock: its result, and whether it came from the cache. ``first``: what the
        stage waits for before its task starts (work streamed ahead of it), timed as the stage's."""
        self.clock.start(name, records_in, unit)
        if first is not None:
            first()
        future = self.submit(name, stage, key, **params)
        result = future.result()
        cached = future.state.name == "Cached"
        self.clock.finish(name, records_in, out_of(result), unit, cached)
        return result, cached

    def parts(self, name: str, futures: list, unit: str, each: Callable[[Any], None] | None = None) -> list:
        """The futures' results in order, each part counted on the stage's progress as it arrives and handed
        to ``each`` (what streams behind the stage)."""
        results = []
        for done, future in enumerate(futures, 1):
            results.append(future.result())
            progress.advanced(name, done, len(futures), unit)
            if each is not None:
                each(results[-1])
        return results

    def timed(self, name: str, compute: Callable[[], Any], records_in: int | None = None, unit: str = "",
              out_of: Callable[[Any], int | None] = lambda result: None) -> Any:
        """A stage the flow's own process runs (it holds the data directory's lock), timed by the clock."""
        self.clock.start(name, records_in, unit)
        result = compute()
        self.clock.finish(name, records_in, out_of(result), unit)
        return result


def all_cached(futures: list) -> bool:
    return all(f.state.name == "Cached" for f in futures)
