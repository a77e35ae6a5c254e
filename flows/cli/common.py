"""What every ``zhbench`` command uses: the parser that reports a mistake in one line, the example each
command's help ends with, release options, and the run of a command that turns the library's named errors
into one ``zhbench: error: ...`` line and an exit status.

At the bottom of the CLI: it imports no command module.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import textwrap
import threading
import traceback
from pathlib import Path
from typing import Callable, Sequence

from crawlers.crawl import CrawlError
from crawlers.mirror.facts import FactsError
from flows.report import ReportError
from schemas.storage.catalog import CatalogError
from crawlers.seeds import SeedError
from flows.settings import SettingsError
from schemas.releases import ReleaseError, load_manifest, refuse_release_tree
from schemas.llm import LLMError
from verifiers.search import SearchError

# A user's mistake, not a bug: one line and exit 1, no traceback.
USER_ERRORS = (SeedError, CrawlError, ReleaseError, FactsError, SettingsError, CatalogError, ReportError, LLMError,
               SearchError, OSError, ValueError)


class UsageError(Exception):
    """A command given the wrong arguments: one line and exit 2, as argparse's own mistakes."""


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake in one line instead of a usage block."""

    commands = None  # a group's subparsers (``group``), which another module may add to

    def error(self, message: str):  # type: ignore[override]
        # An argument argparse quotes as given ("unrecognized arguments: a<newline>b") stays on the one line.
        raise UsageError(f"{escaped(message)} (see '{self.prog} --help')")


def command(sub, name: str, help_text: str, example: str, func: Callable) -> argparse.ArgumentParser:
    """A subcommand of ``sub`` whose help ends with ``example``, run by ``func(args) -> exit status``."""
    parser = sub.add_parser(
        name, help=help_text, description=help_text,
        epilog="example:\n" + textwrap.indent(example.strip(), "  "),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(func=func)
    return parser


def group(sub, name: str, help_text: str, example: str, dest: str) -> tuple[argparse.ArgumentParser, object]:
    """A command of subcommands (``zhbench release ...``), which alone prints its help; and its subparsers,
    also kept as the parser's ``commands``."""
    parser = command(sub, name, help_text, example, lambda args: show_help(parser))
    parser.commands = parser.add_subparsers(dest=dest, metavar="COMMAND", parser_class=Parser)
    return parser, parser.commands


def show_help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 0


def release_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", default="cdtp", help="release name (default cdtp)")
    data_dir_option(p)


def data_dir_option(p: argparse.ArgumentParser, what: str = "data directory") -> None:
    p.add_argument("--data-dir", type=directory, default="zhbench-data", help=f"{what} (default ./zhbench-data)")


def release_dir(args: argparse.Namespace, release: str | None = None) -> Path:
    """The directory of ``release`` (default: the command's ``release`` argument) of ``--name``."""
    from warehouse.inspect import resolve

    return resolve(Path(args.data_dir), args.name, release or args.release)


def outside_releases(path: str | Path, option: str = "--out", data_dir: str | Path = "zhbench-data") -> Path:
    """An output path of a command as a Path; a ReleaseError (one line, even with --force) when it lies where
    only publishing writes: ``data_dir``'s releases/ tree, or a release directory anywhere."""
    return refuse_release_tree(Path(path), Path(data_dir) / "releases", option)


def release_named(args: argparse.Namespace) -> tuple[Path, str, str]:
    """The command's release directory, and the name and version its manifest gives."""
    directory = release_dir(args)
    manifest = load_manifest(directory)
    return directory, manifest.name, manifest.version


# --- argparse types: a value out of range is argparse's own one-line mistake, exit 2 ----------------------
# Each option of every command takes one of these, so a negative count, a port past 65535, nan, inf or a
# 20-digit typo is refused before anything starts.

MAX_COUNT = 10**9  # pages, items, entries: beyond any one crawl or release, and a typo's 20 digits refused
MAX_MINUTES = 525_600  # a year


def whole(minimum: int = 0, maximum: int = MAX_COUNT) -> Callable[[str], int]:
    """The argparse type of a whole number from ``minimum`` to ``maximum``."""

    def parse(text: str) -> int:
        value = _number(int, text)
        if value < minimum and maximum >= MAX_COUNT:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more, got {_shown(text)}")
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"must be between {minimum} and {maximum}, got {_shown(text)}")
        return value

    parse.kind, parse.bounds, parse.above = int, (minimum, maximum), False  # read by the tests of every option
    return parse


def real(minimum: float, maximum: float = math.inf, above: bool = False) -> Callable[[str], float]:
    """The argparse type of a finite number from ``minimum`` (or, ``above``, more than it) to ``maximum``."""
    if above:
        wanted = "a positive number" if minimum == 0 else f"more than {minimum:g}"
        wanted += f" of at most {maximum:g}" if maximum < math.inf else ""
    elif maximum < math.inf:
        wanted = f"between {minimum:g} and {maximum:g}"
    else:
        wanted = f"{minimum:g} or a positive number" if minimum == 0 else f"{minimum:g} or more"

    def parse(text: str) -> float:
        value = _number(float, text)
        low = value > minimum if above else value >= minimum
        if not (math.isfinite(value) and low and value <= maximum):  # nan fails every comparison
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {_shown(text)}")
        return value

    parse.kind, parse.bounds, parse.above = float, (minimum, maximum), above
    return parse


def _number(kind: type, text: str):
    try:
        return kind(text)
    except ValueError:  # also an int of more than 4,300 digits
        raise argparse.ArgumentTypeError(f"'{_shown(text)}' is not {'a whole number' if kind is int else 'a number'}") \
            from None


def escaped(text: str) -> str:
    """``text`` on one line: each character that does not print (a line break, a control character) as its
    escape (``\\n``, ``\\x00``); the rest, Chinese included, as it is."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _shown(text: str, limit: int = 40) -> str:
    """``text`` for a one-line message: control characters escaped, and cut short past ``limit`` characters."""
    shown = escaped(text)
    return shown if len(shown) <= limit else f"{shown[:limit]}... ({len(text):,} characters)"


count = whole(0, MAX_COUNT)  # 0 or more
port = whole(1, 65535)  # a TCP port to listen on
any_port = whole(0, 65535)  # 0: the system picks a free one
per_second = real(0)  # a rate, 0 for none
seed = whole(0, 2**32 - 1)  # a random seed (numpy's range, so that any seed works everywhere)
share = real(0, 1)  # a share, 0 to 1
minutes = real(0, MAX_MINUTES, above=True)


# --- argparse types of paths: a file where a directory is wanted, or the reverse, is one line ----------------

PATH_SHOWN = 300  # characters of a path a message shows


def directory(text: str) -> Path:
    """A directory, or where one will be made: anything but an existing file."""
    path = _path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{_shown(text, PATH_SHOWN)} is a file, not a directory; give a directory")
    return path


def file_path(text: str) -> Path:
    """A file to read or write: anything but an existing directory (a missing file to read is the reader's
    one-line error, which names what the file should hold)."""
    path = _path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{_shown(text, PATH_SHOWN)} is a directory, not a file; give a file")
    return path


def _path(text: str) -> Path:
    """A path the system can look at: no NUL, no name longer than it allows."""
    if "\x00" in text:
        raise argparse.ArgumentTypeError(f"'{_shown(text, PATH_SHOWN)}' is no usable path (it holds a NUL character)")
    path = Path(text)
    try:
        path.exists()
    except OSError as exc:  # a name or a path too long (ENAMETOOLONG)
        raise argparse.ArgumentTypeError(f"'{_shown(text, PATH_SHOWN)}' is no usable path ({exc.strerror or exc})") from None
    return path


# --- running a command: errors and signals to exit statuses -----------------------------------


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


def execute(parser: argparse.ArgumentParser, argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run its command: its exit status, or the status of the error or signal that ended it."""
    _signals.clear()
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
