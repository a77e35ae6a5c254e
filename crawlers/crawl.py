"""Run one crawl in a child process and collect its Parquet shards and stats.

Twisted's reactor cannot be restarted inside one process, so every crawl gets a
fresh interpreter: ``python -m crawlers.crawl CONFIG.json``. The parent only
launches, waits and reads the results the child wrote.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from schemas import Page
from warehouse.shards import ShardWriter

DEFAULT_USER_AGENT = "zhbench/0.1 (Chinese benchmark data crawler; set crawl.user_agent to add your contact)"


class CrawlError(RuntimeError):
    """The crawl could not run (unreachable site, child failure); the message says what to do."""


@dataclass
class CrawlConfig:
    start_urls: list[str]
    out_dir: str
    max_depth: int = 20
    max_pages: int = 0  # 0: no limit
    concurrency: int = 8
    download_delay: float = 0.0
    autothrottle: bool = True
    obey_robots: bool = True
    user_agent: str = DEFAULT_USER_AGENT
    timeout_s: float = 30.0
    max_block_retries: int = 3
    rows_per_shard: int = 5_000
    log_level: str = "WARNING"
    allowed_hosts: list[str] = field(default_factory=list)


@dataclass
class CrawlResult:
    shards: list[Path]
    stats: dict

    @property
    def by_status(self) -> dict[str, int]:
        prefix = "zhbench/status/"
        return {k[len(prefix):]: v for k, v in sorted(self.stats.items()) if k.startswith(prefix)}


def check_reachable(url: str, timeout: float = 5.0) -> None:
    """Fail fast, with a clear message, when the site does not answer at all."""
    parts = urlsplit(url)
    probe = f"{parts.scheme}://{parts.netloc}/robots.txt"
    try:
        urllib.request.urlopen(urllib.request.Request(probe, method="GET"), timeout=timeout).close()
    except urllib.error.HTTPError:
        return  # the site answered; a missing robots.txt is not our problem here
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise CrawlError(
            f"site {parts.scheme}://{parts.netloc} is unreachable ({reason}); check the base URL "
            "or leave crawl.base_url unset to crawl the bundled mirror"
        ) from None


def run_crawl(config: CrawlConfig) -> CrawlResult:
    if not config.start_urls:
        raise CrawlError("no start URLs: the seed files gave no entries")
    check_reachable(config.start_urls[0])
    out = Path(config.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    config_path = out / "crawl-config.json"
    config_path.write_text(json.dumps(asdict(config), ensure_ascii=False, indent=2), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "crawlers.crawl", str(config_path)],
                          capture_output=True, text=True)
    stats_path = out / "crawl-stats.json"
    if proc.returncode != 0 or not stats_path.exists():
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-5:])
        raise CrawlError(f"crawl process failed (exit {proc.returncode}): {tail}")
    stats = json.loads(stats_path.read_text(encoding="utf-8"))
    shards = sorted((out / "pages").glob("pages-*.parquet"))
    return CrawlResult(shards=shards, stats=stats)


class PageShardPipeline:
    """Scrapy item pipeline: pages go to Parquet shards in batches, never one file per page."""

    def __init__(self, out_dir: str, rows_per_shard: int):
        self.writer = ShardWriter(Path(out_dir) / "pages", "pages", Page,
                                  rows_per_shard=rows_per_shard, batch_size=min(500, rows_per_shard))

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.settings.get("ZHBENCH_OUT_DIR"), crawler.settings.getint("ZHBENCH_ROWS_PER_SHARD"))

    def process_item(self, item, spider=None):
        self.writer.write(item["page"])
        return item

    def close_spider(self, spider=None):
        self.writer.close()


def scrapy_settings(config: CrawlConfig) -> dict:
    return {
        "BOT_NAME": "zhbench",
        "USER_AGENT": config.user_agent,
        "ROBOTSTXT_OBEY": config.obey_robots,
        "CONCURRENT_REQUESTS": config.concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": config.concurrency,
        "DOWNLOAD_DELAY": config.download_delay,
        "DOWNLOAD_TIMEOUT": config.timeout_s,
        "AUTOTHROTTLE_ENABLED": config.autothrottle,
        "AUTOTHROTTLE_START_DELAY": max(config.download_delay, 0.01),
        "AUTOTHROTTLE_TARGET_CONCURRENCY": float(config.concurrency),
        # Depth-first: LIFO queues and no depth-based priority.
        "DEPTH_PRIORITY": 0,
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.LifoMemoryQueue",
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleLifoDiskQueue",
        # Retries for transient failures only; blocked pages are retried by the spider itself.
        "RETRY_ENABLED": True,
        "RETRY_TIMES": 2,
        "RETRY_HTTP_CODES": [500, 502, 503, 504, 522, 524, 408],
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": config.log_level,
        "ITEM_PIPELINES": {"crawlers.crawl.PageShardPipeline": 100},
        "ZHBENCH_OUT_DIR": config.out_dir,
        "ZHBENCH_ROWS_PER_SHARD": config.rows_per_shard,
    }


def _child(config_path: str) -> int:
    from scrapy.crawler import CrawlerProcess

    from crawlers.spider import BaikeSpider

    data = json.loads(Path(config_path).read_text(encoding="utf-8"))
    config = CrawlConfig(**data)
    process = CrawlerProcess(settings=scrapy_settings(config), install_root_handler=True)
    crawler = process.create_crawler(BaikeSpider)
    process.crawl(crawler, start_urls=config.start_urls, allowed_hosts=config.allowed_hosts or None,
                  max_depth=config.max_depth, max_pages=config.max_pages,
                  max_block_retries=config.max_block_retries)
    process.start()
    stats = {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in crawler.stats.get_stats().items()}
    out = Path(config.out_dir) / "crawl-stats.json"
    out.write_text(json.dumps(stats, ensure_ascii=False, indent=2, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1]))
