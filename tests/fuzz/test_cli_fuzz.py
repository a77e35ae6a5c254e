"""Every numeric and path option of every command, with values out of range, not numbers at all, NaN,
infinities, 20-digit typos and paths of the wrong kind: each is one ``zhbench: error: argument ...`` line
and exit 2, never a traceback, and no command runs.

In-process through the parser ``flows.cli`` builds (a process per example would take seconds each); a few
subprocess checks at the end see what a shell sees. Every command line ends with an unknown flag, so that a
value the option accepts ends in another usage error (that flag, or an argument the command requires) instead
of running the command.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flows.cli import build_parser
from flows.cli.common import directory, execute, file_path

ROOT = Path(__file__).resolve().parents[2]
PARSER = build_parser()
UNKNOWN = "--zz-not-an-option"
# Fast enough for every run of the suite (well under a second per thousand examples), derandomised.
QUICK = settings(max_examples=600, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow])


def commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, (*prefix, name))
    yield prefix, parser


def options(kind) -> list[tuple[tuple[str, ...], str, object]]:
    """(command, option, its type) of every option whose type ``kind`` accepts."""
    return sorted({(command, action.option_strings[-1], action.type)
                   for command, parser in commands(PARSER) for action in parser._actions
                   if action.option_strings and kind(action.type)}, key=lambda o: (o[0], o[1]))


NUMERIC = options(lambda t: hasattr(t, "bounds"))
DIRECTORIES = options(lambda t: t is directory)
FILES = options(lambda t: t is file_path)


def run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = execute(PARSER, argv)
    return status, err.getvalue()


def accepts(kind, text: str) -> bool:
    """The oracle: whether ``text`` is a value of a shared numeric type (``kind.kind`` int or float), by its
    bounds."""
    low, high = kind.bounds
    try:
        value = kind.kind(text)
    except ValueError:
        return False
    return math.isfinite(value) and (value > low if kind.above else value >= low) and value <= high


def test_every_numeric_option_of_every_command_takes_a_shared_type():
    """A plain int or float type would let -5, nan, inf and 20 digits through to the command."""
    plain = [(c, a.option_strings) for c, p in commands(PARSER) for a in p._actions if a.type in (int, float)]
    assert plain == []
    names = {(" ".join(c), o) for c, o, _ in NUMERIC}
    assert {("review serve", "--port"), ("review serve", "--lease-minutes"), ("review queue", "--sample"),
            ("mirror synth", "--count"), ("crawl", "--max-pages"), ("run", "--workers")} <= names
    assert len(NUMERIC) >= 25


def bad_values(kind) -> list[str]:
    low, high = kind.bounds
    values = ["nan", "NaN", "inf", "-inf", "1e999", "-1e999", "", "x", "0x10", "9" * 20, "-" + "9" * 20,
              "9" * 5_000, str(low - 1), "1,000"]
    if high < math.inf:
        values.append(str(high + 1) if kind.kind is int else repr(high * 2 + 1))
    if kind.kind is int:
        values += ["1.5", "1e3"]
    return [v for v in values if not accepts(kind, v)]


@pytest.mark.parametrize("command, option, kind", NUMERIC, ids=lambda x: " ".join(x) if isinstance(x, tuple)
                         else x if isinstance(x, str) else "")
def test_out_of_range_and_non_numbers_are_one_line_and_exit_2(command, option, kind):
    for value in bad_values(kind):
        status, err = run([*command, f"{option}={value}", UNKNOWN])
        assert status == 2, (option, value)
        assert err.count("\n") == 1 and err.startswith(f"zhbench: error: argument {option}: "), (option, value, err)


@QUICK
@given(st.data())
def test_any_value_of_a_numeric_option_is_taken_exactly_when_in_range(data):
    command, option, kind = data.draw(st.sampled_from(NUMERIC))
    low, high = kind.bounds
    value = data.draw(st.one_of(
        st.integers(min_value=-10**25, max_value=10**25).map(str),
        st.integers(min_value=int(low) - 3, max_value=int(min(high, 10**12)) + 3).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.text(max_size=30),
        st.sampled_from(["nan", "inf", "+inf", "-0", "0.0", "1_000", " 7 ", "٣", "1e-400", "1e400"]),
    ))
    status, err = run([*command, f"{option}={value}", UNKNOWN])
    assert status == 2 and err.count("\n") == 1 and err.startswith("zhbench: error: ") and "Traceback" not in err
    # refused by the option's type, or taken, and the command line refused for what else it lacks or holds
    assert err.startswith(f"zhbench: error: argument {option}: ") != accepts(kind, value), (option, value, err)


@pytest.mark.parametrize("command, option, kind", DIRECTORIES + FILES,
                         ids=lambda x: " ".join(x) if isinstance(x, tuple) else x if isinstance(x, str) else "")
def test_a_file_for_a_directory_and_a_directory_for_a_file_are_one_line(tmp_path, command, option, kind):
    a_file = tmp_path / "data.json"
    a_file.write_text("[]", encoding="utf-8")
    wrong, says = (a_file, "is a file, not a directory") if kind is directory else (tmp_path, "is a directory, "
                                                                                     "not a file")
    status, err = run([*command, f"{option}={wrong}", UNKNOWN])
    assert status == 2
    assert err == f"zhbench: error: argument {option}: {wrong} {says}; give a " \
                  f"{'directory' if kind is directory else 'file'} (see 'zhbench {' '.join(command)} --help')\n"


@QUICK
@given(st.data())
def test_any_path_text_is_taken_or_refused_in_one_line(data):
    command, option, _ = data.draw(st.sampled_from(DIRECTORIES + FILES))
    text = data.draw(st.one_of(st.text(max_size=40), st.text(alphabet="ab/\x00.", min_size=200, max_size=5_000),
                               st.sampled_from(["", ".", "/", "/dev/null", "~", "a" * 300, "/proc/self/fd/0"])))
    status, err = run([*command, f"{option}={text}", UNKNOWN])
    assert status == 2 and err.count("\n") == 1 and err.startswith("zhbench: error: ") and "Traceback" not in err, \
        (option, text, err)


@pytest.mark.parametrize("args, message", [
    (["review", "serve", "--port", "70000"], "argument --port: must be between 1 and 65535, got 70000"),
    (["review", "serve", "--lease-minutes", "nan"], "argument --lease-minutes: must be a positive number of at "
                                                   "most 525600, got nan"),
    (["mirror", "synth", "--count", "99999999999999999999", "--out", "x.jsonl"],
     "argument --count: must be between 1 and 10000000, got 99999999999999999999"),
    (["release", "list", "--data-dir", "a-file"], "argument --data-dir: a-file is a file, not a directory"),
])
def test_what_a_shell_sees(tmp_path, args, message):
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "flows.cli", *args], capture_output=True, text=True,
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(f"zhbench: error: {message}") and result.stderr.count("\n") == 1
    assert not (tmp_path / "x.jsonl").exists() and not (tmp_path / "zhbench-data").exists()
