"""Ports on 127.0.0.1 for servers that benchmarks and tests start themselves (nginx, redis, the mirror), and
the processes a command started (``child_pids``)."""

from __future__ import annotations

import socket
import time
from pathlib import Path


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
