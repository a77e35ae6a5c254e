"""The task runner a run's stage tasks are submitted to, from ``engine`` settings.

- ``threads``: Prefect's thread pool in the flow's process (the default; the stages hold no GIL-bound
  loop long, and DuckDB, Arrow and NumPy release it);
- ``processes``: Prefect's process pool on this machine;
- ``dask``: prefect-dask's ``DaskTaskRunner``, on the cluster at ``engine.dask_address`` or, unset, on a
  local cluster of ``engine.workers`` processes started for the run and stopped after it.

Stage tasks read and write files under the data directory by path, so every worker must see the data
directory at the same path (one machine, or a shared file system mounted alike on every host).
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterator

from flows.settings import EngineSettings, SettingsError


def worker_count(engine: EngineSettings) -> int:
    return engine.workers or os.cpu_count() or 1


def make_task_runner(engine: EngineSettings):
    if engine.task_runner == "threads":
        from prefect.task_runners import ThreadPoolTaskRunner

        return ThreadPoolTaskRunner(max_workers=worker_count(engine))
    if engine.task_runner == "processes":
        from prefect.task_runners import ProcessPoolTaskRunner

        return ProcessPoolTaskRunner(max_workers=worker_count(engine))
    quiet_dask()
    try:
        from prefect_dask import DaskTaskRunner
    except ImportError:  # pragma: no cover - a dependency of the package
        raise SettingsError("setting engine.task_runner = 'dask' needs prefect-dask: "
                            "pip install prefect-dask") from None
    if engine.dask_address:
        return DaskTaskRunner(address=engine.dask_address)
    return DaskTaskRunner(cluster_kwargs={"n_workers": worker_count(engine), "threads_per_worker": 1,
                                         "processes": True, "dashboard_address": None,
                                         "host": "127.0.0.1"})


@contextlib.contextmanager
def engine_for_run(engine: EngineSettings) -> Iterator[EngineSettings]:
    """The engine settings a run's subflows share: with ``dask`` and no scheduler address, a local cluster of
    ``workers`` processes on 127.0.0.1 is started here, once for the run, and its address given to every
    subflow's task runner; it is stopped when the block ends."""
    if engine.task_runner != "dask" or engine.dask_address:
        yield engine
        return
    quiet_dask()
    from distributed import LocalCluster

    with LocalCluster(n_workers=worker_count(engine), threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        yield engine.model_copy(update={"dask_address": cluster.scheduler_address})


def quiet_dask() -> None:
    """Dask's scheduler and workers log every connection at INFO; a run shows them with --verbose only
    (``configure_prefect`` keeps the terminal at WARNING unless verbose). Set for this process and, by the
    environment, for the local cluster's worker processes."""
    import logging

    if (os.environ.get("PREFECT_LOGGING_LEVEL", "INFO") == "CRITICAL"
            or os.environ.get("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "INFO") in ("WARNING", "ERROR", "CRITICAL")):
        os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")
        for name in ("distributed", "distributed.scheduler", "distributed.nanny", "distributed.worker",
                     "distributed.core", "distributed.http.proxy"):
            logging.getLogger(name).setLevel(logging.ERROR)


# Errors that say a setting or an input is wrong: retrying cannot help, so a stage fails at once with them.
def passing_failure(task, task_run, state) -> bool:
    """Prefect ``retry_condition_fn``: retry only what may pass (a lost worker, an OS error, a timeout)."""
    try:
        state.result(raise_on_failure=True)
    except (TimeoutError, ConnectionError, MemoryError):
        return True
    except OSError as exc:
        return not isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError))
    except Exception as exc:
        return type(exc).__name__ in {"KilledWorker", "CommClosedError", "WorkerLost"}
    return False
