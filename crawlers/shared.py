"""Several crawler processes, on one or many machines, sharing one crawl through Redis.

The frontier (a LIFO list, so the walk stays depth-first) and the seen-set live
in Redis through scrapy-redis; each process writes its own fetch log and
shards. A process whose queue runs dry stays up while another one is still
working, since that one may yet push new links.
"""

from __future__ import annotations

import socket
import time

from scrapy import signals
from scrapy.exceptions import DontCloseSpider

BUSY_TTL_S = 5


def redis_settings(redis_url: str, key: str) -> dict:
    return {
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_QUEUE_CLASS": "scrapy_redis.queue.LifoQueue",
        "SCHEDULER_QUEUE_KEY": f"zhbench:{key}:requests",
        "SCHEDULER_DUPEFILTER_KEY": f"zhbench:{key}:seen",
        # Never flush the shared queue when one process closes.
        "SCHEDULER_PERSIST": True,
        "SCHEDULER_IDLE_BEFORE_CLOSE": 0,  # a blocking pop would stall this process's reactor
        "REDIS_URL": redis_url,
        "ZHBENCH_REDIS_KEY": key,
        "EXTENSIONS": {"crawlers.crawl.ProgressExtension": 500, "crawlers.shared.KeepAlive": 510},
    }


class KeepAlive:
    """Marks this process busy in Redis while it works, and keeps it open while others do."""

    def __init__(self, crawler):
        import redis

        self.crawler = crawler
        settings = crawler.settings
        self.server = redis.Redis.from_url(settings["REDIS_URL"])
        key = settings["ZHBENCH_REDIS_KEY"]
        self.queue_key = settings["SCHEDULER_QUEUE_KEY"]
        self.busy_prefix = f"zhbench:{key}:busy:"
        self.me = f"{self.busy_prefix}{socket.gethostname()}:{id(self)}"
        self.marked_at = 0.0

    @classmethod
    def from_crawler(cls, crawler):
        ext = cls(crawler)
        crawler.signals.connect(ext.mark_busy, signal=signals.response_received)
        crawler.signals.connect(ext.idle, signal=signals.spider_idle)
        crawler.signals.connect(ext.closed, signal=signals.spider_closed)
        return ext

    def mark_busy(self, *args, **kwargs) -> None:
        # At most once a second: each call is a round trip to Redis on the crawl's only thread.
        now = time.monotonic()
        if now - self.marked_at >= 1.0:
            self.server.set(self.me, 1, ex=BUSY_TTL_S)
            self.marked_at = now

    def idle(self, spider=None) -> None:
        self.server.delete(self.me)
        self.marked_at = 0.0
        if self.server.llen(self.queue_key) > 0:
            raise DontCloseSpider("the shared queue has requests")
        if any(True for _ in self.server.scan_iter(match=self.busy_prefix + "*", count=100)):
            raise DontCloseSpider("another process is still crawling")

    def closed(self, spider=None, reason=None) -> None:
        self.server.delete(self.me)
