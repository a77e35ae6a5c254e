"""Field extraction per layout, written once against :class:`crawlers.parsers.tree.Node`.

Each function takes the document root and the page URL and returns the fields of
a :class:`schemas.Page`; :func:`crawlers.parsers.parse` adds status, hashes and
timestamps. Selectors never rely on Baidu's hashed class suffixes: they match the
stable ``J-*`` classes, ``data-tag`` attributes or class-name prefixes.

What every layout does alike:

* Paragraphs are the body's text blocks in document order. A table in the body gives one
  paragraph per row, its cells' texts joined by `` | `` (the cell boundary, not punctuation
  of the site's); entry links inside table cells count like any other.
* Image captions (Baidu's ``lemma-picture``/``lemmaPicture`` boxes, Sogou's ``text_img``) are
  taken out before any text is read: they are no part of the sentence they are placed in.
* An infobox value keeps the site's own separation: lines the site breaks with ``<br>`` are
  joined with "\\n" in ``value``, and ``values`` holds the lines, each split further where it
  lists several values itself (``、``, ``，``, ``/`` …, see :func:`text.split_values`).
"""

from __future__ import annotations

import re
from typing import Any, Callable
from urllib.parse import SplitResult, parse_qs, unquote, urljoin, urlsplit

from crawlers.parsers.text import CONTROL_WORDS, clean_name, clean_text, split_values
from crawlers.parsers.tree import Node
from crawlers.urls import canonicalize
from schemas import InfoboxEntry

BAIDU_ENTRY = re.compile(r"^/item/([^/?#]+)(?:/(\d+))?/?$")
SOGOU_ENTRY = re.compile(r"^/v(\d+)\.htm$")
# Sogou's in-text links go through a redirect that names the entry by id: the id is the one in the
# entry's own address (/v<id>.htm), as the page's own script builds it from lemmaData.lemmaId.
SOGOU_INNER_LINK = "/lemma/ShowInnerLink.htm"
WIKI_ENTRY = re.compile(r"^/(?:wiki|zh-hans|zh-hant|zh-cn|zh-tw|zh-hk|zh-sg)/([^?#]+)$")
_SUBTITLE_BRACKETS = "（）()"
NOISE_TAGS = ("script", "style", "sup", "noscript")
NOISE_CLASS_PREFIXES = ("sup-anchor", "edit", "mw-editsection", "audio", "lemma-audio", "reference")
WIKI_NOISE_CLASSES = ("navbox", "hatnote", "reflist", "references", "toc", "mw-references-wrap",
                      "sistersitebox", "metadata")
# Image boxes with their captions: Baidu's older layout (lemma-picture … <span class="description">),
# its current layout (lemmaPicture_x, lemmaAlbum_x) and Sogou's inline pictures (text_img).
CAPTION_CLASSES = ("lemma-picture", "lemma-album", "text_img")
CAPTION_PREFIXES = ("lemmaPicture", "lemmaAlbum")
CELL_SEPARATOR = " | "


def _split(url: str):
    try:
        return urlsplit(url)
    except ValueError:  # a malformed href ("http://[::1") links nowhere
        return None


# An href that is a plain absolute path: segments neither empty nor "." or "..", no ";" (urlparse's
# params), a query or fragment only when not empty, none of the characters urlsplit removes. Such an
# href joins to the base's scheme://host followed by the href itself, exactly as urljoin joins it
# (urljoin would find no segment to resolve and nothing to drop; tested against urljoin).
_SEGMENT = r"/(?!\.\.?(?:[/?#]|$))[^/?#;\t\n\r]+"
_PLAIN_PATH = re.compile(rf"(?:{_SEGMENT})*/?(?:\?[^#\t\n\r]+)?(?:#[^\t\n\r]+)?")


def _resolver(base_url: str) -> Callable[[str], tuple[str, SplitResult] | None]:
    """href -> (the URL it points to, urlsplit of that URL), None for a malformed href: what
    ``urljoin(base_url, href)`` and ``urlsplit`` give, a plain absolute path (most of a page's links)
    joined without either."""
    base = _split(base_url)
    fast = base is not None and base.scheme in ("http", "https") and f"{base.scheme}://{base.netloc}/" == _join(
        base_url, "/")

    def resolve(href: str) -> tuple[str, SplitResult] | None:
        if fast and href[:1] == "/" and _PLAIN_PATH.fullmatch(href):
            rest, _, fragment = href.partition("#")
            path, _, query = rest.partition("?")
            return f"{base.scheme}://{base.netloc}{href}", SplitResult(base.scheme, base.netloc, path, query, fragment)
        absolute = _join(base_url, href)
        parts = _split(absolute) if absolute is not None else None
        return (absolute, parts) if parts is not None else None

    return resolve


_PERCENT_ONLY = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def _unquote(text: str) -> str:
    """``urllib.parse.unquote(text)``: an entry title written as escapes alone (「%E9%95%BF%E6%B1%9F」,
    most of Baidu's links) decoded straight from its hex digits, in a quarter of the time."""
    if _PERCENT_ONLY.fullmatch(text):
        return bytes.fromhex(text.replace("%", "")).decode("utf-8", "replace")
    return unquote(text)


def _join(base_url: str, href: str) -> str | None:
    try:
        return urljoin(base_url, href)
    except ValueError:
        return None


def _target(base_url: str, href: str) -> str | None:
    """The canonical URL an href points to; None for a malformed one ("http://[::1", a 5,000-digit id)."""
    try:
        return canonicalize(urljoin(base_url, href))
    except ValueError:
        return None


def _strip_noise(root: Node) -> None:
    """Remove citation marks, edit controls, scripts and image captions before reading text.

    One pass finds every noise element (the order they go in changes nothing: an element's text
    stays where it stood); links are read once the noise is gone, as a control word inside them
    ("编辑<sup>1</sup>") only shows then.
    """
    _remove(root.any_of(dict(tag=NOISE_TAGS), dict(prefix=NOISE_CLASS_PREFIXES + CAPTION_PREFIXES),
                        dict(cls=CAPTION_CLASSES)))
    anchors = root.all(tag="a")
    # A link holding another link is no edit control: HTML5's tree never holds one (lexbor closes the outer
    # link first; libxml2 nests them), and reading its text again for every link inside it was quadratic.
    for el, holds_link in zip(anchors, root.holding(anchors, anchors)):
        if not holds_link and el.text().strip() in CONTROL_WORDS:
            el.remove()


def _text(el: Node | None) -> str:
    # Inline markup (links, spans) splits no words: the pieces are joined without a separator.
    return clean_text(el.text()) if el is not None else ""


def _texts(nodes: list[Node]) -> list[str]:
    return [t for t in (_text(n) for n in nodes) if t]


def _cells(row: Node) -> list[Node]:
    return [c for c in row.children() if c.name in ("th", "td")]


def _rows(table: Node) -> list[tuple[Node | None, list[Node], list[bool]]]:
    """The table's rows, nested tables' included, in document order: each with its cells and whether each
    cell holds a table (found in one walk for the whole table, not a search per cell).

    A cell outside any row (its <tr> left out) is read as HTML5 builds it, in a row with the cells after
    it up to the next row (row None here); libxml2 leaves such cells in the table itself.
    """
    found = table.all(tag=("tr", "table", "td", "th"))
    rows: list[tuple[Node | None, list[Node]]] = [(tr, _cells(tr)) for tr in found if tr.name == "tr"]
    inner = [el for el in found if el.name == "table"]
    if sum(len(row) for _, row in rows) < sum(el.name in ("td", "th") for el in found):
        rows = _implied_rows(table, found, inner)
    cells = [c for _, row in rows for c in row]
    holds = iter(table.holding(inner, cells) if inner else [False] * len(cells))
    return [(tr, row, [next(holds) for _ in row]) for tr, row in rows]


def _implied_rows(table: Node, found: list[Node], tables: list[Node]) -> list[tuple[Node | None, list[Node]]]:
    """_rows's rows of a table holding cells outside any row: each cell given to the row or the table it lies
    in (one walk), the cells in a table itself to a row of their own up to the table's next row."""
    trs = [el for el in found if el.name == "tr"]
    cells = [el for el in found if el.name in ("td", "th")]
    owner = dict(zip(map(id, cells), table.nearest(cells, trs + tables)))
    table_of_row = dict(zip(map(id, trs), table.nearest(trs, tables)))
    rows: list[tuple[Node | None, list[Node]]] = []
    own: dict[int, list[Node]] = {}
    implied: dict[int | None, list[Node]] = {}  # each table's row being filled (None: this table)
    for el in found:
        if el.name == "tr":
            implied.pop(table_of_row[id(el)], None)
            rows.append((el, own.setdefault(id(el), [])))
        elif el.name in ("td", "th"):
            i = owner[id(el)]
            if i is not None and i < len(trs):
                own.setdefault(id(trs[i]), []).append(el)
                continue
            key = None if i is None else i - len(trs)
            if key not in implied:
                implied[key] = []
                rows.append((None, implied[key]))
            implied[key].append(el)
    return rows


def _row_text(cells: list[Node], holds_table: list[bool]) -> str:
    """A table row as one line: its own cells' texts; a cell holding a table is read row by row."""
    texts = [_text(c) for c, holds in zip(cells, holds_table) if not holds]
    return CELL_SEPARATOR.join(t for t in texts if t)


def _outermost(root: Node, nodes: list[Node]) -> list[Node]:
    """The nodes that lie inside none of the others (nodes in document order, within ``root``)."""
    if len(nodes) < 2:
        return nodes
    return [n for n, owner in zip(nodes, root.nearest(nodes, nodes)) if owner is None]


def _remove(nodes: list[Node]) -> None:
    """Take the nodes (in document order) out of the tree: the last first, so one inside another goes
    before it and each element is taken out once (the first first would take an outer element's whole
    content out, then each element inside it again, out of the removed part)."""
    for el in reversed(nodes):
        el.remove()


def _blocks(container: Node, is_para: Callable[[Node], bool], para_tags: tuple[str, ...],
            exclude: tuple[Node, ...] = (), para_attr: tuple[str, str] | None = None) -> tuple[list[str], list[Node]]:
    """The text blocks of a body in document order: paragraph elements, and each row of each table.

    Returns the texts and the elements they came from (the roots in which to look for links).
    Paragraph elements inside a table are read as part of its rows, and those inside another paragraph
    as part of it. Whether an element lies in a table or another paragraph, or holds a table, is found
    in one walk for all of them (crawlers.parsers.walks): linear however deep the body nests.
    """
    # One pass over the body: tables and paragraph candidates together (para_attr: an attribute
    # every paragraph has, which narrows the candidates; is_para still decides).
    if para_attr is None:
        everything = container.all(tag=("table",) + para_tags)
    else:
        everything = container.any_of(dict(tag="table"), dict(tag=para_tags, attr=para_attr))
    all_tables = [el for el in everything if el.name == "table"]
    found = everything
    if any(container.within(x) for x in exclude):
        found = []  # the whole body lies in what is left out
    elif exclude:
        found = [el for el, owner in zip(everything, container.nearest(everything, list(exclude))) if owner is None]
    tables = [el for el in found if el.name == "table"]
    in_table = container.nearest(found, tables) if tables else [None] * len(found)
    holds_table = container.holding(all_tables, found) if all_tables else [False] * len(found)
    # A paragraph holding a table is no paragraph (its text is the table's rows); one inside a
    # paragraph that is read is part of that paragraph's text.
    paragraphs = [el for el, owner, holds in zip(found, in_table, holds_table)
                  if el.name != "table" and owner is None and not holds and is_para(el)]
    read = {id(el) for el in _outermost(container, paragraphs)}
    texts: list[str] = []
    roots: list[Node] = []
    for el, owner in zip(found, in_table):
        if el.name == "table":
            if owner is not None:
                continue
            roots.append(el)
            texts += [t for t in (_row_text(cells, holds) for _, cells, holds in _rows(el)) if t]
        elif id(el) in read:
            text = _text(el)
            if text:
                roots.append(el)
                texts.append(text)
    return texts, roots


# The hosts of each site's entries besides the page's own (a page served by the bundled mirror links
# to entries under its own host; a real page may link to the site's other hosts).
SITE_HOSTS = {
    "baidu": ("baike.baidu.com", "wapbaike.baidu.com", "m.baike.baidu.com", "baike.baidu.hk"),
    "sogou": ("baike.sogou.com", "m.baike.sogou.com"),
    "wikipedia": ("zh.wikipedia.org", "zh.m.wikipedia.org"),
}


def _entry_links(roots: list[Node], base_url: str, site: str,
                 entry: Callable[[str, SplitResult], tuple[str, str] | None],
                 title_of: Callable[[Node, str], str]) -> list[dict]:
    """Links to entries of the page's site, first mention first, each URL once.

    entry(absolute URL, its urlsplit parts) gives (entry URL, the title the URL names) for an entry
    link, else None; title_of(a, url title) gives the link's title. Links to other hosts (Wikisource's
    /wiki/ pages, other language editions) are no entries of the site.
    """
    base = _split(base_url)
    hosts = {base.netloc.lower() if base else "", *SITE_HOSTS[site]}
    resolve = _resolver(base_url)
    links: list[dict] = []
    seen: set[str] = set()
    for root in roots:
        anchors = root.all(tag="a")
        if root.name == "table":
            anchors = _kept_in_table(anchors, root)
        for a in anchors:
            href = a.get("href")
            if not href:
                continue
            resolved = resolve(href.strip())
            if resolved is None:
                continue
            absolute, parts = resolved
            if parts.netloc.lower() not in hosts:
                continue
            found = entry(absolute, parts)
            if found is None:
                continue
            try:
                url = canonicalize(found[0])
            except ValueError:  # an id too long to read (5,000 digits)
                continue
            if url in seen:
                continue
            title = title_of(a, found[1])
            if not title:
                continue
            seen.add(url)
            links.append({"title": title, "url": url})
    return links


def _kept_in_table(anchors: list[Node], table: Node) -> list[Node]:
    """The links found in ``table`` that stay in it as browsers build the page: inside one of its cells
    or its caption. HTML5 moves whatever else a table holds (a link between its rows) out, before the
    innermost table around it: lexbor's tree. libxml2 leaves it in place: lxml's and BeautifulSoup's.
    A link so moved out of an inner table lands in the outer table's cell, and stays. Each link's
    nearest cell, caption or the table itself is found in one walk for all of them."""
    if not anchors:
        return anchors
    cells = table.all(tag=("td", "th", "caption"))
    owners = table.nearest(anchors, cells + [table])
    return [a for a, owner in zip(anchors, owners) if owner is not None and owner < len(cells)]


def _spaced(pieces: list[str], text: str) -> bool:
    """Whether ``text`` is the pieces in order, white space (str.isspace) between each two and
    nothing else but white space: ``re.fullmatch(r"\s*" + r"\s+".join(map(re.escape, pieces)) +
    r"\s*", text)``, without compiling a pattern for every value (each page's links make new ones)."""
    if not all(pieces):
        # An empty piece lets the pattern match white space on either side of it: the pattern decides.
        return re.fullmatch(r"\s*" + r"\s+".join(map(re.escape, pieces)) + r"\s*", text) is not None
    # A piece starts and ends with other than white space (it is stripped): each one starts where
    # the white space before it ends, so reading left to right is the only way to match.
    at, end = 0, len(text)
    for i, piece in enumerate(pieces):
        start = at
        while at < end and text[at].isspace():
            at += 1
        if (i and at == start) or not text.startswith(piece, at):
            return False
        at += len(piece)
    while at < end and text[at].isspace():
        at += 1
    return at == end


def _infobox_entry(name_el: Node, value_el: Node, inside: list[Node] | None = None) -> InfoboxEntry | None:
    """inside: the value's <a> and <br> elements, where the caller found them (Node.grouped)."""
    name = clean_name(name_el.text())
    if not name:
        return None
    anchors = value_el.all(tag="a") if inside is None else [el for el in inside if el.name == "a"]
    # Links that only whitespace parts are separate values (Baidu writes 「<a>A</a>\n<a>B</a>」);
    # links that touch are pieces of one value (「<a>+</a><a>86</a> (0)0312」).
    spaced = len(anchors) > 1 and _spaced([a.text().strip() for a in anchors], value_el.text())
    link_texts = [_text(a) for a in anchors] if spaced else None
    value_el.breaks_to_newlines(None if inside is None else [el for el in inside if el.name == "br"])
    lines = [line for line in (clean_text(part) for part in value_el.text().split("\n")) if line]
    if len(lines) > 1:
        # Lines broken by the site: "\n" keeps them apart without inventing punctuation.
        return InfoboxEntry(name=name, value="\n".join(lines),
                            values=[v for line in lines for v in split_values(line)])
    value = lines[0] if lines else ""
    return InfoboxEntry(name=name, value=value, values=split_values(value, link_texts))


def _heading(el: Node | None) -> str:
    """A title's text without what a browser does not show (a script or style inside the heading);
    the regions' text has these removed by _strip_noise, a heading is read on its own."""
    if el is None:
        return ""
    if el.children():  # a heading of text alone (most) has nothing to hide
        _remove(el.all(tag=("script", "style", "noscript")))
    return _text(el)


def _subtitle(el: Node | None) -> str:
    return _heading(el).strip(_SUBTITLE_BRACKETS).strip()


def _read_items(container: Node, read: Callable[[Node], Any]) -> list:
    """``read(li)`` for each list item in ``container``, in document order. An item holding a list of
    its own is read without it (its link and label are its own; the sub-list's items are read each on
    its own): the items are then read from the last, each taken out of the tree once read, so nested
    lists are read once, not again for every item above them."""
    items = container.all(tag="li")
    if not any(container.holding(items, items)):
        return [read(li) for li in items]
    found = []
    for li in reversed(items):
        found.append(read(li))
        li.remove()
    return found[::-1]


def _senses(container: Node, url: str) -> list[dict]:
    def sense(li: Node) -> dict | None:
        a = next((a for a in li.all(tag="a") if a.get("href")), None)
        label = _text(li).lstrip("▪•· ").strip()
        if a is not None:
            target = _target(url, a.get("href"))
            return {"label": label, "url": target} if target is not None else None
        return {"label": label, "url": canonicalize(url)} if label else None

    return [s for s in _read_items(container, sense) if s is not None]


def _fields(title="", subtitle="", summary="", paragraphs=(), infobox=(), links=(), senses=(), tags=(),
            status: str | None = None) -> dict[str, Any]:
    fields = dict(title=title, subtitle=subtitle, summary=summary, paragraphs=list(paragraphs),
                  infobox=list(infobox), links=list(links), senses=list(senses), tags=[t for t in tags if t])
    if status:
        fields["status"] = status
    return fields


def _dl_infobox(container: Node | None, name_tag: str, name_cls: str | None) -> list[InfoboxEntry]:
    """Each name with the value after it. A name or value that holds names of its own (a list inside a
    value) stands for them: their pairs are read instead, never the whole list as one value (as a table
    inside a value cell, _table_infobox)."""
    entries = []
    if container is None:
        return entries
    names = container.all(tag=name_tag, cls=name_cls)
    pairs = [(dt, dd) for dt, dd in zip(names, container.following(names, "dd")) if dd is not None]
    holds_name = container.holding(names, [el for pair in pairs for el in pair])
    pairs = [pair for i, pair in enumerate(pairs) if not (holds_name[2 * i] or holds_name[2 * i + 1])]
    # Every value's links and line breaks in one search where the backend can.
    grouped = container.grouped([dd for _, dd in pairs], ("a", "br")) or [None] * len(pairs)
    for (dt, dd), inside in zip(pairs, grouped):
        entry = _infobox_entry(dt, dd, inside)
        if entry:
            entries.append(entry)
    return entries


def _table_infobox(tables: list[Node]) -> list[InfoboxEntry]:
    """Rows of name (th) and value (td) cells, nested tables included, each row its own entry.

    A row whose value cell (or name cell) holds another table stands for that table: its rows are read
    instead, never the whole table as one value. A row with a header cell only is a section heading.
    """
    entries = []
    for table in tables:
        for _, cells, holds_table in _rows(table):
            th = next((i for i, c in enumerate(cells) if c.name == "th"), None)
            td = next((i for i, c in enumerate(cells) if c.name == "td"), None)
            # A name cell holding a table stands for that table too: its text would be the table's.
            if th is None or td is None or holds_table[td] or holds_table[th]:
                continue
            entry = _infobox_entry(cells[th], cells[td])
            if entry:
                entries.append(entry)
    return entries


# --- Baidu Baike ----------------------------------------------------------------------------


def _baidu_entry(url: str, parts: SplitResult) -> tuple[str, str] | None:
    match = BAIDU_ENTRY.match(parts.path)
    return (url, _unquote(match.group(1)).replace("_", " ")) if match else None


def _baidu_title(a: Node, url_title: str) -> str:
    # The /item/<title> path is the entry's own title; 百度百科：… pages are the site's own.
    return "" if ":" in url_title or "：" in url_title else url_title


def baidu(root: Node, url: str) -> dict[str, Any]:
    """The current layout (2021-): hashed class names beside stable J-* hooks and data-tag blocks."""
    found = root.firsts({
        "title": dict(cls="J-lemma-title"), "summary": dict(cls="J-summary"), "info": dict(cls="J-basic-info"),
        "content": dict(cls="J-lemma-content"), "poly": dict(prefix="polysemantList"),
    })
    title_box, summary_el, info_el, content_el, poly = (
        found[k] for k in ("title", "summary", "info", "content", "poly"))
    # J-lemma-title sits on the <h1> itself (2024 pages) or on a box holding it (earlier ones).
    title_el = title_box if title_box is not None and title_box.name == "h1" else (
        title_box.first(tag="h1") if title_box is not None else None)
    title = _heading(title_el)
    desc = None
    if title_box is not None and title_box.name != "h1":
        desc = title_box.first(prefix="lemmaDesc") or title_box.first(tag="h2")
    if desc is None and title_box is not None:
        desc = root.first(id="lemmaDesc") or root.first(prefix="lemmaDesc")
    subtitle = _subtitle(desc)
    for el in (summary_el, info_el, content_el):
        if el is not None:
            _strip_noise(el)
    summary = ""
    if summary_el is not None:
        summary = " ".join(_texts(_outermost(summary_el, summary_el.all(attr=("data-tag", "paragraph"))))) or _text(
            summary_el)
    paragraphs, blocks = [], []
    if content_el is not None:
        paragraphs, blocks = _blocks(content_el, lambda el: el.get("data-tag") == "paragraph", ("div",),
                                     para_attr=("data-tag", "paragraph"))
    roots = [el for el in (summary_el, info_el) if el is not None] + blocks
    links = _entry_links(roots, url, "baidu", _baidu_entry, _baidu_title)
    tags = [_text(a) for box in _outermost(root, root.all(prefix="tagList")) for a in box.all(tag="a")]
    return _fields(title, subtitle, summary, paragraphs, _dl_infobox(info_el, "dt", None), links,
                   _senses(poly, url) if poly else [], tags)


def baidu_legacy(root: Node, url: str) -> dict[str, Any]:
    """The older layout (until 2021): lemmaWgt-* title, lemma-summary, basic-info, div.para blocks."""
    title_el = root.first(cls="lemmaWgt-lemmaTitle-title")
    title = _heading(title_el.first(tag="h1")) if title_el else ""
    if root.first(cls="lemmaWgt-subLemmaListTitle"):
        senses = []
        for ul in _outermost(root, root.all(tag="ul", cls="custom_dot")):
            for a in ul.all(tag="a"):
                target = _target(url, a.get("href")) if a.get("href") else None
                if target is not None:
                    label = _text(a)
                    senses.append({"label": label.split("：", 1)[1] if "：" in label else label, "url": target})
        return _fields(title, senses=senses, status="disambiguation")
    subtitle = _subtitle(title_el.first(tag="h2")) if title_el else ""
    summary_el = root.first(cls="lemma-summary")
    info_el = root.first(cls="basic-info")
    content_el = root.first(cls="main-content") or root
    for el in (summary_el, info_el, content_el):
        if el is not None:
            _strip_noise(el)
    summary = " ".join(_texts(_outermost(summary_el, summary_el.all(cls="para")))) if summary_el else ""
    exclude = tuple(el for el in (summary_el, info_el) if el is not None)
    paragraphs, blocks = _blocks(content_el, lambda el: "para" in el.classes(), ("div",), exclude)
    roots = list(exclude) + blocks
    links = _entry_links(roots, url, "baidu", _baidu_entry, _baidu_title)
    poly = root.first(cls="polysemantList-wrapper")
    tag_box = root.first(id="open-tag-item")
    tags = [_text(t) for t in _outermost(tag_box, tag_box.all(cls="taglist"))] if tag_box else []
    return _fields(title, subtitle, summary, paragraphs, _dl_infobox(info_el, "dt", "name"), links,
                   _senses(poly, url) if poly else [], tags)


# --- Sogou Baike ----------------------------------------------------------------------------


def _sogou_entry(url: str, parts: SplitResult) -> tuple[str, str] | None:
    if SOGOU_ENTRY.match(parts.path):
        return url, ""
    if parts.path == SOGOU_INNER_LINK:
        lemma_id = (parse_qs(parts.query).get("lemmaId") or [""])[0]
        if lemma_id.isdigit():
            return f"{parts.scheme}://{parts.netloc}/v{lemma_id}.htm", ""
    return None


def _link_title(a: Node, url_title: str) -> str:
    # The page's own name for the target: the title attribute where the site writes one, else the text.
    return (a.get("title") or "").strip() or _text(a)


def sogou(root: Node, url: str) -> dict[str, Any]:
    """Sogou Baike, every generation seen: the 2014-2018 pages (abstract_tbl of abstract_list tables,
    text in lemma_content_wrap sections, links through ShowInnerLink.htm), the 2019- pages
    (base-info-card cells) and the bundled mirror's pages (lemma_content, /v<id>.htm links)."""
    title = _heading(root.first(tag="h1", id="title") or root.first(tag="h1"))
    subtitle = _subtitle(root.first(cls=("lemma_subtitle", "polysemy_title")))
    summary_el = root.first(cls="abstract")
    table = root.first(tag="table", cls="abstract_tbl")
    content_el = root.first(id="lemma_content") or root.first(cls=("lemma_content_wrap", "lemma_content"))
    for el in (summary_el, table, content_el):
        if el is not None:
            _strip_noise(el)
    summary = ""
    if summary_el is not None:
        summary = " ".join(_texts(_outermost(summary_el, summary_el.all(tag="p")))) or _text(summary_el)
    infobox = _table_infobox([table]) if table is not None else []
    paragraphs, blocks = [], []
    if content_el is not None:
        paragraphs, blocks = _blocks(content_el, lambda el: True, ("p",))
    roots = [el for el in (summary_el, table) if el is not None] + blocks
    links = _entry_links(roots, url, "sogou", _sogou_entry, _link_title)
    tags = [_text(a) for box in _outermost(root, root.all(cls=("lemma_tags", "tag_list"))) for a in box.all(tag="a")]
    return _fields(title, subtitle, summary, paragraphs, infobox, links, [], tags)


# --- zh-Wikipedia ------------------------------------------------------------------------------

_WIKI_TITLE = re.compile(r"^(.*?)\s*[（(]([^()（）]+)[)）]$")


def _wiki_entry(url: str, parts: SplitResult) -> tuple[str, str] | None:
    match = WIKI_ENTRY.match(parts.path)
    if not match:
        return None
    name = _unquote(match.group(1))
    # Namespaced pages (Category:, File:, Wikipedia:) are no entries; article titles use "：".
    return None if ":" in name else (url, name.replace("_", " "))


def _wiki_body(root: Node) -> Node | None:
    # The article's own mw-parser-output: site notices above the heading carry that class too.
    content = root.first(id="mw-content-text")
    return (content.first(cls="mw-parser-output") if content is not None else None) or root.first(
        cls="mw-parser-output")


def wikipedia(root: Node, url: str) -> dict[str, Any]:
    heading_el = root.first(id="firstHeading")
    if heading_el is not None:
        _remove(heading_el.all(cls="mw-editsection"))
    heading = _heading(heading_el)
    title, subtitle = heading, ""
    match = _WIKI_TITLE.match(heading)
    if match:
        title, subtitle = match.group(1), match.group(2)
    catlinks = root.first(id="catlinks")
    tags = []
    if catlinks is not None:  # the links in its list items, each once however the items nest
        anchors = catlinks.all(tag="a")
        owners = catlinks.nearest(anchors, catlinks.all(tag="li"))
        tags = [_text(a) for a, owner in zip(anchors, owners) if owner is not None]
    body = _wiki_body(root)
    if body is None:
        return _fields(title, subtitle, tags=tags)
    disambiguation = bool(root.first(id="disambigbox") or root.first(cls="disambig")) or subtitle == "消歧义"
    _remove(body.all(cls=WIKI_NOISE_CLASSES))
    _strip_noise(body)
    boxes = _outermost(body, body.all(tag="table", cls="infobox"))
    infobox = _table_infobox(boxes)
    if disambiguation:
        def sense(li: Node) -> dict | None:
            a = next((a for a in li.all(tag="a") if a.get("href")), None)
            if a is None:
                return None
            shown = _text(a)
            label = _text(li).replace(shown, "", 1).strip("，,：: ") or shown
            target = _target(url, a.get("href"))
            return {"label": label, "url": target} if target is not None else None

        senses = [s for s in _read_items(body, sense) if s is not None]
        return _fields(title, infobox=infobox, senses=senses, tags=tags, status="disambiguation")
    links = _entry_links([body], url, "wikipedia", _wiki_entry, _link_title)
    for box in boxes:
        box.remove()
    summary_parts: list[str] = []
    paragraphs: list[str] = []
    seen_heading = False
    for el in body.children():
        if el.name in ("h2", "h3") or "mw-heading" in el.classes():
            seen_heading = True
        elif el.name == "p":
            text = _text(el)
            if text:
                (paragraphs if seen_heading else summary_parts).append(text)
    return _fields(title, subtitle, " ".join(summary_parts), paragraphs, infobox, links, [], tags)


LAYOUTS = {"baidu": baidu, "baidu_legacy": baidu_legacy, "sogou": sogou, "wikipedia": wikipedia}
