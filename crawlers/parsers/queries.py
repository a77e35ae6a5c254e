"""Queries of the node layer (tag, class, class prefix, id, attribute) as each backend runs them.

For lxml a query becomes a compiled XPath, for lexbor a CSS selector; both test classes as substrings,
which is cheap in C, and the tests here make them exact in Python afterwards, splitting the class
attribute at white space as ``str.split`` does (CSS's ``~=`` splits at ASCII white space only). Several
queries searched together become one XPath or one selector list and a test per query.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from lxml import etree

Names = str | Sequence[str] | None

def _as_tuple(value: Names) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


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
