"""A process of the run's own, started as ``python -m <module>`` and spoken to over its standard input and
output (flows/search_ahead.py, flows/item_parts.py): what it writes to standard error is kept in a temporary
file, read only where it fails, so it never fills a pipe; and, in the child, the watch that ends it when the
process that started it is gone."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import time


class Child:
    """``python -m module``, its stdin and stdout text pipes (``process``)."""

    def __init__(self, module: str):
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8")
        self.process = subprocess.Popen([sys.executable, "-m", module], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self._stderr, text=True, encoding="utf-8")

    def said_last(self, lines: int) -> str:
        """Its last ``lines`` lines of standard error, on one line."""
        self._stderr.seek(0)
        return " ".join(self._stderr.read().strip().splitlines()[-lines:])

    def release(self) -> None:
        """Let go of its standard error file (once it has ended)."""
        if not self._stderr.closed:
            self._stderr.close()

    def stop(self) -> None:
        """End it now, if it runs, and let go of its standard error file."""
        if self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired, OSError, ValueError):
                self.process.communicate(timeout=30)
        self.release()


def stop_when_orphaned(parent: int) -> None:
    """End this process when the one that started it (``parent``) is gone, however it went."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)  # the run is gone: nobody will read what this would find

    threading.Thread(target=watch, name="zhbench-orphan-watch", daemon=True).start()
