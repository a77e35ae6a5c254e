"""A publishing process killed while it writes leaves no release visible, and the next one publishes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from warehouse.release import list_versions, verify

CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from tests.warehouse.test_release import pair
    from flows.cdtp import publish_stage
    from flows.settings import ReleaseSettings
    from schemas import Pair
    from warehouse import release
    from warehouse.shards import ShardWriter

    tmp, marker = Path(sys.argv[1]), Path(sys.argv[2])
    with ShardWriter(tmp / "pairs", "pairs", Pair) as writer:
        writer.write_all(pair(i) for i in range(20))

    def slow_gate(directory, files):  # the files are written, the rename has not happened
        marker.write_text(str(directory))
        time.sleep(60)
        return {}

    publish = release.publish
    release.publish = lambda *a, **k: publish(*a, **{**k, "gate": slow_gate})
    publish_stage(writer.paths, ReleaseSettings(), tmp / "data", {}, {}, "snap", None)
""")


def test_a_kill_mid_write_leaves_no_release_and_the_next_publish_is_clean(tmp_path):
    marker = tmp_path / "writing"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path), str(marker)],
                             cwd=os.getcwd(), stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert child.poll() is None, child.stderr.read().decode()[-2000:]
        assert time.monotonic() < deadline
        time.sleep(0.1)
    child.send_signal(signal.SIGKILL)
    child.wait()
    data = tmp_path / "data"
    root = data / "releases" / "cdtp"
    debris = [p.name for p in root.iterdir()]
    assert len(debris) == 1 and debris[0].startswith(".tmp-0.1.0-")  # hidden, never listed
    assert list_versions(data, "cdtp") == []

    from flows.cdtp import publish_stage
    from flows.settings import ReleaseSettings
    from warehouse.shards import ShardWriter
    from schemas import Pair
    from tests.warehouse.test_release import pair

    with ShardWriter(tmp_path / "again", "pairs", Pair) as writer:
        writer.write_all(pair(i) for i in range(20))
    published = publish_stage(writer.paths, ReleaseSettings(), data, {}, {}, "snap", None)
    assert published.name == "0.1.0" and verify(published) == []
    assert [p.name for p in root.iterdir()] == ["0.1.0"]  # the killed writer's directory is gone
