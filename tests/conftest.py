"""Shared fixtures: the small facts table, its mirror site, a live mirror on 127.0.0.1, and one demo run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from crawlers.mirror.site import MirrorServer, Site

FIXTURES = Path(__file__).parent / "fixtures"
MINI_FACTS = FIXTURES / "facts"

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


# The modules that take minutes, heaviest first, run before the others: with `make test`'s two pytest-xdist
# workers, each handed whole files in this order (--dist loadfile --no-loadscope-reorder), both start on them
# at once instead of one worker finishing them alone at the end. By file name, so that a move keeps the order;
# a name not found here only runs in its usual place.
FIRST = ("test_item_checks.py", "test_run.py", "test_review_release.py", "test_release_urls.py")


def pytest_collection_modifyitems(items) -> None:
    rank = {name: n for n, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(FIRST)))  # stable: the others keep their order


@pytest.fixture(scope="session")
def mini_site() -> Site:
    """The small facts table without one-time faults: every page whole on every request."""
    return Site(facts_dir=MINI_FACTS, faults=False)


@pytest.fixture()
def faulty_site() -> Site:
    """The small facts table with its faults (GBK page, captcha and cut-off page once each)."""
    return Site(facts_dir=MINI_FACTS)


@pytest.fixture(scope="session")
def bundled_site() -> Site:
    return Site()


@pytest.fixture()
def mini_mirror():
    """A fresh mirror per test: its one-time faults (captcha, cut-off page) start unserved."""
    with MirrorServer(Site(facts_dir=MINI_FACTS)) as server:
        yield server


@pytest.fixture(scope="session")
def fact_page_shards(tmp_path_factory) -> list[Path]:
    """The bundled mirror's facts as a crawl's page records (tests.builders.conftest.fact_pages)."""
    from tests.builders.conftest import fact_pages

    return fact_pages(tmp_path_factory.mktemp("pages"))


@pytest.fixture(scope="session")
def kept_pair_shards(fact_page_shards, tmp_path_factory) -> list[Path]:
    """Those pages' pairs, aligned and deduplicated as a run does, without a crawl: read by the builders' and
    the verifiers' tests alike, so here, where both folders see one instance."""
    from flows.cdtp import align_stage, dedup_stage
    from flows.settings import AlignSettings, DedupSettings

    root = tmp_path_factory.mktemp("pairs")
    aligned = align_stage(fact_page_shards, AlignSettings(), root / "pairs")
    deduped = dedup_stage(aligned.shards, DedupSettings(), aligned.funnel, root / "dedup")
    return deduped["shards"]


@dataclass(frozen=True)
class DemoRun:
    """A finished ``zhbench run`` of the bundled mirror: its data directory, the mirror port it crawled
    (a rerun on another port searches for other fetch URLs) and the command's result."""

    data: Path
    port: str
    result: subprocess.CompletedProcess


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory) -> DemoRun:
    """The demo (``zhbench run`` with default settings) run once per test session, because a run takes minutes.

    Read it, never write it: tests that run again, review or export in the data directory take
    ``demo_data``, a copy. Under pytest-xdist the workers share one run in the session's base directory: the
    first worker to need it runs it while holding a lock, the others wait for it and read what it recorded.
    """
    import fcntl

    from bench.localhost import free_port
    from tests.flows.test_cli import zhbench

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the session's directory, above each worker's own
    demo, recorded = root / "demo", root / "demo.json"
    with open(root / "demo.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not recorded.is_file():
            shutil.rmtree(demo, ignore_errors=True)  # what a worker stopped in the middle of the run left
            demo.mkdir()
            port = str(free_port())
            result = zhbench("run", "--data-dir", str(demo / "data"), "--mirror-port", port, cwd=demo)
            recorded.write_text(json.dumps({"port": port, "args": result.args, "returncode": result.returncode,
                                            "stdout": result.stdout, "stderr": result.stderr}), encoding="utf-8")
    run = json.loads(recorded.read_text(encoding="utf-8"))
    result = subprocess.CompletedProcess(run["args"], run["returncode"], run["stdout"], run["stderr"])
    assert result.returncode == 0, result.stderr[-2000:]
    return DemoRun(demo / "data", run["port"], result)


@pytest.fixture()
def demo_data(demo_run, tmp_path) -> Path:
    """A copy of the demo run's data directory at ``tmp_path / "data"``, the test's to change: copying 20 MB
    is seconds, a run minutes. Its stage caches still name the shards of the shared run, which stay as they are."""
    return Path(shutil.copytree(demo_run.data, tmp_path / "data", symlinks=True))


def entry(site: Site, title: str, sense: str | None = None):
    for candidate in site.senses(title):
        if sense is None or candidate.sense == sense:
            return candidate
    raise KeyError(title)
