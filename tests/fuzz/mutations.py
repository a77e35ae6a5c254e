"""Seeded mutations of the saved pages, and how the backends' records of a mutated page compare.

    python -m tests.fuzz.mutations [--count 2000] [--seed 1] [--changes 3] [--backends selectolax lxml] [--show 5]

Each mutant is one saved page of tests/fixtures/pages (the mirror's pages of every layout and the real
Baidu and Wikipedia pages) with one to ``changes`` changes made to its markup, all of one class, chosen
with ``random.Random(seed)``:

* well-formed changes, after which the page is as valid HTML as before: a character reference, white
  space, an inline element or a ``<br>`` or a comment in a text, words and separators in a text, an
  element taken out or repeated whole, an attribute added, a tag name in capitals, an end tag that HTML
  lets a page leave out left out, the doctype left out (quirks mode), an element's content repeated in
  a ``<template>`` before it. The backends must give equal records of these pages.
* breaking changes, after which HTML5's tree construction (lexbor) and libxml2's may build different
  trees: an end tag or a start tag taken out, a stray end tag, an element left open, two end tags
  swapped. Where the two trees differ (:func:`tree_shape`), so may the records; where they do not, the
  records must not either.

Run as a module, it prints how many mutants the backends disagree on, per change and per field of the
record (the figures of the report: ``--count 2000 --seed 1``).
"""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from lxml import etree
from selectolax.lexbor import LexborHTMLParser

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pages"
BASE = "http://127.0.0.1:8800/item/x/1"
# The real pages under the URLs they were fetched from: the host decides the site, links are absolute.
REAL_URLS = {
    "baidu_home.html": "http://baike.baidu.com/",
    "baidu_xiongan_hitech_zone.html": "https://baike.baidu.com/item/河北雄安高新技术产业开发区/63950501",
    "wikipedia_xiongan.html": "https://zh.wikipedia.org/wiki/%E9%9B%84%E5%AE%89%E6%96%B0%E5%8C%BA",
}

_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)\b[^<>]*?(/?)>")
_RAW = ("script", "style", "textarea", "title")
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())

ENTITIES = ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&apos;", "&nbsp;", "&middot;", "&mdash;", "&hellip;",
            "&copy;", "&times;", "&ensp;", "&emsp;", "&thinsp;", "&zwj;", "&shy;", "&#20013;", "&#x6587;",
            "&#x1F600;", "&#1;", "&#x85;", "&#x80;", "&#0;", "&#xd800;", "&#13;", "&#10;", "&#9;", "&#x3000;"]
SPACES = [" ", "  ", "\n", "\t", "\r\n", "\u3000", "\xa0", "&nbsp;", " \n  ", "\u200b", "\ufeff"]
WORDS = ["张衡", "东汉", "、", "，", "；", "/", "：", "（注）", "[1]", "编辑", "播报", "1.2米", "《书》", "·", "•", " - "]
INLINE = ["span", "b", "i", "em", "strong", "font", "small", "u", "sub", "code"]
STRAY = ["div", "p", "table", "tr", "td", "th", "dd", "dt", "dl", "a", "li", "ul", "span", "b", "h1", "h2", "body"]
OPEN = ["<p>", "<div>", "<table>", "<a href='/item/%E4%B9%99/3'>", "<li>", "<dd>", "<dt>", "<b>", "<tr>", "<td>",
        "<span>", "<ul>", "<h2>", "<i>", "<font>", "<dl>"]


@dataclass(frozen=True)
class Mutant:
    page: str  # the saved page's path under tests/fixtures/pages
    url: str
    changes: tuple[tuple[str, str], ...]  # (the mutation's name, the element it touched or "" for a text) each
    well_formed: bool
    html: str

    @property
    def change(self) -> str:
        return self.changes[0][0]

    @property
    def tag(self) -> str:
        return self.changes[0][1]


def saved_pages() -> list[tuple[str, str, str]]:
    """(name, url, html) of every saved page."""
    pages = []
    for path in sorted(FIXTURES.rglob("*.html")):
        data = path.read_bytes()
        try:
            html = data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # the GBK page: mutations work on text
        pages.append((str(path.relative_to(FIXTURES)), REAL_URLS.get(path.name, BASE), html))
    return pages


class _Markup:
    """The tags of a page and the texts between them (outside script, style and comments)."""

    def __init__(self, html: str):
        self.html = html
        self.tags: list[re.Match] = []
        self.texts: list[tuple[int, int]] = []
        raw_until, pos = -1, 0
        for m in _TAG.finditer(html):
            if m.start() < raw_until or "<!--" in html[pos:m.start()]:
                pos = max(pos, m.end())
                continue
            if m.start() > pos and html[pos:m.start()].strip():
                self.texts.append((pos, m.start()))
            self.tags.append(m)
            pos = m.end()
            name = m.group(2).lower()
            if not m.group(1) and name in _RAW:
                close = html.lower().find(f"</{name}", m.end())
                raw_until = close if close >= 0 else len(html)
                pos = raw_until

    def elements(self) -> list[tuple[re.Match, re.Match]]:
        """(start tag, end tag) of every element whose end tag closes it in order."""
        pairs, stack = [], []
        for m in self.tags:
            name = m.group(2).lower()
            if name in VOID or m.group(3):
                continue
            if not m.group(1):
                stack.append(m)
            elif stack and stack[-1].group(2).lower() == name:
                pairs.append((stack.pop(), m))
        return pairs


def _in_text(rng: random.Random, markup: _Markup, insert: str) -> tuple[str, str]:
    start, end = rng.choice(markup.texts)
    at = rng.randint(start, end)
    # Never inside a character reference already there.
    amp = markup.html.rfind("&", start, at)
    if amp >= 0 and ";" not in markup.html[amp:at] and re.match(r"&#?\w*;", markup.html[amp:amp + 12]):
        at = amp
    return markup.html[:at] + insert + markup.html[at:], ""


def _entity(rng, markup):
    return _in_text(rng, markup, rng.choice(ENTITIES))


def _space(rng, markup):
    return _in_text(rng, markup, rng.choice(SPACES))


def _words(rng, markup):
    return _in_text(rng, markup, "".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))))


def _br(rng, markup):
    return _in_text(rng, markup, rng.choice(["<br>", "<br/>", "<br />", "\n<br>\n"]))


def _comment(rng, markup):
    return _in_text(rng, markup, rng.choice(["<!-- x -->", "<!---->", "<!-- 中文 -->"]))


def _inline(rng, markup):
    start, end = rng.choice(markup.texts)
    a, b = sorted((rng.randint(start, end), rng.randint(start, end)))
    html = markup.html
    while a > start and html[a - 1] != ";" and "&" in html[max(start, a - 10):a]:
        a -= 1  # not inside a character reference
    while b < end and "&" in html[max(start, b - 10):b] and ";" not in html[html.rfind("&", start, b):b]:
        b += 1
    tag = rng.choice(INLINE)
    return html[:a] + f"<{tag}>" + html[a:b] + f"</{tag}>" + html[b:], tag


def _drop_element(rng, markup):
    start, end = rng.choice(markup.elements())
    return markup.html[:start.start()] + markup.html[end.end():], start.group(2).lower()


def _repeat_element(rng, markup):
    start, end = rng.choice(markup.elements())
    whole = markup.html[start.start():end.end()]
    return markup.html[:end.end()] + whole + markup.html[end.end():], start.group(2).lower()


def _attribute(rng, markup):
    m = rng.choice([t for t in markup.tags if not t.group(1)])
    extra = rng.choice([" data-x='1'", " title='标题'", " style='color:red'", " class=' x  '", " lang=zh"])
    at = m.start() + 1 + len(m.group(2))
    return markup.html[:at] + extra + markup.html[at:], m.group(2).lower()


def _capitals(rng, markup):
    start, end = rng.choice(markup.elements())
    html = markup.html
    name = start.group(2)
    html = html[:end.start() + 2] + name.upper() + html[end.start() + 2 + len(name):]
    return html[:start.start() + 1] + name.upper() + html[start.start() + 1 + len(name):], name.lower()


# End tags HTML lets a page leave out, and what may follow each where it is left out (a start tag "<x" or
# an end tag "</x"): https://html.spec.whatwg.org/#optional-tags.
_BLOCKS = ("address", "article", "aside", "blockquote", "details", "div", "dl", "fieldset", "figcaption", "figure",
           "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "main", "menu", "nav", "ol",
           "p", "pre", "search", "section", "table", "ul")
OPTIONAL_ENDS = {
    "li": ("<li", "</ul", "</ol", "</menu"), "dt": ("<dt", "<dd"), "dd": ("<dd", "<dt", "</dl", "</div"),
    "p": tuple(f"<{b}" for b in _BLOCKS) + ("</div", "</td", "</th", "</li", "</dd", "</body", "</section"),
    "td": ("<td", "<th", "</tr"), "th": ("<td", "<th", "</tr"), "tr": ("<tr", "</tbody", "</table", "</thead"),
    "tbody": ("<tbody", "<tfoot", "</table"), "thead": ("<tbody", "<tfoot"), "option": ("<option", "</select"),
}


def _optional_end(rng, markup):
    html = markup.html
    ends = []
    for m in markup.tags:
        name = m.group(2).lower()
        if m.group(1) and name in OPTIONAL_ENDS:
            following = html[m.end():m.end() + 40].lstrip().lower()
            if following.startswith(OPTIONAL_ENDS[name]) and not following[len(name) + 1:][:1].isalnum():
                ends.append(m)
    m = rng.choice(ends)
    return html[:m.start()] + html[m.end():], m.group(2).lower()


def _no_doctype(rng, markup):
    html = re.sub(r"<!DOCTYPE[^>]*>", "", markup.html, count=1, flags=re.I)
    if html == markup.html:
        raise IndexError("no doctype")
    return html, "!doctype"


def _template(rng, markup):
    start, end = rng.choice(markup.elements())
    html = markup.html
    inside = html[start.end():end.start()]
    return html[:start.end()] + f"<template>{inside}</template>" + inside + html[end.start():], "template"


def _drop_end(rng, markup):
    m = rng.choice([t for t in markup.tags if t.group(1)])
    return markup.html[:m.start()] + markup.html[m.end():], m.group(2).lower()


def _drop_start(rng, markup):
    m = rng.choice([t for t in markup.tags if not t.group(1)])
    return markup.html[:m.start()] + markup.html[m.end():], m.group(2).lower()


def _stray_end(rng, markup):
    m = rng.choice(markup.tags)
    tag = rng.choice(STRAY)
    return markup.html[:m.end()] + f"</{tag}>" + markup.html[m.end():], tag


def _left_open(rng, markup):
    m = rng.choice(markup.tags)
    tag = rng.choice(OPEN)
    return markup.html[:m.end()] + tag + markup.html[m.end():], re.match(r"<(\w+)", tag).group(1)


def _swap_ends(rng, markup):
    ends = [i for i, t in enumerate(markup.tags[:-1]) if t.group(1) and markup.tags[i + 1].group(1)]
    i = rng.choice(ends)
    a, b = markup.tags[i], markup.tags[i + 1]
    html = markup.html
    return html[:a.start()] + b.group(0) + html[a.end():b.start()] + a.group(0) + html[b.end():], (
        f"{a.group(2).lower()}/{b.group(2).lower()}")


WELL_FORMED: dict[str, Callable] = {
    "entity": _entity, "space": _space, "words": _words, "br": _br, "comment": _comment, "inline": _inline,
    "drop_element": _drop_element, "repeat_element": _repeat_element, "attribute": _attribute,
    "capitals": _capitals, "optional_end": _optional_end, "no_doctype": _no_doctype, "template": _template,
}
BREAKING: dict[str, Callable] = {
    "drop_end": _drop_end, "drop_start": _drop_start, "stray_end": _stray_end, "left_open": _left_open,
    "swap_ends": _swap_ends,
}


def mutants(count: int, seed: int = 1, changes: int = 1,
            pages: list[tuple[str, str, str]] | None = None) -> Iterator[Mutant]:
    """``count`` mutants of the saved pages, the same for the same seed: half well-formed, half breaking,
    each with one to ``changes`` changes."""
    rng = random.Random(seed)
    pages = pages if pages is not None else saved_pages()
    parsed = {name: _Markup(html) for name, _, html in pages}
    for i in range(count):
        name, url, _ = pages[rng.randrange(len(pages))]
        well_formed = i % 2 == 0
        kinds = WELL_FORMED if well_formed else BREAKING
        markup, made = parsed[name], []
        for _ in range(rng.randint(1, changes)):
            change = rng.choice(sorted(kinds))
            try:
                html, tag = kinds[change](rng, markup)
            except IndexError:  # nothing of the kind left to change (no text, no end tag)
                continue
            made.append((change, tag))
            markup = _Markup(html)
        if not made:
            continue
        yield Mutant(name, url, tuple(made), well_formed, markup.html)


# --- the trees the two parsers build ----------------------------------------------------------------------

def tree_shape(html: str, parser: str) -> list[tuple]:
    """The elements of the body as (depth, tag, attributes) and the non-blank texts as (depth, "#text", text),
    in document order, as lexbor ("selectolax") or libxml2 ("lxml") builds them: what the records are
    read from. <tbody>, which HTML5 adds to every table and libxml2 does not, is left out, its children
    read one level up; the saved pages have the same shape in both."""
    from crawlers.parsers.tree import _parser_bytes

    data = _parser_bytes(html)
    shape: list[tuple] = []
    if parser == "selectolax":
        body = LexborHTMLParser(data).body
        if body is None:
            return shape
        stack = [(body, 0)]
        while stack:
            node, depth = stack.pop()
            if node.tag == "-text":
                text = node.text_content or ""
                if text.strip():
                    shape.append((depth, "#text", " ".join(text.split())))
                continue
            if not node.is_element_node:
                continue
            inner = depth
            if node.tag != "tbody" and node is not body:
                shape.append((depth, node.tag, _attributes(node.attributes or {})))
                inner = depth + 1
            kids = list(node.iter(include_text=True))
            stack.extend((kid, inner) for kid in reversed(kids))
        return _merge_texts(shape)
    root = etree.fromstring(data, etree.HTMLParser(encoding="utf-8", huge_tree=True))
    body = root.find("body") if root is not None else None
    if body is None:
        return shape
    _lxml_shape(body, 0, shape, top=True)
    return _merge_texts(shape)


def _lxml_shape(el, depth: int, shape: list, top: bool = False) -> None:
    stack = [(el, depth, top)]
    while stack:
        item, depth, top = stack.pop()
        if isinstance(item, str):
            if item.strip():
                shape.append((depth, "#text", " ".join(item.split())))
            continue
        inner = depth
        if isinstance(item.tag, str):
            if not top and item.tag != "tbody":
                shape.append((depth, item.tag, _attributes(item.attrib)))
                inner = depth + 1
            parts = [item.text or ""]
            for child in item:
                parts += [child, child.tail or ""]
        else:  # a comment: its tail only
            parts = []
        stack.extend((part, inner, False) for part in reversed(parts))


def _attributes(attributes) -> tuple:
    """Names in lower case (lexbor keeps SVG's viewBox), and an attribute without a value as "" (lexbor gives
    None, libxml2 "" or the name: <script defer>)."""
    return tuple(sorted((k.lower(), "" if v in (None, k) else v) for k, v in attributes.items()))


def _merge_texts(shape: list[tuple]) -> list[tuple]:
    merged: list[tuple] = []
    for item in shape:
        if item[1] == "#text" and merged and merged[-1][1] == "#text" and merged[-1][0] == item[0]:
            merged[-1] = (item[0], "#text", merged[-1][2] + " " + item[2])
        else:
            merged.append(item)
    return merged


def differing_fields(rows: dict[str, dict]) -> list[str]:
    """The fields of the record in which the backends' rows differ."""
    first = next(iter(rows.values()))
    return sorted({k for row in rows.values() for k in row if row[k] != first[k]})


def main() -> None:
    from crawlers.parsers import parse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--changes", type=int, default=1, help="changes per mutant: one to this many")
    parser.add_argument("--backends", nargs="+", default=["selectolax", "lxml"])
    parser.add_argument("--show", type=int, default=0, help="print the first N disagreements of each field")
    args = parser.parse_args()
    total, disagree, by_change, by_field, trees_agree = Counter(), Counter(), Counter(), Counter(), Counter()
    shown: Counter = Counter()
    for mutant in mutants(args.count, args.seed, args.changes):
        kind = "well-formed" if mutant.well_formed else "breaking"
        total[kind] += 1
        names = {change for change, _ in mutant.changes}
        for change in names:
            total[change] += 1
        rows = {b: parse(mutant.html, mutant.url, backend=b).to_row() for b in args.backends}
        fields = differing_fields(rows)
        if not fields:
            continue
        disagree[kind] += 1
        for change in names:
            by_change[change] += 1
        same_tree = tree_shape(mutant.html, "selectolax") == tree_shape(mutant.html, "lxml")
        trees_agree[kind] += same_tree
        for field in fields:
            by_field[field] += 1
            if shown[field] < args.show:
                shown[field] += 1
                a, b = args.backends[:2]
                print(f"-- {mutant.page} {mutant.changes} {field} (trees {'agree' if same_tree else 'differ'})"
                      f"\n   {a}: {str(rows[a][field])[:300]}\n   {b}: {str(rows[b][field])[:300]}")
    n = sum(total[k] for k in ("well-formed", "breaking"))
    d = sum(disagree.values())
    print(f"mutants {n} (seed {args.seed}, 1-{args.changes} changes), backends {' '.join(args.backends)}: records differ on {d} ({d / n:.1%})")
    for kind in ("well-formed", "breaking"):
        print(f"  {kind}: {disagree[kind]} of {total[kind]} ({disagree[kind] / max(total[kind], 1):.1%}),"
              f" of which the two trees agree on {trees_agree[kind]}")
    print("  by change: " + ", ".join(f"{c} {by_change[c]}/{total[c]}" for c in sorted(WELL_FORMED) + sorted(BREAKING)))
    print("  by field: " + ", ".join(f"{f} {c}" for f, c in by_field.most_common()))


if __name__ == "__main__":
    main()
