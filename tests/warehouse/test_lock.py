"""One writer per data directory: a second one is refused with the holder's name, or waits; a killed
holder leaves no stale lock."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest

from warehouse.lock import DataDirLocked, data_dir_lock, held

HOLDER = textwrap.dedent("""
    import sys, time
    from warehouse.lock import data_dir_lock

    with data_dir_lock(sys.argv[1], command="zhbench run --data-dir test"):
        print("held", flush=True)
        time.sleep(float(sys.argv[2]))
""")


def hold(data_dir, seconds: float = 60) -> subprocess.Popen:
    """A process that holds the lock for ``seconds``, started and holding when this returns."""
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(data_dir), str(seconds)], cwd=os.getcwd(),
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "held"
    return child


def test_a_second_holder_is_refused_with_who_holds_it_and_what_to_do(tmp_path):
    child = hold(tmp_path)
    try:
        with pytest.raises(DataDirLocked) as refused:
            with data_dir_lock(tmp_path):
                pass
    finally:
        child.kill()
        child.wait()
    message = str(refused.value)
    assert f"pid {child.pid} on {socket.gethostname()}" in message and "(zhbench run --data-dir test)" in message
    assert "--wait" in message and "\n" not in message
    assert refused.value.holder["pid"] == child.pid


def test_with_wait_the_second_says_it_waits_and_runs_when_the_first_is_done(tmp_path):
    child = hold(tmp_path, seconds=1)
    told = []
    started = time.monotonic()
    with data_dir_lock(tmp_path, wait=True, waiting=told.append, poll_s=0.05):
        waited = time.monotonic() - started
        assert held(tmp_path)
    assert len(told) == 1 and told[0]["pid"] == child.pid
    assert 0.5 < waited < 10  # until the holder's second was over
    child.wait()


def test_a_killed_holder_leaves_no_stale_lock(tmp_path):
    child = hold(tmp_path)
    child.send_signal(signal.SIGKILL)
    child.wait()
    with data_dir_lock(tmp_path):  # at once: the kernel let go of the dead holder's lock
        assert held(tmp_path)
    assert not held(tmp_path)


def test_the_lock_is_reentrant_in_one_process_and_released_by_the_outermost(tmp_path):
    with data_dir_lock(tmp_path):
        with data_dir_lock(tmp_path):
            assert held(tmp_path)
        assert held(tmp_path)
    assert not held(tmp_path)
    child = hold(tmp_path, seconds=0)  # another process can take it now
    child.wait()
