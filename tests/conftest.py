"""Shared fixtures: the small facts table, its mirror site and a live mirror on 127.0.0.1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crawlers.mirror.site import MirrorServer, Site

FIXTURES = Path(__file__).parent / "fixtures"
MINI_FACTS = FIXTURES / "facts"

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


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


def entry(site: Site, title: str, sense: str | None = None):
    for candidate in site.senses(title):
        if sense is None or candidate.sense == sense:
            return candidate
    raise KeyError(title)
