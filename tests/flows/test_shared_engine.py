"""The temporary Prefect server the runs of one Prefect home share (flows/shared_engine.py): the first run starts
it, the next ones use it, and it stops once no run has used it for ZHBENCH_ENGINE_IDLE_S seconds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.flows.test_cli import ROOT, zhbench

# A process that takes its share, asks the server for its health, says its URL and waits for a line on stdin.
USER = """
import os, sys, urllib.request
from flows.engine import configure_prefect
configure_prefect()
url = os.environ["PREFECT_API_URL"]
print(url, urllib.request.urlopen(url + "/health", timeout=120).read().decode(), flush=True)
sys.stdin.readline()
"""


def _user(home: Path, idle_s: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", USER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_HOME": str(home),
                                 "ZHBENCH_ENGINE_IDLE_S": idle_s, "PREFECT_SERVER_ANALYTICS_ENABLED": "false"})


def _url(process: subprocess.Popen) -> str:
    line = process.stdout.readline().split()
    assert line and line[1] == "true", process.stderr.read()[-2000:]
    return line[0]


def _gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.2)
    return False


def test_the_runs_of_a_home_share_one_server_that_stops_when_idle(tmp_path):
    home = tmp_path / "prefect"
    first = _user(home, "2")
    url = _url(first)
    state = json.loads((home / "zhbench-engine.json").read_text(encoding="utf-8"))
    assert url == f"http://127.0.0.1:{state['port']}/api"
    second = _user(home, "2")
    try:
        assert _url(second) == url  # the same server, not a second one
        assert sorted(p.name for p in (home / "zhbench-engine-users").iterdir()) == sorted(
            [str(first.pid), str(second.pid)])
        second.kill()  # a killed run leaves its entry; the server prunes it
        second.wait(timeout=10)
        first.communicate("\n", timeout=30)  # a run that ends takes its entry out
        assert first.returncode == 0
        assert _gone(state["pid"], timeout=30)  # 2 s after the last run
        assert not (home / "zhbench-engine.json").exists() and not list((home / "zhbench-engine-users").iterdir())
    finally:
        for process in (first, second):
            if process.poll() is None:
                process.kill()
        if not _gone(state["pid"], timeout=0):
            os.kill(state["pid"], signal.SIGKILL)

    # A file naming a process that is gone (a server killed with SIGKILL) is replaced by a new server's.
    (home / "zhbench-engine.json").write_text(json.dumps(state), encoding="utf-8")
    third = _user(home, "1")
    new = None
    try:
        _url(third)
        new = json.loads((home / "zhbench-engine.json").read_text(encoding="utf-8"))
        assert new["pid"] != state["pid"] and not _gone(new["pid"], timeout=0)
        third.communicate("\n", timeout=30)
        assert _gone(new["pid"], timeout=30)
    finally:
        if third.poll() is None:
            third.kill()
        if new and not _gone(new["pid"], timeout=0):
            os.kill(new["pid"], signal.SIGKILL)


def test_a_bad_idle_setting_is_one_line(tmp_path):
    env = {"ZHBENCH_ENGINE_IDLE_S": "nan", "PREFECT_HOME": str(tmp_path / "prefect")}
    result = zhbench("run", "--data-dir", str(tmp_path / "data"), cwd=tmp_path, env=env)
    assert result.returncode == 1
    assert result.stderr.startswith("zhbench: error: ZHBENCH_ENGINE_IDLE_S='nan'") and "Traceback" not in result.stderr
    assert not (tmp_path / "prefect" / "zhbench-engine.json").exists()
