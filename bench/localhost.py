"""Ports on 127.0.0.1 for servers that benchmarks and tests start themselves (nginx, redis, the mirror), the
processes a command started (``child_pids``), and the environment of the zhbench commands a bench starts
(``zhbench_env``)."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A port nothing listens on right now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 10.0) -> None:
    """Return once something accepts connections on 127.0.0.1:port."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing answers on 127.0.0.1:{port}")


def child_pids(pid: int) -> list[int]:
    """The processes ``pid`` started, from any of its threads (Linux /proc); [] once it has ended."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [int(c) for c in task.read_text().split()]
        except OSError:  # the thread or the process has just ended
            pass
    return found


def zhbench_env(prefect_home: Path, **settings: str) -> dict[str, str]:
    """This environment for a zhbench command run from this checkout, with a Prefect home of its own (and no
    Prefect server of the caller's), analytics off, and ``settings`` added."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "PREFECT_HOME": str(prefect_home), **settings}
    env.pop("PREFECT_API_URL", None)
    return env
