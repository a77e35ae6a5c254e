"""JSON lines as users write them: one JSON object per line, a bad line named by file and number.

Every reader of a JSON-lines file a user hands in (``zhbench align`` on stdin, ``zhbench score
--predictions``, ``zhbench questions check``, registered question files, the mirror's facts) goes through
:func:`read_jsonl`, so a bad line gets the same :class:`JSONLinesError` everywhere. A line is bad
when it is

* not UTF-8 (the file is read as bytes and each line decoded on its own, so the lines before it
  are read and the error names the line);
* not JSON, or a number too long for Python (over 4300 digits);
* nested deeper than :data:`MAX_DEPTH` (``[[[[...``: checked before parsing, as the parser
  recurses once per level);
* holding a lone surrogate (``"\\ud800"``): valid JSON, but no UTF-8 text, so neither the
  pipeline's matching nor any writer downstream could take it;
* anything but an object.

Blank lines are skipped, a byte-order mark before the first line is allowed, and line numbers
count from 1 over every line, blank ones included (as editors number them).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import IO, Any, Callable, Iterator

# No record of this project nests more than a few levels; a deeper line is an accident or an attack.
MAX_DEPTH = 100

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
# \uD800 to \uDFFF written as an escape: the only way a lone surrogate gets into parsed JSON.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_KINDS = {list: "a list", str: "a string", int: "a number", float: "a number", bool: "true or false",
          type(None): "null"}


class JSONLinesError(ValueError):
    """A line of a JSON-lines file cannot be read; ``path``, ``line`` (from 1) and ``reason`` say
    where and why, ``hint`` what a line should look like."""

    def __init__(self, path: str, line: int, reason: str, hint: str = ""):
        self.path, self.line, self.reason, self.hint = str(path), line, reason, hint
        super().__init__(f"{path}:{line}: {reason}" + (f"; {hint}" if hint else ""))


class _BadLine(Exception):
    pass


def read_jsonl(source: Path | str | IO, *, hint: str = "", name: str | None = None,
               on_error: Callable[[JSONLinesError], None] | None = None) -> Iterator[tuple[int, dict]]:
    """(line number, object) of each non-blank line of a file or an open stream.

    source: a path, or a stream of bytes (``sys.stdin.buffer``) or text;
    hint: what a line should look like, appended to every error message;
    name: the file's name in messages (default: the path, or the stream's name);
    on_error: called with each bad line's error, reading going on after it; without it, the first
    bad line raises its :class:`JSONLinesError`.
    """
    if isinstance(source, (str, Path)):
        with open(source, "rb") as handle:
            yield from read_jsonl(handle, hint=hint, name=name or str(source), on_error=on_error)
        return
    name = name or str(getattr(source, "name", "<stream>"))
    for number, raw in enumerate(source, 1):
        try:
            text = _decode(raw, first=number == 1)
            if not text.strip():
                continue
            value = _parse(text)
        except _BadLine as exc:
            error = JSONLinesError(name, number, str(exc), hint)
            if on_error is None:
                raise error from None
            on_error(error)
            continue
        yield number, value


def _parse(text: str) -> dict:
    """One line's value; a bad line raises ``_BadLine`` with the reason (see the module docstring)."""
    if _too_deep(text):
        raise _BadLine(f"nested deeper than {MAX_DEPTH} levels")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _BadLine(f"not JSON ({exc.msg})") from None
    except RecursionError:  # not reached after _too_deep; kept so that no line can end in a traceback
        raise _BadLine(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # an integer of more than sys.get_int_max_str_digits() digits
        raise _BadLine(f"not JSON ({exc})") from None
    if _SURROGATE_ESCAPE.search(text):
        lone = _lone_surrogate(value)
        if lone is not None:
            raise _BadLine(f"a lone surrogate \\u{ord(lone):04x} in a string, which no UTF-8 text can hold; "
                           "write the character itself, or both halves of its surrogate pair")
    if not isinstance(value, dict):
        raise _BadLine(f"{_KINDS.get(type(value), type(value).__name__)}, not a JSON object")
    return value


def _decode(raw: bytes | str, first: bool) -> str:
    if isinstance(raw, str):
        return raw[1:] if first and raw.startswith("\ufeff") else raw
    if first and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _BadLine(f"not UTF-8 (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1} of the line); "
                       "save the file as UTF-8") from None


def _too_deep(text: str) -> bool:
    """Whether brackets outside strings nest deeper than MAX_DEPTH (never, with that few brackets)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    depth = 0
    for ch in _NOT_BRACKET.sub("", _STRING.sub("", text)):
        if ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif depth:
            depth -= 1
    return False


def _lone_surrogate(value: Any) -> str | None:
    """A lone surrogate in the strings (keys included) of a parsed value, or None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                return found.group(0)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None
