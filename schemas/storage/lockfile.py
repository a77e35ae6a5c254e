"""One writer at a time: an exclusive ``flock`` on a lock file that names its holder.

The file holds the holder's pid, host, start time and command, for whoever finds the lock taken. The
kernel drops a ``flock`` when the last descriptor of it closes, however its holder exits (a kill
included), so a lock is never stale: the file stays, naming the last holder, and the next process takes
the lock over and writes its own name.

The descriptor is opened close-on-exec, so a child process does not hold the lock by accident; one that
writes for its parent is given it (``subprocess.Popen(pass_fds=[fd])``) and then holds it until it exits
too, so a child that outlives its killed parent still keeps a second writer out. The lock is re-entrant
within a process: the outermost holder releases it.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator


class Locked(RuntimeError):
    """Another process holds the lock; ``holder`` is what its file says of it."""

    def __init__(self, message: str, holder: dict):
        super().__init__(message)
        self.holder = holder


# Locks this process holds: resolved lock path -> [descriptor, depth, owner pid].
_held: dict[Path, list] = {}
_guard = threading.Lock()


def describe(info: dict) -> str:
    """The holder in words: pid, host, since when, and its command."""
    if not info:
        return "another process (it has not written its name yet)"
    return (f"pid {info.get('pid', '?')} on {info.get('host', '?')}, since {info.get('started', '?')} "
            f"({info.get('command', '?')})")


def alive(info: dict) -> bool:
    """Whether the holder's process still runs (a holder on another host is taken to)."""
    if info.get("host") != socket.gethostname() or not isinstance(info.get("pid"), int):
        return True
    try:
        os.kill(info["pid"], 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


@contextmanager
def holding(path: Path, what: str, command: str | None = None) -> Iterator[int]:
    """Hold the lock at ``path`` for the block, yielding its descriptor.

    Held by another process: raise ``Locked`` at once, its message "``what`` is in use by <holder>".
    ``command``: what this process is doing, shown to whoever finds it locked (default: its command line).
    """
    path = Path(path).resolve()
    with _guard:
        entry = _held.get(path)
        reentered = entry is not None and entry[2] == os.getpid()
        if reentered:
            entry[1] += 1
    if reentered:
        try:
            yield entry[0]
        finally:
            with _guard:
                entry[1] -= 1
        return

    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        info = read_holder(path)
        raise Locked(f"{what} is in use by {describe(info)}", info) from None
    except BaseException:
        os.close(fd)
        raise
    holder = json.dumps({
        "pid": os.getpid(), "host": socket.gethostname(),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": command or " ".join(["zhbench", *sys.argv[1:]]),
    }, ensure_ascii=False) + "\n"
    os.ftruncate(fd, 0)
    os.pwrite(fd, holder.encode("utf-8"), 0)
    with _guard:
        _held[path] = [fd, 1, os.getpid()]
    try:
        yield fd
    finally:
        with _guard:
            _held.pop(path, None)
        os.close(fd)  # releases the flock, unless a child given the descriptor still runs


def held(path: Path) -> bool:
    """Whether this process holds the lock at ``path``."""
    entry = _held.get(Path(path).resolve())
    return entry is not None and entry[2] == os.getpid()


def read_holder(path: Path, tries: int = 5) -> dict:
    """The holder's details; a holder that has just taken the lock may not have written them yet."""
    for _ in range(tries):
        try:
            info = json.loads(Path(path).read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            info = {}
        if info:
            return info
        time.sleep(0.05)
    return {}
