"""SIGTERM, Ctrl-C and SIGKILL stop ``zhbench run`` with every process it started: the crawler child and
the run's own temporary Prefect server (flows/engine.py, with ZHBENCH_ENGINE_IDLE_S=0)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.localhost import child_pids
from tests.crawlers.test_crawl import _SignalledWhileStarting, _terminated, _Terminated
from tests.flows.test_cli import ROOT

# This suite's mirrors, apart from other suites' ports. Under pytest-xdist each worker takes every n-th of them,
# so that two workers never pick the same free port at once (up to 20 workers).
_WORKERS = min(int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")), 20)
MIRROR_PORTS = range(8870 + int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:]) % _WORKERS, 8890, _WORKERS)


# The run's own temporary server, which stops with it (the shared one outlives a run by design:
# tests/flows/test_shared_engine.py).
PRIVATE = {"ZHBENCH_ENGINE_IDLE_S": "0"}


def _mirror_port() -> int:
    for port in MIRROR_PORTS:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.skip(f"no free port in {MIRROR_PORTS}")


def _descendants(pid: int) -> dict[int, str]:
    """Every process under ``pid`` (children, their children, ...) with its command line."""
    found: dict[int, str] = {}
    for child in child_pids(pid):
        try:
            found[child] = Path(f"/proc/{child}/cmdline").read_text().replace("\0", " ")
        except OSError:
            continue
        found.update(_descendants(child))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"  # a zombie has ended; only its parent's reaping is left


def _survivors(pids: dict[int, str], timeout: float) -> dict[int, str]:
    deadline = time.monotonic() + timeout
    while True:
        left = {pid: command for pid, command in pids.items() if _alive(pid)}
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def _terminal_signals() -> None:
    """SIGINT as a terminal leaves it. An ignored SIGINT is inherited: a run started that way (nohup, a
    background job of a script, or a test process that something left ignoring it) rightly keeps ignoring
    Ctrl-C, which is not what these tests are about."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_run(tmp_path: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "flows.cli", "run", "--data-dir", str(tmp_path / "data"), "--max-pages", "30",
         "--mirror-port", str(_mirror_port())],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, preexec_fn=_terminal_signals,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_SERVER_ANALYTICS_ENABLED": "false", **PRIVATE})


def _crawling(run: subprocess.Popen, timeout: float = 90.0) -> dict[int, str]:
    """The run's processes once both the crawler child and the temporary Prefect server run."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and run.poll() is None:
        processes = _descendants(run.pid)
        commands = " ".join(processes.values())
        if "crawlers.crawl" in commands and "flows.engine" in commands:
            return processes
        time.sleep(0.1)
    run.kill()
    raise AssertionError(f"the crawl never started: {run.communicate()[1][-2000:]}")


@pytest.mark.parametrize(("signum", "code", "message"), [
    (signal.SIGTERM, 143, "zhbench: terminated (SIGTERM); what was finished is kept"),
    (signal.SIGINT, 130, "zhbench: interrupted; what was finished is kept"),
])
def test_a_signalled_run_stops_every_process_it_started(tmp_path, signum, code, message):
    run = _start_run(tmp_path)
    processes = _crawling(run)
    run.send_signal(signum)
    time.sleep(0.3)
    run.send_signal(signum)  # a second one, as an impatient user or a supervisor sends: no traceback either
    _, err = run.communicate(timeout=90)
    assert run.returncode == code, err[-2000:]
    assert message in err
    assert "Traceback" not in err and "Error" not in err
    crawler = {pid: command for pid, command in processes.items() if "crawlers.crawl" in command}
    assert _survivors(crawler, timeout=0.5) == {}  # stopped and waited for by the run, not left to stop itself
    assert _survivors(processes, timeout=5.0) == {}


def test_the_processes_of_a_killed_run_stop_on_their_own(tmp_path):
    run = _start_run(tmp_path)
    processes = _crawling(run)
    run.kill()
    run.wait(timeout=10)
    assert _survivors(processes, timeout=20.0) == {}
    run.communicate(timeout=10)  # the pipes close once no process holds them


def _engine_process(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **PRIVATE})


SERVE_AND_ASK = """
import os, sys, urllib.request
from flows.engine import configure_prefect
configure_prefect()
print(os.environ["PREFECT_API_URL"], flush=True)
print(urllib.request.urlopen(os.environ["PREFECT_API_URL"] + "/health", timeout=120).read().decode(), flush=True)
"""


def test_the_temporary_server_answers_and_stops_when_its_process_ends(tmp_path):
    env_before = os.environ.get("PREFECT_API_URL")
    process = _engine_process(SERVE_AND_ASK)
    out, err = process.communicate(timeout=180)
    assert process.returncode == 0, err[-2000:]
    url, health = out.split()
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    assert url.startswith("http://127.0.0.1:") and not 8000 <= port < 9000  # apart from the mirrors' ports
    assert health == "true"
    assert env_before == os.environ.get("PREFECT_API_URL")
    with socket.socket() as s:  # nothing listens there any more: the server stopped at the process's exit
        assert s.connect_ex(("127.0.0.1", port)) != 0


def test_the_temporary_server_stops_itself_when_its_process_is_killed():
    process = _engine_process(SERVE_AND_ASK + "import time; time.sleep(600)\n")
    try:
        assert process.stdout.readline().startswith("http://127.0.0.1:")
        assert process.stdout.readline().strip() == "true"
        servers = {pid: command for pid, command in _descendants(process.pid).items() if "flows.engine" in command}
        assert len(servers) == 1
    finally:
        process.kill()
        process.communicate(timeout=30)
    assert _survivors(servers, timeout=10.0) == {}


@pytest.mark.parametrize(("signum", "handler", "raised"), [
    (signal.SIGINT, signal.default_int_handler, KeyboardInterrupt),
    (signal.SIGTERM, _terminated, _Terminated),
])
def test_a_signal_while_the_temporary_server_starts_leaves_it_to_be_stopped(monkeypatch, signum, handler, raised):
    from flows import engine

    exit_hooks = []
    monkeypatch.setattr(_SignalledWhileStarting, "signum", signum)
    monkeypatch.setattr(_SignalledWhileStarting, "started", [])
    monkeypatch.setattr(engine.subprocess, "Popen", _SignalledWhileStarting)
    monkeypatch.setattr(engine.atexit, "register", exit_hooks.append)
    previous = signal.signal(signum, handler)
    try:
        with pytest.raises(raised):
            engine.start_temporary_server()
        assert signal.getsignal(signum) is handler
    finally:
        signal.signal(signum, previous)
    server, = _SignalledWhileStarting.started
    try:
        assert len(exit_hooks) == 1  # the run's exit stops the server although the signal came first
        exit_hooks[0]()
        assert server.poll() is not None
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
