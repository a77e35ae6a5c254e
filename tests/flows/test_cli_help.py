"""Every ``zhbench`` command and subcommand explains itself: ``--help`` exits 0 and ends with an example of
that very command. The commands are read from the parser, so a new one is checked without being listed."""

from __future__ import annotations

import argparse

import pytest

from flows.cli import build_parser, main


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(path, parser) of ``parser`` and of every subcommand under it, depth first."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, path + (name,))


COMMANDS = [path for path, _ in commands(build_parser())]


def example_lines(help_text: str) -> list[str]:
    """The lines after the help's ``example:`` heading."""
    head, found, tail = help_text.partition("\nexample:\n")
    assert found, "no example: section"
    return [line.strip() for line in tail.splitlines() if line.strip()]


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path) or "zhbench")
def test_help_exits_0_and_shows_an_example_of_the_command(path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*path, "--help"])

    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: {' '.join(('zhbench', *path))} ")
    invocation = " ".join(("zhbench", *path)) + " "
    assert any(invocation in line + " " for line in example_lines(out)), out


def test_the_walk_reaches_subcommands_of_every_group():
    groups = [(path, parser) for path, parser in commands(build_parser())
              if any(isinstance(a, argparse._SubParsersAction) for a in parser._actions)]
    assert len(groups) > 1  # the root and at least one group of subcommands
    for path, _ in groups:
        assert any(len(other) == len(path) + 1 and other[:len(path)] == path for other in COMMANDS), path


@pytest.mark.parametrize("path", [path for path, parser in commands(build_parser()) if path and any(
    isinstance(a, argparse._SubParsersAction) for a in parser._actions)], ids=" ".join)
def test_a_group_without_its_subcommand_prints_its_help(path, capsys):
    assert main(list(path)) == 0

    out = capsys.readouterr().out
    assert out.startswith(f"usage: zhbench {' '.join(path)} ") and "\nexample:\n" in out
