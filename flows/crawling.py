"""Crawl jobs: settings -> a crawl directory under the data directory, registered in the catalog.

Shared by ``zhbench crawl`` and the crawl stage of the ``cdtp`` flow.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import urlsplit

from crawlers.crawl import CrawlConfig, CrawlError, CrawlResult, check_redis, collect, crawl_lock, reparse, run_crawl
from crawlers.fetchlog import FetchLog
from crawlers.seeds import bundled_seed_files, dropped, read_seeds, seed_url, too_long
from flows import caching, progress
from flows.settings import CrawlSettings, Settings
from flows.stages import StageClock
from flows.warmup import warm_up
from schemas.storage.catalog import Catalog

SITE_URLS = {
    "baidu": "https://baike.baidu.com",
    "sogou": "https://baike.sogou.com",
    "wikipedia": "https://zh.wikipedia.org",
}


@contextlib.contextmanager
def site_for(crawl: CrawlSettings, mirror_port: int = 0) -> Iterator[str]:
    """The base URL to crawl: the configured site, or the bundled mirror for the duration of the block.

    A crawl that will be resumed or recrawled needs the mirror on the same port each time,
    since entry URLs (and so the record of what was fetched) include it.
    """
    if crawl.base_url:
        yield crawl.base_url.rstrip("/")
        return
    from crawlers.mirror.site import MirrorServer, Site

    site = Site(profile="realistic", size=crawl.mirror_size, seed=crawl.mirror_seed) \
        if crawl.mirror_profile == "realistic" else None
    try:
        server = MirrorServer(site, port=mirror_port)
    except OSError as exc:
        raise CrawlError(f"cannot start the bundled mirror on 127.0.0.1:{mirror_port} ({exc.strerror}); "
                         "stop what uses that port or choose another with --mirror-port") from None
    with server as mirror:
        yield mirror.url


REALISTIC_SEEDS = 20  # famous entries of the realistic mirror a crawl starts from


def seed_titles(crawl: CrawlSettings) -> list[str]:
    if not crawl.seeds and not crawl.base_url and crawl.mirror_profile == "realistic":
        from crawlers.mirror.realistic import RealisticCorpus

        return RealisticCorpus(crawl.mirror_size, crawl.mirror_seed).seeds(REALISTIC_SEEDS)
    files = crawl.seeds or bundled_seed_files()
    titles: list[str] = []
    for path in files:
        titles.extend(read_seeds(path))
    return list(dict.fromkeys(titles))


def crawl_config(crawl: CrawlSettings, base_url: str, out_dir: Path, raw_dir: Path, **extra) -> CrawlConfig:
    start_urls, not_fetched = [], []
    for seed in seed_titles(crawl):
        if why := too_long(base_url, crawl.site, seed):
            not_fetched.append(dropped(seed, why))
        else:
            start_urls.append(seed_url(base_url, crawl.site, seed))
    return CrawlConfig(
        start_urls=start_urls, dropped_seeds=not_fetched,
        out_dir=str(out_dir), raw_dir=str(raw_dir), max_depth=crawl.max_depth, max_pages=crawl.max_pages,
        concurrency=crawl.concurrency, download_delay=crawl.download_delay, autothrottle=crawl.autothrottle,
        obey_robots=crawl.obey_robots, user_agent=crawl.user_agent, timeout_s=crawl.timeout_s,
        max_block_retries=crawl.max_block_retries, backoff_base_s=crawl.backoff_base_s,
        backoff_max_s=crawl.backoff_max_s, backend=crawl.parser_backend,
        allowed_hosts=site_hosts(base_url), **extra,
    )


def site_hosts(base_url: str) -> list[str]:
    """The hosts a crawl of ``base_url`` may request: its own, and the one its entry links are
    canonicalised to (a seed on wapbaike.baidu.com links to baike.baidu.com)."""
    from crawlers.urls import canonicalize

    return sorted({urlsplit(base_url).netloc, urlsplit(canonicalize(base_url.rstrip("/") + "/item/x")).netloc})


def crawls_root(data_dir: Path) -> Path:
    return Path(data_dir) / "crawls"


_CRAWL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def check_crawl_name(name: str) -> str:
    """A crawl name is one directory under DATA_DIR/crawls: never a path, never '..'."""
    if not _CRAWL_NAME.fullmatch(name) or ".." in name:
        raise CrawlError(f"crawl name {name!r}: use letters, digits, '.', '_' and '-' (at most 100, "
                         "starting with a letter or digit); it names a directory under DATA_DIR/crawls")
    return name


def crawl_dir_of(data_dir: Path, name: str) -> Path:
    """The directory of a crawl given by name, or by a path to a crawl directory inside DATA_DIR/crawls."""
    root = crawls_root(data_dir).resolve()
    given = Path(name)
    if len(given.parts) > 1 or given.is_absolute():
        resolved = given.resolve()
        if resolved.parent != root:
            raise CrawlError(f"{name} is not a crawl of {data_dir}: give a crawl name, or a directory in {root}")
        return resolved
    return crawls_root(data_dir) / check_crawl_name(name)


def latest_crawl(data_dir: Path) -> str:
    root = crawls_root(data_dir)
    names = sorted(p.name for p in root.iterdir() if (p / "fetched.jsonl").exists()) if root.is_dir() else []
    if not names:
        raise CrawlError(f"no crawl to resume under {root}; start one with zhbench crawl --seeds FILE")
    return names[-1]


def crawl_job(crawl: CrawlSettings, data_dir: Path, name: str | None = None, resume: bool = False,
              recrawl_after: timedelta | None = None, redis_url: str = "", mirror_port: int = 0,
              progress: Callable[[dict], None] | None = None, redis_key: str = "") -> CrawlResult:
    """Crawl (or resume, or recrawl) into ``<data_dir>/crawls/<name>`` and register it in the catalog."""
    data_dir = Path(data_dir)
    if name is not None:
        check_crawl_name(name)
    if resume:
        name = name or latest_crawl(data_dir)
        if not (crawls_root(data_dir) / name / "fetched.jsonl").exists():
            raise CrawlError(f"nothing to resume: {crawls_root(data_dir) / name} holds no crawl")
    name = name or datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out_dir = crawls_root(data_dir) / name
    if redis_url:
        check_redis(redis_url)
    # Held from before the check that the crawl is new to its registration: two crawls of one name both
    # found it new, then stored its pages twice.
    with crawl_lock(out_dir):
        if not resume and (out_dir / "fetched.jsonl").exists():
            raise CrawlError(f"crawl {name} already exists in {out_dir}; continue it with --resume, "
                             "or choose another --name")
        extra: dict = {"resume": resume, "redis_url": redis_url, "redis_key": redis_key}
        with site_for(crawl, mirror_port) as base_url:
            config = crawl_config(crawl, base_url, out_dir, data_dir / "raw", **extra)
            if recrawl_after is not None:
                due_only(config, data_dir, base_url, recrawl_after)
            result = run_crawl(config, progress=progress)
        register_crawl(data_dir, name, out_dir)
    return result


def reparse_crawl(data_dir: Path, name: str | None = None, backend: str = "selectolax"
                  ) -> tuple[Path, list[Path], list[str]]:
    """Rebuild the page records of the named (default: latest) crawl from its stored HTML.

    Returns the crawl directory, its new shards and the URLs that are still unreadable.
    """
    data_dir = Path(data_dir)
    crawl_dir = crawl_dir_of(data_dir, name or latest_crawl(data_dir))
    if not (crawl_dir / "fetched.jsonl").exists():
        raise CrawlError(f"{crawl_dir} is not a crawl directory (no fetched.jsonl)")
    unreadable: list[str] = []
    shards = reparse(crawl_dir, raw_dir=data_dir / "raw" if (data_dir / "raw").exists() else None,
                     backend=backend, unreadable=unreadable)
    return crawl_dir, shards, unreadable


def format_crawl(result: CrawlResult) -> str:
    """What ``zhbench crawl`` prints when the crawl ends: fetches by status, changes, blocks and losses."""
    stats = result.stats
    blocked = {k.rsplit("/", 1)[-1]: v for k, v in stats.items() if k.startswith("zhbench/blocked/")}
    return "\n".join([
        f"crawl {result.out_dir.name}: {sum(result.by_status.values())} fetches kept in {result.out_dir}",
        "  by status  " + (", ".join(f"{k} {v}" for k, v in result.by_status.items()) or "none"),
        "  changes    " + (", ".join(f"{k} {v}" for k, v in result.changes.items()) or "none"),
        "  blocked    " + (", ".join(f"{k} {v}" for k, v in sorted(blocked.items())) or "none"),
        "  not kept   " + (", ".join(f"{k} {v}" for k, v in result.failures.items()) or "none")
        + (f"  (reasons in {result.out_dir / 'fetched.jsonl'})" if result.failures else ""),
        f"  shards     {len(result.shards)} in {result.out_dir / 'pages'}",
    ])


class ProgressLine:
    """The live crawl display: one rewritten line on a terminal, a line every 10 s otherwise."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.last_line = 0.0
        self.shown = False
        self.finished_shown = False

    def __call__(self, p: dict) -> None:
        if not p:
            return
        text = (f"crawl: {p.get('pages', 0)} pages ({p.get('ok', 0)} ok)  {p.get('pages_per_s', 0):.1f} pages/s  "
                f"queue {p.get('queue', 0)}  blocked {p.get('blocked', 0)}  not kept {p.get('not_kept', 0)}  "
                f"{p.get('elapsed_s', 0):.0f} s")
        waiting = p.get("waiting")
        if waiting:
            cause = (f"Retry-After {waiting['retry_after']} s" if waiting.get("retry_after")
                     else f"backoff, cap {waiting['cap_s']:.0f} s")
            text += (f"  | waiting {waiting['seconds']:.0f} s: {waiting['host']} answered {waiting['reason']} "
                     f"{waiting['strikes']}x in a row ({cause})")
        if self.tty:
            self.stream.write("\r" + text.ljust(100))
            self.stream.flush()
            self.shown = True
        elif not self.finished_shown and (p.get("finished") or time.monotonic() - self.last_line >= 10):
            self.stream.write(text + "\n")
            self.stream.flush()
            self.last_line = time.monotonic()
            self.finished_shown = bool(p.get("finished"))

    def done(self) -> None:
        if self.tty and self.shown:
            self.stream.write("\n")


def due_only(config: CrawlConfig, data_dir: Path, base_url: str, recrawl_after: timedelta) -> None:
    """Turn ``config`` into a recrawl: the pages of ``base_url``'s host the catalog holds that were fetched
    ``recrawl_after`` ago or more are asked for again, conditionally (ETag, Last-Modified: a 304 records
    them unchanged); pages fetched since are left alone; links to entries never fetched are followed as in
    any crawl."""
    host = urlsplit(base_url).netloc
    latest = {url: info for url, info in Catalog(Path(data_dir) / "catalog.duckdb").latest().items()
              if urlsplit(url).netloc == host}
    now = datetime.now(timezone.utc)
    config.known = {url: _validators(info) for url, info in latest.items() if now - info["fetched_at"] >= recrawl_after}
    config.skip_urls = sorted(set(latest) - set(config.known))
    config.follow_known = False
    config.start_urls = list(config.known) + config.start_urls


AGE = re.compile(r"^(\d+(?:\.\d+)?)([smhd])$")


def parse_age(text: str) -> timedelta:
    """'30m', '12h', '7d' as a timedelta; ValueError for anything else."""
    found = AGE.match(text.strip())
    if not found:
        raise ValueError(f"{text!r}: give a number and a unit, e.g. 30m, 12h or 7d")
    return timedelta(seconds=float(found.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[found.group(2)])


def register_crawl(data_dir: Path, name: str, out_dir: Path) -> int:
    """Record a crawl's fetches (URL, fetch time, content hash, validators) in the data directory's catalog."""
    fetches = (e for e in FetchLog(Path(out_dir) / "fetched.jsonl").entries() if e["page_status"] != "dropped")
    return Catalog(Path(data_dir) / "catalog.duckdb").register_fetches(name, fetches)


def _validators(info: dict) -> dict:
    return {k: info.get(k) or "" for k in ("etag", "last_modified", "record_hash", "content_hash")}


# How a crawl runs, not what it finds: left out of the crawl's key.
CRAWL_RUN_ONLY = {"mirror_port", "concurrency", "reuse", "from_crawl", "recrawl_after"}


COMPLETE = ".complete"  # in a crawl directory: the crawl ran to its end


def crawl_run_stage(settings: Settings, data_dir: Path, clock: StageClock) -> tuple[list[CrawlResult], str]:
    """The run's crawls (oldest first: of a page in several, the snapshot keeps the latest fetch), and the
    origin (scheme://host:port) they fetched from.

    With ``crawl.from_crawl``: those finished crawls of the data directory, as they are. Otherwise the run's
    own, ``crawls/run-<key>*``, named by the crawl settings, the seeds' content and the site's address:

    * an unfinished one (a killed run's) is resumed;
    * a finished one is reused (``crawl.reuse``) with the recrawls made after it; when the last of them
      finished ``crawl.recrawl_after`` ago or more, a recrawl asks again, conditionally, for the pages
      fetched that long ago (``run-<key>-<time>``), so an unchanged site gives the same snapshot;
    * ``crawl.reuse = false``, or no finished crawl: a full crawl (``run-<key>`` or ``run-<key>-<time>``).
    """
    crawl = settings.crawl
    if crawl.from_crawl:
        clock.start("crawl", unit="pages")
        results = []
        for name in crawl.from_crawl:
            out = crawl_dir_of(data_dir, name)
            if not (out / "crawl-stats.json").exists():
                raise CrawlError(f"crawl {name} in {out} has not finished (no crawl-stats.json): continue it with "
                                 f"zhbench crawl --resume --name {out.name}, or name another crawl")
            results.append(_collected(out))
        clock.finish("crawl", None, sum(sum(r.by_status.values()) for r in results), "pages", cached=True)
        return results, _crawl_origin(Path(results[0].out_dir))
    with site_for(crawl, crawl.mirror_port) as base_url:
        key = caching.stage_key("crawl", {k: v for k, v in caching.section(crawl).items() if k not in CRAWL_RUN_ONLY},
                                base_url, code=False)
        root = crawls_root(data_dir)
        prefix = f"run-{key[:12]}"
        earlier = sorted(p for p in root.glob(prefix + "*") if (p / "fetched.jsonl").exists()) if root.is_dir() else []
        clock.start("crawl", unit="pages")
        latest = earlier[-1] if earlier else None
        if latest is not None and not (latest / COMPLETE).exists():
            kind = (latest / KIND).read_text(encoding="utf-8").strip() if (latest / KIND).exists() else "full"
            resumed = _crawl_into(settings, data_dir, base_url, latest, kind, resume=True)
            results = [*(_finished(earlier[:-1]) if kind == "recrawl" else []), resumed]
        elif latest is not None and crawl.reuse:
            results = _finished(earlier)
            due = crawl.recrawl_after and _finished_at(latest) <= datetime.now(timezone.utc) - parse_age(
                crawl.recrawl_after)
            if due:
                results.append(_crawl_into(settings, data_dir, base_url, root / f"{prefix}-{_stamp()}", "recrawl"))
        else:
            out = root / (prefix if latest is None else f"{prefix}-{_stamp()}")
            results = [_crawl_into(settings, data_dir, base_url, out, "full")]
        # Out: the fetches this run made (a recrawl's 304s included), or, reusing, the pages it reused.
        fetched_now = [r for r in results if not r.stats.get("zhbench/reused")]
        clock.finish("crawl", None, sum(sum(r.by_status.values()) for r in fetched_now or results), "pages",
                     cached=not fetched_now)
        return results, base_url


KIND = ".kind"  # in a crawl directory of a run: "full" or "recrawl"


def _stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def _crawl_into(settings: Settings, data_dir: Path, base_url: str, out: Path, kind: str,
                resume: bool = False) -> CrawlResult:
    """Crawl (or resume) into ``out``: a full crawl, or a recrawl that asks only for what is due. The crawl's
    lock is held throughout, so a ``zhbench crawl --resume`` of the run's crawl cannot write it meanwhile."""
    crawl = settings.crawl

    def advanced(p: dict) -> None:
        if p:
            progress.advanced("crawl", int(p.get("pages", 0)), None, "pages")

    with crawl_lock(out):
        (out / KIND).write_text(kind + "\n", encoding="utf-8")
        config = crawl_config(crawl, base_url, out, data_dir / "raw", resume=resume)
        if kind == "recrawl":
            due_only(config, data_dir, base_url, parse_age(crawl.recrawl_after or "0s"))
        warm_up()  # this process only waits while the crawler fetches: it loads what the next stages need
        result = run_crawl(config, progress=advanced)
        (out / COMPLETE).write_text(datetime.now(timezone.utc).isoformat(timespec="seconds") + "\n",
                                    encoding="utf-8")
        register_crawl(data_dir, out.name, out)
    return result


def _finished(crawl_dirs: list[Path]) -> list[CrawlResult]:
    """The finished crawls a run builds from, oldest first: the last full crawl and the recrawls after it."""
    done = [p for p in crawl_dirs if (p / COMPLETE).exists()]
    full = [i for i, p in enumerate(done)
            if not (p / KIND).exists() or (p / KIND).read_text(encoding="utf-8").strip() == "full"]
    results = []
    for path in done[full[-1] if full else 0:]:
        result = _collected(path)
        result.stats = {**result.stats, "zhbench/reused": 1}
        results.append(result)
    return results


def _collected(crawl_dir: Path) -> CrawlResult:
    """A finished crawl as its directory holds it: fetch log, page shards and final counters."""
    return collect(crawl_dir, json.loads((crawl_dir / "crawl-stats.json").read_text(encoding="utf-8")))


def _finished_at(crawl_dir: Path) -> datetime:
    text = (crawl_dir / COMPLETE).read_text(encoding="utf-8").strip()
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return datetime.fromtimestamp((crawl_dir / COMPLETE).stat().st_mtime, timezone.utc)


def _crawl_origin(crawl_dir: Path) -> str:
    """scheme://host:port a finished crawl fetched from, from its saved config."""
    try:
        config = json.loads((crawl_dir / "crawl-config.json").read_text(encoding="utf-8"))
        parts = urlsplit(config["start_urls"][0])
        return f"{parts.scheme}://{parts.netloc}"
    except (OSError, ValueError, KeyError, IndexError):
        return ""
