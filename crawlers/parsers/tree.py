"""Two tree backends behind one small node interface.

The layout extractors (:mod:`crawlers.parsers.layouts`) are written once against
:class:`Node`; ``BS4Node`` runs them on BeautifulSoup (lxml tree builder), the
product's reference parser, and ``LxmlNode`` on lxml directly with compiled
XPath, several times faster. Both build their tree with libxml2's HTML parser,
so they see the same tree, and a test holds their records identical on every
fixture and every mirror page.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import lxml.html
from bs4 import BeautifulSoup, NavigableString, Tag
from lxml import etree

Names = str | Sequence[str] | None


def _as_tuple(value: Names) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


class Node:
    """A tree element. Queries search descendants in document order.

    tag: element name(s); cls: an exact class the element has (any of several);
    prefix: a class starting with this text (Baidu's hashed names: ``lemmaDesc_x1Y2z``);
    id: the id attribute; attr: (name, value) of another attribute.
    """

    name: str

    def first(self, tag: Names = None, cls: Names = None, prefix: Names = None,
              id: str | None = None, attr: tuple[str, str] | None = None) -> "Node | None":  # noqa: A002
        found = self.all(tag, cls, prefix, id, attr)
        return found[0] if found else None

    def all(self, tag: Names = None, cls: Names = None, prefix: Names = None,
            id: str | None = None, attr: tuple[str, str] | None = None) -> list["Node"]:  # noqa: A002
        raise NotImplementedError

    def select(self, queries: dict[str, dict]) -> dict[str, list["Node"]]:
        """Several queries at once: {name: dict(tag=..., cls=...)} -> {name: matches}."""
        return {name: self.all(**query) for name, query in queries.items()}

    def children(self) -> list["Node"]:
        raise NotImplementedError

    def next_sibling(self, tag: Names = None, cls: Names = None) -> "Node | None":
        raise NotImplementedError

    def text(self) -> str:
        raise NotImplementedError

    def get(self, name: str) -> str | None:
        raise NotImplementedError

    def classes(self) -> list[str]:
        return (self.get("class") or "").split()

    def remove(self) -> None:
        """Take the element and its content out; text that follows it stays."""
        raise NotImplementedError

    def within(self, other: "Node") -> bool:
        raise NotImplementedError

    def breaks_to_newlines(self) -> None:
        raise NotImplementedError


# --- BeautifulSoup -----------------------------------------------------------------


def _bs4_match(tags: tuple, classes: tuple, prefixes: tuple, id_: str | None, attr):
    def match(el: Tag) -> bool:
        if tags and el.name not in tags:
            return False
        if classes or prefixes:
            have = el.get("class") or []
            if classes and not any(c in have for c in classes):
                return False
            if prefixes and not any(c.startswith(p) for c in have for p in prefixes):
                return False
        if id_ is not None and el.get("id") != id_:
            return False
        if attr is not None and el.get(attr[0]) != attr[1]:
            return False
        return True

    return match


class BS4Node(Node):
    __slots__ = ("el",)

    def __init__(self, el: Tag):
        self.el = el

    @property
    def name(self) -> str:
        return self.el.name

    def all(self, tag=None, cls=None, prefix=None, id=None, attr=None):  # noqa: A002
        match = _bs4_match(_as_tuple(tag), _as_tuple(cls), _as_tuple(prefix), id, attr)
        return [BS4Node(el) for el in self.el.find_all(match)]

    def children(self):
        return [BS4Node(el) for el in self.el.children if isinstance(el, Tag)]

    def next_sibling(self, tag=None, cls=None):
        match = _bs4_match(_as_tuple(tag), _as_tuple(cls), (), None, None)
        found = self.el.find_next_sibling(match)
        return BS4Node(found) if found is not None else None

    def text(self) -> str:
        return self.el.get_text("")

    def get(self, name):
        value = self.el.get(name)
        if isinstance(value, list):
            return " ".join(value)
        return value

    def remove(self) -> None:
        self.el.decompose()

    def within(self, other) -> bool:
        return any(parent is other.el for parent in self.el.parents)

    def breaks_to_newlines(self) -> None:
        for br in self.el.find_all("br"):
            br.replace_with(NavigableString("\n"))


def bs4_root(html: str) -> BS4Node:
    return BS4Node(BeautifulSoup(html, "lxml"))


# --- lxml ----------------------------------------------------------------------------------


def _literal(text: str) -> str:
    if "'" not in text:
        return f"'{text}'"
    return "concat('" + "', \"'\", '".join(text.split("'")) + "')"


@lru_cache(maxsize=512)
def _xpath(axis: str, tags: tuple, classes: tuple, prefixes: tuple, id_: str | None, attr) -> etree.XPath:
    # Class tests use a plain substring test here (cheap in libxml2) and are made
    # exact in Python afterwards (_class_ok): XPath's concat/normalize-space per
    # element costs several times more on a page of thousands of elements.
    conditions = []
    if tags:
        conditions.append(" or ".join(f"self::{t}" for t in tags))
    if classes or prefixes:
        conditions.append(" or ".join(f"contains(@class, {_literal(c)})" for c in classes + prefixes))
    if id_ is not None:
        conditions.append(f"@id={_literal(id_)}")
    if attr is not None:
        conditions.append(f"@{attr[0]}={_literal(attr[1])}")
    predicate = "".join(f"[{c}]" for c in conditions)
    return etree.XPath(f"{axis}::*{predicate}")


def _query_key(query: dict) -> tuple:
    return (_as_tuple(query.get("tag")), _as_tuple(query.get("cls")), _as_tuple(query.get("prefix")),
            query.get("id"), query.get("attr"))


@lru_cache(maxsize=128)
def _union_xpath(keys: tuple) -> etree.XPath:
    parts = []
    for tags, classes, prefixes, id_, attr in keys:
        predicate = _xpath("self", tags, classes, prefixes, id_, attr).path.removeprefix("self::*")
        parts.append(predicate.replace("][", " and ").strip("[]") or "true()")
    return etree.XPath("descendant::*[" + " or ".join(f"({p})" for p in parts) + "]")


def _class_ok(el, classes: tuple, prefixes: tuple) -> bool:
    have = (el.get("class") or "").split()
    if classes and not any(c in have for c in classes):
        return False
    if prefixes and not any(c.startswith(p) for c in have for p in prefixes):
        return False
    return True


class LxmlNode(Node):
    __slots__ = ("el",)

    def __init__(self, el):
        self.el = el

    @property
    def name(self) -> str:
        return self.el.tag if isinstance(self.el.tag, str) else ""

    def all(self, tag=None, cls=None, prefix=None, id=None, attr=None):  # noqa: A002
        classes, prefixes = _as_tuple(cls), _as_tuple(prefix)
        found = _xpath("descendant", _as_tuple(tag), classes, prefixes, id, attr)(self.el)
        if classes or prefixes:
            found = [el for el in found if _class_ok(el, classes, prefixes)]
        return [LxmlNode(el) for el in found]

    def select(self, queries: dict[str, dict]) -> dict[str, list["Node"]]:
        # One pass over the document for all queries instead of one pass each.
        keys = tuple((name, _query_key(q)) for name, q in queries.items())
        union = _union_xpath(tuple(key for _, key in keys))
        result: dict[str, list[Node]] = {name: [] for name in queries}
        for el in union(self.el):
            for name, (tags, classes, prefixes, id_, attr) in keys:
                if tags and el.tag not in tags:
                    continue
                if (classes or prefixes) and not _class_ok(el, classes, prefixes):
                    continue
                if id_ is not None and el.get("id") != id_:
                    continue
                if attr is not None and el.get(attr[0]) != attr[1]:
                    continue
                result[name].append(LxmlNode(el))
        return result

    def children(self):
        return [LxmlNode(el) for el in self.el if isinstance(el.tag, str)]

    def next_sibling(self, tag=None, cls=None):
        classes = _as_tuple(cls)
        for el in _xpath("following-sibling", _as_tuple(tag), classes, (), None, None)(self.el):
            if not classes or _class_ok(el, classes, ()):
                return LxmlNode(el)
        return None

    def text(self) -> str:
        # Text nodes only, like BeautifulSoup's get_text: comments and processing
        # instructions contribute nothing.
        return "".join(_TEXT(self.el))

    def get(self, name):
        return self.el.get(name)

    def remove(self) -> None:
        self.el.drop_tree()

    def within(self, other) -> bool:
        return any(parent is other.el for parent in self.el.iterancestors())

    def breaks_to_newlines(self) -> None:
        for br in self.el.iter("br"):
            br.tail = "\n" + (br.tail or "")


_TEXT = etree.XPath("descendant-or-self::text()")


class _Empty(Node):
    name = ""

    def all(self, *args, **kwargs):
        return []

    def children(self):
        return []

    def text(self) -> str:
        return ""

    def get(self, name):
        return None


_UTF8_PARSER = lxml.html.HTMLParser(encoding="utf-8")


def lxml_root(html: str) -> Node:
    try:
        return LxmlNode(lxml.html.document_fromstring(html))
    except ValueError:
        # lxml refuses text that still carries an <?xml encoding=...?> declaration.
        try:
            return LxmlNode(lxml.html.document_fromstring(html.encode("utf-8"), parser=_UTF8_PARSER))
        except etree.ParserError:
            return _Empty()
    except etree.ParserError:
        return _Empty()


BACKENDS = {"lxml": lxml_root, "bs4": bs4_root}
