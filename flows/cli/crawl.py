"""``zhbench crawl``, ``reparse`` and ``parse``: pages fetched, parsed again from stored HTML, or parsed one by one."""

from __future__ import annotations

import argparse
import json
from datetime import timedelta
from pathlib import Path

from flows.cli.common import UsageError, any_port, command, count, data_dir_option, directory, file_path, whole

SEEDS_HELP = ("seed files, read by suffix: .tsv KgCLUE (entity<TAB>relation<TAB>value a line), .csv OwnThink (a "
              "实体,属性,值 header, then a triple a line), .json (a list of titles or of objects with a \"title\" or a "
              "\"url\"), .jsonl (one such object a line), any other one title a line (# comments). A seed that is an "
              "http(s) URL is fetched as it is; one too long to be a title is recorded as dropped (seed_too_long) "
              "in fetched.jsonl and counted under 'not kept'")


def cmd_crawl(args: argparse.Namespace) -> int:
    from flows.crawling import SITE_URLS, ProgressLine, crawl_job, format_crawl
    from flows.preflight import check_inputs
    from flows.settings import Settings

    site = "baidu" if args.site == "mirror" else args.site
    base_url = None if args.site == "mirror" else (args.base_url or SITE_URLS[args.site])
    settings = Settings.load(args.config, {
        "data_dir": args.data_dir, "crawl.site": site, "crawl.base_url": base_url, "crawl.seeds": args.seeds,
        "crawl.max_pages": args.max_pages, "crawl.max_depth": args.max_depth,
        "crawl.concurrency": args.concurrency, "crawl.mirror_port": args.mirror_port,
    })
    if args.site == "mirror":
        settings.crawl.base_url = None
    if not settings.crawl.seeds and args.site != "mirror" and not args.resume:
        raise UsageError("--seeds is required for a real site (the bundled seed lists are for the mirror)")
    check_inputs(settings)
    progress = ProgressLine()
    try:
        result = crawl_job(settings.crawl, Path(settings.data_dir), name=args.name, resume=args.resume,
                           mirror_port=settings.crawl.mirror_port,
                           recrawl_after=parse_age(args.recrawl_after) if args.recrawl_after else None,
                           redis_url=args.redis or "", redis_key=args.redis_key or "", progress=progress)
    finally:
        progress.done()
    print(format_crawl(result))
    return 0


def parse_age(text: str) -> timedelta:
    from flows.crawling import parse_age as age

    try:
        return age(text)
    except ValueError as exc:
        raise UsageError(f"--recrawl-after {exc}") from None


def cmd_reparse(args: argparse.Namespace) -> int:
    from flows.crawling import reparse_crawl

    crawl_dir, shards, unreadable = reparse_crawl(Path(args.data_dir), args.crawl, args.backend)
    print(f"re-parsed {crawl_dir} from stored HTML into {len(shards)} shards")
    if unreadable:
        print(f"  still unreadable: {len(unreadable)} pages, e.g. {unreadable[0]}")
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    from crawlers.parsers import parse

    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"{path} is not a file (give a saved HTML page)")
    page = parse(path.read_bytes(), args.url, http_status=args.status, encoding=args.encoding)
    print(json.dumps(page.contract(), ensure_ascii=False, indent=None if args.compact else 2))
    return 0


def register(sub) -> None:
    crawl = command(sub, "crawl", "Crawl Baike pages depth-first from seed lists into a crawl directory.",
                    "zhbench crawl --site mirror --max-pages 100\n"
                    "zhbench crawl --site baidu --seeds kgclue.tsv --max-depth 3 --name baidu-1\n"
                    "zhbench crawl --site baidu --resume --name baidu-1      # after Ctrl-C or a kill\n"
                    "zhbench crawl --site mirror --recrawl-after 7d          # only pages fetched 7+ days ago",
                    cmd_crawl)
    crawl.add_argument("--site", required=True, choices=["baidu", "sogou", "wikipedia", "mirror"],
                       help="which site; mirror: the bundled one, started for the crawl")
    crawl.add_argument("--base-url", help="override the site's address (a proxy or a copy of it)")
    crawl.add_argument("--seeds", type=Path, nargs="+", help=SEEDS_HELP)
    crawl.add_argument("--max-depth", type=whole(0, 10_000), help="how many links deep to follow from a seed")
    crawl.add_argument("--max-pages", type=count, help="stop after this many content pages (0: no limit)")
    crawl.add_argument("--concurrency", type=whole(1, 64), help="parallel requests per site (default 8)")
    crawl.add_argument("--name", help="crawl name: its directory under DATA_DIR/crawls (default: a timestamp)")
    crawl.add_argument("--resume", action="store_true", help="continue the named (default: latest) crawl")
    crawl.add_argument("--recrawl-after", help="fetch again, conditionally, pages older than this (e.g. 7d)")
    crawl.add_argument("--redis", help="Redis URL to share the frontier with other crawler processes")
    crawl.add_argument("--redis-key", help="name of the shared crawl in Redis (default: --name); give every "
                                          "process of one crawl the same key and each its own --name")
    crawl.add_argument("--mirror-port", type=any_port,
                       help="port of the bundled mirror (default 8800; resume and recrawl need the same one)")
    crawl.add_argument("--config", type=file_path, help="TOML settings file")
    crawl.add_argument("--data-dir", type=directory, help="data directory (default ./zhbench-data)")

    reparse = command(sub, "reparse", "Rebuild a crawl's page records from its stored HTML, without fetching.",
                      "zhbench reparse                 # the latest crawl\nzhbench reparse baidu-1 --backend bs4",
                      cmd_reparse)
    reparse.add_argument("crawl", nargs="?", help="crawl name or directory (default: the latest crawl)")
    reparse.add_argument("--backend", choices=["selectolax", "lxml", "bs4"], default="selectolax",
                         help="parser backend (default selectolax; every backend gives the same records)")
    data_dir_option(reparse)

    parse = command(sub, "parse", "Parse one saved page and print its record as JSON.",
                    "zhbench parse libai.html --url https://baike.baidu.com/item/李白/1043", cmd_parse)
    parse.add_argument("file", type=file_path, help="saved HTML page")
    parse.add_argument("--url", required=True, help="the URL the page was fetched from (makes links absolute)")
    parse.add_argument("--status", type=whole(100, 599), default=200,
                       help="HTTP status it was served with (default 200)")
    parse.add_argument("--encoding", help="charset from the HTTP header, if known")
    parse.add_argument("--compact", action="store_true", help="one line of JSON")
