"""One writer at a time: a second holder is refused with the first's name; a child given the descriptor keeps the
lock until it exits; a killed holder's lock is taken over, its file rewritten."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap

import pytest

from schemas.storage.lockfile import Locked, alive, held, holding

HOLDER = textwrap.dedent("""
    import sys, time
    from schemas.storage.lockfile import holding

    with holding(sys.argv[1], "the thing", command="zhbench crawl --name c1"):
        print("held", flush=True)
        time.sleep(60)
""")


def hold(path) -> subprocess.Popen:
    """Another process holding the lock at ``path`` when this returns."""
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert child.stdout.readline().strip() == "held"
    return child


def test_a_second_holder_is_refused_naming_the_first_and_a_killed_ones_lock_is_taken_over(tmp_path):
    path = tmp_path / "x.lock"
    child = hold(path)
    try:
        with pytest.raises(Locked) as refused:
            with holding(path, "the thing"):
                pass
        message = str(refused.value)
        assert message.startswith(f"the thing is in use by pid {child.pid} on {socket.gethostname()}, since 20")
        assert message.endswith("(zhbench crawl --name c1)") and "\n" not in message
        assert alive(refused.value.holder)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert json.loads(path.read_text())["pid"] == child.pid  # the dead holder's name stays in the file
    assert not alive(json.loads(path.read_text()))
    with holding(path, "the thing", command="zhbench crawl --resume"):  # at once: the kernel let go of it
        assert held(path)
        assert json.loads(path.read_text())["pid"] == os.getpid()
    assert not held(path)


def test_a_child_given_the_descriptor_holds_the_lock_until_it_exits(tmp_path):
    path = tmp_path / "x.lock"
    with holding(path, "the thing") as fd:
        with holding(path, "the thing") as again:  # re-entrant: the same descriptor
            assert again == fd
        assert held(path)
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], pass_fds=(fd,))
    assert not held(path)
    try:
        with pytest.raises(Locked):  # this process let go; the child it gave the lock to did not
            with holding(path, "the thing"):
                pass
    finally:
        child.kill()
        child.wait()
    with holding(path, "the thing"):
        assert held(path)


def test_a_child_not_given_the_descriptor_does_not_hold_the_lock(tmp_path):
    path = tmp_path / "x.lock"
    with holding(path, "the thing"):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with holding(path, "the thing"):
            assert held(path)
    finally:
        child.kill()
        child.wait()
