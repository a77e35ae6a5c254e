"""Field extraction per layout, written once against :class:`crawlers.parsers.tree.Node`.

Each function takes the document root and the page URL and returns the fields of
a :class:`schemas.Page`; :func:`crawlers.parsers.parse` adds status, hashes and
timestamps. Selectors never rely on Baidu's hashed class suffixes: they match the
stable ``J-*`` classes, ``data-tag`` attributes or class-name prefixes.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from crawlers.parsers.text import CONTROL_WORDS, clean_name, clean_text, split_values
from crawlers.parsers.tree import Node
from crawlers.urls import canonicalize
from schemas import InfoboxEntry

BAIDU_ENTRY = re.compile(r"^/item/([^/?#]+)(?:/(\d+))?/?$")
SOGOU_ENTRY = re.compile(r"^/v(\d+)\.htm$")
WIKI_ENTRY = re.compile(r"^/(?:wiki|zh-hans|zh-hant|zh-cn|zh-tw|zh-hk|zh-sg)/([^?#]+)$")
_SUBTITLE_BRACKETS = "（）()"
NOISE_TAGS = ("script", "style", "sup", "noscript")
NOISE_CLASS_PREFIXES = ("sup-anchor", "edit", "mw-editsection", "audio", "lemma-audio", "reference")
WIKI_NOISE_CLASSES = ("navbox", "hatnote", "reflist", "references", "toc", "mw-references-wrap",
                      "sistersitebox", "metadata")


def _strip_noise(root: Node) -> None:
    """Remove citation marks, edit controls and scripts before reading text."""
    for el in root.all(tag=NOISE_TAGS):
        el.remove()
    for el in root.all(prefix=NOISE_CLASS_PREFIXES):
        el.remove()
    for el in root.all(tag="a"):
        if el.text().strip() in CONTROL_WORDS:
            el.remove()


def _text(el: Node | None) -> str:
    # Inline markup (links, spans) splits no words: the pieces are joined without a separator.
    return clean_text(el.text()) if el is not None else ""


def _texts(nodes: list[Node]) -> list[str]:
    return [t for t in (_text(n) for n in nodes) if t]


def _entry_links(roots: list[Node], base_url: str, pattern: re.Pattern, title_from_url: bool) -> list[dict]:
    links: list[dict] = []
    seen: set[str] = set()
    for root in roots:
        for a in root.all(tag="a"):
            href = a.get("href")
            if not href:
                continue
            absolute = urljoin(base_url, href.strip())
            match = pattern.match(urlsplit(absolute).path)
            if not match:
                continue
            url = canonicalize(absolute)
            if url in seen:
                continue
            if title_from_url:
                title = unquote(match.group(1)).replace("_", " ")
            else:
                title = a.get("title") or _text(a)
            if ":" in title or "：" in title or not title:
                continue  # namespaced wiki pages (Category:, File:) are not entries
            seen.add(url)
            links.append({"title": title, "url": url})
    return links


def _infobox_entry(name_el: Node, value_el: Node) -> InfoboxEntry | None:
    name = clean_name(name_el.text())
    if not name:
        return None
    link_texts = [_text(a) for a in value_el.all(tag="a")]
    value_el.breaks_to_newlines()
    raw = value_el.text()
    lines = [line for line in (clean_text(part) for part in raw.split("\n")) if line]
    value = "、".join(lines) if len(lines) > 1 else clean_text(raw)
    return InfoboxEntry(name=name, value=value, values=split_values(value, link_texts))


def _subtitle(el: Node | None) -> str:
    return clean_text(el.text()).strip(_SUBTITLE_BRACKETS).strip() if el is not None else ""


def _senses(container: Node, url: str) -> list[dict]:
    senses = []
    for li in container.all(tag="li"):
        a = next((a for a in li.all(tag="a") if a.get("href")), None)
        label = _text(li).lstrip("▪•· ").strip()
        if a is not None:
            senses.append({"label": label, "url": canonicalize(urljoin(url, a.get("href")))})
        elif label:
            senses.append({"label": label, "url": canonicalize(url)})
    return senses


def _fields(title="", subtitle="", summary="", paragraphs=(), infobox=(), links=(), senses=(), tags=(),
            status: str | None = None) -> dict[str, Any]:
    fields = dict(title=title, subtitle=subtitle, summary=summary, paragraphs=list(paragraphs),
                  infobox=list(infobox), links=list(links), senses=list(senses), tags=[t for t in tags if t])
    if status:
        fields["status"] = status
    return fields


def _dl_infobox(container: Node | None, name_tag: str, name_cls: str | None) -> list[InfoboxEntry]:
    entries = []
    if container is None:
        return entries
    for dt in container.all(tag=name_tag, cls=name_cls):
        dd = dt.next_sibling(tag="dd")
        entry = _infobox_entry(dt, dd) if dd is not None else None
        if entry:
            entries.append(entry)
    return entries


# --- Baidu Baike, current layout -------------------------------------------------------


def baidu(root: Node, url: str) -> dict[str, Any]:
    found = root.select({
        "title": dict(cls="J-lemma-title"), "summary": dict(cls="J-summary"), "info": dict(cls="J-basic-info"),
        "content": dict(cls="J-lemma-content"), "poly": dict(prefix="polysemantList"),
        "tags": dict(prefix="tagList"),
    })
    title_box, summary_el, info_el, content_el, poly = (
        (found[k] or [None])[0] for k in ("title", "summary", "info", "content", "poly"))
    title = _text(title_box.first(tag="h1")) if title_box else ""
    subtitle = _subtitle(title_box.first(prefix="lemmaDesc") or title_box.first(tag="h2")) if title_box else ""
    roots = [el for el in (summary_el, info_el, content_el) if el is not None]
    for el in roots:
        _strip_noise(el)
    links = _entry_links(roots, url, BAIDU_ENTRY, title_from_url=True)
    summary = ""
    if summary_el is not None:
        summary = " ".join(_texts(summary_el.all(attr=("data-tag", "paragraph")))) or _text(summary_el)
    paragraphs = _texts(content_el.all(attr=("data-tag", "paragraph"))) if content_el else []
    tags = [_text(a) for box in found["tags"] for a in box.all(tag="a")]
    return _fields(title, subtitle, summary, paragraphs, _dl_infobox(info_el, "dt", None), links,
                   _senses(poly, url) if poly else [], tags)


# --- Baidu Baike, older layout ----------------------------------------------------------


def baidu_legacy(root: Node, url: str) -> dict[str, Any]:
    title_el = root.first(cls="lemmaWgt-lemmaTitle-title")
    title = _text(title_el.first(tag="h1")) if title_el else ""
    if root.first(cls="lemmaWgt-subLemmaListTitle"):
        senses = []
        for ul in root.all(tag="ul", cls="custom_dot"):
            for a in ul.all(tag="a"):
                if a.get("href"):
                    label = _text(a)
                    senses.append({"label": label.split("：", 1)[1] if "：" in label else label,
                                   "url": canonicalize(urljoin(url, a.get("href")))})
        return _fields(title, senses=senses, status="disambiguation")
    subtitle = _subtitle(title_el.first(tag="h2")) if title_el else ""
    summary_el = root.first(cls="lemma-summary")
    info_el = root.first(cls="basic-info")
    content_el = root.first(cls="main-content") or root
    for el in (summary_el, info_el, content_el):
        if el is not None:
            _strip_noise(el)
    summary = " ".join(_texts(summary_el.all(cls="para"))) if summary_el else ""
    body_paras = [p for p in content_el.all(tag="div", cls="para")
                  if summary_el is None or not p.within(summary_el)]
    roots = [el for el in (summary_el, info_el) if el is not None] + body_paras
    links = _entry_links(roots, url, BAIDU_ENTRY, title_from_url=True)
    poly = root.first(cls="polysemantList-wrapper")
    tag_box = root.first(id="open-tag-item")
    tags = [_text(t) for t in tag_box.all(cls="taglist")] if tag_box else []
    return _fields(title, subtitle, summary, _texts(body_paras), _dl_infobox(info_el, "dt", "name"), links,
                   _senses(poly, url) if poly else [], tags)


# --- Sogou Baike ----------------------------------------------------------------------------


def sogou(root: Node, url: str) -> dict[str, Any]:
    title = _text(root.first(tag="h1", id="title") or root.first(tag="h1"))
    subtitle = _subtitle(root.first(cls=("lemma_subtitle", "polysemy_title")))
    summary_el = root.first(cls="abstract")
    table = root.first(tag="table", cls="abstract_tbl")
    content_el = root.first(id="lemma_content") or root.first(cls="lemma_content")
    roots = [el for el in (summary_el, table, content_el) if el is not None]
    for el in roots:
        _strip_noise(el)
    summary = ""
    if summary_el is not None:
        summary = " ".join(_texts(summary_el.all(tag="p"))) or _text(summary_el)
    infobox = []
    if table is not None:
        for th in table.all(cls="base-info-card-title"):
            td = th.next_sibling(cls="base-info-card-value")
            entry = _infobox_entry(th, td) if td is not None else None
            if entry:
                infobox.append(entry)
    paragraphs = _texts(content_el.all(tag="p")) if content_el else []
    links = _entry_links(roots, url, SOGOU_ENTRY, title_from_url=False)
    tags = [_text(a) for box in root.all(cls=("lemma_tags", "tag_list")) for a in box.all(tag="a")]
    return _fields(title, subtitle, summary, paragraphs, infobox, links, [], tags)


# --- zh-Wikipedia ------------------------------------------------------------------------------

_WIKI_TITLE = re.compile(r"^(.*?)\s*[（(]([^()（）]+)[)）]$")


def wikipedia(root: Node, url: str) -> dict[str, Any]:
    heading = _text(root.first(id="firstHeading"))
    title, subtitle = heading, ""
    match = _WIKI_TITLE.match(heading)
    if match:
        title, subtitle = match.group(1), match.group(2)
    catlinks = root.first(id="catlinks")
    tags = [_text(a) for li in catlinks.all(tag="li") for a in li.all(tag="a")] if catlinks else []
    body = root.first(cls="mw-parser-output")
    if body is None:
        return _fields(title, subtitle, tags=tags)
    disambiguation = bool(root.first(id="disambigbox") or root.first(cls="disambig")) or subtitle == "消歧义"
    for el in body.all(cls=WIKI_NOISE_CLASSES):
        el.remove()
    _strip_noise(body)
    infobox = []
    box = body.first(tag="table", cls="infobox")
    if box is not None:
        for tr in box.all(tag="tr"):
            th, td = tr.first(tag="th"), tr.first(tag="td")
            if th is not None and td is not None:
                entry = _infobox_entry(th, td)
                if entry:
                    infobox.append(entry)
    if disambiguation:
        senses = []
        for li in body.all(tag="li"):
            a = next((a for a in li.all(tag="a") if a.get("href")), None)
            if a is None:
                continue
            shown = _text(a)
            label = _text(li).replace(shown, "", 1).strip("，,：: ") or shown
            senses.append({"label": label, "url": canonicalize(urljoin(url, a.get("href")))})
        return _fields(title, infobox=infobox, senses=senses, tags=tags, status="disambiguation")
    links = _entry_links([body], url, WIKI_ENTRY, title_from_url=True)
    if box is not None:
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
