"""``zhbench deploy``: the schedule setting, the deployment's parameters, and a served run on a real Prefect server."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from flows.cli import main
from flows.deploy import NO_SERVER, deployment_parameters
from flows.settings import Settings, SettingsError

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# A setting that carries a credential yet changes nothing in a run on threads: dask_address is read only
# with task_runner = "dask". The served run must still put it back (flows.secrets.restore_masked fails on
# a masked value it cannot restore), so a completed run shows ZHBENCH_CONFIG reached it.
DASK_WITH_SECRET = "tcp://zhbench:s3cret-dask@127.0.0.1:8786"


# --- settings ------------------------------------------------------------------------------


def test_schedule_is_off_by_default_and_named_nightly():
    schedule = Settings.load().schedule
    assert (schedule.cdtp, schedule.timezone, schedule.deployment) == (None, "UTC", "nightly")


@pytest.mark.parametrize("cron", ["0 3 * * *", "*/30 2-5 * * mon-fri", "@daily"])
def test_schedule_takes_cron_expressions_prefect_accepts(cron):
    assert Settings.load(overrides={"schedule.cdtp": cron}).schedule.cdtp == cron


@pytest.mark.parametrize("cron", ["0 3 * *", "61 3 * * *", "H 3 * * *", "nightly"])
def test_schedule_rejects_a_bad_cron_expression_naming_the_setting(cron):
    with pytest.raises(SettingsError, match=r"^setting schedule\.cdtp: not a cron expression Prefect accepts"):
        Settings.load(overrides={"schedule.cdtp": cron})


def test_schedule_rejects_an_unknown_time_zone(tmp_path):
    config = tmp_path / "zhbench.toml"
    config.write_text('[schedule]\ncdtp = "0 3 * * *"\ntimezone = "Asia/Beijing"\n', encoding="utf-8")
    with pytest.raises(SettingsError, match=r"^setting schedule\.timezone: unknown time zone"):
        Settings.load(config)


# --- parameters and the command ------------------------------------------------------------


def test_deployment_parameters_mask_secrets_and_make_the_data_dir_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = Settings.load(overrides={
        "data_dir": "data", "llm.base_url": "http://user:s3cret-llm@127.0.0.1:9/v1?api_key=s3cret-key",
        "engine.dask_address": DASK_WITH_SECRET})

    parameters = deployment_parameters(settings)

    assert list(parameters) == ["settings"]
    assert "s3cret" not in json.dumps(parameters)
    assert parameters["settings"]["llm"]["base_url"] == "http://***@127.0.0.1:9/v1?api_key=***"
    assert parameters["settings"]["engine"]["dask_address"] == "tcp://***@127.0.0.1:8786"
    assert parameters["settings"]["data_dir"] == str(tmp_path / "data")


def test_deploy_refuses_without_a_prefect_server(monkeypatch, capsys, tmp_path):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    config = tmp_path / "zhbench.toml"
    config.write_text("", encoding="utf-8")

    assert main(["deploy", "--config", str(config)]) == 1

    assert capsys.readouterr().err == f"zhbench: error: {NO_SERVER}\n"
    assert "ZHBENCH_CONFIG" not in os.environ


def test_deploy_needs_a_config_file(monkeypatch, capsys):
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")

    assert main(["deploy"]) == 2

    assert capsys.readouterr().err.startswith("zhbench: error: --config FILE is required")


# --- a served run ---------------------------------------------------------------------------


def _free_port(candidates=(0,)) -> int:
    """A port free now: the first of ``candidates``, or one the kernel picks (0)."""
    for candidate in candidates:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", candidate))
            except OSError:
                continue
            return probe.getsockname()[1]
    raise RuntimeError(f"no free port in {candidates}")


def _wait_for(what: str, ready, timeout_s: float, process: subprocess.Popen | None = None, log: Path | None = None):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = ready()
        if value:
            return value
        if process is not None and process.poll() is not None:
            break
        time.sleep(1.0)
    output = log.read_text(encoding="utf-8", errors="replace")[-4000:] if log else ""
    pytest.fail(f"{what} not ready after {timeout_s:.0f} s\n{output}")


def _healthy(api_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{api_url}/health", timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


def _popen(command: list[str], env: dict, cwd: Path, log: Path) -> subprocess.Popen:
    """A command in its own session (stopped with its children by _stop), its output in ``log``."""
    with open(log, "w") as out:
        return subprocess.Popen(command, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def _prefect_server(port: int, env: dict, cwd: Path, log: Path) -> subprocess.Popen:
    """``prefect server start`` from this environment on ``port``, once its API answers."""
    server = _popen([str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                    env, cwd, log)
    try:
        _wait_for("prefect server", lambda: _healthy(f"http://127.0.0.1:{port}/api"), 180, server, log)
    except BaseException:
        _stop(server)
        raise
    return server


def _deployment(client, name: str):
    """The deployment, or None until the command has registered it (ObjectNotFound before)."""
    try:
        return client.read_deployment_by_name(name)
    except Exception:
        return None


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.mark.slow
def test_a_triggered_run_of_the_served_deployment_completes_and_publishes(tmp_path):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId
    from prefect.deployments import run_deployment
    from prefect.settings import PREFECT_API_URL, temporary_settings

    port = _free_port()
    api_url = f"http://127.0.0.1:{port}/api"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZHBENCH_", "PREFECT_"))}
    env.update(PREFECT_HOME=str(tmp_path / "prefect"), PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_UI_ENABLED="false", PYTHONPATH=str(ROOT))
    config = tmp_path / "zhbench.toml"
    # The 8860-8869 range is kept for mirrors of test runs, away from the default 8800 of people's runs.
    config.write_text(f'data_dir = "data"\n[crawl]\nmirror_port = {_free_port(range(8860, 8870))}\n'
                      f'[engine]\ndask_address = "{DASK_WITH_SECRET}"\n', encoding="utf-8")
    server_log, deploy_log = tmp_path / "server.log", tmp_path / "deploy.log"
    processes = []
    try:
        server = _prefect_server(port, env, tmp_path, server_log)
        processes.append(server)

        deploy = _popen([str(BIN / "zhbench"), "deploy", "--config", "zhbench.toml", "--name", "test"],
                        {**env, "PREFECT_API_URL": api_url}, tmp_path, deploy_log)
        processes.append(deploy)

        with temporary_settings({PREFECT_API_URL: api_url}), get_client(sync_client=True) as client:
            served = _wait_for("deployment cdtp/test", lambda: _deployment(client, "cdtp/test"), 120, deploy,
                               deploy_log)
            parameters = served.parameters["settings"]
            assert "s3cret" not in json.dumps(served.parameters)
            assert parameters["engine"]["dask_address"] == "tcp://***@127.0.0.1:8786"
            assert parameters["data_dir"] == str(tmp_path / "data")
            assert served.schedules == []  # no schedule.cdtp: runs only when triggered
            assert "schedule:   none" in deploy_log.read_text(encoding="utf-8")

            # registered after cdtp/test
            assert _wait_for("deployment simpleqa/test", lambda: _deployment(client, "simpleqa/test"), 60, deploy,
                             deploy_log).parameters == served.parameters

            triggered = run_deployment("cdtp/test", timeout=0)
            final = _wait_for("the triggered flow run", lambda: (lambda run: run if run.state.is_final() else None)(
                client.read_flow_run(triggered.id)), 420, deploy, deploy_log)
            assert final.state.type.value == "COMPLETED", (final.state.message, deploy_log.read_text())
            assert final.parameters == served.parameters

            artifacts = client.read_artifacts(
                artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[triggered.id])))
        assert {a.key for a in artifacts} == {"zhbench-funnel", "zhbench-report", "zhbench-release"}
        release = tmp_path / "data" / "releases" / "cdtp" / "0.1.0"
        assert (release / "manifest.json").is_file()
        assert f"Path: `{release.resolve()}`" in next(a for a in artifacts if a.key == "zhbench-release").data

        deploy.send_signal(signal.SIGTERM)
        assert deploy.wait(timeout=60) == 0
        output = deploy_log.read_text(encoding="utf-8")
        assert output.rstrip().endswith("zhbench: stopped serving cdtp/test and simpleqa/test")
        assert "Traceback" not in output, output
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
    finally:
        for process in processes:
            _stop(process)


@pytest.mark.slow
def test_the_projects_own_prefect_server_creates_and_completes_a_scheduled_run(tmp_path):
    """``prefect server start`` from this environment (its SQLAlchemy pinned below 2.1: with 2.1 the scheduler
    fails on every loop and never creates a run), started as docs/running.md says on a port other than 4200; a
    one-minute cron; the run the *scheduler* created (not a triggered one) completes, with each stage's start,
    end and counts in its log."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterDeploymentId, LogFilter, LogFilterFlowRunId
    from prefect.settings import PREFECT_API_URL, temporary_settings

    port = _free_port()
    api_url = f"http://127.0.0.1:{port}/api"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZHBENCH_", "PREFECT_"))}
    # As docs/running.md: PREFECT_API_URL set before the server starts, so its UI calls this port, not 4200. The
    # scheduler looks every 10 s here instead of every 60 s, only to keep the test short.
    env.update(PREFECT_HOME=str(tmp_path / "prefect"), PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_API_URL=api_url, PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS="10", PYTHONPATH=str(ROOT))
    config = tmp_path / "zhbench.toml"
    config.write_text(f'data_dir = "data"\n[crawl]\nmirror_port = {_free_port(range(8860, 8870))}\n',
                      encoding="utf-8")
    server_log, deploy_log = tmp_path / "server.log", tmp_path / "deploy.log"
    processes = []
    try:
        server = _prefect_server(port, env, tmp_path, server_log)
        processes.append(server)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/ui-settings", timeout=10) as reply:
            assert json.load(reply)["api_url"] == api_url

        deploy = _popen([str(BIN / "zhbench"), "deploy", "--config", "zhbench.toml", "--name", "every-minute",
                         "--cron", "* * * * *"], env, tmp_path, deploy_log)
        processes.append(deploy)

        with temporary_settings({PREFECT_API_URL: api_url}), get_client(sync_client=True) as client:
            served = _wait_for("deployment cdtp/every-minute", lambda: _deployment(client, "cdtp/every-minute"), 120,
                               deploy, deploy_log)
            assert [s.schedule.cron for s in served.schedules] == ["* * * * *"]

            def completed_scheduled_run():
                runs = client.read_flow_runs(flow_run_filter=FlowRunFilter(
                    deployment_id=FlowRunFilterDeploymentId(any_=[served.id])))
                assert all(r.auto_scheduled for r in runs), "only the scheduler creates runs here"
                failed = [r for r in runs if r.state and r.state.is_final() and r.state.type.value != "COMPLETED"]
                assert not failed, (failed[0].state, deploy_log.read_text(encoding="utf-8")[-4000:])
                return next((r for r in runs if r.state and r.state.type.value == "COMPLETED"), None)

            run = _wait_for("a completed scheduled run", completed_scheduled_run, 480, deploy,
                            deploy_log)
            assert run.auto_scheduled

            def run_log() -> list[str]:
                """Every line of the run's log. The API answers at most 200 a request, so it is read page by
                page; and the runner sends its last lines after the run's final state, so it is read again
                until the publish stage's line is there (or the wait gives up and the asserts below show it)."""
                lines: list[str] = []
                while page := client.read_logs(log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[run.id])),
                                               limit=200, offset=len(lines)):
                    lines += [entry.message for entry in page]
                return lines

            deadline = time.monotonic() + 60
            lines = run_log()
            while not any(line.startswith("stage publish finished in ") for line in lines) \
                    and time.monotonic() < deadline:
                time.sleep(2.0)
                lines = run_log()
        assert "stage crawl started" in lines
        assert any(line.startswith("stage align finished in ") and line.endswith(" pairs") for line in lines), lines
        assert any(line.startswith("stage publish finished in ") for line in lines), lines
        assert "InvalidRequestError" not in server_log.read_text(encoding="utf-8")
        deploy.send_signal(signal.SIGTERM)
        assert deploy.wait(timeout=120) == 0
        assert "Traceback" not in deploy_log.read_text(encoding="utf-8")
    finally:
        for process in processes:
            _stop(process)
