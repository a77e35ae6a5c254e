"""Walks over a page's tree that answer a question for many elements at once, each element stepped on once.

The layouts ask questions of many elements together: which of some elements lies above each of others
(the table a paragraph is in, the value a link belongs to), which elements hold one of some others (a
cell holding a table), which sibling follows each (the value after each name). Answered one element at
a time, each answer walks the ancestors or the siblings again: on a page nested a few thousand deep that
is millions of steps (3,001 nested tables took 17 s). Here each walk stops where an earlier walk has
been and takes its answer, so a whole set of answers costs one step per element on the ways walked:
linear in the page.

The functions take the backend's own elements and how to step from one: ``up`` (the parent, None at
the top), ``after`` (the next sibling that is an element, None after the last), ``key`` (a hashable
identity, stable while the tree lives; None where the element itself is one) and ``name``; no wrapper
is built per step.

:func:`counting` counts the steps (tests and ``bench/parse_nested_bench.py`` hold them linear;
:mod:`crawlers.parsers.counting` counts the other node operations alike).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Hashable, Iterator, Sequence

Step = Callable[[object], object]
Key = Callable[[object], Hashable]


class Visits:
    """Elements visited while counting: each step of a walk, and what the node operations read."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


_counter: Visits | None = None


@contextmanager
def counting() -> Iterator[Visits]:
    """Count the elements the node layer visits inside the block (one count at a time)."""
    global _counter
    previous, _counter = _counter, Visits()
    try:
        yield _counter
    finally:
        _counter = previous


def charge(steps: int) -> None:
    if _counter is not None:
        _counter.count += steps


_MISSING = object()


def nearest(items: Sequence, among: Sequence, up: Step, key: Key | None, stop=None) -> list[int | None]:
    """For each of ``items``, the index in ``among`` of the nearest element strictly above it that is one
    of ``among``; None where none is (below ``stop``, where given: the walks end there). Every element
    passed on the way up remembers the answer, so a later walk stops at the first one an earlier passed."""
    memo: dict = {}
    for i, el in enumerate(among):
        memo.setdefault(el if key is None else key(el), i)  # an element given twice answers with its first place
    if stop is not None:
        memo.setdefault(stop if key is None else key(stop), None)
    get = memo.get
    answers: list[int | None] = []
    steps = 0
    for el in items:
        path = []
        found = None
        parent = up(el)
        while parent is not None:
            steps += 1
            k = parent if key is None else key(parent)
            found = get(k, _MISSING)
            if found is not _MISSING:
                break
            path.append(k)
            parent = up(parent)
        if parent is None:  # the top: nothing above is one of among
            found = None
        for k in path:
            memo[k] = found
        answers.append(found)
    charge(steps)
    return answers


def holding(items: Sequence, up: Step, key: Key | None, stop=None) -> set:
    """The keys of the elements that hold (are strictly above) one of ``items``, up to ``stop`` where given
    (the walks end there): each walk up ends at an element already marked, whose ancestors are marked too."""
    held: set = set()
    add = held.add
    end = stop if key is None or stop is None else key(stop)
    steps = 0
    for el in items:
        parent = up(el)
        while parent is not None:
            steps += 1
            k = parent if key is None else key(parent)
            if k in held:
                break
            add(k)
            if k == end:
                break
            parent = up(parent)
    charge(steps)
    return held


def following(items: Sequence, tag: str, after: Step, name: Callable[[object], str], key: Key | None) -> list:
    """For each of ``items`` (in document order), the first sibling after it named ``tag``, None where none
    is. A walk that meets another of the items takes that item's answer: items are answered from the
    last, so a run of names before one value is walked once, not once per name."""
    index = {el if key is None else key(el): i for i, el in enumerate(items)}
    answers: list = [None] * len(items)
    steps = 0
    for i in range(len(items) - 1, -1, -1):
        sibling = after(items[i])
        while sibling is not None:
            steps += 1
            if name(sibling) == tag:
                answers[i] = sibling
                break
            j = index.get(sibling if key is None else key(sibling))
            if j is not None and j > i:
                answers[i] = answers[j]
                break
            sibling = after(sibling)
    charge(steps)
    return answers
