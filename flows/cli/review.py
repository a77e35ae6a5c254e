"""``zhbench review``: queue a release for people, run the annotation web app, manage accounts and follow
agreement. Its Label Studio commands are in ``flows.cli.labelstudio``."""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

from flows.cli.common import (MAX_MINUTES, command, count, data_dir_option, file_path, group, minutes, port,
                              release_named, release_options, seed)
from flows.settings import Settings

EXAMPLES = """zhbench review add-user alice --role admin
zhbench review queue 0.1.0 --config simpleqa --sample 200
zhbench review serve --port 8765
zhbench review status 0.1.0"""


def _store(args: argparse.Namespace):
    from review.store import ReviewStore

    return ReviewStore.at(args.data_dir)


def cmd_queue(args: argparse.Namespace) -> int:
    from review.queue import queue_release

    directory, name, version = release_named(args)
    added = queue_release(Path(args.data_dir), directory, None, args.config, args.sample, args.seed, args.split)
    queued = _store(args).status(name, version)["queued"]
    print(f"{name} {version}: {added} items queued for review ({queued} in the queue)")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from review.summary import status_lines

    _, name, version = release_named(args)
    for line in status_lines(_store(args), name, version):
        print(line)
    return 0


def _password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\n")
    if not sys.stdin.isatty():
        raise ValueError("no terminal to ask for the password; pipe it with --password-stdin")
    first = getpass.getpass(f"password for {args.user}: ")
    if getpass.getpass("again: ") != first:
        raise ValueError("the two passwords differ; nothing was changed")
    return first


def cmd_add_user(args: argparse.Namespace) -> int:
    user = _store(args).add_user(args.user, args.role, _password(args), replace=args.replace)
    print(f"{user.name}: {user.role} ({'updated' if args.replace else 'added'}; "
          f"{Path(args.data_dir) / 'review.sqlite'})")
    return 0


def cmd_users(args: argparse.Namespace) -> int:
    users = _store(args).users()
    if not users:
        print("no accounts yet; add one: zhbench review add-user NAME --role admin")
    for user in users:
        print(f"{user.name:<24} {user.role}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from review.app import exposure_note, serve

    if not _store(args).users():
        raise ValueError(f"no accounts in {Path(args.data_dir) / 'review.sqlite'}; add one first: "
                         "zhbench review add-user NAME --role admin")
    if note := exposure_note(args.host, args.secure_cookies):
        print(f"zhbench: note: {note}", file=sys.stderr)
    lease_minutes = args.lease_minutes
    if lease_minutes is None:
        lease_minutes = Settings.load(args.config).review.lease_minutes
    if not 0 < lease_minutes <= MAX_MINUTES:  # nan too
        raise ValueError(f"review.lease_minutes must be more than 0 and at most {MAX_MINUTES}, got {lease_minutes}")
    print(f"review app on http://{args.host}:{args.port}/ (Ctrl-C stops it; what was submitted is kept)")
    serve(Path(args.data_dir), host=args.host, port=args.port, lease_minutes=lease_minutes,
          secure_cookies=args.secure_cookies)
    return 0


def register(sub) -> None:
    _, rsub = group(sub, "review", "Human review: queue a release, serve the annotation app, manage accounts "
                                   "and follow agreement.", EXAMPLES, "review_command")

    queue = command(rsub, "queue", "Queue items of a release for two blind annotations each.",
                    "zhbench review queue 0.1.0 --config simpleqa --config qa --sample 100 --seed 1", cmd_queue)
    queue.add_argument("release", help="a version of --name, or a release directory")
    queue.add_argument("--config", action="append", help="a config to queue: an item config or cdtp_pairs "
                                                         "(repeatable; default all)")
    queue.add_argument("--sample", type=count, help="at most this many items per config, picked by --seed")
    queue.add_argument("--seed", type=seed, default=0, help="seed of the sample (default 0)")
    queue.add_argument("--split", default="eval", choices=["eval", "train", "all"], help="which split (default eval)")
    release_options(queue)

    status = command(rsub, "status", "Counts of a release's review queue, verdicts and Cohen's kappa.",
                     "zhbench review status 0.1.0", cmd_status)
    status.add_argument("release", help="a version of --name, or a release directory")
    release_options(status)

    add = command(rsub, "add-user", "Add an account (annotator, adjudicator or admin); asks for its password.",
                  "zhbench review add-user alice --role annotator\n"
                  "printf '%s\\n' \"$PW\" | zhbench review add-user bob --role admin --password-stdin", cmd_add_user)
    add.add_argument("user", help="the account's name (no spaces)")
    add.add_argument("--role", required=True, choices=["annotator", "adjudicator", "admin"],
                     help="annotator labels; adjudicator also settles disagreements and reviews relations; admin "
                          "also sees the admin page and manages accounts")
    add.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    add.add_argument("--replace", action="store_true", help="change an existing account's role and password")
    data_dir_option(add)

    users = command(rsub, "users", "List the accounts.", "zhbench review users", cmd_users)
    data_dir_option(users)

    serve = command(rsub, "serve", "Serve the annotation web app (annotate, adjudicate, relations, admin).",
                    "zhbench review serve --port 8765\nzhbench review serve --host 0.0.0.0 --secure-cookies",
                    cmd_serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=port, default=8765, help="port (default 8765)")
    serve.add_argument("--lease-minutes", type=minutes,
                       help="how long an annotator holds an item before it returns to the queue (default: "
                            "review.lease_minutes of the settings, 30)")
    serve.add_argument("--config", type=file_path, help="settings file (TOML) for review.lease_minutes")
    serve.add_argument("--secure-cookies", action="store_true",
                       help="mark session cookies Secure (behind HTTPS)")
    data_dir_option(serve)
