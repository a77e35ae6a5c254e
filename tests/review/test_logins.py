"""Failed logins per account name and per client address: the lockout, its end, and what a success clears."""

from __future__ import annotations

import logging

import pytest

from review.logins import LoginLimiter, minutes


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def fail(limiter: LoginLimiter, name: str, address: str, times: int = 1) -> None:
    for _ in range(times):
        assert limiter.begin(name, address) == 0
        limiter.end(name, address, ok=False)


def test_ten_failures_lock_the_name_for_fifteen_minutes_and_log_it(caplog):
    clock = Clock()
    limiter = LoginLimiter(clock=clock)
    with caplog.at_level(logging.WARNING, logger="zhbench.review"):
        fail(limiter, "li", "10.0.0.1", 9)
        assert not caplog.records
        fail(limiter, "li", "10.0.0.2")  # the tenth failure for the name, from another address
    assert caplog.messages == ["review login: 10 failed logins for name 'li' within 15 minutes; it is locked for "
                               "15 minutes"]
    assert limiter.begin("li", "10.0.0.3") == 15 * 60  # the right password would not be tried either
    assert limiter.begin("Li ", "10.0.0.3") == 15 * 60  # one name however it is typed
    assert limiter.begin("zhao", "10.0.0.3") == 0  # another name from a fresh address goes ahead
    clock.now += 15 * 60
    assert limiter.begin("li", "10.0.0.4") == 0


def test_ten_failures_from_one_address_lock_it_for_every_name(caplog):
    limiter = LoginLimiter(clock=Clock())
    with caplog.at_level(logging.WARNING, logger="zhbench.review"):
        for n in range(10):
            fail(limiter, f"guess{n}", "203.0.113.9")
    assert caplog.messages == ["review login: 10 failed logins for address '203.0.113.9' within 15 minutes; it is "
                               "locked for 15 minutes"]
    assert limiter.begin("wang", "203.0.113.9") > 0
    assert limiter.begin("wang", "198.51.100.7") == 0


def test_failures_older_than_the_window_no_longer_count():
    clock = Clock()
    limiter = LoginLimiter(clock=clock)
    fail(limiter, "li", "10.0.0.1", 9)
    clock.now += 15 * 60 + 1
    fail(limiter, "li", "10.0.0.1", 9)
    assert limiter.begin("li", "10.0.0.1") == 0


def test_a_success_clears_its_name_but_not_its_address():
    limiter = LoginLimiter(clock=Clock())
    fail(limiter, "li", "10.0.0.1", 9)
    assert limiter.begin("li", "10.0.0.1") == 0
    limiter.end("li", "10.0.0.1", ok=True)
    fail(limiter, "li", "10.0.0.2", 9)  # the name's count starts again
    assert limiter.begin("li", "10.0.0.3") == 0
    limiter.end("li", "10.0.0.3", ok=True)
    # One's own account does not reset the guesses made from an address at other names.
    fail(limiter, "zhao", "10.0.0.1")
    assert limiter.begin("chen", "10.0.0.1") > 0


def test_attempts_under_way_count_so_a_burst_is_cut_at_the_limit():
    limiter = LoginLimiter(clock=Clock())
    started = [limiter.begin("li", f"10.0.0.{n}") for n in range(40)]
    assert started.count(0) == 10 and all(w > 0 for w in started[10:])
    for n in range(10):
        limiter.end("li", f"10.0.0.{n}", ok=False)
    assert limiter.begin("li", "10.0.1.1") == 15 * 60


def test_memory_holds_at_most_max_keys_names_and_addresses():
    limiter = LoginLimiter(max_keys=50, clock=Clock())
    for n in range(1000):
        fail(limiter, f"n{n}" * 100_000 if n == 0 else f"n{n}", f"10.0.{n // 250}.{n % 250}")
    assert len(limiter._tallies) <= 50
    assert all(len(value) <= 100 for _, value in limiter._tallies)


@pytest.mark.parametrize("kwargs", [{"limit": 0}, {"window_s": 0}, {"lockout_s": -1}, {"max_keys": 1}])
def test_bad_limits_are_refused_at_once(kwargs):
    with pytest.raises(ValueError):
        LoginLimiter(**kwargs)


def test_a_wait_reads_in_whole_minutes():
    assert (minutes(1), minutes(60), minutes(61), minutes(900)) == ("1 minute", "1 minute", "2 minutes",
                                                                   "15 minutes")
