"""Shared fixtures: the small facts table, its mirror site, a live mirror on 127.0.0.1, and one demo run."""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from crawlers.mirror.site import MirrorServer, Site

FIXTURES = Path(__file__).parent / "fixtures"
MINI_FACTS = FIXTURES / "facts"

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


# The modules that take minutes run before the others: with `make test`'s two pytest-xdist workers, each
# handed whole files in this order (--dist loadfile --no-loadscope-reorder), both start on them at once instead
# of one worker finishing them alone at the end. test_run.py first: its worker runs the shared demo run, then
# test_review_release.py, which reads it, while the other worker does test_item_checks.py. By file name, so that
# a move keeps the order; a name not found here only runs in its usual place.
FIRST = ("test_run.py", "test_item_checks.py", "test_review_release.py")


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


def once_per_session(tmp_path_factory, name: str, build: Callable[[Path], Any]) -> Any:
    """``build(directory)``'s result, built once for the whole test session in ``directory`` (a folder called
    ``name``) and kept beside it (pickled). Under pytest-xdist each worker has a session of its own; they share
    this one through the session's base directory, above their own: the first worker to ask builds it while
    holding a lock, the others wait for it and read what it kept."""
    from warehouse.release import remove_tree

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    directory, kept = root / name, root / f"{name}.pickle"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not kept.is_file():
            remove_tree(directory)  # what a worker stopped in the middle left, its releases sealed read-only
            directory.mkdir()
            kept.write_bytes(pickle.dumps(build(directory)))
    return pickle.loads(kept.read_bytes())


@pytest.fixture(scope="session")
def fact_page_shards(tmp_path_factory) -> list[Path]:
    """The bundled mirror's facts as a crawl's page records (tests.builders.conftest.fact_pages)."""
    from tests.builders.conftest import fact_pages

    return once_per_session(tmp_path_factory, "fact-pages", fact_pages)


@pytest.fixture(scope="session")
def kept_pair_shards(fact_page_shards, tmp_path_factory) -> list[Path]:
    """Those pages' pairs, aligned and deduplicated as a run does, without a crawl: read by the builders' and
    the verifiers' tests alike, so here, where both folders see one instance."""
    from filters.align_stage import align_stage
    from filters.dedup_stage import dedup_stage
    from flows.settings import AlignSettings, DedupSettings

    def build(root: Path) -> list[Path]:
        aligned = align_stage(fact_page_shards, AlignSettings(), root / "pairs")
        return dedup_stage(aligned.shards, DedupSettings(), aligned.funnel, root / "dedup")["shards"]

    return once_per_session(tmp_path_factory, "kept-pairs", build)


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
    ``demo_data``, a copy.
    """
    from bench.localhost import free_port
    from tests.flows.test_cli import zhbench

    def run(demo: Path) -> DemoRun:
        port = str(free_port())
        result = zhbench("run", "--data-dir", str(demo / "data"), "--mirror-port", port, cwd=demo)
        return DemoRun(demo / "data", port, result)

    demo = once_per_session(tmp_path_factory, "demo", run)
    assert demo.result.returncode == 0, demo.result.stderr[-2000:]
    return demo


@pytest.fixture()
def demo_data(demo_run, tmp_path) -> Path:
    """A copy of the demo run's data directory at ``tmp_path / "data"``, the test's to change: copying 20 MB
    is seconds, a run minutes. Its stage caches still name the shards of the shared run, which stay as they are.
    Its release is sealed read-only as the original is (copytree copies modes; pytest removes such trees)."""
    return Path(shutil.copytree(demo_run.data, tmp_path / "data", symlinks=True))


def entry(site: Site, title: str, sense: str | None = None):
    for candidate in site.senses(title):
        if sense is None or candidate.sense == sense:
            return candidate
    raise KeyError(title)
