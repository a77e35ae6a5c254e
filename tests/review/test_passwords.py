"""Password hashing: a burst of logins never runs more Argon2 verifications at once than the bound."""

from __future__ import annotations

import threading
import time

from review import passwords
from review.passwords import AT_ONCE, check_password, hash_password


def test_a_burst_of_verifications_runs_at_most_the_bound_at_once(monkeypatch):
    stored = hash_password("correct horse")
    hasher = passwords._hasher()
    lock, release = threading.Lock(), threading.Event()
    running, most = [0], [0]

    def verify(self, hash, password):  # holds its turn until the test lets every waiting one through
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        release.wait(10)
        with lock:
            running[0] -= 1
        return False

    monkeypatch.setattr(type(hasher), "verify", verify)
    results = []
    threads = [threading.Thread(target=lambda: results.append(check_password("wrong", stored)))
               for _ in range(4 * AT_ONCE)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 10
    while running[0] < AT_ONCE and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)  # room for any verification beyond the bound to start, were it allowed to
    assert (running[0], most[0]) == (AT_ONCE, AT_ONCE)
    release.set()
    for t in threads:
        t.join()
    assert results == [False] * (4 * AT_ONCE) and most[0] == AT_ONCE and running[0] == 0


def test_a_verification_that_raises_gives_its_turn_back(monkeypatch):
    stored = hash_password("correct horse")
    hasher = passwords._hasher()
    monkeypatch.setattr(type(hasher), "verify", lambda self, h, p: (_ for _ in ()).throw(MemoryError("no room")))
    for _ in range(AT_ONCE + 1):
        try:
            check_password("correct horse", stored)
        except MemoryError:
            pass
    monkeypatch.undo()
    assert check_password("correct horse", stored)  # every turn came back: this one did not wait for ever
