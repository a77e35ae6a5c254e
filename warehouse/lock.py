"""One writer per data directory: an exclusive lock (filelock's, a ``flock``) on ``<data-dir>/.zhbench.lock``.

``zhbench run`` holds it from start to end, so two runs in one data directory never publish
over each other or release the same pairs twice: the second refuses at once, naming the
holder, or with ``wait`` runs when the first is done. The kernel drops the lock when its
holder exits, however it exits (a kill included), so a lock is never stale; the file itself
stays, holding the last holder's pid, host, start time and command for the message.

The lock is re-entrant within a process (the CLI takes it, then the flow and the publisher
take it again), and it is not inherited: Python opens the file close-on-exec, so a crawler
subprocess that outlives a killed run does not keep the directory locked.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from filelock import FileLock, Timeout

from schemas.storage.catalog import CatalogError
from schemas.storage.lockfile import describe, read_holder  # noqa: F401  (describe: named here for the callers of this module)

LOCK_NAME = ".zhbench.lock"


class DataDirLocked(CatalogError):
    """Another process holds the data directory (its catalog and releases); the message names it and
    says how to proceed."""

    def __init__(self, message: str, holder: dict):
        super().__init__(message)
        self.holder = holder


# Locks this process holds: resolved lock path -> [FileLock, depth, owner pid].
_held: dict[Path, list] = {}
_guard = threading.Lock()


def lock_path(data_dir: Path) -> Path:
    return Path(data_dir) / LOCK_NAME


def held(data_dir: Path) -> bool:
    """Whether this process holds the data directory's lock."""
    entry = _held.get(lock_path(data_dir).resolve())
    return entry is not None and entry[2] == os.getpid()


@contextmanager
def data_dir_lock(data_dir: Path, wait: bool = False, command: str | None = None,
                  waiting: Callable[[dict], None] | None = None, poll_s: float = 0.5) -> Iterator[None]:
    """Hold ``data_dir``'s lock for the block.

    Held by another process: raise ``DataDirLocked`` at once, or with ``wait`` call
    ``waiting(holder)`` once and block until it is free. ``command``: what the holder is doing,
    shown to whoever finds the directory locked (default: this process's command line).
    """
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    path = lock_path(data_dir).resolve()
    with _guard:
        entry = _held.get(path)
        if entry is not None and entry[2] == os.getpid():
            entry[1] += 1
            reentered = True
        else:
            reentered = False
    if reentered:
        try:
            yield
        finally:
            with _guard:
                entry[1] -= 1
        return

    holder = json.dumps({
        "pid": os.getpid(), "host": socket.gethostname(),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": command or " ".join(["zhbench", *sys.argv[1:]]),
    }, ensure_ascii=False) + "\n"

    def write_holder(fd: int) -> None:  # filelock calls it with the locked file's descriptor
        os.ftruncate(fd, 0)
        os.pwrite(fd, holder.encode("utf-8"), 0)

    # The file stays after release (preserve_lock_file): it names the last holder for the message.
    lock = FileLock(path, thread_local=False, preserve_lock_file=True, on_acquired=write_holder)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        info = read_holder(path)
        if not wait:
            raise DataDirLocked(
                f"the data directory {data_dir} is in use by {describe(info)}; wait for it to finish, "
                "rerun with --wait to run after it, or use another --data-dir", info) from None
        if waiting is not None:
            waiting(info)
        # filelock polls rather than blocking in flock: a Ctrl-C while waiting is handled at once.
        lock.acquire(timeout=-1, poll_interval=poll_s)
    with _guard:
        _held[path] = [lock, 1, os.getpid()]
    try:
        yield
    finally:
        with _guard:
            _held.pop(path, None)
        lock.release()  # closes the descriptor, which releases the flock
