"""The web search a run verifies against: a SearXNG instance, or the bundled mirror's for a crawl of the mirror.

``verify.search_backend = "searxng"`` (the default) asks a SearXNG instance's JSON API at ``verify.search_url``.
When that is unset and the run crawls the bundled mirror, the run starts a second mirror of the same world
(same profile, size and seed) on a free port of 127.0.0.1 for its verify and items stages: its ``/search``
answers as SearXNG does, over the encyclopedia and the other sites beside it (crawlers.mirror.web). The stage
keys are computed from the settings as configured, so the port it happens to get changes no cache key;
the search results are cached under what the instance says it holds (verifiers.searxng.SearxNG).
"""

from __future__ import annotations

import contextlib
from typing import Iterator

from flows.settings import CrawlSettings, Settings, VerifySettings


class SearchSetupError(ValueError):
    """The configured search cannot be used; the message says what to set."""


def needs_mirror_search(settings: Settings) -> bool:
    verify = settings.verify
    return verify.search_backend == "searxng" and not verify.search_url and not settings.crawl.base_url and (
        verify.search or verify.items)


def check_search(settings: Settings) -> None:
    """A run that crawls a real site and would search must say where: no search service is guessed."""
    verify = settings.verify
    if (verify.search or verify.items) and verify.search_backend == "searxng" and not verify.search_url \
            and settings.crawl.base_url:
        raise SearchSetupError(
            "search validation and the items' evidence check need a web search: set verify.search_url to a "
            "SearXNG instance with the JSON format enabled (e.g. search_url = \"https://searx.example.org\"), or "
            "verify.search_backend = \"crawl\" to search the crawl's own pages only (a fact stated on one page is "
            "then never confirmed), or verify.search = false and verify.items = false")


@contextlib.contextmanager
def mirror_search(crawl: CrawlSettings) -> Iterator[str]:
    """A mirror of the crawl's world serving only its search, on a free port; yields its root URL."""
    from crawlers.mirror.site import MirrorServer, Site

    site = Site(profile="realistic", size=crawl.mirror_size, seed=crawl.mirror_seed, faults=False) \
        if crawl.mirror_profile == "realistic" else Site(faults=False)
    with MirrorServer(site, port=0) as server:
        yield server.url


@contextlib.contextmanager
def run_search(settings: Settings) -> Iterator[VerifySettings]:
    """The verify settings the run's stages search with: as configured, or pointed at a mirror search started
    for the block."""
    check_search(settings)
    if not needs_mirror_search(settings):
        yield settings.verify
        return
    with mirror_search(settings.crawl) as url:
        yield settings.verify.model_copy(update={"search_url": url})
