"""The work a layout does on a page, counted in elements visited rather than seconds.

:func:`visits` reads a page with its layout on a tree whose node operations are each charged what they
read: a search (``all``, ``first``, ``select``...), ``text``, ``remove`` and ``breaks_to_newlines`` the
elements of the subtree (what lexbor, libxml2 and BeautifulSoup walk), ``within`` and ``next_sibling``
the steps they take, ``children`` the children, anything else one; the walks of
:mod:`crawlers.parsers.walks` charge their own steps. Reading that is linear in the page visits twice
the elements on a page twice as deep; a quadratic path, four times. Tests and
``bench/parse_nested_bench.py`` count with it; :func:`crawlers.parsers.parse` never does.
"""

from __future__ import annotations

from crawlers.parsers import detect, walks
from crawlers.parsers.layouts import LAYOUTS
from crawlers.parsers.tree import BACKENDS, Node


def visits(html: str, url: str, backend: str = "selectolax") -> tuple[dict, int]:
    """(the layout's fields, the elements its reading visited) for one page given as text."""
    _, layout = detect.detect_source(url, html)
    if layout not in LAYOUTS:
        raise ValueError(f"no layout recognised for {url}")
    root = BACKENDS[backend](html)
    with walks.counting() as counted:
        fields = LAYOUTS[layout](Counted(root), url)
    return fields, counted.count


def _wrap(node: Node | None) -> "Counted | None":
    return Counted(node) if node is not None else None


class Counted(Node):
    """A node of any backend, charging each operation to the count (module docstring)."""

    __slots__ = ("inner",)

    def __init__(self, inner: Node):
        self.inner = inner

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def el(self):
        return self.inner.el

    def _key(self, el):
        return el if self.inner._key is None else self.inner._key(el)

    def _read(self, times: int = 1) -> None:
        walks.charge(self.inner.size() * times)

    def first(self, *args, **kwargs):
        self._read()
        return _wrap(self.inner.first(*args, **kwargs))

    def all(self, *args, **kwargs):
        self._read()
        return [Counted(n) for n in self.inner.all(*args, **kwargs)]

    def select(self, queries):
        self._read()
        return {k: [Counted(n) for n in found] for k, found in self.inner.select(queries).items()}

    def firsts(self, queries):
        self._read(len(queries))
        return {k: _wrap(n) for k, n in self.inner.firsts(queries).items()}

    def any_of(self, *queries):
        self._read()
        return [Counted(n) for n in self.inner.any_of(*queries)]

    def grouped(self, groups, tag):
        self._read()
        found = self.inner.grouped([g.inner for g in groups], tag)
        return None if found is None else [[Counted(n) for n in group] for group in found]

    def children(self):
        found = self.inner.children()
        walks.charge(len(found) + 1)
        return [Counted(n) for n in found]

    def parent(self):
        walks.charge(1)
        return _wrap(self.inner.parent())

    def next_sibling(self, tag=None, cls=None):
        found = self.inner.next_sibling(tag, cls)
        stop = self._key(found.el) if found is not None else None
        steps, el = 1, self.inner._after(self.inner.el)
        while el is not None and self._key(el) != stop:  # up to the match, or past the last sibling
            steps, el = steps + 1, self.inner._after(el)
        walks.charge(steps)
        return _wrap(found)

    def text(self) -> str:
        self._read()
        return self.inner.text()

    def get(self, name):
        walks.charge(1)
        return self.inner.get(name)

    def remove(self) -> None:
        self._read()
        self.inner.remove()

    def within(self, other) -> bool:
        steps, target, el = 0, self._key(other.inner.el), self.inner._up(self.inner.el)
        while el is not None:
            steps += 1
            if self._key(el) == target:
                break
            el = self.inner._up(el)
        walks.charge(steps)
        return self.inner.within(other.inner)

    def breaks_to_newlines(self, brs=None) -> None:
        if brs is None:
            self._read()
        else:
            walks.charge(len(brs))
        self.inner.breaks_to_newlines(None if brs is None else [b.inner for b in brs])

    def nearest(self, nodes, among):
        return self.inner.nearest([n.inner for n in nodes], [a.inner for a in among])

    def holding(self, nodes, candidates):
        return self.inner.holding([n.inner for n in nodes], [c.inner for c in candidates])

    def following(self, nodes, tag):
        return [_wrap(n) for n in self.inner.following([n.inner for n in nodes], tag)]

    def size(self) -> int:
        return self.inner.size()
