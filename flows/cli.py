"""The ``zhbench`` command: thin verbs over library functions.

Each command parses its arguments, calls one library function and turns the
library's named errors into one ``zhbench: error: ...`` line with a non-zero exit.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import textwrap
import threading
import traceback
from datetime import timedelta
from pathlib import Path
from typing import Callable, Sequence

from crawlers.crawl import CrawlError
from crawlers.mirror.facts import FactsError
from flows.report import ReportError
from warehouse.catalog import CatalogError
from crawlers.seeds import SeedError
from flows.settings import SettingsError
from warehouse.release import ReleaseError
from warehouse.shards import system_allocator
from verifiers.llm import LLMError
from verifiers.search import SearchError

USER_ERRORS = (SeedError, CrawlError, ReleaseError, FactsError, SettingsError, CatalogError, ReportError, LLMError,
               SearchError, OSError, ValueError)


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake in one line instead of a usage block."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _command(sub, name: str, help_text: str, example: str, func: Callable) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        name, help=help_text, description=help_text,
        epilog="example:\n" + textwrap.indent(example.strip(), "  "),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(func=func)
    return parser


# --- run --------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    import time

    began = time.monotonic()  # before Prefect is imported: its start-up is part of what the user waits for
    from flows.engine import configure_prefect

    configure_prefect(verbose=args.verbose)
    from flows.launch import format_summary, launch
    from flows.settings import Settings

    settings = Settings.load(args.config, settings_overrides(args))
    summary, startup = launch(settings, args.flow, wait=args.wait, quiet=args.quiet, since=began)
    print(format_summary(summary, seconds=time.monotonic() - began, startup=startup))
    return 1 if summary.problems or summary.blocked else 0


def settings_overrides(args: argparse.Namespace) -> dict:
    """The settings flags (``_settings_options``) as ``Settings.load`` overrides; unset flags are None."""
    return {
        "data_dir": args.data_dir,
        "crawl.site": args.site,
        "crawl.base_url": args.base_url,
        "crawl.seeds": args.seeds,
        "crawl.max_pages": args.max_pages,
        "crawl.max_depth": args.max_depth,
        "crawl.mirror_port": args.mirror_port,
        "crawl.mirror_profile": args.profile,
        "crawl.mirror_size": args.mirror_size,
        "release.version": args.version,
        "dedup.against_releases": False if args.readmit else None,
        "crawl.from_crawl": args.crawl,
        "crawl.reuse": False if args.recrawl else None,
        "engine.task_runner": args.task_runner,
        "engine.dask_address": args.dask_address,
        "engine.workers": args.workers,
    }


def cmd_deploy(args: argparse.Namespace) -> int:
    from flows.deploy import check_server, deploy

    check_server()
    if args.config is None:
        raise UsageError("--config FILE is required: the served runs read their settings' secrets from it")
    overrides = {**settings_overrides(args), "schedule.cdtp": args.cron, "schedule.timezone": args.timezone,
                 "schedule.deployment": args.name}
    settings = deploy(args.config, overrides, verbose=args.verbose)
    print(f"zhbench: stopped serving cdtp/{settings.schedule.deployment} and simpleqa/{settings.schedule.deployment}",
          flush=True)
    return 0


# --- config -----------------------------------------------------------------------------


def cmd_config_show(args: argparse.Namespace) -> int:
    from flows.masking import show_settings

    print(show_settings(args.config, settings_overrides(args), as_json=args.json))
    return 0


# --- crawl ------------------------------------------------------------------------------


def parse_age(text: str) -> timedelta:
    from flows.crawling import parse_age as age

    try:
        return age(text)
    except ValueError as exc:
        raise UsageError(f"--recrawl-after {exc}") from None


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


def cmd_reparse(args: argparse.Namespace) -> int:
    from flows.crawling import reparse_crawl

    crawl_dir, shards, unreadable = reparse_crawl(Path(args.data_dir), args.crawl, args.backend)
    print(f"re-parsed {crawl_dir} from stored HTML into {len(shards)} shards")
    if unreadable:
        print(f"  still unreadable: {len(unreadable)} pages, e.g. {unreadable[0]}")
    return 0


# --- align ------------------------------------------------------------------------------


def cmd_align(args: argparse.Namespace) -> int:
    from filters.align_lines import RelationsFileError, align_lines, read_relations

    if not 0 < args.threshold < 1:
        raise UsageError(f"--threshold must be between 0 and 1, got {args.threshold}")
    try:
        relations = read_relations(Path(args.relations)) if args.relations else set()
    except RelationsFileError as exc:
        raise UsageError(str(exc)) from None
    skipped = []

    def skip(number: int, why: str) -> None:
        skipped.append(number)
        print(f"zhbench align: line {number}: skipped, {why}", file=sys.stderr)

    stdin = getattr(sys.stdin, "buffer", sys.stdin)  # bytes, so that a line of bad UTF-8 is one skipped line
    for verdict in align_lines(stdin, skip, relations, args.threshold, cut=not args.no_cut):
        print(json.dumps(verdict, ensure_ascii=False))
    return 1 if skipped else 0


# --- report -----------------------------------------------------------------------------


def cmd_report(args: argparse.Namespace) -> int:
    from flows.report import write_report

    html = write_report(Path(args.data_dir), args.run, show=print)
    print(f"\nwrote {html}")
    return 0


# --- parse ------------------------------------------------------------------------------


def cmd_parse(args: argparse.Namespace) -> int:
    from crawlers.parsers import parse

    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"{path} is not a file (give a saved HTML page)")
    page = parse(path.read_bytes(), args.url, http_status=args.status, encoding=args.encoding)
    print(json.dumps(page.contract(), ensure_ascii=False, indent=None if args.compact else 2))
    return 0


# --- mirror -------------------------------------------------------------------------------


def _port(text: str) -> int:
    """argparse type of a TCP port: 0 to 65535 (0: the system picks a free one)."""
    value = _number(int, text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be between 0 and 65535, got {value}")
    return value


def _count(text: str) -> int:
    """argparse type of a count: 0 or more."""
    value = _number(int, text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _share(text: str) -> float:
    """argparse type of a share: a number from 0 to 1."""
    value = _number(float, text)
    if not 0 <= value <= 1:  # nan too
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def _per_second(text: str) -> float:
    """argparse type of a rate: 0 or a finite positive number."""
    value = _number(float, text)
    if not 0 <= value < float("inf"):  # nan too
        raise argparse.ArgumentTypeError(f"must be 0 or a positive number, got {text}")
    return value


def _number(kind: type, text: str):
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {'a whole number' if kind is int else 'a number'}") \
            from None


def cmd_mirror_serve(args: argparse.Namespace) -> int:
    import time

    from crawlers.mirror.facts import FACTS_DIR
    from crawlers.mirror.site import MirrorServer, Site

    from crawlers.mirror.synth import SynthConfig

    if args.profile == "realistic":
        if args.facts or args.synthetic:
            raise UsageError("--facts and --synthetic apply to the demo profile; "
                             "the realistic one takes --size and --seed")
        if args.size < 1:
            raise UsageError(f"--size must be at least 1, got {args.size}")
        site = Site(profile="realistic", size=args.size, seed=args.seed, rate_limit=args.rate_limit)
    else:
        site = Site(facts_dir=Path(args.facts) if args.facts else FACTS_DIR, synthetic=args.synthetic,
                    synth_config=SynthConfig(seed=args.seed), rate_limit=args.rate_limit)
    try:
        server = MirrorServer(site, port=args.port, host=args.host)
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port} ({exc.strerror}); choose another --port") from None
    with server:
        extra = f" + {args.synthetic} synthetic" if args.synthetic else ""
        print(f"mirror: {len(site.entries)} entries{extra} at {server.url}/item/<title> "
              f"(sogou {server.url}/v<id>.htm, wikipedia {server.url}/wiki/<title>); Ctrl-C stops", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


def cmd_mirror_export(args: argparse.Namespace) -> int:
    from crawlers.mirror.facts import FACTS_DIR
    from crawlers.mirror.site import Site

    site = Site(facts_dir=Path(args.facts) if args.facts else FACTS_DIR)
    written = site.export(Path(args.directory))
    print(f"wrote {written} pages of {len(site.entries)} entries to {args.directory}")
    return 0


def cmd_mirror_synth(args: argparse.Namespace) -> int:
    from crawlers.mirror.facts import FACTS_DIR, load_facts
    from crawlers.mirror.synth import SynthConfig, Synthesizer, write_synthetic

    if args.count < 1:
        raise UsageError(f"--count must be at least 1, got {args.count}")
    config = SynthConfig(seed=args.seed, ungrounded_rate=args.ungrounded_rate,
                         trailing_rate=args.trailing_rate, near_duplicate_rate=args.near_duplicate_rate)
    synth = Synthesizer(load_facts(Path(args.facts) if args.facts else FACTS_DIR), config)
    write_synthetic(synth, args.count, Path(args.out), Path(args.seeds_out) if args.seeds_out else None)
    print(f"wrote {args.count} synthetic entries (seed {args.seed}) to {Path(args.out)}")
    return 0


# --- release ------------------------------------------------------------------------------


def _release_dir(args: argparse.Namespace, release: str | None = None) -> Path:
    from warehouse.inspect import resolve

    return resolve(Path(args.data_dir), args.name, release or args.release)


def cmd_release_list(args: argparse.Namespace) -> int:
    from warehouse.inspect import list_releases

    for line in list_releases(Path(args.data_dir), args.name):
        print(line)
    return 0


def cmd_release_verify(args: argparse.Namespace) -> int:
    from warehouse.release import verify

    directory = _release_dir(args)
    problems = verify(directory)
    if problems:
        for problem in problems:
            print(f"{directory}: {problem}")
        return 1
    print(f"{directory}: every file matches the manifest")
    return 0


def cmd_release_show(args: argparse.Namespace) -> int:
    from warehouse.inspect import show

    print(show(_release_dir(args)))
    return 0


def cmd_release_diff(args: argparse.Namespace) -> int:
    from warehouse.inspect import diff, format_diff

    old, new = _release_dir(args, args.old), _release_dir(args, args.new)
    print(format_diff(args.old, args.new, diff(old, new)))
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from warehouse.audit import audit_json, audit_release

    report = audit_release(_release_dir(args))
    print(audit_json(report) if args.json else report.table())
    return 0 if report.ok else 1


def cmd_export(args: argparse.Namespace) -> int:
    from warehouse.export import export

    directory = _release_dir(args)
    default = Path(args.data_dir) / "exports" / f"{directory.parent.name}-{directory.name}-{args.format}"
    for written in export(directory, args.format, Path(args.out) if args.out else default, args.split, args.force):
        print(f"{written.path}  {written.rows} rows  split {written.split}")
    return 0


def cmd_questions_check(args: argparse.Namespace) -> int:
    from flows.questions import Summary, check_questions, llm_judge, read_questions, read_senses

    if args.max_answer_chars < 1:
        raise UsageError(f"--max-answer-chars must be at least 1, got {args.max_answer_chars}")
    questions = read_questions(Path(args.file))
    senses = read_senses(Path(args.senses)) if args.senses else None
    summary = Summary()
    with llm_judge(args.llm_model, args.llm_base_url, args.llm_api_key_env, Path(args.data_dir)) as judge:
        for result in check_questions(questions, [Path(p) for p in args.against], args.max_answer_chars, summary,
                                      args.explain, senses, judge):
            print(json.dumps(result, ensure_ascii=False), flush=False)
    sys.stdout.flush()
    print(summary.line(), file=sys.stderr)
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    from warehouse.scoring import format_scores, llm_grader, score_release

    directory = _release_dir(args)
    with llm_grader(args.grader_model, args.grader_base_url, args.grader_api_key_env, Path(args.data_dir)) as grader:
        result = score_release(directory, Path(args.predictions), split=args.split,
                               baseline=Path(args.baseline) if args.baseline else None, grader=grader)
    print(json.dumps(result, ensure_ascii=False, indent=2) if args.json else format_scores(result))
    return 0


# --- the parser ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="zhbench",
        description="Turn Chinese encyclopedia pages into verified, versioned benchmark datasets.",
        epilog="example:\n  zhbench run                 # whole pipeline on the bundled offline mirror\n"
               "  zhbench run --help          # options of one command",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    run = _command(sub, "run", "Crawl, align and release: the CDTP flow (or the SimpleQA flow), end to end.",
                   "zhbench run --max-pages 200\n"
                   "zhbench run --flow simpleqa   # SimpleQA-style questions only, a 'simpleqa' release, queued "
                   "for review\n"
                   "zhbench run --crawl baidu-1   # from a finished crawl, without fetching\n"
                   "zhbench run --config zhbench.toml --seeds seeds.tsv --base-url https://baike.baidu.com\n"
                   "zhbench run --wait          # after the run that is using the data directory now\n"
                   "SOURCE_DATE_EPOCH=1767225600 zhbench run   # created_at fixed: a rebuild is the same bytes",
                   cmd_run)
    _settings_options(run)
    run.add_argument("--flow", choices=["cdtp", "simpleqa"], default="cdtp",
                     help="cdtp: pairs and every item kind (default); simpleqa: SimpleQA-style questions only, "
                          "released as 'simpleqa' and queued for review")
    run.add_argument("--verbose", action="store_true", help="show Prefect's run log")
    run.add_argument("--quiet", action="store_true", help="no live stage display on stderr; only the summary")
    run.add_argument("--wait", action="store_true",
                     help="when another run is using the data directory, wait for it to finish instead of refusing")

    deploy = _command(sub, "deploy", "Serve the CDTP flow as a Prefect deployment on a cron schedule (and on "
                                     "demand) until Ctrl-C or SIGTERM; needs a Prefect server at PREFECT_API_URL.",
                      "PREFECT_API_URL=http://127.0.0.1:4200/api zhbench deploy --config zhbench.toml --cron '0 3 * * *'\n"
                      "prefect deployment run 'cdtp/nightly'     # a run now, from another shell",
                      cmd_deploy)
    _settings_options(deploy)
    deploy.add_argument("--name", help="deployment name: runs are cdtp/NAME (default schedule.deployment, nightly)")
    deploy.add_argument("--cron", help="cron expression of the runs, e.g. '0 3 * * *' (default schedule.cdtp; "
                                       "unset: runs only when triggered)")
    deploy.add_argument("--timezone", help="time zone of --cron, e.g. Asia/Shanghai (default schedule.timezone, UTC)")
    deploy.add_argument("--verbose", action="store_true", help="show Prefect's log (the runner's and each run's)")

    cfg = _command(sub, "config", "Inspect the settings a run would use.", "zhbench config show --config zhbench.toml",
                   lambda a: _help(cfg))
    cfg_sub = cfg.add_subparsers(dest="config_command", metavar="COMMAND", parser_class=_Parser)
    show = _command(cfg_sub, "show", "Print the settings zhbench run would use with the same flags, each with where "
                                     "its value came from (flag, file, environment or default); credentials in "
                                     "them are masked.",
                    "zhbench config show --config zhbench.toml --max-pages 200\n"
                    "ZHBENCH_CRAWL__MAX_PAGES=500 zhbench config show\n"
                    "zhbench config show --json | jq .sources", cmd_config_show)
    _settings_options(show)
    show.add_argument("--json", action="store_true", help='print {"settings": ..., "sources": ...} as JSON')

    crawl = _command(sub, "crawl", "Crawl Baike pages depth-first from seed lists into a crawl directory.",
                     "zhbench crawl --site mirror --max-pages 100\n"
                     "zhbench crawl --site baidu --seeds kgclue.tsv --max-depth 3 --name baidu-1\n"
                     "zhbench crawl --site baidu --resume --name baidu-1      # after Ctrl-C or a kill\n"
                     "zhbench crawl --site mirror --recrawl-after 7d          # only pages fetched 7+ days ago",
                     cmd_crawl)
    crawl.add_argument("--site", required=True, choices=["baidu", "sogou", "wikipedia", "mirror"],
                       help="which site; mirror: the bundled one, started for the crawl")
    crawl.add_argument("--base-url", help="override the site's address (a proxy or a copy of it)")
    crawl.add_argument("--seeds", type=Path, nargs="+", help="seed files: KgCLUE .tsv, OwnThink .csv or .txt")
    crawl.add_argument("--max-depth", type=int, help="how many links deep to follow from a seed")
    crawl.add_argument("--max-pages", type=int, help="stop after this many content pages (0: no limit)")
    crawl.add_argument("--concurrency", type=int, help="parallel requests per site (default 8)")
    crawl.add_argument("--name", help="crawl name: its directory under DATA_DIR/crawls (default: a timestamp)")
    crawl.add_argument("--resume", action="store_true", help="continue the named (default: latest) crawl")
    crawl.add_argument("--recrawl-after", help="fetch again, conditionally, pages older than this (e.g. 7d)")
    crawl.add_argument("--redis", help="Redis URL to share the frontier with other crawler processes")
    crawl.add_argument("--redis-key", help="name of the shared crawl in Redis (default: --name); give every "
                                          "process of one crawl the same key and each its own --name")
    crawl.add_argument("--mirror-port", type=int,
                       help="port of the bundled mirror (default 8800; resume and recrawl need the same one)")
    crawl.add_argument("--config", type=Path, help="TOML settings file")
    crawl.add_argument("--data-dir", type=Path, help="data directory (default ./zhbench-data)")

    rep = _command(sub, "reparse", "Rebuild a crawl's page records from its stored HTML, without fetching.",
                   "zhbench reparse                 # the latest crawl\nzhbench reparse baidu-1 --backend bs4",
                   cmd_reparse)
    rep.add_argument("crawl", nargs="?", help="crawl name or directory (default: the latest crawl)")
    rep.add_argument("--backend", choices=["selectolax", "lxml", "bs4"], default="selectolax",
                     help="parser backend (default selectolax; every backend gives the same records)")
    rep.add_argument("--data-dir", default="zhbench-data", help="data directory (default ./zhbench-data)")

    align = _command(sub, "align",
                     "Apply the CDTP alignment filters to pairs read as JSON lines from stdin; one JSON line "
                     "per pair on stdout. A line that is not a pair record, or repeats an earlier line's id, "
                     "is skipped with a message naming its line number, and the exit status is 1.",
                     "echo '{\"id\": \"1\", \"entity\": \"泰山\", \"text\": \"泰山海拔1545米。\", "
                     "\"triples\": [[\"泰山\", \"海拔\", \"1545米\"]]}' | zhbench align", cmd_align)
    align.add_argument("--relations", help="file of relation names (one per line) added to the batch's own")
    align.add_argument("--threshold", type=float, default=0.75,
                       help="keep pairs whose position index exceeds this (default 0.75, as in CDTP)")
    align.add_argument("--no-cut", action="store_true",
                       help="judge each text whole instead of cutting what it states beyond its kept triples "
                            "(the output's text is the pair's text: cut, or as given with --no-cut)")

    rpt = _command(sub, "report", "Print a run's funnel (in, out, why) and write it as an HTML page with charts.",
                   "zhbench report                      # the latest run\nzhbench report 20261122T080000Z-1a2b3c",
                   cmd_report)
    rpt.add_argument("run", nargs="?", help="run name under DATA_DIR/runs, or a run directory (default: latest)")
    rpt.add_argument("--data-dir", default="zhbench-data", help="data directory (default ./zhbench-data)")

    parse = _command(sub, "parse", "Parse one saved page and print its record as JSON.",
                     "zhbench parse libai.html --url https://baike.baidu.com/item/李白/1043", cmd_parse)
    parse.add_argument("file", help="saved HTML page")
    parse.add_argument("--url", required=True, help="the URL the page was fetched from (makes links absolute)")
    parse.add_argument("--status", type=int, default=200, help="HTTP status it was served with (default 200)")
    parse.add_argument("--encoding", help="charset from the HTTP header, if known")
    parse.add_argument("--compact", action="store_true", help="one line of JSON")

    mirror = _command(sub, "mirror", "The bundled offline Baike mirror.",
                      "zhbench mirror serve --port 8800", lambda a: _help(mirror))
    mirror_sub = mirror.add_subparsers(dest="mirror_command", metavar="COMMAND", parser_class=_Parser)
    serve = _command(mirror_sub, "serve", "Serve the mirror on 127.0.0.1 until Ctrl-C.",
                     "zhbench mirror serve --port 8800\ncurl http://127.0.0.1:8800/item/李白\n"
                     "zhbench mirror serve --profile realistic --size 5000", cmd_mirror_serve)
    serve.add_argument("--port", type=_port, default=8800, help="port (default 8800; 0 picks a free one)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--facts", help="facts directory (default: the bundled facts table)")
    serve.add_argument("--synthetic", type=_count, default=0,
                       help="also serve this many synthetic entries at /item/<title>/<20000000+i>")
    serve.add_argument("--seed", type=int, default=0, help="seed of the synthetic or realistic entries (default 0)")
    serve.add_argument("--profile", choices=["demo", "realistic"], default="demo",
                       help="demo: the facts table; realistic: generated entries that behave like real Baike")
    serve.add_argument("--size", type=_count, default=3000, help="entries of the realistic profile (default 3000)")
    serve.add_argument("--rate-limit", type=_per_second, default=0.0,
                       help="above this many entry requests per second, answer 429 or a captcha redirect (0: off)")
    export = _command(mirror_sub, "export",
                      "Write every mirror page as a static HTML file (for review, fixtures and zhbench parse).",
                      "zhbench mirror export mirror-html\nzhbench parse mirror-html/baidu/李白-8555631.html "
                      "--url http://127.0.0.1:8800/item/李白/8555631", cmd_mirror_export)
    export.add_argument("directory", help="output directory (created if missing)")
    export.add_argument("--facts", help="facts directory (default: the bundled facts table)")
    synth = _command(mirror_sub, "synth",
                     "Write synthetic entries, recombined from the facts, with planted noise labelled.",
                     "zhbench mirror synth --count 100000 --seed 7 --out synth.jsonl --seeds-out synth-urls.txt",
                     cmd_mirror_synth)
    synth.add_argument("--count", type=int, required=True, help="number of entries")
    synth.add_argument("--seed", type=int, default=0, help="seed (default 0); same seed, same entries")
    synth.add_argument("--out", required=True, help="JSON Lines file to write (facts format plus 'labels')")
    synth.add_argument("--seeds-out", help="also write each entry's Baidu-form path, one per line")
    synth.add_argument("--facts", help="facts directory to recombine (default: the bundled facts table)")
    synth.add_argument("--ungrounded-rate", type=_share, default=0.3, help="share of entries with an unmentioned row")
    synth.add_argument("--trailing-rate", type=_share, default=0.2, help="share with a trailing uncovered relation")
    synth.add_argument("--near-duplicate-rate", type=_share, default=0.05, help="share that copy an earlier entry")

    rel = _command(sub, "release", "List, show, verify and compare releases.",
                   "zhbench release list\nzhbench release show 0.1.0\nzhbench release diff 0.1.0 0.2.0",
                   lambda a: _help(rel))
    rel_sub = rel.add_subparsers(dest="release_command", metavar="COMMAND", parser_class=_Parser)
    for name, help_text, example, func, versions in (
        ("list", "List the versions of a release.", "zhbench release list --name cdtp", cmd_release_list, ()),
        ("show", "Show a release: provenance, files, labels, validation and counts.",
         "zhbench release show 0.1.0", cmd_release_show, ("release",)),
        ("verify", "Check a release's files against its manifest checksums.",
         "zhbench release verify 0.1.0\nzhbench release verify zhbench-data/releases/cdtp/0.1.0",
         cmd_release_verify, ("release",)),
        ("diff", "Rows added, removed and changed per config between two releases, with examples.",
         "zhbench release diff 0.1.0 0.2.0", cmd_release_diff, ("old", "new")),
    ):
        p = _command(rel_sub, name, help_text, example, func)
        for argument in versions:
            p.add_argument(argument, help="a version of --name, or a release directory")
        _release_options(p)

    aud = _command(sub, "audit", "Recompute every promise of a release from its files (pair coverage, distractors, "
                                 "one gold per question, splits, cloze); exit 1 on any violation.",
                   "zhbench audit 0.1.0\nzhbench audit 0.1.0 --json > audit.json", cmd_audit)
    aud.add_argument("release", help="a version of --name, or a release directory")
    aud.add_argument("--json", action="store_true", help="print the report as JSON")
    _release_options(aud)

    exp = _command(sub, "export", "Write a release in a harness's format, one file per split.",
                   "zhbench export 0.1.0 --format chinese-simpleqa-jsonl --out csqa\n"
                   "  # csqa/eval/chinese_simpleqa.jsonl, csqa/train/chinese_simpleqa.jsonl: evalscope's\n"
                   "  # local_path and OpenCompass's path are csqa/eval\n"
                   "zhbench export 0.1.0 --format simple-evals-csv --split eval --out simple-evals\n"
                   "zhbench export 0.1.0 --format jsonl --out cdtp-jsonl\n"
                   "zhbench export 0.1.0 --format jsonl --out cdtp-jsonl --force   # again, over the last one",
                   cmd_export)
    exp.add_argument("release", help="a version of --name, or a release directory")
    exp.add_argument("--format", required=True, choices=["chinese-simpleqa-jsonl", "simple-evals-csv", "jsonl"])
    exp.add_argument("--split", default="all", choices=["eval", "train", "all"],
                     help="which split (default all: every split, each in its own file)")
    exp.add_argument("--out", help="output directory, new or empty (default <data-dir>/exports/<name>-<version>-"
                                   "<format>)")
    exp.add_argument("--force", action="store_true",
                     help="write into a non-empty --out, replacing the files of the same names (or a file there)")
    _release_options(exp)

    from flows.review_cli import register as register_review

    register_review(sub, _command, _release_options, _Parser)

    questions = _command(sub, "questions", "Check question files against the short-answer criteria and "
                                           "registered benchmark questions.",
                         "zhbench questions check mine.jsonl\n"
                         "zhbench questions check mine.jsonl --against chinese_simpleqa.jsonl",
                         lambda a: _help(questions))
    questions_sub = questions.add_subparsers(dest="questions_command", metavar="COMMAND", parser_class=_Parser)
    qcheck = _command(questions_sub, "check", "Check each question of a JSON-lines file ({\"question\", \"answer\", "
                                              "\"id\"?}; the answer may be empty): one JSON line per question on "
                                              "stdout, a summary on stderr.",
                      "zhbench questions check mine.jsonl > verdicts.jsonl\n"
                      "zhbench questions check mine.jsonl --explain   # each rejection with the text that triggered it\n"
                      "zhbench questions check mine.jsonl --senses data/releases/cdtp/0.1.0/pages.parquet\n"
                      "zhbench questions check mine.jsonl --llm-model qwen2.5-72b-instruct   # a reader as well\n"
                      "zhbench questions check mine.jsonl --against chinese_simpleqa.jsonl --against old.csv",
                      cmd_questions_check)
    qcheck.add_argument("file", help="JSON lines with question, answer and optional id and relation")
    qcheck.add_argument("--against", action="append", default=[], metavar="DB",
                        help="a registered question file (JSON lines or CSV with a question/problem column); "
                             "repeatable; matches are listed in contaminated_by")
    qcheck.add_argument("--max-answer-chars", type=int, default=20,
                        help="answer length budget in characters of the answer's Chinese core (default 20)")
    qcheck.add_argument("--explain", action="store_true",
                        help="add \"explain\": each failed criterion with its field and the span that triggered it")
    qcheck.add_argument("--llm-model", help="also have this model (OpenAI-compatible endpoint) read each question "
                                            "the rules accept, for what rules cannot see: ambiguity, garbled "
                                            "questions, answers that do not answer")
    qcheck.add_argument("--llm-base-url", default="http://127.0.0.1:8000/v1", help="the model's endpoint")
    qcheck.add_argument("--llm-api-key-env", default="OPENAI_API_KEY",
                        help="environment variable holding the model's API key")
    qcheck.add_argument("--data-dir", default="zhbench-data", help="where the model's replies are cached "
                                                                     "(default ./zhbench-data)")
    qcheck.add_argument("--senses", metavar="FILE",
                        help="titles several entries share: a TSV of title<TAB>sense label, or pages.parquet of a "
                             "crawl or release; a question naming one without saying which is underspecified")

    score = _command(sub, "score", "Score a model's predictions on a release (CDTP, Chinese SimpleQA and "
                                   "CUGE-style metrics).",
                     "zhbench score 0.1.0 --predictions preds.jsonl\n"
                     "zhbench score 0.1.0 --predictions preds.jsonl --baseline baseline.jsonl --json", cmd_score)
    score.add_argument("release", help="a version of --name, or a release directory")
    score.add_argument("--predictions", required=True,
                       help="JSON lines {\"id\": item_id, \"prediction\": ...} or {\"id\", \"ranking\": [...]}")
    score.add_argument("--baseline", help="a baseline model's predictions: dataset scores are divided by its "
                                         "(CUGE's normalisation)")
    score.add_argument("--split", default="eval", choices=["eval", "train", "all"], help="which split (default eval)")
    score.add_argument("--json", action="store_true", help="print the scores as JSON")
    score.add_argument("--grader-model", help="grade simpleqa answers with this model (OpenAI-compatible endpoint); "
                                              "default: normalised matching")
    score.add_argument("--grader-base-url", default="http://127.0.0.1:8000/v1", help="the grader's endpoint")
    score.add_argument("--grader-api-key-env", default="OPENAI_API_KEY",
                       help="environment variable holding the grader's API key")
    _release_options(score)
    return parser


def _settings_options(p: argparse.ArgumentParser) -> None:
    """The settings flags of ``zhbench run``, shared with ``zhbench config show``; read by ``settings_overrides``."""
    p.add_argument("--config", type=Path, help="TOML settings file (sections: crawl, align, dedup, items, verify, "
                                                "llm, release, engine, schedule)")
    p.add_argument("--data-dir", type=Path, help="where runs and releases go (default ./zhbench-data)")
    p.add_argument("--site", choices=["baidu", "sogou", "wikipedia"], help="which site's URL forms to crawl")
    p.add_argument("--base-url", help="site to crawl (default: the bundled mirror, started for the run)")
    p.add_argument("--seeds", type=Path, nargs="+", help="seed files: KgCLUE .tsv, OwnThink .csv or .txt")
    p.add_argument("--max-pages", type=int, help="stop after this many content pages (0: no limit)")
    p.add_argument("--max-depth", type=int, help="how many links deep to follow from a seed")
    p.add_argument("--version", help="release version (default: the next minor version)")
    p.add_argument("--mirror-port", type=int, help="port of the bundled mirror (default 8800)")
    p.add_argument("--profile", choices=["demo", "realistic"],
                   help="the bundled mirror's entries: demo (the facts table) or realistic (generated like real "
                        "Baike, with labels)")
    p.add_argument("--mirror-size", type=int, help="entries of the realistic mirror (default 3000)")
    p.add_argument("--readmit", action="store_true",
                   help="publish pairs even when an earlier release of the same name holds them")
    p.add_argument("--crawl", metavar="NAME", nargs="+",
                   help="build from these finished crawls under DATA_DIR/crawls instead of crawling (several: "
                        "the processes of one shared crawl; of a page in several, the latest fetch)")
    p.add_argument("--recrawl", action="store_true",
                   help="fetch every page again, even when a finished crawl of the same settings exists")
    p.add_argument("--task-runner", choices=["threads", "processes", "dask"],
                   help="where stage tasks run (default threads); dask: --dask-address, or a local cluster")
    p.add_argument("--dask-address", help="scheduler of a running Dask cluster, e.g. tcp://10.0.0.5:8786")
    p.add_argument("--workers", type=int, help="threads, processes or local Dask workers (default: one per core)")


def _release_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", default="cdtp", help="release name (default cdtp)")
    p.add_argument("--data-dir", default="zhbench-data", help="data directory (default ./zhbench-data)")


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 0


class Terminated(KeyboardInterrupt):
    """SIGTERM (cron, systemd, a supervisor): unwinds like Ctrl-C, so children are stopped and files closed."""


_signals: list[int] = []  # SIGTERM and SIGINT received, in order


def _stop(signum, frame):
    """The first SIGTERM or SIGINT unwinds the command (``Terminated`` or ``KeyboardInterrupt``); later
    ones are ignored, so that they cannot cut that unwinding short (a child being stopped, the
    temporary Prefect server being stopped at exit) or show a traceback."""
    _signals.append(signum)
    if len(_signals) == 1:
        raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def _first_signal(exc: BaseException) -> int | None:
    """The signal that began the unwinding ``exc`` ends: the earliest exception of its chain raised for one.

    Inside a flow Prefect answers SIGTERM with its own ``TerminationSignal`` (prefect.exceptions, named
    here so that the CLI does not import Prefect), and gives SIGTERM back to ``_stop`` once the flow
    has unwound."""
    first, seen = None, set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, Terminated) or type(exc).__name__ == "TerminationSignal":
            first = signal.SIGTERM
        elif isinstance(exc, KeyboardInterrupt):
            first = signal.SIGINT
        exc = exc.__context__
    return first


def _stopped(signum: int) -> int:
    if threading.current_thread() is threading.main_thread():
        # From here on a signal has nothing left to stop: ignored, also during the exit hooks (the
        # temporary Prefect server is stopped there) and the interpreter's teardown, which would
        # otherwise give SIGTERM back its default action and end the process with it instead of 143.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    if signum == signal.SIGTERM:
        print("zhbench: terminated (SIGTERM); what was finished is kept", file=sys.stderr)
        return 143
    print("zhbench: interrupted; what was finished is kept", file=sys.stderr)
    return 130


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    _signals.clear()
    system_allocator()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when started ignoring it (nohup)
            signal.signal(signal.SIGINT, _stop)
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 0
        return args.func(args)
    except BrokenPipeError:  # the reader went away (| head): nothing left to say to it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except UsageError as exc:
        print(f"zhbench: error: {exc}", file=sys.stderr)
        return 2
    except USER_ERRORS as exc:
        print(f"zhbench: error: {exc}", file=sys.stderr)
        # An error raised inside the flow is still referenced at exit, and its frames hold the stage's
        # DuckDB objects; freed only at interpreter teardown, each is reported by DuckDB's bindings as a
        # leak on stderr, under the one-line message.
        traceback.clear_frames(exc.__traceback__)
        return 1
    except BaseException as exc:  # SIGTERM (Terminated, or Prefect's TerminationSignal) and Ctrl-C among them
        signum = _first_signal(exc) or (_signals[0] if _signals else None)
        if signum is None:
            raise
        return _stopped(signum)


if __name__ == "__main__":
    sys.exit(main())
