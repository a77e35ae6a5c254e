"""Three tree backends behind one small node interface.

The layout extractors (:mod:`crawlers.parsers.layouts`) are written once against
:class:`Node`; ``BS4Node`` runs them on BeautifulSoup (lxml tree builder), the
product's reference parser, ``LxmlNode`` on lxml directly with compiled
XPath, several times faster, and ``SelectolaxNode`` on lexbor's HTML5 tree
(selectolax) with CSS selectors, the fastest and the default. The first two build
their tree with libxml2's HTML parser; lexbor builds it as browsers do, which
differs only where markup breaks nesting rules. Tests hold the three backends'
records identical on every fixture, every mirror page and generated pages
(``tests/fuzz``), and on saved pages mutated with valid markup; on broken markup they
differ only in the known ways of ``tests/crawlers/test_backend_agreement.py``. Where
libxml2 builds valid markup otherwise than HTML5, its trees are mended (``bs4_root``).

Questions a layout asks of many elements at once (``nearest``, ``holding``,
``following``) are answered by the walks of :mod:`crawlers.parsers.walks`, each element
stepped on once: reading a page is linear in it however deep it nests.

Where libxml2's own tree builder gives up, the ``lxml`` backend reads the page
through BeautifulSoup instead, so the records stay the same: a page nested deeper
than 2,048 elements (libxml2's limit even with ``huge_tree``; 256 without it).
BeautifulSoup builds its tree from the parser's events and has no depth limit; its
tree walks are iterative, so 100,000 levels raise no RecursionError.

Readable text. Every string a node gives out (``text()``, ``get()``) is passed
through :func:`readable`: the C0 and C1 control characters other than tab, line
feed and carriage return, the Unicode noncharacters (U+FDD0..U+FDEF, U+xFFFE,
U+xFFFF) and unpaired surrogates are removed, and vertical tab, form feed and
next line (U+0085), which Unicode counts as white space, read as a space. A page's
text never legitimately holds them; they come from broken exports (``\\x0b`` is
Word's line break) or from character references such as ``&#1;``, which the parser
expands after decoding, so the cleaning is done where text leaves the tree, the
same in both backends. NUL is removed before parsing (libxml2 would read it as
U+FFFD); the references ``&#0;``, to a surrogate or past U+10FFFF read as U+FFFD,
as HTML defines them.
"""

from __future__ import annotations

import re
import warnings
from operator import attrgetter, methodcaller

from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning, NavigableString, Tag, XMLParsedAsHTMLWarning
from bs4.builder import ParserRejectedMarkup
from lxml import etree
from selectolax.lexbor import LexborHTMLParser

from crawlers.parsers import walks
from crawlers.parsers.queries import (Names, _as_tuple, _class_of, _class_ok, _class_test, _css_query, _lexbor_match,
                                      _matches, _may_repeat, _plan_of, _query_key, _union_plan, _union_xpath, _xpath)

_UNREADABLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff"
    + "".join(f"{chr(plane << 16 | 0xFFFE)}{chr(plane << 16 | 0xFFFF)}" for plane in range(1, 17))
    + "]"
)
_AS_SPACE = frozenset("\x0b\x0c\x85")
_SURROGATES = re.compile("[\ud800-\udfff]")


def _unreadable(match: re.Match) -> str:
    return " " if match.group() in _AS_SPACE else ""


def readable(text: str) -> str:
    """``text`` without control characters, noncharacters and unpaired surrogates (module docstring)."""
    if text.isprintable():  # none of them is printable: most strings are returned as they are, at once
        return text
    return _UNREADABLE.sub(_unreadable, text)


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

    def firsts(self, queries: dict[str, dict]) -> dict[str, "Node | None"]:
        """The first match of each of several queries: {name: query} -> {name: node or None}."""
        return {name: found[0] if found else None for name, found in self.select(queries).items()}

    def any_of(self, *queries: dict) -> list["Node"]:
        """The descendants matching any of the queries, in document order, each once: one pass."""
        raise NotImplementedError

    def grouped(self, groups: list["Node"], tag: Names) -> list[list["Node"]] | None:
        """``[g.all(tag=tag) for g in groups]`` in one search of this node, for groups that lie within
        it, none inside another and none twice; None where the backend searches each group itself
        (the caller does), or where groups nest or repeat."""
        return None

    def children(self) -> list["Node"]:
        raise NotImplementedError

    def parent(self) -> "Node | None":
        """The element this one is in; None at the top."""
        return None

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

    # Questions asked of many elements at once, answered in one walk each (crawlers.parsers.walks): asked
    # element by element with within() or first(), a page nested thousands deep takes quadratic time.

    def nearest(self, nodes: list["Node"], among: list["Node"]) -> list[int | None]:
        """For each of ``nodes`` (elements inside this one), the index in ``among`` of the nearest element
        above it that is one of ``among`` and lies inside this one or is this one; None where none is."""
        return walks.nearest([n.el for n in nodes], [a.el for a in among], self._up, self._key, self.el)

    def holding(self, nodes: list["Node"], candidates: list["Node"]) -> list[bool]:
        """For each of ``candidates`` (elements inside this one, or this one), whether it holds (lies above)
        one of ``nodes`` (elements inside this one)."""
        held = walks.holding([n.el for n in nodes], self._up, self._key, self.el)
        key = self._key
        return [(c.el if key is None else key(c.el)) in held for c in candidates]

    def following(self, nodes: list["Node"], tag: str) -> list["Node | None"]:
        """``[n.next_sibling(tag=tag) for n in nodes]`` for nodes in document order, each sibling passed once."""
        found = walks.following([n.el for n in nodes], tag, self._after, self._tag, self._key)
        return [type(self)(el) if el is not None else None for el in found]

    def size(self) -> int:
        """The elements in this subtree, this one included (what a search of it reads)."""
        raise NotImplementedError

    # The backend's element steps, for the walks (C-level getters where the backend has them: a walk takes
    # a few steps per element on an ordinary page, and a Python function per step would double its cost):
    # _up, the parent (None at the top); _after, the next sibling that is an element; _key, a hashable
    # identity stable while the tree lives (None: the element itself); _tag, the element's name.
    _up = _after = _tag = _key = None

    def breaks_to_newlines(self, brs: list["Node"] | None = None) -> None:
        """Each <br> inside becomes a line feed; ``brs``: those <br>, where the caller found them."""
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

    # Walks the tree directly rather than through find_all(function): the same elements in the
    # same order, without bs4's filter machinery around each test (several times faster).
    def all(self, tag=None, cls=None, prefix=None, id=None, attr=None):  # noqa: A002
        match = _bs4_match(_as_tuple(tag), _as_tuple(cls), _as_tuple(prefix), id, attr)
        return [BS4Node(el) for el in self.el.descendants if isinstance(el, Tag) and match(el)]

    def any_of(self, *queries):
        tests = [_bs4_match(*_query_key(q)) for q in queries]
        return [BS4Node(el) for el in self.el.descendants if isinstance(el, Tag) and any(t(el) for t in tests)]

    def children(self):
        return [BS4Node(el) for el in self.el.children if isinstance(el, Tag)]

    def parent(self):
        up = self.el.parent
        return BS4Node(up) if isinstance(up, Tag) and not isinstance(up, BeautifulSoup) else None

    def next_sibling(self, tag=None, cls=None):
        match = _bs4_match(_as_tuple(tag), _as_tuple(cls), (), None, None)
        for el in self.el.next_siblings:
            if isinstance(el, Tag) and match(el):
                return BS4Node(el)
        return None

    def text(self) -> str:
        return readable(self.el.get_text(""))

    def get(self, name):
        value = self.el.get(name)
        if isinstance(value, list):
            value = " ".join(value)
        return readable(value) if value is not None else None

    def remove(self) -> None:
        self.el.decompose()

    def within(self, other) -> bool:
        return any(parent is other.el for parent in self.el.parents)

    def breaks_to_newlines(self, brs=None) -> None:
        for br in self.el.find_all("br") if brs is None else [b.el for b in brs]:
            br.replace_with(NavigableString("\n"))

    def size(self) -> int:
        return 1 + sum(isinstance(el, Tag) for el in self.el.descendants)

    _up = attrgetter("parent")
    _key = id  # bs4 hashes a tag by its markup
    _tag = attrgetter("name")

    @staticmethod
    def _after(el):
        el = el.next_sibling
        while el is not None and not isinstance(el, Tag):
            el = el.next_sibling
        return el


def bs4_root(html: str, utf8: bytes | None = None) -> Node:
    with warnings.catch_warnings():
        # A body that looks like a file name or an XML document is still parsed as the HTML it claims to be.
        warnings.simplefilter("ignore", MarkupResemblesLocatorWarning)
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        text = _parser_input(html)[0]
        try:
            soup = BeautifulSoup(text, "lxml")
        except ParserRejectedMarkup:
            return _Empty()
    if _TEMPLATE_TEXT.search(text):
        for template in soup.find_all("template"):
            template.clear()
    if _LIST_ITEM_TEXT.search(text):
        for item in soup.find_all(("dt", "dd")):
            if item.parent is not None and item.parent.name == item.name:
                outer = item.parent
                for el in reversed([item, *item.next_siblings]):
                    outer.insert_after(el.extract())
    return BS4Node(soup)


# Where libxml2's tree is not the one HTML5 defines for valid markup, the libxml2 trees (lxml's, and
# BeautifulSoup's built from libxml2's events) are mended to it, so every backend reads the same page:
# * A <template>'s content is no part of the page: HTML5 keeps it in a fragment of its own (lexbor's tree
#   holds the element, empty), where libxml2 builds it into the page. The templates are emptied.
# * A <dt> or <dd> whose end tag is left out (HTML lets it be) ends where the next <dt> or <dd> starts;
#   libxml2 nests a <dt> in an open <dt>, a <dd> in an open <dd>, and the infobox lost the inner name or
#   value. The inner one and what follows it in the outer one are moved out, after the outer one.
_TEMPLATE_TEXT = re.compile(r"<template", re.I)
_TEMPLATE = re.compile(rb"<template", re.I)
_LIST_ITEM_TEXT = re.compile(r"<d[dt][\s/>]", re.I)
_LIST_ITEM = re.compile(rb"<d[dt][\s/>]", re.I)
_NESTED_LIST_ITEMS = etree.XPath("//dt[parent::dt] | //dd[parent::dd]")


_END_OF_DOCUMENT = re.compile(r"</(?:html|body)\s*>", re.I)
# The same pattern on the text's UTF-8: "\s" of a str pattern is every character str.isspace()
# holds (_SPACES, all 29 of them; a test checks the list against every code point), so each is
# spelled out as its UTF-8 (ASCII letters are the only ones "html" and "body" fold to under re.I,
# in a str pattern as in a bytes one). tests/crawlers/test_backends.py holds the two substitutions equal.
_SPACES = list("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
               + "\u2028\u2029\u202f\u205f\u3000")
_END_OF_DOCUMENT_UTF8 = re.compile(
    b"</(?:html|body)(?:" + b"|".join(re.escape(c.encode()) for c in _SPACES) + b")*>", re.I)


def _parser_input(html: str) -> tuple[str, bytes]:
    """The text the parser gets, and its UTF-8: without NUL (which libxml2 reads as U+FFFD),
    without unpaired surrogates (which UTF-8 cannot carry), and without ``</body>`` and
    ``</html>``: what a page has after them (ads, tracking, stray markup) belongs to the body, as
    browsers read it, where libxml2's tree would drop it and BeautifulSoup open a second <html>."""
    if "\x00" in html:
        html = html.replace("\x00", "")
    html = _END_OF_DOCUMENT.sub("", html)
    try:
        return html, html.encode("utf-8")
    except UnicodeEncodeError:
        html = _SURROGATES.sub("", html)
        return html, html.encode("utf-8")


def _parser_bytes(html: str) -> bytes:
    """``_parser_input(html)[1]``, the UTF-8 only, in fewer passes over the page: a page without
    NUL or surrogates (nearly all) is encoded first, and NUL is looked for, and the end tags
    removed, in its bytes (a byte search; in a str of CJK text NUL is looked for two bytes a
    character)."""
    try:
        data = html.encode("utf-8")
    except UnicodeEncodeError:
        return _parser_input(html)[1]
    if b"\x00" in data:
        return _parser_input(html)[1]
    return _END_OF_DOCUMENT_UTF8.sub(b"", data)


# --- lxml ----------------------------------------------------------------------------------


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
            for name, key in keys:
                if _matches(el.tag, el, *key):
                    result[name].append(LxmlNode(el))
        return result

    def any_of(self, *queries):
        keys = tuple(_query_key(q) for q in queries)
        return [LxmlNode(el) for el in _union_xpath(keys)(self.el) if any(_matches(el.tag, el, *key) for key in keys)]

    def children(self):
        return [LxmlNode(el) for el in self.el if isinstance(el.tag, str)]

    def parent(self):
        up = self.el.getparent()
        return LxmlNode(up) if up is not None else None

    def next_sibling(self, tag=None, cls=None):
        # Siblings one by one up to the first match (an XPath of following siblings lists them all).
        classes = _as_tuple(cls)
        for el in self.el.itersiblings(*_as_tuple(tag)):
            if isinstance(el.tag, str) and (not classes or _class_ok(el, classes, ())):
                return LxmlNode(el)
        return None

    def text(self) -> str:
        # Text nodes only, like BeautifulSoup's get_text: comments and processing
        # instructions contribute nothing.
        return readable("".join(_TEXT(self.el)))

    def get(self, name):
        value = self.el.get(name)
        return readable(value) if value is not None else None

    def remove(self) -> None:
        _drop(self.el, self.el.tail)

    def within(self, other) -> bool:
        return any(parent is other.el for parent in self.el.iterancestors())

    def breaks_to_newlines(self, brs=None) -> None:
        # As BeautifulSoup's replace_with: the <br> goes, a line feed takes its place.
        for br in list(self.el.iterdescendants("br")) if brs is None else [b.el for b in brs]:
            _drop(br, "\n" + (br.tail or ""))

    def size(self) -> int:
        return sum(isinstance(el.tag, str) for el in self.el.iter())

    _up = methodcaller("getparent")
    _key = None  # the element: lxml gives one proxy per element while any is referenced, and the walks hold them
    _tag = attrgetter("tag")

    @staticmethod
    def _after(el):
        el = el.getnext()
        while el is not None and not isinstance(el.tag, str):  # a comment, a processing instruction
            el = el.getnext()
        return el


_TEXT = etree.XPath("descendant-or-self::text()", smart_strings=False)  # plain str: no link back to the tree


def _drop(el, tail: str | None) -> None:
    """Take ``el`` out of the tree and put ``tail`` where it stood (lxml keeps text after an element in it)."""
    parent = el.getparent()
    if parent is None:
        return
    if tail:
        previous = el.getprevious()
        if previous is None:
            _set(parent, "text", (parent.text or "") + tail)
        else:
            _set(previous, "tail", (previous.tail or "") + tail)
    parent.remove(el)


def _set(el, attribute: str, value: str) -> None:
    # lxml refuses to store what XML cannot hold (a control character from &#1;); text() would drop it anyway.
    try:
        setattr(el, attribute, value)
    except ValueError:
        setattr(el, attribute, readable(value))


class _Empty(Node):
    name = ""

    def all(self, *args, **kwargs):
        return []

    def any_of(self, *queries):
        return []

    def children(self):
        return []

    def text(self) -> str:
        return ""

    def get(self, name):
        return None

    def size(self) -> int:
        return 0


# The text is handed over as UTF-8 bytes with the encoding named, so a <meta charset> or an
# <?xml encoding=...?> declaration left in the page cannot change how it is read; huge_tree lifts
# the limits on a text node's size (10 MB) and, to 2,048, on nesting (256).
_PARSER = etree.HTMLParser(encoding="utf-8", huge_tree=True)


def lxml_root(html: str, utf8: bytes | None = None) -> Node:
    data = _parser_bytes(html)
    try:
        root = etree.fromstring(data, _PARSER)
    except etree.LxmlError:
        return bs4_root(html)
    if _PARSER.error_log.filter_from_fatals():
        # libxml2 stopped building the tree part way (nesting past its limit): BeautifulSoup's
        # tree, built from the same parser's events, holds the whole page.
        return bs4_root(html)
    if root is None:
        return _Empty()
    if _TEMPLATE.search(data):
        for template in list(root.iter("template")):
            template.text = None
            for child in list(template):
                template.remove(child)  # with its tail: all of it the template's content
    if _LIST_ITEM.search(data):
        for item in _NESTED_LIST_ITEMS(root):  # in document order: an outer one is moved out first
            outer = item.getparent()
            moving = [item, *item.itersiblings()]
            after, outer.tail = outer.tail, None
            for el in reversed(moving):
                outer.addnext(el)  # each with its tail
            if after:
                _set(moving[-1], "tail", (moving[-1].tail or "") + after)
    return LxmlNode(root)


# --- selectolax (lexbor) ----------------------------------------------------------------------


class SelectolaxNode(Node):
    """A node of lexbor's tree (selectolax), searched with CSS selectors compiled in C.

    lexbor builds its tree as HTML5 defines (browsers' tree), libxml2 with its own older rules;
    the two differ only on markup that breaks nesting rules, and tests hold the records identical
    to the lxml backend's on every fixture, mirror and real page, and on generated pages.
    """

    __slots__ = ("el",)

    def __init__(self, el):
        self.el = el

    @property
    def name(self) -> str:
        return self.el.tag

    def _search(self, css: str) -> list:
        found = self.el.css(css)
        if found and found[0].mem_id == self.el.mem_id:  # lexbor's search includes the node itself
            del found[0]
        if len(found) > 1 and _may_repeat(css):
            # lexbor reports an element once for each selector of a list that it matches
            # ("p, [class*=a]" gives a <p class=a> twice): each once, in document order.
            seen: set[int] = set()
            found = [el for el in found if not (el.mem_id in seen or seen.add(el.mem_id))]
        return found

    def all(self, tag=None, cls=None, prefix=None, id=None, attr=None):  # noqa: A002
        css, test = _css_query(tag, cls, prefix, id, attr)
        found = self._search(css)
        if test is not None:
            return [SelectolaxNode(el) for el in found if test(_class_of(el))]
        return [SelectolaxNode(el) for el in found]

    def first(self, tag=None, cls=None, prefix=None, id=None, attr=None):  # noqa: A002
        # lexbor stops at the first element the selector matches. That is the answer unless it is
        # this node itself (lexbor's search includes it) or a class matched only as a substring;
        # then the whole search decides.
        css, test = _css_query(tag, cls, prefix, id, attr)
        el = self.el.css_first(css)
        if el is None:
            return None
        if el.mem_id != self.el.mem_id and (test is None or test(_class_of(el))):
            return SelectolaxNode(el)
        found = self.all(tag, cls, prefix, id, attr)
        return found[0] if found else None

    def firsts(self, queries: dict[str, dict]) -> dict[str, "Node | None"]:
        # A search per query that stops at its first match: the regions a layout looks for lie near
        # the top of a page, and one search for all of them would go through the whole page.
        return {name: self.first(**query) for name, query in queries.items()}

    def select(self, queries: dict[str, dict]) -> dict[str, list["Node"]]:
        # One pass over the tree for all queries, as LxmlNode.select.
        names = tuple(queries)
        keys = tuple(_query_key(q) for q in queries.values())
        css, tests = _union_plan(keys)[0], [_lexbor_match(*key) for key in keys]
        result: dict[str, list[Node]] = {name: [] for name in names}
        for el in self._search(css):
            for name, test in zip(names, tests):
                if test(el):
                    result[name].append(SelectolaxNode(el))
        return result

    def any_of(self, *queries):
        try:
            css, exact, classes_test, others = _plan_of(tuple(tuple(q.items()) for q in queries))
        except TypeError:  # names given as lists: not hashable, so not cached
            css, exact, classes_test, others = _union_plan(tuple(_query_key(q) for q in queries))
        found = []
        for el in self._search(css):
            if (el.tag in exact or (classes_test is not None and classes_test(_class_of(el)) is not None)
                    or any(test(el) for test in others)):
                found.append(SelectolaxNode(el))
        return found

    def grouped(self, groups, tag):
        # One search, each element given to the group it lies in by the walk up from it (crawlers.parsers.walks:
        # a few steps in an infobox, each element once however deep) instead of a search per group (lexbor
        # parses the selector each time).
        members = [g.el for g in groups]
        if len({el.mem_id for el in members}) < len(members):
            return None
        if any(i is not None for i in walks.nearest(members, members, self._up, self._key, self.el)):
            return None  # groups nest
        found: list[list[Node]] = [[] for _ in groups]
        elements = self._search(_css_query(tag, None, None, None, None)[0])
        for el, owner in zip(elements, walks.nearest(elements, members, self._up, self._key, self.el)):
            if owner is not None:
                found[owner].append(SelectolaxNode(el))
        return found

    def children(self):
        return [SelectolaxNode(el) for el in self.el.iter()]

    def parent(self):
        up = self.el.parent
        return SelectolaxNode(up) if up is not None and up.is_element_node else None

    def next_sibling(self, tag=None, cls=None):
        tags, classes = _as_tuple(tag), _as_tuple(cls)
        el = self.el.next
        while el is not None:
            if el.is_element_node and (not tags or el.tag in tags) and (
                    not classes or _class_test(classes, ())(_class_of(el))):
                return SelectolaxNode(el)
            el = el.next
        return None

    def text(self) -> str:
        # selectolax's defaults (pinned): every text node below, joined as it stands (deep=True,
        # separator="", strip=False); given as keywords, the call costs twice as much.
        return readable(self.el.text())

    def get(self, name):
        try:
            value = self.el.attrs[name]  # the one attribute, not a dict of them all
        except (KeyError, TypeError):  # TypeError: not an element, so no attributes
            return None
        # lexbor gives None for an attribute written without a value; libxml2 and BeautifulSoup "".
        return readable(value or "")

    def remove(self) -> None:
        self.el.decompose()

    def within(self, other) -> bool:
        target, el = other.el.mem_id, self.el.parent
        while el is not None:
            if el.mem_id == target:  # a pointer's value: several times cheaper than ==
                return True
            el = el.parent
        return False

    def breaks_to_newlines(self, brs: list[Node] | None = None) -> None:
        if brs is not None:
            for br in brs:
                br.el.replace_with("\n")
            return
        for br in self.el.css("br"):
            if br.mem_id != self.el.mem_id:
                br.replace_with("\n")

    def size(self) -> int:
        return sum(1 for _ in self.el.traverse())

    _up = attrgetter("parent")  # the document node above <html>, then None
    _key = attrgetter("mem_id")  # a pointer's value
    _tag = attrgetter("tag")

    @staticmethod
    def _after(el):
        el = el.next
        while el is not None and not el.is_element_node:
            el = el.next
        return el


def selectolax_root(html: str, utf8: bytes | None = None) -> Node:
    """The tree of ``html``; ``utf8``: the same page as the UTF-8 bytes it was decoded from (no byte-order
    mark), given to lexbor as they are rather than encoded again."""
    data = _END_OF_DOCUMENT_UTF8.sub(b"", utf8) if utf8 is not None and b"\x00" not in utf8 \
        else _parser_bytes(html)
    tree = LexborHTMLParser(data)  # UTF-8 bytes: lexbor reads them as they are
    return SelectolaxNode(tree.root) if tree.root is not None else _Empty()


BACKENDS = {"selectolax": selectolax_root, "lxml": lxml_root, "bs4": bs4_root}
