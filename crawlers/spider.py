"""The Baike spider: depth-first expansion along entry links, one engine for every site.

The spider only fetches, parses (with the pure functions in :mod:`crawlers.parsers`)
and yields; writing is the pipeline's job. Pages that are not content (blocked,
cut off) are retried later a bounded number of times and counted by kind.
"""

from __future__ import annotations

from datetime import datetime, timezone
from urllib.parse import urlsplit

import scrapy
from scrapy.exceptions import CloseSpider

from crawlers.parsers import parse
from crawlers.urls import canonicalize

RETRY_STATUSES = ("blocked", "truncated")


class BaikeSpider(scrapy.Spider):
    name = "baike"
    # 404/403/429 responses reach parse() so they are classified and counted, not dropped silently.
    handle_httpstatus_list = [403, 404, 410, 429]

    def __init__(self, start_urls: list[str], allowed_hosts: list[str] | None = None,
                 max_depth: int = 20, max_pages: int = 0, max_block_retries: int = 3, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = list(start_urls)
        self.allowed_hosts = set(allowed_hosts or {urlsplit(u).netloc for u in self.start_urls})
        self.max_depth = max_depth
        self.max_pages = max_pages
        self.max_block_retries = max_block_retries
        self.pages_ok = 0

    async def start(self):
        # Yielded in reverse so that, with the LIFO scheduler, the first seed is crawled first.
        for url in reversed(self.start_urls):
            yield scrapy.Request(url, callback=self.parse, meta={"zh_depth": 0})

    def parse(self, response):
        depth = response.meta.get("zh_depth", 0)
        original = (response.meta.get("redirect_urls") or [response.url])[0]
        encoding = getattr(response, "encoding", None)
        page = parse(response.body, response.url, http_status=response.status, encoding=encoding,
                     fetched_at=datetime.now(timezone.utc), depth=depth)
        stats = self.crawler.stats
        stats.inc_value(f"zhbench/status/{page.status}")
        if page.status in RETRY_STATUSES:
            tries = response.meta.get("zh_block_tries", 0) + 1
            if tries <= self.max_block_retries:
                stats.inc_value(f"zhbench/retry/{page.status}")
                yield scrapy.Request(original, callback=self.parse, dont_filter=True, priority=-tries,
                                     meta={"zh_depth": depth, "zh_block_tries": tries})
                return
            stats.inc_value(f"zhbench/gave_up/{page.status}")
        if page.status == "ok":
            if self.max_pages and self.pages_ok >= self.max_pages:
                # Responses already in flight when the limit was reached are not kept.
                stats.inc_value("zhbench/over_max_pages")
                return
            self.pages_ok += 1
        yield {"page": page}
        if self.max_pages and self.pages_ok >= self.max_pages:
            raise CloseSpider("max_pages")
        if depth >= self.max_depth:
            return
        targets = [link["url"] for link in page.links] + [sense["url"] for sense in page.senses]
        # Reversed for the LIFO scheduler: the first link on the page is expanded first.
        for url in reversed(targets):
            url = canonicalize(url)
            if urlsplit(url).netloc not in self.allowed_hosts:
                stats.inc_value("zhbench/offsite")
                continue
            yield scrapy.Request(url, callback=self.parse, meta={"zh_depth": depth + 1})
