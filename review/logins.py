"""Failed logins, counted per account name and per client address: a name or an address with ``limit``
failures within ``window_s`` is locked out for ``lockout_s``, so passwords cannot be guessed at the speed
of the server, one account at a time or many accounts from one address.

An attempt counts as a failure from the moment it starts until it succeeds, so a burst of logins sent
at once is cut at the limit like a sequence of them. A success clears its name's failures, not its
address's: an account of one's own must not reset the count of guesses at others. Names are counted
whether an account has them or not, so a lockout does not tell which names exist.

The counts live in the serving process's memory (a restart clears them) and hold at most ``max_keys``
names and addresses, the least recently seen dropped first.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Callable

LIMIT = 10             # failures that lock a name or an address ...
WINDOW_S = 15 * 60     # ... within this many seconds
LOCKOUT_S = 15 * 60    # and for how long
NAME_CHARS = 100       # a name is counted by its first characters: a megabyte name costs no more memory

log = logging.getLogger("zhbench.review")


@dataclass
class _Tally:
    failures: deque = field(default_factory=deque)  # clock times of failures within the window
    pending: int = 0                                # attempts started and not yet ended
    until: float = 0.0                              # locked until this clock time


class LoginLimiter:
    def __init__(self, limit: int = LIMIT, window_s: float = WINDOW_S, lockout_s: float = LOCKOUT_S,
                 max_keys: int = 10_000, clock: Callable[[], float] = time.monotonic):
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        if window_s <= 0 or lockout_s <= 0:
            raise ValueError(f"window_s and lockout_s must be positive, got {window_s} and {lockout_s}")
        if max_keys < 2:
            raise ValueError(f"max_keys must be at least 2, got {max_keys}")
        self.limit, self.window_s, self.lockout_s, self.max_keys = limit, window_s, lockout_s, max_keys
        self._clock = clock
        self._tallies: OrderedDict[tuple[str, str], _Tally] = OrderedDict()
        self._lock = threading.Lock()

    def begin(self, name: str, address: str) -> float:
        """Seconds before this name or address may try again; 0 when the attempt may go ahead, and then it
        counts as a failure until :meth:`end` says how it went."""
        with self._lock:
            now = self._clock()
            tallies = [self._tally(key, now) for key in _keys(name, address)]
            wait = max(t.until - now for t in tallies)
            if wait > 0:
                return wait
            if any(len(t.failures) + t.pending >= self.limit for t in tallies):
                return 60.0  # the last attempts allowed are under way: their outcome decides
            for t in tallies:
                t.pending += 1
            return 0.0

    def end(self, name: str, address: str, ok: bool) -> None:
        """How an attempt :meth:`begin` let through went."""
        with self._lock:
            now = self._clock()
            for kind, value in _keys(name, address):
                t = self._tally((kind, value), now)
                t.pending = max(0, t.pending - 1)
                if ok:
                    if kind == "name":
                        t.failures.clear()
                    continue
                t.failures.append(now)
                if len(t.failures) >= self.limit:
                    t.until, count = now + self.lockout_s, len(t.failures)
                    t.failures.clear()
                    log.warning("review login: %d failed logins for %s %r within %d minutes; it is locked for %d "
                                "minutes", count, kind, value, round(self.window_s / 60), round(self.lockout_s / 60))

    def _tally(self, key: tuple[str, str], now: float) -> _Tally:
        t = self._tallies.get(key)
        if t is None:
            t = self._tallies[key] = _Tally()
            while len(self._tallies) > self.max_keys:
                self._tallies.popitem(last=False)
        self._tallies.move_to_end(key)
        while t.failures and t.failures[0] <= now - self.window_s:
            t.failures.popleft()
        return t


def _keys(name: str, address: str) -> list[tuple[str, str]]:
    return [("name", name.strip().casefold()[:NAME_CHARS]), ("address", address or "unknown")]


def minutes(seconds: float) -> str:
    """'1 minute', '15 minutes': a wait as the login page says it."""
    n = max(1, math.ceil(seconds / 60))
    return f"{n} minute{'' if n == 1 else 's'}"
