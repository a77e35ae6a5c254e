"""Three tree backends behind one small node interface.

The layout extractors (:mod:`crawlers.parsers.layouts`) are written once against
:class:`Node`; ``BS4Node`` runs them on BeautifulSoup (lxml tree builder), the
product's reference parser, ``LxmlNode`` on lxml directly with compiled
XPath, several times faster, and ``SelectolaxNode`` on lexbor's HTML5 tree
(selectolax) with CSS selectors, the fastest and the default. The first two build
their tree with libxml2's HTML parser; lexbor builds it as browsers do, which
differs only where markup breaks nesting rules. Tests hold the three backends'
records identical on every fixture, every mirror page and generated pages
(``tests/fuzz``).

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
from functools import lru_cache
from typing import Sequence

from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning, NavigableString, Tag, XMLParsedAsHTMLWarning
from bs4.builder import ParserRejectedMarkup
from lxml import etree
from selectolax.lexbor import LexborHTMLParser

Names = str | Sequence[str] | None

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
    return _UNREADABLE.sub(_unreadable, text)


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


def bs4_root(html: str) -> Node:
    with warnings.catch_warnings():
        # A body that looks like a file name or an XML document is still parsed as the HTML it claims to be.
        warnings.simplefilter("ignore", MarkupResemblesLocatorWarning)
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        try:
            return BS4Node(BeautifulSoup(_parser_input(html)[0], "lxml"))
        except ParserRejectedMarkup:
            return _Empty()


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
    """Whether the class attribute, split at white space as str.split() does, has one of ``classes``
    (if any are given) and a class starting with one of ``prefixes`` (if any are given)."""
    return _class_test(classes, prefixes)(el.get("class") or "")


_NO_CLASS = re.compile(r"(?!)").search  # matches nothing


@lru_cache(maxsize=256)
def _class_test(classes: tuple, prefixes: tuple):
    # One regular expression a test, searched in C, in place of splitting the attribute and comparing
    # each class in Python. "\s" of a str pattern is the white space str.split() splits at (both are
    # str.isspace()); a class starts at the start or after white space, and a whole class ends at
    # white space or the end. No class is empty or holds white space, so such names match nothing;
    # an empty prefix starts every class.
    tests = []
    if classes:
        names = _class_names(classes)
        tests.append(re.compile(_CLASS_START + names).search if names else _NO_CLASS)
    if prefixes:
        starts = _class_starts(prefixes)
        tests.append(re.compile(_CLASS_START + starts).search if starts else _NO_CLASS)
    if len(tests) == 1:
        only = tests[0]
        return lambda value: only(value) is not None
    return lambda value: all(test(value) is not None for test in tests)


def _class_names(classes: tuple) -> str:
    """The pattern of a whole class that is one of ``classes`` (after its start); "" for none."""
    names = [re.escape(c) for c in classes if c and not _HAS_SPACE.search(c)]
    return "(?:" + "|".join(names) + r")(?!\S)" if names else ""


def _class_starts(prefixes: tuple) -> str:
    """The pattern of the start of a class beginning with one of ``prefixes``; "" for none."""
    starts = [re.escape(p) if p else r"(?=\S)" for p in prefixes if not _HAS_SPACE.search(p)]
    return "(?:" + "|".join(starts) + ")" if starts else ""


_CLASS_START = r"(?:^|(?<=\s))"
_HAS_SPACE = re.compile(r"\s")


def _matches(tag: str, attributes, tags: tuple, classes: tuple, prefixes: tuple, id_: str | None, attr) -> bool:
    """Whether an element matches a query exactly, from its tag and its attributes (anything with ``get``:
    an lxml element itself, or a lexbor node's ``attributes``)."""
    if tags and tag not in tags:
        return False
    if (classes or prefixes) and not _class_ok(attributes, classes, prefixes):
        return False
    if id_ is not None and attributes.get("id") != id_:
        return False
    return attr is None or attributes.get(attr[0]) == attr[1]


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
        classes = _as_tuple(cls)
        for el in _xpath("following-sibling", _as_tuple(tag), classes, (), None, None)(self.el):
            if not classes or _class_ok(el, classes, ()):
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


_TEXT = etree.XPath("descendant-or-self::text()")


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


# The text is handed over as UTF-8 bytes with the encoding named, so a <meta charset> or an
# <?xml encoding=...?> declaration left in the page cannot change how it is read; huge_tree lifts
# the limits on a text node's size (10 MB) and, to 2,048, on nesting (256).
_PARSER = etree.HTMLParser(encoding="utf-8", huge_tree=True)


def lxml_root(html: str) -> Node:
    data = _parser_bytes(html)
    try:
        root = etree.fromstring(data, _PARSER)
    except etree.LxmlError:
        return bs4_root(html)
    if _PARSER.error_log.filter_from_fatals():
        # libxml2 stopped building the tree part way (nesting past its limit): BeautifulSoup's
        # tree, built from the same parser's events, holds the whole page.
        return bs4_root(html)
    return LxmlNode(root) if root is not None else _Empty()


# --- selectolax (lexbor) ----------------------------------------------------------------------


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ") + '"'


def _css_of(tags: tuple, classes: tuple, prefixes: tuple, id_: str | None, attr) -> str:
    # Attribute selectors throughout: lexbor matches .class and #id without regard to case on a page
    # without a doctype (quirks mode), as browsers do. Classes match as substrings here and are made
    # exact in Python (_class_ok), which splits them at any white space as the other backends do
    # (CSS's ~= splits at ASCII white space only).
    tests = ""
    if id_ is not None:
        tests += f"[id={_css_string(id_)}]"
    if attr is not None:
        tests += f"[{attr[0]}={_css_string(attr[1])}]"
    # A name holding another (lemma-audio holds audio) adds nothing to a substring search: dropped, so
    # lexbor parses and tests fewer selectors. The empty name is left out of that comparison, and
    # [class*=""] matches nothing in CSS: an empty prefix (which starts every class) asks for a class
    # attribute instead; an empty class (no class is empty) keeps the selector that matches nothing.
    names = list(dict.fromkeys(classes + prefixes))
    names = [c for c in names if not any(d and d != c and d in c for d in names)]
    alternatives = [f"[class*={_css_string(c)}]" if c or c not in prefixes else "[class]" for c in names] or [""]
    # No "*" before a bare attribute test: lexbor checks it on every element, a third of the time.
    return ", ".join(f"{t}{a}{tests}" or "*" for t in tags or ("",) for a in alternatives)


@lru_cache(maxsize=512)
def _css(tag: Names, cls: Names, prefix: Names, id_: str | None, attr):
    """The selector of one query, and the test that makes its class tests exact (None without any);
    cached on the arguments as given."""
    classes, prefixes = _as_tuple(cls), _as_tuple(prefix)
    test = _class_test(classes, prefixes) if classes or prefixes else None
    return _css_of(_as_tuple(tag), classes, prefixes, id_, attr), test


def _css_query(tag: Names, cls: Names, prefix: Names, id_: str | None, attr):
    try:
        return _css(tag, cls, prefix, id_, attr)
    except TypeError:  # names given as a list: not hashable, so not cached
        return _css.__wrapped__(tag, cls, prefix, id_, attr)


def _class_of(el) -> str:
    """A lexbor element's class attribute, "" without one: looked up alone (``attributes`` would
    build a dict of them all)."""
    try:
        return el.attrs.sget("class", "")
    except TypeError:  # not an element (a comment, a text node): no attributes
        return ""


@lru_cache(maxsize=256)
def _lexbor_match(tags: tuple, classes: tuple, prefixes: tuple, id_: str | None, attr):
    """One query's exact test of a lexbor element: _matches, with the class test compiled once."""
    test = _class_test(classes, prefixes) if classes or prefixes else None

    def match(el) -> bool:
        if tags and el.tag not in tags:
            return False
        if test is not None and not test(_class_of(el)):
            return False
        if id_ is None and attr is None:
            return True
        return _matches(el.tag, el.attributes, (), (), (), id_, attr)

    return match


@lru_cache(maxsize=128)
def _plan_of(queries: tuple) -> tuple[str, frozenset, object, tuple]:
    """_union_plan of queries given as the items of their dicts (cached as given)."""
    return _union_plan(tuple(_query_key(dict(q)) for q in queries))


@lru_cache(maxsize=128)
def _union_plan(keys: tuple) -> tuple[str, frozenset, object, tuple]:
    """For queries searched together: their selector; the tag names a query of tag names alone asks
    for (the selector matches those exactly: no test needed); one test of the class attribute for
    the queries of classes alone or of prefixes alone (None without such queries: either one may
    match, so their patterns are alternatives); each other query's exact test."""
    exact, patterns, others = set(), [], []
    for key in keys:
        tags, classes, prefixes, id_, attr = key
        if id_ is not None or attr is not None or (tags and (classes or prefixes)) or (classes and prefixes):
            others.append(_lexbor_match(*key))
        elif tags:
            exact.update(tags)
        elif classes or prefixes:
            pattern = _class_names(classes) if classes else _class_starts(prefixes)
            if pattern:
                patterns.append(pattern)
        else:
            others.append(_lexbor_match(*key))  # no test at all: every element
    classes_test = re.compile(_CLASS_START + "(?:" + "|".join(patterns) + ")").search if patterns else None
    return ", ".join(_css_of(*key) for key in keys), frozenset(exact), classes_test, tuple(others)


_TAG_NAME = re.compile(r"[a-z][a-z0-9]*")


@lru_cache(maxsize=512)
def _may_repeat(css: str) -> bool:
    """Whether lexbor may report an element twice for this selector: a list of selectors, unless
    they are distinct tag names alone (an element has one name)."""
    parts = css.split(", ")
    return len(parts) > 1 and not (all(_TAG_NAME.fullmatch(p) for p in parts) and len(set(parts)) == len(parts))


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
        # One search, each element given to the group it lies in by walking up its ancestors (a few
        # steps in an infobox) instead of a search per group (lexbor parses the selector each time).
        index = {g.el.mem_id: i for i, g in enumerate(groups)}
        if len(index) < len(groups):
            return None
        found: list[list[Node]] = [[] for _ in groups]
        stop = self.el.mem_id
        for el in self._search(_css_query(tag, None, None, None, None)[0]):
            owner, parent = None, el.parent
            while parent is not None:
                i = index.get(parent.mem_id)
                if i is not None:
                    if owner is not None:  # groups nest
                        return None
                    owner = i
                if parent.mem_id == stop:
                    break
                parent = parent.parent
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


def selectolax_root(html: str) -> Node:
    tree = LexborHTMLParser(_parser_bytes(html))  # UTF-8 bytes: lexbor reads them as they are
    return SelectolaxNode(tree.root) if tree.root is not None else _Empty()


BACKENDS = {"selectolax": selectolax_root, "lxml": lxml_root, "bs4": bs4_root}
