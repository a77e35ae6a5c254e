"""Downloader middleware: recognise blocked responses early, back off the domain, retry later.

A blocked response (HTTP 403/429, a redirect to a verification page, or a
verification page served as 200) never reaches the spider as content. Its
domain is paused for an exponentially growing, capped time (or the server's
Retry-After), and the request is put back in the queue, up to a bounded number
of tries. Each kind is counted in the crawl stats under ``zhbench/blocked/``.
"""

from __future__ import annotations

import time
from urllib.parse import urljoin, urlsplit

from scrapy.exceptions import IgnoreRequest
from scrapy.utils.asyncio import sleep

from crawlers.allowlist import HostPolicy
from crawlers.parsers.detect import block_kind, page_title
from crawlers.urls import canonicalize


class RefusedRequest(IgnoreRequest):
    """A request the host policy refused; the spider records it with ``kind`` and the reason."""

    def __init__(self, kind: str, reason: str):
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


class AlreadyFetched(IgnoreRequest):
    """A request for an entry the crawl already holds: skipped on purpose, not a failure."""


REFUSALS_KEPT = 200  # refusals listed in the crawl stats (all are counted)


class AllowlistMiddleware:
    """Refuse, before anything is sent, every request outside the site's hosts.

    It sits first in the downloader chain, so it sees the requests the spider yields, the
    requests a redirect turns into, and the robots.txt requests of the robots middleware.
    """

    def __init__(self, stats, crawler=None):
        self.stats = stats
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.stats, crawler)

    @property
    def policy(self) -> HostPolicy:
        """The spider's own policy: one set of allowed hosts for the links it follows and for this."""
        return self.crawler.spider.policy

    def process_request(self, request, spider=None):
        refused = self.policy.refusal(request.url)
        if refused is None:
            return None
        robots = request.url.endswith("/robots.txt") and request.meta.get("dont_obey_robotstxt")
        self.stats.inc_value(f"zhbench/refused/{refused.kind}")
        listed = self.stats.get_value("zhbench/refusals") or []
        if len(listed) < REFUSALS_KEPT:
            came_from = (request.meta.get("redirect_urls") or [None])[0]
            listed.append({"url": request.url[:500], "kind": refused.kind, "reason": str(refused),
                           "redirected_from": came_from, "robots_txt": bool(robots)})
            self.stats.set_value("zhbench/refusals", listed)
        raise RefusedRequest(refused.kind, str(refused))


class BlockBackoffMiddleware:
    def __init__(self, stats, base_delay: float, max_delay: float, max_tries: int):
        if base_delay <= 0 or max_delay < base_delay or max_tries < 0:
            raise ValueError("need 0 < base_delay <= max_delay and max_tries >= 0")
        self.stats = stats
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.max_tries = max_tries
        self.paused_until: dict[str, float] = {}
        self.paused_at: dict[str, float] = {}
        self.strikes: dict[str, int] = {}

    @classmethod
    def from_crawler(cls, crawler):
        s = crawler.settings
        return cls(crawler.stats, s.getfloat("ZHBENCH_BACKOFF_BASE", 1.0), s.getfloat("ZHBENCH_BACKOFF_MAX", 300.0),
                   s.getint("ZHBENCH_BLOCK_TRIES", 5))

    async def process_request(self, request, spider=None):
        domain = urlsplit(request.url).netloc
        wait = self.paused_until.get(domain, 0.0) - time.monotonic()
        if wait > 0:
            self.stats.inc_value("zhbench/backoff/waits")
            await sleep(wait)
        request.meta["zh_sent_at"] = time.monotonic()
        return None

    def process_response(self, request, response, spider=None):
        headers = {k.decode().lower(): v.decode("latin-1") for k, v in
                   ((k, response.headers.get(k, b"")) for k in (b"Location", b"Retry-After"))}
        # A verification page served as 200 is recognised by its title or its form, as the parser would.
        html = response.body.decode("utf-8", errors="ignore") if response.status == 200 else ""
        kind = block_kind(response.status, response.url, headers.get("location", ""), page_title(html), html)
        domain = urlsplit(request.url).netloc
        if kind is None:
            self.strikes[domain] = 0
            return response
        self.stats.inc_value(f"zhbench/blocked/{kind}")
        # Requests already in flight when the domain was paused come back blocked together: that
        # is one push-back, not one per request, so only a request sent after the pause began
        # makes the next pause longer.
        strikes = self.strikes.get(domain, 0)
        if request.meta.get("zh_sent_at", time.monotonic()) >= self.paused_at.get(domain, float("-inf")):
            strikes += 1
            self.paused_at[domain] = time.monotonic()
        strikes = max(strikes, 1)
        self.strikes[domain] = strikes
        delay = min(self.max_delay, self.base_delay * 2 ** (strikes - 1))
        retry_after = headers.get("retry-after", "")
        if retry_after.isdigit():
            delay = min(self.max_delay, max(delay, float(retry_after)))
        self.paused_until[domain] = max(self.paused_until.get(domain, 0.0), time.monotonic() + delay)
        self.stats.max_value("zhbench/backoff/max_delay_s", delay)
        # What the crawl is waiting for, shown on the progress line: wall-clock end, cause, cap.
        self.stats.set_value("zhbench/backoff/waiting", {
            "host": domain, "until": time.time() + (self.paused_until[domain] - time.monotonic()),
            "reason": kind, "strikes": strikes, "cap_s": self.max_delay,
            "retry_after": retry_after if retry_after.isdigit() else ""})
        tries = request.meta.get("zh_block_tries", 0) + 1
        if tries > self.max_tries:
            self.stats.inc_value(f"zhbench/gave_up/{kind}")
            return response  # the spider records it as blocked; nothing is stored as content
        original = (request.meta.get("redirect_urls") or [request.url])[0]
        if kind == "captcha_redirect" and 300 <= response.status < 400:
            original = request.url
        meta = dict(request.meta, zh_block_tries=tries)
        meta.pop("redirect_urls", None)
        meta.pop("redirect_times", None)
        return request.replace(url=urljoin(request.url, original), dont_filter=True, meta=meta,
                               priority=request.priority - 1)


class DoneFilterMiddleware:
    """Skip entries a resumed or incremental crawl already holds, including behind redirects.

    The spider's ``done`` set holds canonical URLs kept by an earlier session. A seed such as
    ``/item/李白`` redirects to ``/item/李白/<id>``: when that target is done, the redirect is
    not followed, so no finished page is fetched twice.
    """

    def __init__(self, stats):
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler):
        ext = cls(crawler.stats)
        ext.crawler = crawler
        return ext

    def _done(self) -> set[str]:
        spider = getattr(self.crawler, "spider", None)
        return getattr(spider, "done", set())

    def process_request(self, request, spider=None):
        if request.meta.get("zh_recheck"):
            return None
        if canonicalize(request.url) in self._done():
            self.stats.inc_value("zhbench/skipped_done")
            raise AlreadyFetched(f"already fetched: {request.url}")
        return None

    def process_response(self, request, response, spider=None):
        if 300 <= response.status < 400:
            location = response.headers.get(b"Location", b"").decode("latin-1")
            if not location:
                return response
            try:
                target = canonicalize(urljoin(request.url, location))
            except ValueError as exc:
                raise IgnoreRequest(f"invalid redirect Location {location[:200]!r} ({exc})") from None
            if target in self._done():
                self.stats.inc_value("zhbench/skipped_done")
                raise AlreadyFetched(f"already fetched: {location}")
            # A redirect back to a URL of the chain would otherwise be dropped by the scheduler's
            # duplicate filter without a word: it is a loop, recorded as such.
            chain = [*request.meta.get("redirect_urls", []), request.url]
            if target in {canonicalize(u) for u in chain}:
                raise IgnoreRequest(f"redirect loop: {' -> '.join(chain + [target])[:400]}")
        return response
