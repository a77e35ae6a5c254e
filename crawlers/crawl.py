"""Run one crawl in a child process; resume it, recrawl it, re-parse it.

Twisted's reactor cannot be restarted inside one process, so every crawl gets a
fresh interpreter: ``python -m crawlers.crawl CONFIG.json``. The parent
launches, shows progress, waits and reads what the child wrote.

A crawl directory holds:

* ``fetched.jsonl``: the fetch log, one flushed line per kept response (the durable record);
* ``pages/pages-*.parquet``: the parsed pages in shards, written in batches;
* ``progress.json`` and ``crawl-stats.json``: live and final counters;
* ``.crawl.lock``: one process writes a crawl at a time (:func:`crawl_lock`).

Raw HTML goes to a content-addressed store shared by all crawls of a data directory.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import urlsplit

import pyarrow.parquet as pq

from crawlers.fetchlog import FAILED_STATUSES, STORED_STATUSES, FetchLog, ResumeState, record_hash
from crawlers.parsers import parse
from crawlers.processes import signals_held
from crawlers.rawstore import RawStore
from crawlers.urls import canonicalize
from schemas import Page
from schemas.storage.lockfile import Locked, alive, holding
from schemas.storage.shards import ShardWriter, crawl_environment

DEFAULT_USER_AGENT = "zhbench/0.1 (Chinese benchmark data crawler; set crawl.user_agent to add your contact)"


class CrawlError(RuntimeError):
    """The crawl could not run (unreachable site, child failure); the message says what to do."""


class CrawlLocked(CrawlError):
    """Another process writes the crawl directory; the message names it (pid, since when, command)."""

    def __init__(self, message: str, holder: dict):
        super().__init__(message)
        self.holder = holder


CRAWL_LOCK = ".crawl.lock"


@contextmanager
def crawl_lock(crawl_dir: Path, command: str | None = None) -> Iterator[int]:
    """Hold the crawl directory's lock for the block, yielding its descriptor: one process at a time crawls,
    resumes, recrawls or re-parses a crawl, else two of them would store its pages twice.

    Held by another process: raise ``CrawlLocked`` at once. The crawler child is given the descriptor, so a
    child that outlives its killed parent keeps the crawl locked until it has stopped."""
    crawl_dir = Path(crawl_dir)
    with ExitStack() as stack:
        try:
            fd = stack.enter_context(holding(crawl_dir / CRAWL_LOCK, f"crawl {crawl_dir.name} in {crawl_dir}",
                                             command))
        except Locked as exc:
            stopping = "" if alive(exc.holder) else " (gone: its crawler process is stopping)"
            raise CrawlLocked(f"{exc}{stopping}; one process writes a crawl at a time: wait for it to end, "
                              "or stop it and continue with --resume", exc.holder) from None
        yield fd


@dataclass
class CrawlConfig:
    start_urls: list[str]
    out_dir: str
    raw_dir: str = ""  # default: <out_dir>/raw
    max_depth: int = 100
    max_pages: int = 0  # 0: no limit
    concurrency: int = 8
    download_delay: float = 0.0
    autothrottle: bool = True
    obey_robots: bool = True
    user_agent: str = DEFAULT_USER_AGENT
    timeout_s: float = 30.0
    max_block_retries: int = 5
    backoff_base_s: float = 1.0
    backoff_max_s: float = 300.0
    rows_per_shard: int = 5_000
    log_level: str = "WARNING"
    allowed_hosts: list[str] = field(default_factory=list)
    backend: str = "selectolax"
    resume: bool = False
    known: dict[str, dict] = field(default_factory=dict)  # recrawl: canonical URL -> validators, record hash
    follow_known: bool = True
    skip_urls: list[str] = field(default_factory=list)  # canonical URLs not to fetch (recently fetched)
    redis_url: str = ""  # share the frontier and seen-set with other processes through Redis
    redis_key: str = ""  # the shared crawl's name in Redis (default: the crawl directory's name)
    dropped_seeds: list[dict] = field(default_factory=list)  # seeds not fetched (crawlers.seeds.dropped)

    @property
    def raw_root(self) -> Path:
        return Path(self.raw_dir) if self.raw_dir else Path(self.out_dir) / "raw"


@dataclass
class CrawlResult:
    out_dir: Path
    shards: list[Path]
    stats: dict
    by_status: dict[str, int]
    changes: dict[str, int]
    failures: dict[str, int] = field(default_factory=dict)  # "status/reason" -> count, for the lines with no page


class _KeepRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer: the probe never follows it to another host."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_NO_REDIRECTS = urllib.request.build_opener(_KeepRedirects)


def check_reachable(url: str, timeout: float = 5.0) -> None:
    """Fail fast, with a clear message, when the site does not answer at all."""
    parts = urlsplit(url)
    probe = f"{parts.scheme}://{parts.netloc}/robots.txt"
    try:
        _NO_REDIRECTS.open(urllib.request.Request(probe, method="GET"), timeout=timeout).close()
    except urllib.error.HTTPError:
        return  # the site answered (a redirect, which is not followed, or a missing robots.txt)
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise CrawlError(
            f"site {parts.scheme}://{parts.netloc} is unreachable ({reason}); check the base URL "
            "or leave crawl.base_url unset to crawl the bundled mirror"
        ) from None


def check_redis(url: str, timeout: float = 3.0) -> None:
    """Fail fast, with a clear message, when the Redis a shared crawl needs is not a Redis URL or does not
    answer (the crawler process would log it and end with nothing fetched)."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    except ValueError as exc:
        raise CrawlError(f"--redis {url!r} is not a Redis URL ({exc}); e.g. redis://127.0.0.1:6379/0") from None
    try:
        client.ping()
    except redis.RedisError as exc:
        raise CrawlError(f"Redis at {url} does not answer ({exc}); start it, or crawl without --redis") from None
    finally:
        client.close()


def read_progress(out_dir: Path) -> dict:
    try:
        return json.loads((Path(out_dir) / "progress.json").read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def run_crawl(config: CrawlConfig, progress: Callable[[dict], None] | None = None) -> CrawlResult:
    if not config.start_urls and not config.resume and not config.dropped_seeds:
        raise CrawlError("no start URLs: the seed files gave no entries")
    if config.start_urls:
        check_reachable(config.start_urls[0])
    out = Path(config.out_dir)
    with crawl_lock(out) as lock_fd:
        return _run_locked(config, out, lock_fd, progress)


def _run_locked(config: CrawlConfig, out: Path, lock_fd: int, progress: Callable[[dict], None] | None) -> CrawlResult:
    record_dropped(out / "fetched.jsonl", config.dropped_seeds)
    if not config.start_urls and not config.resume:
        raise CrawlError(f"no start URLs: every seed was dropped ({config.dropped_seeds[0]['reason']}); "
                         f"each is a line of {out / 'fetched.jsonl'}")
    if config.resume and not (out / "fetched.jsonl").exists() and not config.start_urls:
        raise CrawlError(f"nothing to resume in {out}: it has no fetch log")
    config_path = out / "crawl-config.json"
    config_path.write_text(json.dumps(asdict(config), ensure_ascii=False, indent=2), encoding="utf-8")
    (out / "crawl-stats.json").unlink(missing_ok=True)
    stderr_path = out / "crawl-stderr.log"
    with open(stderr_path, "w", encoding="utf-8") as stderr:
        proc = None
        try:
            with signals_held():
                # In its own session, so that a Ctrl-C at the terminal reaches only this process, which
                # passes it on once (a second SIGINT would make Scrapy stop uncleanly).
                proc = subprocess.Popen([sys.executable, "-m", "crawlers.crawl", str(config_path)],
                                        stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True,
                                        env={**crawl_environment(), "ZHBENCH_PARENT_PID": str(os.getpid())},
                                        pass_fds=(lock_fd,))  # the crawl's lock, held until the child ends
            while proc.poll() is None:
                if progress is not None:
                    progress(read_progress(out))
                time.sleep(0.5)
        except BaseException:
            # Ctrl-C, SIGTERM (as the CLI's Terminated, or Prefect's TerminationSignal inside a flow) or an
            # error here: the crawl stops with this process, its files closed.
            if proc is not None:
                _stop_child(proc)
            raise
    if progress is not None:
        progress(read_progress(out))
    stats_path = out / "crawl-stats.json"
    if proc.returncode != 0 or not stats_path.exists():
        if proc.returncode and proc.returncode < 0:
            raise CrawlError(f"crawl process was killed (signal {-proc.returncode}); "
                             f"fetched pages are kept in {out}, continue with --resume")
        tail = "\n".join(stderr_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:])
        raise CrawlError(f"crawl process failed (exit {proc.returncode}): {tail}")
    return collect(out, json.loads(stats_path.read_text(encoding="utf-8")))


def record_dropped(path: Path, seeds: list[dict]) -> None:
    """A fetch-log line for each seed the crawl does not fetch, once however often the crawl is resumed."""
    if not seeds:
        return
    log = FetchLog(path)
    recorded = {(e.get("seed"), e.get("reason")) for e in log.entries() if e.get("page_status") == "dropped"}
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    try:
        for seed in seeds:
            if (seed["seed"], seed["reason"]) not in recorded:
                recorded.add((seed["seed"], seed["reason"]))
                log.append({**seed, "url": "", "canonical_url": "", "request_url": "", "request_canonical": "",
                            "page_status": "dropped", "http_status": 0, "change": "failed", "depth": 0,
                            "fetched_at": now, "follow": [], "content_hash": "", "record_hash": "", "etag": "",
                            "last_modified": "", "encoding": ""})
    finally:
        log.close()


CHILD_STOP_S = 20.0  # for a graceful stop: requests in flight end, shards and the fetch log close


def _stop_child(proc: subprocess.Popen) -> None:
    """Stop the crawler child as Ctrl-C does; if it takes too long, a second SIGINT (Scrapy's quick,
    unclean stop: the fetch log is flushed line by line, a resume recovers the shards), then SIGKILL.
    A signal that arrives meanwhile does not cut this short: the process is stopping already."""
    for sig, grace in ((signal.SIGINT, CHILD_STOP_S), (signal.SIGINT, 5.0), (signal.SIGKILL, 5.0)):
        if proc.poll() is not None:
            return
        proc.send_signal(sig)
        deadline = time.monotonic() + grace
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                time.sleep(0.1)
            except BaseException:  # noqa: BLE001 - another SIGTERM or SIGINT: already stopping
                pass


def collect(out: Path, stats: dict) -> CrawlResult:
    by_status: dict[str, int] = {}
    changes: dict[str, int] = {}
    failures: dict[str, int] = {}
    for entry in FetchLog(out / "fetched.jsonl").entries():
        by_status[entry["page_status"]] = by_status.get(entry["page_status"], 0) + 1
        changes[entry["change"]] = changes.get(entry["change"], 0) + 1
        if entry["page_status"] in FAILED_STATUSES:
            key = f"{entry['page_status']}/{entry.get('reason', '').split(':', 1)[0] or 'unknown'}"
            failures[key] = failures.get(key, 0) + 1
    shards = sorted((out / "pages").glob("pages-*.parquet"))
    return CrawlResult(out, shards, stats, dict(sorted(by_status.items())), dict(sorted(changes.items())),
                       dict(sorted(failures.items())))


# --- the child process -------------------------------------------------------------------


class CrawlPipeline:
    """Scrapy item pipeline: raw body to the store, a line to the fetch log, the page to a shard batch.

    For each page the raw body is stored before its fetch-log line, and the line written before the page
    joins a shard batch. The writes run on the reactor's thread, as the page came: a writer thread was
    measured slower (``bench/crawl_bench.py``), its hand-offs of the GIL costing more than the compression
    it overlapped, once bodies went to pack files instead of a file each."""

    def __init__(self, config: CrawlConfig):
        self.config = config
        out = Path(config.out_dir)
        self.raw = RawStore(config.raw_root)
        self.log = FetchLog(out / "fetched.jsonl")
        existing = sorted((out / "pages").glob("pages-*.parquet"))
        self.writer = ShardWriter(out / "pages", "pages", Page, rows_per_shard=config.rows_per_shard,
                                  batch_size=min(500, config.rows_per_shard), start_index=len(existing))

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.settings["ZHBENCH_CONFIG"])

    def process_item(self, item, spider=None):
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        if "not_modified" in item:
            url = item["not_modified"]
            previous = self.config.known.get(url, {})
            self.log.append({
                "url": item["request_url"], "canonical_url": url, "request_canonical": url,
                "page_status": "unchanged", "http_status": 304, "change": "unchanged", "depth": item["depth"],
                "content_hash": previous.get("content_hash", ""), "record_hash": previous.get("record_hash", ""),
                "etag": previous.get("etag", ""), "last_modified": previous.get("last_modified", ""),
                "fetched_at": now, "follow": [],
            })
            return item
        if "failed" in item:
            self._failed(item, now)
            return item
        self._stored(item)
        return item

    def _stored(self, item: dict) -> None:
        page: Page = item["page"]
        digest = self.raw.put(item["body"])
        rhash = record_hash(page)
        previous = self.config.known.get(page.canonical_url) or self.config.known.get(item["canonical"])
        change = "new" if previous is None else ("unchanged" if previous.get("record_hash") == rhash else "changed")
        self.log.append({
            "url": page.url, "canonical_url": page.canonical_url, "request_url": item["request_url"],
            "request_canonical": canonicalize(item["request_url"]), "page_status": page.status,
            "http_status": page.http_status, "encoding": item["encoding"] or "", "content_hash": digest,
            "record_hash": rhash, "etag": item["etag"], "last_modified": item["last_modified"],
            "depth": page.depth, "fetched_at": page.fetched_at.isoformat(timespec="milliseconds"),
            "title": page.title, "change": change, "follow": item["follow"],
            **({"reason": page.reason} if page.reason else {}),
        })
        self.writer.write(page)

    def _failed(self, item: dict, now: str) -> None:
        """A request that produced no page record (refused, failed in transfer, unparsable): one line
        with its status and reason, so no fetch is lost silently. A parse error keeps the raw HTML,
        so ``zhbench reparse`` can read it once the parser is fixed."""
        request_url = item["request_url"]
        entry = {
            "url": request_url, "canonical_url": _safe_canonical(request_url),
            "request_url": request_url, "request_canonical": _safe_canonical(request_url),
            "page_status": item["status"], "reason": item["reason"], "http_status": item["http_status"],
            "change": "failed", "depth": item["depth"], "fetched_at": now, "follow": [],
            "content_hash": self.raw.put(item["body"]) if item.get("body") else "", "record_hash": "",
            "etag": "", "last_modified": "", "encoding": item.get("encoding") or "",
        }
        if item["failed"] != request_url:
            entry["final_url"] = item["failed"]
        self.log.append(entry)

    def close_spider(self, spider=None):
        try:
            self.writer.close()
        finally:
            self.raw.close()
            self.log.close()


class ProgressExtension:
    """Writes progress.json once a second: pages, pages/s, queue size, blocked count."""

    def __init__(self, crawler, out_dir: Path):
        self.crawler = crawler
        self.path = Path(out_dir) / "progress.json"
        self.started = time.monotonic()
        self.samples: list[tuple[float, int]] = []
        self.loop = None

    @classmethod
    def from_crawler(cls, crawler):
        from scrapy import signals

        ext = cls(crawler, Path(crawler.settings["ZHBENCH_CONFIG"].out_dir))
        crawler.signals.connect(ext.opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.closed, signal=signals.spider_closed)
        return ext

    def opened(self, spider=None):
        from twisted.internet import task

        self.loop = task.LoopingCall(self.write)
        self.loop.start(1.0, now=True)

    def closed(self, spider=None, reason=None):
        if self.loop is not None and self.loop.running:
            self.loop.stop()
        self.write(finished=True)

    def write(self, finished: bool = False) -> None:
        stats = self.crawler.stats.get_stats()
        pages = int(stats.get("item_scraped_count", 0))
        now = time.monotonic()
        self.samples = [s for s in self.samples if now - s[0] <= 10.0] + [(now, pages)]
        first_t, first_n = self.samples[0]
        rate = (pages - first_n) / (now - first_t) if now > first_t else 0.0
        engine = self.crawler.engine
        scheduler = getattr(getattr(engine, "_slot", None), "scheduler", None)
        try:
            queue = len(scheduler) if scheduler is not None else 0
        except TypeError:
            queue = 0
        data = {
            "elapsed_s": round(now - self.started, 1), "pages": pages, "pages_per_s": round(rate, 1),
            "queue": queue, "requests": int(stats.get("downloader/request_count", 0)),
            "blocked": sum(int(v) for k, v in stats.items() if k.startswith("zhbench/blocked/")),
            "ok": int(stats.get("zhbench/status/ok", 0)), "finished": finished,
            "not_kept": sum(int(stats.get(f"zhbench/status/{s}", 0)) for s in FAILED_STATUSES),
        }
        waiting = stats.get("zhbench/backoff/waiting")
        if waiting and waiting["until"] > time.time() and not finished:
            data["waiting"] = dict(waiting, seconds=round(waiting["until"] - time.time(), 1))
        tmp = self.path.with_name(".progress.json.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, self.path)


def scrapy_settings(config: CrawlConfig) -> dict:
    settings = {
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
        # Retries for transient failures only; blocks are the backoff middleware's job.
        "RETRY_ENABLED": True,
        "RETRY_TIMES": 2,
        "RETRY_HTTP_CODES": [500, 502, 503, 504, 522, 524, 408],
        # The allowlist runs first: before robots.txt is asked for, and on every redirect.
        "DOWNLOADER_MIDDLEWARES": {"crawlers.middleware.AllowlistMiddleware": 50,
                                   "crawlers.middleware.BlockBackoffMiddleware": 650,
                                   "crawlers.middleware.DoneFilterMiddleware": 640},
        "ZHBENCH_BACKOFF_BASE": config.backoff_base_s,
        "ZHBENCH_BACKOFF_MAX": config.backoff_max_s,
        "ZHBENCH_BLOCK_TRIES": config.max_block_retries,
        "TELNETCONSOLE_ENABLED": False,
        # The spider yields one item per response (its requests are queued directly), so one worker
        # is enough; Scrapy's default of 100 starts 100 asyncio tasks for every response.
        "CONCURRENT_ITEMS": 1,
        # Scrapy re-reads and parses the callback's source whenever its weakly cached bound method is
        # gone (often, one Request at a time): the spider's callbacks return no values.
        "WARN_ON_GENERATOR_RETURN_VALUE": False,
        "LOG_LEVEL": config.log_level,
        "ITEM_PIPELINES": {"crawlers.crawl.CrawlPipeline": 100},
        "EXTENSIONS": {"crawlers.crawl.ProgressExtension": 500},
        "ZHBENCH_CONFIG": config,
    }
    if config.redis_url:
        from crawlers.shared import redis_settings

        settings.update(redis_settings(config.redis_url, config.redis_key or Path(config.out_dir).name))
    return settings


def recover_shards(config: CrawlConfig) -> int:
    """Write page records that reached the fetch log but not a shard (the crawl was killed mid-batch).

    Also drops half-written shard files. Returns the number of pages recovered.
    """
    out = Path(config.out_dir)
    pages_dir = out / "pages"
    for tmp in pages_dir.glob(".tmp-*"):
        tmp.unlink()
    existing = sorted(pages_dir.glob("pages-*.parquet"))
    in_shards: set[str] = set()
    for path in existing:
        in_shards.update(pq.read_table(path, columns=["canonical_url"]).column(0).to_pylist())
    missing = [e for e in FetchLog(out / "fetched.jsonl").entries()
               if e["page_status"] in STORED_STATUSES and e["canonical_url"] not in in_shards]
    if not missing:
        return 0
    with RawStore(config.raw_root) as raw, ShardWriter(pages_dir, "pages", Page, rows_per_shard=config.rows_per_shard,
                                                       start_index=len(existing)) as writer:
        for entry in missing:
            writer.write(_page_from_log(entry, raw, config.backend))
    return len(missing)


def _safe_canonical(url: str) -> str:
    try:
        return canonicalize(url)
    except ValueError:
        return url


def _page_from_log(entry: dict, raw: RawStore, backend: str) -> Page:
    page = parse(raw.get(entry["content_hash"]), entry["url"], http_status=entry["http_status"],
                 encoding=entry.get("encoding") or None, depth=entry.get("depth", 0),
                 fetched_at=datetime.fromisoformat(entry["fetched_at"]), backend=backend)
    return page


def reparse(crawl_dir: Path, raw_dir: Path | None = None, backend: str = "selectolax",
            rows_per_shard: int = 5_000, unreadable: list[str] | None = None) -> list[Path]:
    """Rebuild every page record of a crawl from its stored HTML (after a parser change); no network.

    Pages the crawl could not parse (``parse_error``) are tried again; the URLs that still fail are
    appended to ``unreadable`` when a list is given. The new shards replace the old ones only once
    all are written.
    """
    crawl_dir = Path(crawl_dir)
    log = FetchLog(crawl_dir / "fetched.jsonl")
    if not log.path.exists():
        raise CrawlError(f"{crawl_dir} is not a crawl directory: it has no fetched.jsonl")
    with crawl_lock(crawl_dir):
        return _reparse_locked(crawl_dir, log, raw_dir, backend, rows_per_shard, unreadable)


def _reparse_locked(crawl_dir: Path, log: FetchLog, raw_dir: Path | None, backend: str, rows_per_shard: int,
                    unreadable: list[str] | None) -> list[Path]:
    raw = RawStore(raw_dir or _raw_dir_of(crawl_dir))
    staging = crawl_dir / f".reparse-{os.getpid()}"
    try:
        with raw, ShardWriter(staging, "pages", Page, rows_per_shard=rows_per_shard) as writer:
            for entry in log.entries():
                if entry["page_status"] not in STORED_STATUSES + ("parse_error",) or not entry.get("content_hash"):
                    continue
                try:
                    writer.write(_page_from_log(entry, raw, backend))
                except KeyError as exc:
                    raise CrawlError(f"cannot re-parse {entry['url']}: {exc.args[0]}") from None
                except Exception:  # noqa: BLE001 - still unreadable: named, not fatal
                    if entry["page_status"] != "parse_error":
                        raise
                    if unreadable is not None:
                        unreadable.append(entry["url"])
        old = crawl_dir / "pages"
        retired = crawl_dir / f".pages-old-{os.getpid()}"
        if old.exists():
            os.rename(old, retired)
        os.rename(staging, old)
        if retired.exists():
            shutil.rmtree(retired)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return sorted((crawl_dir / "pages").glob("pages-*.parquet"))


def _raw_dir_of(crawl_dir: Path) -> Path:
    config_path = crawl_dir / "crawl-config.json"
    if config_path.exists():
        data = json.loads(config_path.read_text(encoding="utf-8"))
        if data.get("raw_dir"):
            return Path(data["raw_dir"])
    return crawl_dir / "raw"


def _stop_when_orphaned(crawler, parent: int) -> None:
    """Close the crawl (files flushed, as on Ctrl-C) if the process that started it goes away
    without stopping it (killed with SIGKILL, or a thread of it that cannot forward a signal)."""
    if not parent:
        return
    from scrapy import signals

    def check() -> None:
        if os.getppid() != parent and crawler.crawling:
            from scrapy.utils.defer import deferred_from_coro

            crawler.stats.set_value("zhbench/stopped", "parent process gone")
            deferred_from_coro(crawler.stop_async())

    def opened(spider=None) -> None:
        from twisted.internet import task  # after Scrapy has installed its reactor

        loop = task.LoopingCall(check)
        loop.start(1.0, now=False)
        crawler.signals.connect(lambda spider=None, reason=None: loop.running and loop.stop(),
                                signal=signals.spider_closed, weak=False)

    crawler.signals.connect(opened, signal=signals.spider_opened, weak=False)


def _child(config_path: str) -> int:
    from scrapy.crawler import CrawlerProcess

    from crawlers.spider import BaikeSpider

    data = json.loads(Path(config_path).read_text(encoding="utf-8"))
    config = CrawlConfig(**data)
    state = ResumeState()
    if config.resume:
        recover_shards(config)
        state = ResumeState.read(FetchLog(Path(config.out_dir) / "fetched.jsonl"))
    process = CrawlerProcess(settings=scrapy_settings(config))
    crawler = process.create_crawler(BaikeSpider)
    _stop_when_orphaned(crawler, int(os.environ.get("ZHBENCH_PARENT_PID", "0")))
    process.crawl(crawler, start_urls=config.start_urls, allowed_hosts=config.allowed_hosts or None,
                  max_depth=config.max_depth, max_pages=config.max_pages, done=state.done | set(config.skip_urls),
                  frontier=state.frontier, known=config.known, follow_known=config.follow_known,
                  backend=config.backend, pages_done=state.pages_ok)
    process.start()
    stats = {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in crawler.stats.get_stats().items()}
    stats["zhbench/resumed_from_entries"] = state.entries
    for seed in config.dropped_seeds:  # counted with the fetches not kept, as the run's summary shows them
        key = f"zhbench/not_kept/dropped/{seed['reason'].split(':', 1)[0]}"
        stats[key] = stats.get(key, 0) + 1
    out = Path(config.out_dir) / "crawl-stats.json"
    out.write_text(json.dumps(stats, ensure_ascii=False, indent=2, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1]))
