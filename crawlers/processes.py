"""Starting a child process without losing it to a signal."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while a child process starts, and act on them once it has.

    A handler that raises inside ``Popen()`` after the fork loses the only handle on a running child: it
    could be neither stopped nor waited for. Held here, the signal's handler runs as the block ends, with
    the child's ``Popen`` kept. Handlers are Python's to set in the main thread only; elsewhere signals
    never interrupt, and there is nothing to hold."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[tuple[int, object]] = []
    previous = {signum: signal.getsignal(signum) for signum in HELD_SIGNALS}
    try:  # a signal that raises while the handlers are being swapped still finds them restored
        for signum, handler in previous.items():
            if callable(handler):  # an ignored signal stays ignored; a default one ends the process as before
                signal.signal(signum, lambda signum, frame: held.append((signum, frame)))
        yield
    finally:
        for signum, handler in previous.items():
            if callable(handler):
                signal.signal(signum, handler)
        for signum, frame in held:  # in the order they came; the first to raise ends the loop
            previous[signum](signum, frame)
