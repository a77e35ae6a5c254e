"""``zhbench run``, ``deploy``, ``config show`` and ``report``: the flow, end to end, now or on a schedule."""

from __future__ import annotations

import argparse
from pathlib import Path

from flows.cli.common import (UsageError, any_port, command, count, data_dir_option, directory, file_path, group,
                              whole)


def cmd_run(args: argparse.Namespace) -> int:
    import time

    began = time.monotonic()  # before Prefect is imported: its start-up is part of what the user waits for
    from flows.preflight import check_run
    from flows.settings import Settings

    settings = Settings.load(args.config, settings_overrides(args))
    check_run(settings)  # a mistake is one line at once, before the engine's server is started (and stopped)
    from flows.engine import configure_prefect

    configure_prefect(verbose=args.verbose)
    from flows.launch import format_summary, launch

    summary, startup = launch(settings, args.flow, wait=args.wait, quiet=args.quiet, since=began)
    print(format_summary(summary, seconds=time.monotonic() - began, startup=startup))
    return 1 if summary.problems or summary.blocked else 0


def cmd_deploy(args: argparse.Namespace) -> int:
    from flows.deploy import check_server, deploy

    check_server()
    if args.config is None:
        raise UsageError("--config FILE is required: the served runs read their settings' secrets from it")
    overrides = {**settings_overrides(args), "schedule.cdtp": args.cron, "schedule.timezone": args.timezone,
                 "schedule.deployment": args.name}
    name = deploy(args.config, overrides, verbose=args.verbose).schedule.deployment
    print(f"zhbench: stopped serving cdtp/{name} and simpleqa/{name}", flush=True)
    return 0


def cmd_config_show(args: argparse.Namespace) -> int:
    from flows.settings import show_settings

    print(show_settings(args.config, settings_overrides(args), as_json=args.json))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from flows.report import write_report

    html = write_report(Path(args.data_dir), args.run, show=print)
    print(f"\nwrote {html}")
    return 0


def register(sub) -> None:
    run = command(sub, "run", "Crawl, align and release: the CDTP flow (or the SimpleQA flow), end to end.",
                  "zhbench run --max-pages 200\n"
                  "zhbench run --flow simpleqa   # SimpleQA-style questions only, a 'simpleqa' release, queued "
                  "for review\n"
                  "zhbench run --crawl baidu-1   # from a finished crawl, without fetching\n"
                  "zhbench run --config zhbench.toml --seeds seeds.tsv --base-url https://baike.baidu.com\n"
                  "zhbench run --wait          # after the run that is using the data directory now\n"
                  "SOURCE_DATE_EPOCH=1767225600 zhbench run   # created_at fixed: a rebuild is the same bytes",
                  cmd_run)
    settings_options(run)
    run.add_argument("--flow", choices=["cdtp", "simpleqa"], default="cdtp",
                     help="cdtp: pairs and every item kind (default); simpleqa: SimpleQA-style questions only, "
                          "released as 'simpleqa' and queued for review")
    run.add_argument("--verbose", action="store_true", help="show Prefect's run log")
    run.add_argument("--quiet", action="store_true", help="no live stage display on stderr; only the summary")
    run.add_argument("--wait", action="store_true",
                     help="when another run is using the data directory, wait for it to finish instead of refusing")

    deploy = command(sub, "deploy", "Serve the CDTP flow as a Prefect deployment on a cron schedule (and on "
                                    "demand) until Ctrl-C or SIGTERM; needs a Prefect server at PREFECT_API_URL.",
                     "PREFECT_API_URL=http://127.0.0.1:4200/api zhbench deploy --config zhbench.toml --cron '0 3 * * *'\n"
                     "prefect deployment run 'cdtp/nightly'     # a run now, from another shell",
                     cmd_deploy)
    settings_options(deploy)
    deploy.add_argument("--name", help="deployment name: runs are cdtp/NAME (default schedule.deployment, nightly)")
    deploy.add_argument("--cron", help="cron expression of the runs, e.g. '0 3 * * *' (default schedule.cdtp; "
                                       "unset: runs only when triggered)")
    deploy.add_argument("--timezone", help="time zone of --cron, e.g. Asia/Shanghai (default schedule.timezone, UTC)")
    deploy.add_argument("--verbose", action="store_true", help="show Prefect's log (the runner's and each run's)")

    _, config = group(sub, "config", "Inspect the settings a run would use.", "zhbench config show --config zhbench.toml",
                      "config_command")
    show = command(config, "show", "Print the settings zhbench run would use with the same flags, each with where "
                                   "its value came from (flag, file, environment or default); credentials in "
                                   "them are masked.",
                   "zhbench config show --config zhbench.toml --max-pages 200\n"
                   "ZHBENCH_CRAWL__MAX_PAGES=500 zhbench config show\n"
                   "zhbench config show --json | jq .sources", cmd_config_show)
    settings_options(show)
    show.add_argument("--json", action="store_true", help='print {"settings": ..., "sources": ...} as JSON')

    report = command(sub, "report", "Print a run's funnel (in, out, why) and write it as an HTML page with charts.",
                     "zhbench report                      # the latest run\nzhbench report 20261122T080000Z-1a2b3c",
                     cmd_report)
    report.add_argument("run", nargs="?", help="run name under DATA_DIR/runs, or a run directory (default: latest)")
    data_dir_option(report)


def settings_options(p: argparse.ArgumentParser) -> None:
    """The settings flags of ``zhbench run``, shared with ``deploy`` and ``config show``; read by ``settings_overrides``."""
    p.add_argument("--config", type=file_path, help="TOML settings file (sections: crawl, align, dedup, items, "
                                                         "verify, llm, release, engine, schedule)")
    p.add_argument("--data-dir", type=directory, help="where runs and releases go (default ./zhbench-data)")
    p.add_argument("--site", choices=["baidu", "sogou", "wikipedia"], help="which site's URL forms to crawl")
    p.add_argument("--base-url", help="site to crawl (default: the bundled mirror, started for the run)")
    p.add_argument("--seeds", type=Path, nargs="+", help="seed files (.tsv .csv .json .jsonl .txt: crawl --help)")
    p.add_argument("--max-pages", type=count, help="stop after this many content pages (0: no limit)")
    p.add_argument("--max-depth", type=whole(0, 10_000), help="how many links deep to follow from a seed")
    p.add_argument("--version", help="release version (default: the next minor version)")
    p.add_argument("--mirror-port", type=any_port, help="port of the bundled mirror (default 8800)")
    p.add_argument("--profile", choices=["demo", "realistic"],
                   help="the bundled mirror's entries: demo (the facts table) or realistic (generated like real "
                        "Baike, with labels)")
    p.add_argument("--mirror-size", type=whole(50, 50_000), help="entries of the realistic mirror (default 3000)")
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
    p.add_argument("--workers", type=whole(0, 1024),
                   help="threads, processes or local Dask workers (default: one per core)")


def settings_overrides(args: argparse.Namespace) -> dict:
    """The settings flags (``settings_options``) as ``Settings.load`` overrides; unset flags are None."""
    return {
        "data_dir": args.data_dir, "crawl.site": args.site, "crawl.base_url": args.base_url,
        "crawl.seeds": args.seeds, "crawl.max_pages": args.max_pages, "crawl.max_depth": args.max_depth,
        "crawl.mirror_port": args.mirror_port, "crawl.mirror_profile": args.profile,
        "crawl.mirror_size": args.mirror_size, "release.version": args.version,
        "dedup.against_releases": False if args.readmit else None, "crawl.from_crawl": args.crawl,
        "crawl.reuse": False if args.recrawl else None, "engine.task_runner": args.task_runner,
        "engine.dask_address": args.dask_address, "engine.workers": args.workers,
    }
