"""The ``zhbench`` command: thin verbs over library functions.

Each command parses its arguments, calls one library function and turns the library's named errors
into one ``zhbench: error: ...`` line with a non-zero exit (``common.execute``). One module per verb
group registers its commands; ``common`` under them all imports none of them.
"""

from __future__ import annotations

import argparse
from typing import Sequence

from flows.cli import crawl, labelstudio, mirror, questions, release, review, run
from flows.cli.common import Parser, execute
from schemas.storage.shards import system_allocator

# In the order of ``zhbench --help``; labelstudio adds to the review group, so it comes after review.
GROUPS = (run, crawl, mirror, questions, release, review, labelstudio)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="zhbench",
        description="Turn Chinese encyclopedia pages into verified, versioned benchmark datasets.",
        epilog="example:\n  zhbench run                 # whole pipeline on the bundled offline mirror\n"
               "  zhbench run --help          # options of one command",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for group in GROUPS:
        group.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    system_allocator()
    return execute(parser, argv)
