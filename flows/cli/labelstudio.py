"""``zhbench review export`` and ``review import``: a release's review queue to and from Label Studio.

Subcommands of ``zhbench review``, which ``flows.cli.review`` registers first.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from flows.cli.common import command, file_path, outside_releases, release_named, release_options


def cmd_export(args: argparse.Namespace) -> int:
    from review.labelstudio import write_export

    _, name, version = release_named(args)
    out = outside_releases(args.out or f"{name}-{version}-labelstudio.json", data_dir=args.data_dir)
    count, xml = write_export(_store(args), name, version, out)
    print(f"{count} tasks of {name} {version} to {out}; Label Studio's labeling config: {xml}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from review.labelstudio import import_tasks, read_tasks, user_names
    from review.summary import import_lines, refused

    _, name, version = release_named(args)
    users = user_names(args.user or [])
    result = import_tasks(_store(args), name, version, read_tasks(Path(args.file)), users)
    print("\n".join(import_lines(name, version, result)))
    if why := refused(result):  # a script or a scheduler sees that the file was not recorded whole
        print(f"zhbench: error: {why}", file=sys.stderr)
        return 1
    return 0


def _store(args: argparse.Namespace):
    from review.store import ReviewStore

    return ReviewStore.at(args.data_dir)


def register(sub) -> None:
    rsub = sub.choices["review"].commands
    export = command(rsub, "export", "Write a release's queue as Label Studio tasks (JSON) with the labeling "
                                     "config beside it.",
                     "zhbench review export 0.1.0 --out cdtp-0.1.0.json", cmd_export)
    export.add_argument("release", help="a version of --name, or a release directory")
    export.add_argument("--out", type=file_path, help="output file (default <name>-<version>-labelstudio.json)")
    release_options(export)

    imp = command(rsub, "import", "Record the annotations of a Label Studio JSON export as plain labels by existing "
                                  "accounts (the same file twice is recorded once; adjudicate in zhbench).",
                  "zhbench review import 0.1.0 project-3-at-2026-11-20.json --user 7=alice --user bob@lab.cn=bob",
                  cmd_import)
    imp.add_argument("release", help="a version of --name, or a release directory")
    imp.add_argument("file", type=file_path, help="Label Studio's JSON export")
    imp.add_argument("--user", action="append", metavar="LSNAME=NAME",
                     help="whose account a Label Studio user id's or e-mail's annotations are (repeatable); a name "
                          "with no account and no mapping refuses the whole import")
    release_options(imp)
