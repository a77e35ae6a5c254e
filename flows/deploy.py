"""``zhbench deploy``: the cdtp flow as a Prefect deployment, served from this process.

The deployment is registered with the Prefect server at ``PREFECT_API_URL`` (a long-running one: the
temporary server of ``zhbench run`` is gone when the command ends) and this process runs its flow runs,
each in a child process, until SIGTERM or Ctrl-C: the scheduled ones (``schedule.cdtp``, a cron
expression) and those triggered with ``prefect deployment run 'cdtp/<name>'``.

The deployment's parameters are the settings as this command loads them, with secrets masked; a run
takes the real values from the config file named by ``ZHBENCH_CONFIG``, which this command sets for
the runs it starts (``flows.cdtp.resolve_settings``).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

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


def build_deployment(settings: Settings):
    """The cdtp flow's ``RunnerDeployment``, named and scheduled by ``settings.schedule``, its runs on the
    task runner ``settings.engine`` selects."""
    from prefect.schedules import Cron
    from prefect.types.entrypoint import EntrypointType

    from flows.cdtp import cdtp_flow
    from flows.runner import make_task_runner

    schedule = settings.schedule
    flow = cdtp_flow.with_options(task_runner=make_task_runner(settings.engine))
    return flow.to_deployment(
        name=schedule.deployment,
        schedules=[Cron(schedule.cdtp, timezone=schedule.timezone)] if schedule.cdtp else [],
        parameters=deployment_parameters(settings),
        description="zhbench: crawl, align and release (the CDTP flow); settings from "
                    f"{os.environ.get('ZHBENCH_CONFIG', 'the environment')}",
        tags=["zhbench"],
        entrypoint_type=EntrypointType.MODULE_PATH,  # flows.cdtp.cdtp_flow, not a path relative to the cwd
    )


def describe(settings: Settings) -> list[str]:
    """What is being served and how to run it, as printed at start."""
    schedule = settings.schedule
    name = f"cdtp/{schedule.deployment}"
    when = (f"'{schedule.cdtp}' ({schedule.timezone})" if schedule.cdtp
            else "none (no schedule.cdtp or --cron): it runs when triggered")
    lines = [f"zhbench: serving deployment {name} to {os.environ['PREFECT_API_URL']}",
             f"  schedule:     {when}",
             f"  run it now:   prefect deployment run '{name}'",
             f"  settings:     {os.environ['ZHBENCH_CONFIG']}; data directory {Path(settings.data_dir).resolve()}",
             "  stop with Ctrl-C or SIGTERM (the schedule is paused until it is served again)"]
    if schedule.cdtp and settings.release.version:
        lines.append(f"  note: release.version = {settings.release.version} is fixed: every scheduled run after "
                     "the first stops on 'release already exists'; leave it unset for the next minor version")
    return lines


def serve_deployment(settings: Settings) -> None:
    """Register the deployment and run its flow runs, one at a time, until SIGTERM or Ctrl-C."""
    import warnings

    from prefect import serve

    # Prefect's SIGTERM handler calls the runner's stop() from inside its event loop, which only makes a
    # coroutine and drops it (the warning below); its sys.exit(0) then unwinds the runner, which pauses
    # the schedule and stops as on Ctrl-C.
    warnings.filterwarnings("ignore", "coroutine 'Runner.astop' was never awaited", RuntimeWarning)
    deployment = build_deployment(settings)
    for line in describe(settings):
        print(line, flush=True)
    try:
        # One run at a time: runs share the data directory, whose lock a second run would find held.
        serve(deployment, limit=1, print_starting_message=False)
    except SystemExit:  # Prefect's runner answers SIGTERM by stopping and sys.exit(0)
        pass


def cmd_deploy(args: argparse.Namespace) -> int:
    from flows.cli import UsageError, check_inputs, settings_overrides

    if not os.environ.get("PREFECT_API_URL"):
        raise DeployError(NO_SERVER)
    if args.config is None:
        raise UsageError("--config FILE is required: the served runs read their settings' secrets from it")
    # Prefect's own log (the runner's, each run's) goes to the server at INFO; the console shows warnings
    # and errors only, unless --verbose.
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "INFO")
    if not args.verbose:
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "WARNING")
    from flows.engine import configure_prefect

    configure_prefect(verbose=args.verbose)
    overrides = {**settings_overrides(args), "schedule.cdtp": args.cron, "schedule.timezone": args.timezone,
                 "schedule.deployment": args.name}
    settings = Settings.load(args.config, overrides)
    check_inputs(settings)
    # The runs this process starts inherit its environment: flows.cdtp.resolve_settings reads the file
    # named here to put back the secrets the parameters carry masked.
    os.environ["ZHBENCH_CONFIG"] = str(Path(args.config).resolve())
    serve_deployment(settings)
    print(f"zhbench: stopped serving cdtp/{settings.schedule.deployment}", flush=True)
    return 0
