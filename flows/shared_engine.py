"""One temporary Prefect server shared by the runs of a Prefect home, kept a while after the last one.

Started for each run, the temporary server was most of a run's start-up: it imports Prefect's server, opens
its database and starts its services (4-5 s on an idle 2-core machine, 15 s on a busy one) before the flow's
first call is answered. Shared, only the first run of a while pays that; the next ones find it answering.

* **Finding it.** ``<PREFECT_HOME>/zhbench-engine.json`` names the server (pid and its start time, port, the
  Python and Prefect it runs). A run takes ``zhbench-engine.lock``, reads it, and uses the server when that
  process is alive and its port accepts; otherwise it starts one (as ``flows.engine`` starts the private
  one: the run binds the socket, so requests wait in its backlog while the server boots) and writes the file.
* **Who uses it.** Under the same lock the run leaves its pid in ``zhbench-engine-users/`` and takes it out
  when it exits; a killed run's entry is pruned once its process is gone.
* **When it stops.** The server looks at that folder every second. After ``idle_s`` seconds with no live
  user it takes the lock, looks once more, removes the file naming it (only if it still names it) and stops:
  a run that comes later starts a new one. ``ZHBENCH_ENGINE_IDLE_S`` sets how long (default 300 s); 0 keeps
  the private server of ``flows.engine``, which stops with its run.

Its output goes to ``<PREFECT_HOME>/zhbench-engine.log``, not to the terminal of the run that started it.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from importlib.metadata import version
from pathlib import Path

from crawlers.processes import signals_held

# Prefect's environment for its temporary server (SubprocessASGIServer._run_uvicorn_command).
SERVER_ENV = {"PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1", "PREFECT__SERVER_FINAL": "1"}
STOP_GRACE_S = 5.0  # as Prefect's stop(): SIGTERM, then SIGKILL after this long
IDLE_S = 300.0
STATE, LOCK, USERS, LOG = "zhbench-engine.json", "zhbench-engine.lock", "zhbench-engine-users", "zhbench-engine.log"


def prefect_home() -> Path:
    """Where Prefect keeps its database (``PREFECT_HOME``, by default ``~/.prefect``)."""
    return Path(os.environ.get("PREFECT_HOME") or "~/.prefect").expanduser()


def idle_seconds() -> float:
    """``ZHBENCH_ENGINE_IDLE_S``: how long the shared server waits for another run; 0: no shared server."""
    raw = os.environ.get("ZHBENCH_ENGINE_IDLE_S", "").strip()
    if not raw:
        return IDLE_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        from flows.env import SettingsError

        raise SettingsError(f"ZHBENCH_ENGINE_IDLE_S={raw!r}: give the seconds the shared Prefect server waits for "
                            "the next run, a number >= 0 (0: each run starts its own)")
    return value


def _started(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (with the pid, it names one process), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else fields[19]


@contextlib.contextmanager
def _locked(home: Path):
    with open(home / LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
        yield


def _read_state(home: Path) -> dict | None:
    try:
        return json.loads((home / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _accepts(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _usable(state: dict | None) -> bool:
    return bool(state) and state.get("python") == sys.executable and state.get("prefect") == version("prefect") \
        and _started(state.get("pid", 0)) == state.get("started") and _accepts(state.get("port", 0))


class SharedServer:
    """This process's share of the home's server: ``api_url``, and ``started`` when this process started it."""

    def __init__(self, home: Path | None = None, idle_s: float | None = None):
        self.home = home or prefect_home()
        self.idle_s = idle_seconds() if idle_s is None else idle_s
        self.home.mkdir(parents=True, exist_ok=True)
        (self.home / USERS).mkdir(exist_ok=True)
        self.started = False
        with _locked(self.home):
            state = _read_state(self.home)
            if not _usable(state):
                state = self._start()
                self.started = True
            self.port, self.pid = state["port"], state["pid"]
            self._user = self.home / USERS / str(os.getpid())
            self._user.write_text(_started(os.getpid()) or "", encoding="utf-8")
        atexit.register(self.leave)

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    def leave(self) -> None:
        """This process uses the server no more (at its exit)."""
        self._user.unlink(missing_ok=True)

    def _start(self) -> dict:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.bind(("127.0.0.1", 0))
            listener.listen(128)
            port = listener.getsockname()[1]
            with open(self.home / LOG, "ab") as log, signals_held():  # see flows.engine.TemporaryServer
                process = subprocess.Popen(
                    [sys.executable, "-m", "flows.engine", "shared", str(listener.fileno()), str(self.home),
                     repr(self.idle_s)],
                    pass_fds=(listener.fileno(),), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                    env={**os.environ, **SERVER_ENV}, start_new_session=True)
                state = {"pid": process.pid, "started": _started(process.pid), "port": port,
                         "python": sys.executable, "prefect": version("prefect"),
                         "since": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
                (self.home / STATE).write_text(json.dumps(state), encoding="utf-8")
        finally:
            listener.close()
        return state


# --- the server process ------------------------------------------------------------------


def live_users(home: Path) -> int:
    """How many processes use the server; entries of processes that are gone are removed."""
    live = 0
    for entry in (home / USERS).iterdir():
        try:
            started = entry.read_text(encoding="utf-8")
        except OSError:
            continue
        if entry.name.isdigit() and _started(int(entry.name)) == started:
            live += 1
        else:
            entry.unlink(missing_ok=True)
    return live


def stop_when_idle(home: Path, idle_s: float, grace_s: float) -> None:
    """In the server: stop (as on SIGTERM) once no run has used it for ``idle_s`` seconds."""

    def watch() -> None:
        last_used = time.monotonic()
        while True:
            time.sleep(1.0)
            if live_users(home):
                last_used = time.monotonic()
                continue
            if time.monotonic() - last_used < idle_s:
                continue
            with _locked(home):
                if live_users(home):  # one came while the lock was awaited
                    last_used = time.monotonic()
                    continue
                state = _read_state(home)
                if state and state.get("pid") == os.getpid():
                    (home / STATE).unlink(missing_ok=True)
            break
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(grace_s)
        os._exit(1)  # the app did not finish shutting down in time: nobody is left to wait for it

    threading.Thread(target=watch, name="idle-watch", daemon=True).start()
