"""Page parsers written with BeautifulSoup (lxml tree builder), one function per layout.

Each layout function takes a parsed tree and the page URL and returns the fields
of a :class:`schemas.Page`; :func:`crawlers.parsers.parse` adds status, hashes and
timestamps. Selectors never rely on Baidu's hashed class suffixes: they match the
stable ``J-*`` classes, ``data-tag`` attributes or class-name prefixes.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from bs4 import BeautifulSoup, Tag

from crawlers.parsers.text import CONTROL_WORDS, clean_name, clean_text, split_values
from crawlers.urls import canonicalize
from schemas import InfoboxEntry

BAIDU_ENTRY = re.compile(r"^/item/([^/?#]+)(?:/(\d+))?/?$")
SOGOU_ENTRY = re.compile(r"^/v(\d+)\.htm$")
WIKI_ENTRY = re.compile(r"^/(?:wiki|zh-hans|zh-hant|zh-cn|zh-tw|zh-hk|zh-sg)/([^?#]+)$")
_SUBTITLE_BRACKETS = "（）()"


def make_soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "lxml")


def _prefix(prefix: str):
    return re.compile(rf"^{re.escape(prefix)}")


def _strip_noise(root: Tag) -> None:
    """Remove citation marks, edit controls and scripts before reading text."""
    for el in root.find_all(["script", "style", "sup", "noscript"]):
        el.decompose()
    for el in root.find_all(class_=re.compile(r"^(sup-anchor|edit|mw-editsection|audio|lemma-audio|reference)")):
        el.decompose()
    for el in root.find_all("a"):
        if el.get_text(strip=True) in CONTROL_WORDS:
            el.decompose()


def _text(el: Tag | None) -> str:
    # Inline markup (links, spans) splits no words: join the pieces without a separator.
    if el is None:
        return ""
    return clean_text(el.get_text(""))


def _entry_links(roots: list[Tag], base_url: str, pattern: re.Pattern, title_from_url: bool) -> list[dict]:
    links: list[dict] = []
    seen: set[str] = set()
    for root in roots:
        for a in root.find_all("a", href=True):
            href = a["href"].strip()
            absolute = urljoin(base_url, href)
            parts = urlsplit(absolute)
            match = pattern.match(parts.path)
            if not match:
                continue
            url = canonicalize(absolute)
            if url in seen:
                continue
            anchor = clean_text(a.get_text(""))
            if title_from_url:
                title = unquote(match.group(1)).replace("_", " ")
            else:
                title = a.get("title") or anchor
            if ":" in title or "：" in title or not title:
                continue  # namespaced wiki pages (Category:, File:) are not entries
            seen.add(url)
            links.append({"title": title, "url": url})
    return links


def _infobox_entry(name_el: Tag, value_el: Tag) -> InfoboxEntry | None:
    name = clean_name(name_el.get_text(""))
    if not name:
        return None
    link_texts = [clean_text(a.get_text("")) for a in value_el.find_all("a")]
    for br in value_el.find_all("br"):
        br.replace_with("\n")
    raw = value_el.get_text("")
    lines = [clean_text(line) for line in raw.split("\n")]
    value = "、".join(line for line in lines if line) if len([l for l in lines if l]) > 1 else clean_text(raw)
    return InfoboxEntry(name=name, value=value, values=split_values(value, link_texts))


def _subtitle(text: str) -> str:
    return clean_text(text).strip(_SUBTITLE_BRACKETS).strip()


# --- Baidu Baike, current layout -------------------------------------------------


def parse_baidu(soup: BeautifulSoup, url: str) -> dict[str, Any]:
    title_box = soup.find(class_="J-lemma-title")
    title = _text(title_box.find("h1")) if title_box else ""
    subtitle = ""
    if title_box:
        desc = title_box.find(class_=_prefix("lemmaDesc")) or title_box.find("h2")
        subtitle = _subtitle(desc.get_text(" ")) if desc else ""
    summary_el = soup.find(class_="J-summary")
    info_el = soup.find(class_="J-basic-info")
    content_el = soup.find(class_="J-lemma-content")
    roots = [el for el in (summary_el, info_el, content_el) if el is not None]
    for root in roots:
        _strip_noise(root)
    links = _entry_links(roots, url, BAIDU_ENTRY, title_from_url=True)

    summary = " ".join(
        t for t in (_text(p) for p in summary_el.find_all(attrs={"data-tag": "paragraph"})) if t
    ) if summary_el else ""
    if summary_el and not summary:
        summary = _text(summary_el)
    infobox = []
    if info_el:
        for dt in info_el.find_all("dt"):
            dd = dt.find_next_sibling("dd")
            entry = _infobox_entry(dt, dd) if dd else None
            if entry:
                infobox.append(entry)
    paragraphs = []
    if content_el:
        for block in content_el.find_all(attrs={"data-tag": "paragraph"}):
            text = _text(block)
            if text:
                paragraphs.append(text)
    senses = []
    poly = soup.find(class_=_prefix("polysemantList"))
    if poly:
        senses = _senses(poly, url)
    tags = [_text(t) for t in soup.select("[class^=tagList] a, [class*=' tagList'] a")]
    return dict(title=title, subtitle=subtitle, summary=summary, paragraphs=paragraphs,
                infobox=infobox, links=links, senses=senses, tags=[t for t in tags if t])


def _senses(container: Tag, url: str) -> list[dict]:
    senses = []
    for li in container.find_all("li"):
        a = li.find("a", href=True)
        label = _text(li).lstrip("▪•· ").strip()
        if a is not None:
            senses.append({"label": label, "url": canonicalize(urljoin(url, a["href"]))})
        elif label:
            senses.append({"label": label, "url": canonicalize(url)})
    return senses


# --- Baidu Baike, older layout ------------------------------------------------------


def parse_baidu_legacy(soup: BeautifulSoup, url: str) -> dict[str, Any]:
    if soup.find(class_="lemmaWgt-subLemmaListTitle"):
        return _parse_baidu_disambiguation(soup, url)
    title_el = soup.find(class_="lemmaWgt-lemmaTitle-title")
    title = _text(title_el.find("h1")) if title_el else ""
    subtitle = _subtitle(title_el.find("h2").get_text(" ")) if title_el and title_el.find("h2") else ""
    summary_el = soup.find(class_="lemma-summary")
    info_el = soup.find(class_="basic-info")
    content_el = soup.find(class_="main-content") or soup.body or soup
    roots = [el for el in (summary_el, info_el) if el is not None]
    for root in roots + [content_el]:
        _strip_noise(root)
    summary = " ".join(t for t in (_text(p) for p in summary_el.find_all(class_="para")) if t) if summary_el else ""
    infobox = []
    if info_el:
        for dt in info_el.find_all("dt", class_="name"):
            dd = dt.find_next_sibling("dd")
            entry = _infobox_entry(dt, dd) if dd else None
            if entry:
                infobox.append(entry)
    paragraphs = []
    body_paras = []
    for para in content_el.find_all("div", class_="para"):
        if summary_el is not None and summary_el in para.parents:
            continue
        body_paras.append(para)
        text = _text(para)
        if text:
            paragraphs.append(text)
    links = _entry_links(roots + body_paras, url, BAIDU_ENTRY, title_from_url=True)
    poly = soup.find(class_="polysemantList-wrapper")
    senses = _senses(poly, url) if poly else []
    tags = [_text(t) for t in soup.select("#open-tag-item .taglist")]
    return dict(title=title, subtitle=subtitle, summary=summary, paragraphs=paragraphs,
                infobox=infobox, links=links, senses=senses, tags=[t for t in tags if t])


def _parse_baidu_disambiguation(soup: BeautifulSoup, url: str) -> dict[str, Any]:
    title_el = soup.find(class_="lemmaWgt-lemmaTitle-title")
    title = _text(title_el.find("h1")) if title_el else ""
    senses = []
    for a in soup.select("ul.custom_dot a[href]"):
        label = _text(a)
        if "：" in label:
            label = label.split("：", 1)[1]
        senses.append({"label": label, "url": canonicalize(urljoin(url, a["href"]))})
    return dict(title=title, subtitle="", summary="", paragraphs=[], infobox=[], links=[],
                senses=senses, tags=[], status="disambiguation")


# --- Sogou Baike --------------------------------------------------------------------------


def parse_sogou(soup: BeautifulSoup, url: str) -> dict[str, Any]:
    title = _text(soup.find("h1", id="title") or soup.find("h1"))
    sub_el = soup.find(class_=re.compile(r"subtitle|polysemy_title"))
    subtitle = _subtitle(sub_el.get_text(" ")) if sub_el else ""
    summary_el = soup.find(class_="abstract")
    table = soup.find("table", class_="abstract_tbl")
    content_el = soup.find(id="lemma_content") or soup.find(class_="lemma_content")
    roots = [el for el in (summary_el, table, content_el) if el is not None]
    for root in roots:
        _strip_noise(root)
    summary = " ".join(t for t in (_text(p) for p in summary_el.find_all("p")) if t) if summary_el else ""
    if summary_el and not summary:
        summary = _text(summary_el)
    infobox = []
    if table:
        for th in table.find_all(class_="base-info-card-title"):
            td = th.find_next_sibling(class_="base-info-card-value")
            entry = _infobox_entry(th, td) if td else None
            if entry:
                infobox.append(entry)
    paragraphs = [t for t in (_text(p) for p in content_el.find_all("p")) if t] if content_el else []
    links = _entry_links(roots, url, SOGOU_ENTRY, title_from_url=False)
    tags = [_text(t) for t in soup.select(".lemma_tags a, .tag_list a")]
    return dict(title=title, subtitle=subtitle, summary=summary, paragraphs=paragraphs,
                infobox=infobox, links=links, senses=[], tags=[t for t in tags if t])


# --- zh-Wikipedia ---------------------------------------------------------------------------

_WIKI_TITLE = re.compile(r"^(.*?)\s*[（(]([^()（）]+)[)）]$")


def parse_wikipedia(soup: BeautifulSoup, url: str) -> dict[str, Any]:
    heading = _text(soup.find(id="firstHeading"))
    title, subtitle = heading, ""
    match = _WIKI_TITLE.match(heading)
    if match:
        title, subtitle = match.group(1), match.group(2)
    body = soup.find(class_="mw-parser-output")
    if body is None:
        return dict(title=title, subtitle=subtitle, summary="", paragraphs=[], infobox=[],
                    links=[], senses=[], tags=[])
    for el in body.find_all(class_=re.compile(r"^(navbox|hatnote|reflist|references|toc|mw-references-wrap|sistersitebox|metadata)$")):
        el.decompose()
    _strip_noise(body)
    disambiguation = bool(soup.find(id="disambigbox") or soup.find(class_="disambig")) or subtitle == "消歧义"
    infobox = []
    box = body.find("table", class_="infobox")
    if box is not None:
        for tr in box.find_all("tr"):
            th = tr.find("th")
            td = tr.find("td")
            if th is None or td is None:
                continue
            entry = _infobox_entry(th, td)
            if entry:
                infobox.append(entry)
    links = _entry_links([body], url, WIKI_ENTRY, title_from_url=True)
    if box is not None:
        box.decompose()
    summary_parts: list[str] = []
    paragraphs: list[str] = []
    seen_heading = False
    for el in body.find_all(["p", "h2", "h3", "div"], recursive=False):
        if el.name in ("h2", "h3") or "mw-heading" in (el.get("class") or []):
            seen_heading = True
            continue
        if el.name != "p":
            continue
        text = _text(el)
        if not text:
            continue
        (paragraphs if seen_heading else summary_parts).append(text)
    senses = []
    status = None
    if disambiguation:
        status = "disambiguation"
        for li in body.find_all("li"):
            a = li.find("a", href=True)
            if a is None:
                continue
            shown = _text(a)
            label = _text(li).replace(shown, "", 1).strip("，,：: ") or shown
            senses.append({"label": label, "url": canonicalize(urljoin(url, a["href"]))})
        links = []
        summary_parts = []
    tags = [_text(a) for a in soup.select("#catlinks li a")]
    result = dict(title=title, subtitle="" if disambiguation else subtitle, summary=" ".join(summary_parts),
                  paragraphs=paragraphs, infobox=infobox, links=links, senses=senses,
                  tags=[t for t in tags if t])
    if status:
        result["status"] = status
    return result


LAYOUTS = {
    "baidu": parse_baidu,
    "baidu_legacy": parse_baidu_legacy,
    "sogou": parse_sogou,
    "wikipedia": parse_wikipedia,
}
