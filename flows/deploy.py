"""``zhbench deploy``: the cdtp and simpleqa flows as Prefect deployments, served from this process.

The deployment is registered with the Prefect server at ``PREFECT_API_URL`` (a long-running one: the
temporary server of ``zhbench run`` is gone when the command ends) and this process runs its flow runs,
each in a child process, one at a time, until SIGTERM or Ctrl-C: the scheduled ones (``schedule.cdtp`` and
``schedule.simpleqa``, cron expressions) and those triggered with ``prefect deployment run 'cdtp/<name>'``.

The deployment's parameters are the settings as this command loads them, with secrets masked; a run
takes the real values from the config file named by ``ZHBENCH_CONFIG``, which this command sets for
the runs it starts (``flows.cdtp.resolve_settings``).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from flows.preflight import check_inputs
from flows.settings import Settings

NO_SERVER = ("zhbench deploy serves deployments to a Prefect server: start one (`prefect server start`) and set "
             "PREFECT_API_URL")


class DeployError(ValueError):
    """The deployment cannot be served; the message says what to do."""


def deployment_parameters(settings: Settings) -> dict:
    """The deployment's parameters: ``cdtp_flow``'s ``settings``, secrets masked, the data directory absolute
    (whatever directory a run starts in, it writes where the command was told)."""
    from flows.masking import mask_settings

    data = settings.model_dump(mode="json")
    data["data_dir"] = str(Path(settings.data_dir).resolve())
    return {"settings": mask_settings(data)}


FLOW_TITLES = {"cdtp": "crawl, align and release (the CDTP flow)",
               "simpleqa": "SimpleQA-style questions, released and queued for review (the SimpleQA flow)"}


def build_deployment(settings: Settings, name: str = "cdtp"):
    """The ``cdtp`` or ``simpleqa`` flow's ``RunnerDeployment``, named and scheduled by ``settings.schedule``.
    Its stage tasks run on the task runner ``settings.engine`` selects (the flow gives it to its subflows)."""
    from prefect.schedules import Cron
    from prefect.types.entrypoint import EntrypointType

    from flows.cdtp import cdtp_flow, simpleqa_flow

    schedule = settings.schedule
    cron = getattr(schedule, name)
    flow = {"cdtp": cdtp_flow, "simpleqa": simpleqa_flow}[name]
    return flow.to_deployment(
        name=schedule.deployment,
        schedules=[Cron(cron, timezone=schedule.timezone)] if cron else [],
        parameters=deployment_parameters(settings),
        description=f"zhbench: {FLOW_TITLES[name]}; settings from "
                    f"{os.environ.get('ZHBENCH_CONFIG', 'the environment')}",
        tags=["zhbench"],
        entrypoint_type=EntrypointType.MODULE_PATH,  # flows.cdtp.cdtp_flow, not a path relative to the cwd
    )


def describe(settings: Settings) -> list[str]:
    """What is being served and how to run it, as printed at start."""
    schedule = settings.schedule
    lines = [f"zhbench: serving deployments to {os.environ['PREFECT_API_URL']}"]
    for flow_name in FLOW_TITLES:
        name, cron = f"{flow_name}/{schedule.deployment}", getattr(schedule, flow_name)
        when = (f"'{cron}' ({schedule.timezone})" if cron
                else f"none (no schedule.{flow_name}{' or --cron' if flow_name == 'cdtp' else ''}): it runs when "
                     "triggered")
        lines += [f"  {name}", f"    schedule:   {when}", f"    run it now: prefect deployment run '{name}'"]
    lines += [f"  settings:     {os.environ['ZHBENCH_CONFIG']}; data directory {Path(settings.data_dir).resolve()}",
              "  stop with Ctrl-C or SIGTERM (the schedules are paused until they are served again)"]
    if (schedule.cdtp or schedule.simpleqa) and settings.release.version:
        lines.append(f"  note: release.version = {settings.release.version} is fixed: every scheduled run after "
                     "the first stops on 'release already exists'; leave it unset for the next minor version")
    return lines


def serve_deployment(settings: Settings, verbose: bool = False) -> None:
    """Register the deployment and run its flow runs, one at a time, until SIGTERM or Ctrl-C."""
    import warnings

    from prefect import serve

    # Prefect's SIGTERM handler calls the runner's stop() from inside its event loop, which only makes a
    # coroutine and drops it (the warning below); its sys.exit(0) then unwinds the runner, which pauses
    # the schedule and stops as on Ctrl-C.
    warnings.filterwarnings("ignore", "coroutine 'Runner.astop' was never awaited", RuntimeWarning)
    # That exit also cancels the runner's control-channel reader mid-read, which asyncio then reports as an
    # "Exception in callback" traceback: shutdown noise, shown with --verbose only.
    if not verbose:
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    deployments = [build_deployment(settings, name) for name in FLOW_TITLES]
    for line in describe(settings):
        print(line, flush=True)
    try:
        # One run at a time: runs share the data directory, whose lock a second run would find held.
        serve(*deployments, limit=1, print_starting_message=False)
    except SystemExit:  # Prefect's runner answers SIGTERM by stopping and sys.exit(0)
        pass


def check_server() -> None:
    """A deployment is served to a long-running Prefect server: PREFECT_API_URL must name one."""
    if not os.environ.get("PREFECT_API_URL"):
        raise DeployError(NO_SERVER)


def deploy(config: Path, overrides: dict, verbose: bool = False) -> Settings:
    """Serve the deployments of the settings ``config`` and ``overrides`` make, until SIGTERM or Ctrl-C.

    The served runs read the settings' secrets from ``config``. Returns the settings served.
    """
    check_server()
    # Prefect's own log (the runner's, each run's) goes to the server at INFO; the console shows warnings
    # and errors only, unless verbose.
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "INFO")
    if not verbose:
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "WARNING")
    from flows.engine import configure_prefect

    configure_prefect(verbose=verbose)
    settings = Settings.load(config, overrides)
    check_inputs(settings)
    from flows.websearch import check_search

    check_search(settings)
    # The runs this process starts inherit its environment: flows.cdtp.resolve_settings reads the file
    # named here to put back the secrets the parameters carry masked.
    os.environ["ZHBENCH_CONFIG"] = str(Path(config).resolve())
    serve_deployment(settings, verbose=verbose)
    return settings
