"""The crawl bench's peer: a plain Scrapy spider that fetches a list of URLs and writes each page's
record as a JSON line, with zhbench's own extraction (``crawlers.parsers.parse``), so the two crawls
differ only in what zhbench adds around the fetch (fetch log, raw store, frontier, shards).

    python -m bench.plain_spider URLS_FILE OUT_JSONL [--concurrency 16] [--backend NAME]

Settings as the zhbench crawl's in the bench: the same concurrency, robots.txt obeyed, AutoThrottle
off, no delay, no cookies, the same timeout; one CrawlerProcess.
"""

from __future__ import annotations

import argparse
import sys

import scrapy
from scrapy.crawler import CrawlerProcess

from crawlers.parsers import parse


class PlainSpider(scrapy.Spider):
    name = "plain"

    def __init__(self, urls: list[str], backend: str, **kwargs):
        super().__init__(**kwargs)
        self.urls, self.backend = urls, backend

    async def start(self):
        for url in self.urls:
            yield scrapy.Request(url, callback=self.parse)

    def parse(self, response):
        page = parse(response.body, response.url, http_status=response.status,
                     encoding=getattr(response, "encoding", None), backend=self.backend)
        yield {"url": page.canonical_url or page.url, "status": page.status, "title": page.title,
               "summary": page.summary, "infobox": [[e.name, e.value] for e in page.infobox]}


def _default_backend() -> str:
    """The zhbench crawl's default parser backend."""
    from dataclasses import fields

    from crawlers.crawl import CrawlConfig

    return next(f.default for f in fields(CrawlConfig) if f.name == "backend")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("urls")
    parser.add_argument("out")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--backend", default=None, help="parser backend (default: zhbench's default)")
    parser.add_argument("--tuned", action="store_true",
                        help="the two Scrapy settings zhbench's crawl sets for speed: one item worker per response, "
                             "no check of the callback's source for return values")
    args = parser.parse_args(argv)
    with open(args.urls, encoding="utf-8") as f:
        urls = [line.strip() for line in f if line.strip()]
    process = CrawlerProcess(settings={
        "CONCURRENT_REQUESTS": args.concurrency, "CONCURRENT_REQUESTS_PER_DOMAIN": args.concurrency,
        "AUTOTHROTTLE_ENABLED": False, "DOWNLOAD_DELAY": 0, "ROBOTSTXT_OBEY": True, "COOKIES_ENABLED": False,
        "DOWNLOAD_TIMEOUT": 30, "LOG_LEVEL": "WARNING", "TELNETCONSOLE_ENABLED": False,
        "FEEDS": {args.out: {"format": "jsonlines", "encoding": "utf8"}},
        **({"CONCURRENT_ITEMS": 1, "WARN_ON_GENERATOR_RETURN_VALUE": False} if args.tuned else {}),
    })
    process.crawl(PlainSpider, urls=urls, backend=args.backend or _default_backend())
    process.start()
    return 0


if __name__ == "__main__":
    sys.exit(main())
