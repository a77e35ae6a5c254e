"""Prefect defaults for a quiet, offline, local run, and the run's own temporary Prefect server.

Call ``configure_prefect`` before importing prefect.

Without ``PREFECT_API_URL`` Prefect would start a temporary server itself (``SubprocessASGIServer``:
``python -m uvicorn ... --port <random 8000-8999>``) and stop it from an ``atexit`` hook. A hook
never runs when the run is killed with SIGKILL (or dies in the kernel's OOM killer), and Prefect's
Popen takes no hook of ours, so that server outlived such a run, orphaned, holding its port. So the
run starts the same server itself, the way Prefect does (same app factory, same environment), with
two differences:

* the server watches its parent and stops itself once the parent is gone (once a second, as the
  crawler child does), however the parent ended;
* the parent binds the listening socket (a free port the kernel picks, outside the 8000-8999 range
  where Prefect picks and our mirrors listen) and hands it to the server, so the address is known at
  once and a request sent while the server is still starting waits in the socket's backlog instead
  of being refused: nothing has to poll for the server's health, and it boots while the parent
  imports Prefect and checks its inputs.

``PREFECT_API_URL`` then names it for the whole process, and an ``atexit`` hook stops it at the end
of a run, however the run ended short of a kill: registered before Prefect is imported, the hook runs
after Prefect's own exit hooks have flushed their logs and events to it. A run pointed at a real
server (``PREFECT_API_URL`` set) starts none.

That private server is what ``ZHBENCH_ENGINE_IDLE_S=0`` gives; by default the runs of a Prefect home share
one that outlives them a while (flows.shared_engine), so that only the first run waits for it to boot.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from crawlers.processes import signals_held
from flows.shared_engine import SERVER_ENV, STOP_GRACE_S, SharedServer, idle_seconds, stop_when_idle



def configure_prefect(verbose: bool = False) -> None:
    defaults = {
        # No telemetry: this machine, like many data hosts, has no route to the internet.
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        # The temporary local server needs a few seconds, more on a first run that migrates its database.
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
        "DO_NOT_TRACK": "1",  # nor the client's, whose first-run notice would print above the live table
        # The terminal is quiet by default: the CLI prints its own live table and summary and turns errors into
        # one line, and no library's DEBUG or INFO line (bm25s reports each index it builds) breaks into the
        # table; --verbose shows Prefect's run log, tracebacks included.
        "PREFECT_UI_ENABLED": "false",
    }
    temporary = not os.environ.get("PREFECT_API_URL")
    # The run's log (each stage's start, end and counts) goes to a server that keeps it; the temporary one
    # is gone with the command, so nothing is sent there unless asked (--verbose). With a real server the
    # terminal shows only what is critical: a failed task's traceback is in the run's log on the server,
    # and the CLI says what went wrong in one line.
    defaults["PREFECT_LOGGING_LEVEL"] = "INFO" if verbose or not temporary else "CRITICAL"
    defaults["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] = "INFO" if verbose else "WARNING" if temporary else "CRITICAL"
    if temporary:
        # Only the temporary server: when it stops at the end of a run, its task-run recorder is
        # cancelled mid-flight and logs CancelledError tracebacks. Raising the *server's* log level
        # hides those; the task-run history is still recorded (disabling the recorder instead would
        # drop it). A real Prefect server (PREFECT_API_URL set) keeps its own logging untouched.
        defaults["PREFECT_LOGGING_SERVER_LEVEL"] = "CRITICAL"
    for key, value in defaults.items():
        os.environ.setdefault(key, value)
    if temporary:
        # Shared by the runs of this Prefect home and kept a while (flows.shared_engine), or with
        # ZHBENCH_ENGINE_IDLE_S=0 this run's own, stopped with it.
        server = SharedServer() if idle_seconds() > 0 else start_temporary_server()
        os.environ["PREFECT_API_URL"] = server.api_url


class TemporaryServer:
    """A Prefect API server in a child process that stops at this process's exit, or with it however it ends;
    ``stop()`` stops it sooner."""

    def __init__(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.bind(("127.0.0.1", 0))
            listener.listen(128)
            self.port: int = listener.getsockname()[1]
            # A Ctrl-C or SIGTERM while it starts waits until the server is ours to stop (see signals_held).
            with signals_held():
                self.process = subprocess.Popen(
                    [sys.executable, "-m", "flows.engine", str(os.getpid()), str(listener.fileno())],
                    pass_fds=(listener.fileno(),), stdin=subprocess.DEVNULL, env={**os.environ, **SERVER_ENV},
                    # Its own session: a Ctrl-C at the terminal reaches the run, which still reports to the
                    # server while it unwinds; the server stops after that, at the run's exit.
                    start_new_session=True)
                atexit.register(self.stop)
        finally:
            listener.close()  # the child holds it now; if the child dies, a request is refused, not left waiting

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_temporary_server() -> TemporaryServer:
    return TemporaryServer()


# --- the server process ------------------------------------------------------------------


def _stop_when_orphaned(parent: int) -> None:
    """Stop this process (as on SIGTERM: uvicorn closes its connections and the app) once its parent is gone."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(STOP_GRACE_S)
        os._exit(1)  # the app did not finish shutting down in time: nobody is left to wait for it

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _serve(fd: int) -> None:
    import uvicorn

    config = uvicorn.Config("prefect.server.api.server:create_app", factory=True, log_level="error", lifespan="on")
    uvicorn.Server(config).run(sockets=[socket.socket(fileno=fd)])


if __name__ == "__main__":
    if sys.argv[1] == "shared":  # flows.shared_engine: shared <fd> <Prefect home> <idle seconds>
        stop_when_idle(Path(sys.argv[3]), float(sys.argv[4]), STOP_GRACE_S)
        _serve(int(sys.argv[2]))
    else:  # this run's own: <parent pid> <fd>
        _stop_when_orphaned(int(sys.argv[1]))
        _serve(int(sys.argv[2]))
