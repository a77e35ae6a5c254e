"""The Baike spider: depth-first expansion along entry links, one engine for every site.

The spider only fetches, parses (with the pure functions in :mod:`crawlers.parsers`)
and yields; storing is the pipeline's job. Blocked responses are handled before
the spider by :mod:`crawlers.middleware`; a page cut off in transfer is fetched
again a bounded number of times. In a recrawl, known pages are asked for with
conditional headers and a 304 means unchanged.
"""

from __future__ import annotations

from datetime import datetime, timezone
from urllib.parse import urlsplit

import scrapy
from scrapy.exceptions import CloseSpider, IgnoreRequest
from scrapy.spidermiddlewares.httperror import HttpError

from crawlers.allowlist import HostPolicy
from crawlers.middleware import AlreadyFetched, RefusedRequest
from crawlers.parsers import parse
from crawlers.urls import canonicalize


def failure_reason(failure) -> tuple[str, str, int]:
    """(status, reason, http_status) of a request that produced no page: ``refused`` for the host
    policy and robots.txt, ``failed`` for everything the network or the server did."""
    exc = failure.value
    if isinstance(exc, RefusedRequest):
        return "refused", f"{exc.kind}: {exc.reason}", 0
    if isinstance(exc, HttpError):
        status = exc.response.status
        return "failed", f"http_{status}: the server answered HTTP {status} (after retries)", status
    if isinstance(exc, IgnoreRequest):
        message = str(exc) or "ignored"
        if "robots.txt" in message:
            return "refused", f"robots_txt: {message}", 0
        if "redirect" in message:
            return "failed", f"redirect: {message}", 0
        return "failed", f"ignored: {message}", 0
    kind = type(exc).__name__
    detail = str(exc)
    label = _FAILURES.get(kind, "error")
    if label == "error" and kind == "DownloadFailedError":
        # Scrapy wraps Twisted's reasons: a lost or refused connection, a response never received.
        label = next((name for marker, name in _FAILURES.items() if marker in detail), "error")
    return "failed", f"{label}: {kind}: {detail[:300]}", 0


# Exception names (Scrapy's and Twisted's) -> the reason a failed fetch is recorded under.
_FAILURES = {
    "DownloadTimeoutError": "timeout", "TimeoutError": "timeout", "TCPTimedOutError": "timeout",
    "CannotResolveHostError": "dns", "DNSLookupError": "dns",
    "DownloadConnectionRefusedError": "connection_refused", "ConnectionRefusedError": "connection_refused",
    "ConnectionLost": "connection_lost", "ConnectionDone": "connection_lost", "ResponseNeverReceived": "connection_lost",
    "ResponseFailed": "connection_lost", "ConnectionResetError": "connection_lost",
    "ResponseDataLossError": "short_body", "PotentialDataLoss": "short_body", "_DataLoss": "short_body",
    "ValueError": "invalid_url",
}


class BaikeSpider(scrapy.Spider):
    name = "baike"
    # These reach parse() so they are classified and counted, not dropped silently.
    handle_httpstatus_list = [304, 403, 404, 410, 429]

    def __init__(self, start_urls: list[str], allowed_hosts: list[str] | None = None,
                 max_depth: int = 20, max_pages: int = 0, max_truncated_retries: int = 3,
                 done: set[str] | None = None, frontier: list[tuple[str, int]] | None = None,
                 known: dict[str, dict] | None = None, follow_known: bool = True, backend: str = "selectolax",
                 pages_done: int = 0, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = list(start_urls)
        self.allowed_hosts = set(allowed_hosts or {urlsplit(u).netloc for u in self.start_urls})
        self.policy = HostPolicy(sorted(self.allowed_hosts))
        self.max_depth = max_depth
        self.max_pages = max_pages
        self.max_truncated_retries = max_truncated_retries
        self.done = done or set()  # canonical URLs a resumed crawl already holds
        self.frontier = frontier or []  # (url, depth) discovered before a resume, oldest first
        self.known = known or {}  # canonical URL -> {"etag", "last_modified", "record_hash"} for a recrawl
        self.follow_known = follow_known
        self.backend = backend
        self.pages_ok = pages_done

    def _request(self, url: str, depth: int, priority: int = 0, referer: str = "", **meta) -> scrapy.Request:
        headers = {"Referer": referer} if referer else {}
        previous = self.known.get(canonicalize(url))
        if previous:
            if previous.get("etag"):
                headers["If-None-Match"] = previous["etag"]
            if previous.get("last_modified"):
                headers["If-Modified-Since"] = previous["last_modified"]
        return scrapy.Request(url, callback=self.parse, errback=self.failed, headers=headers, priority=priority,
                              meta={"zh_depth": depth, **meta})

    async def start(self):
        # Scrapy sends start requests in the order yielded, and any discovered request before them:
        # so the walk goes depth-first from the first seed, then from the next seed not yet reached.
        # A resumed frontier goes below new discoveries (negative priorities), most recently
        # discovered first, as the interrupted depth-first walk would have taken them.
        total = len(self.frontier)
        for number, (url, depth) in enumerate(self.frontier):
            yield self._request(url, depth, priority=number - total)
        for url in self.start_urls:
            canonical = canonicalize(url)
            if canonical not in self.done:
                # In a recrawl, pages due again are asked for before the walk goes anywhere new.
                yield self._request(url, 0, priority=1 if canonical in self.known else 0)

    def parse(self, response):
        depth = response.meta.get("zh_depth", 0)
        stats = self.crawler.stats
        canonical = canonicalize(response.url)
        if response.status == 304:
            stats.inc_value("zhbench/status/unchanged")
            yield {"not_modified": canonicalize(response.request.url), "depth": depth,
                   "request_url": response.request.url}
            return
        encoding = getattr(response, "encoding", None)
        try:
            page = parse(response.body, response.url, http_status=response.status, encoding=encoding,
                         fetched_at=datetime.now(timezone.utc), depth=depth, backend=self.backend)
        except Exception as exc:  # noqa: BLE001 - a page the parser cannot read is recorded, never lost
            stats.inc_value("zhbench/status/parse_error")
            stats.inc_value("zhbench/not_kept/parse_error/parse_error")
            yield {"failed": response.url, "status": "parse_error", "depth": depth,
                   "reason": f"parse_error: {type(exc).__name__}: {str(exc)[:300]}",
                   "http_status": response.status, "body": response.body, "encoding": encoding,
                   "request_url": (response.meta.get("redirect_urls") or [response.request.url])[0]}
            return
        if page.status == "truncated":
            tries = response.meta.get("zh_truncated_tries", 0) + 1
            if tries <= self.max_truncated_retries:
                stats.inc_value("zhbench/retry/truncated")
                original = (response.meta.get("redirect_urls") or [response.url])[0]
                retry = self._request(original, depth, priority=-tries, zh_truncated_tries=tries)
                yield retry.replace(dont_filter=True)
                return
            stats.inc_value("zhbench/gave_up/truncated")
        if page.status == "ok":
            if self.max_pages and self.pages_ok >= self.max_pages:
                # Responses already in flight when the limit was reached are not kept.
                stats.inc_value("zhbench/over_max_pages")
                return
            self.pages_ok += 1
        stats.inc_value(f"zhbench/status/{page.status}")
        follow: list[str] = []
        # The follow list is logged even when max_pages stops expansion, so a resumed
        # crawl still knows every link this page led to.
        if depth < self.max_depth:
            for target in [link["url"] for link in page.links] + [sense["url"] for sense in page.senses]:
                url = canonicalize(target)
                if self.policy.refusal(url) is not None:
                    stats.inc_value("zhbench/offsite")
                elif url in self.done or (not self.follow_known and url in self.known):
                    continue
                else:
                    follow.append(url)
        yield {"page": page, "body": response.body, "encoding": encoding, "follow": follow,
               "request_url": (response.meta.get("redirect_urls") or [response.request.url])[0],
               "etag": response.headers.get(b"ETag", b"").decode("latin-1"),
               "last_modified": response.headers.get(b"Last-Modified", b"").decode("latin-1"),
               "canonical": canonical}
        if self.max_pages and self.pages_ok >= self.max_pages:
            raise CloseSpider("max_pages")
        # Queued here, all at once and reversed for the LIFO scheduler, so the first link on the page is
        # expanded first. Yielded one by one they would pass through Scrapy's parallel output handling,
        # whose workers (CONCURRENT_ITEMS of them, each a task per response) let the downloader take a
        # request between two of them and so change the order. Spider middlewares do not see these
        # requests: the Referer header they would add is set here, and depth is the spider's own.
        engine = self.crawler.engine
        for url in reversed(follow):
            engine.crawl(self._request(url, depth + 1, referer=response.url))

    def failed(self, failure):
        """A request that gave no response to parse: recorded in the fetch log with its reason."""
        if failure.check(AlreadyFetched):
            return
        request = failure.request
        status, reason, http_status = failure_reason(failure)
        self.crawler.stats.inc_value(f"zhbench/status/{status}")
        self.crawler.stats.inc_value(f"zhbench/not_kept/{status}/{reason.split(':', 1)[0]}")
        yield {"failed": request.url, "status": status, "reason": reason, "http_status": http_status,
               "depth": request.meta.get("zh_depth", 0),
               "request_url": (request.meta.get("redirect_urls") or [request.url])[0]}
