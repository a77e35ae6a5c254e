"""The parse benchmark's peer: a standalone scraper for Baidu Baike's current layout, written as someone scraping
that one site would write it, with selectolax (lexbor) and the standard library only. It imports nothing of
zhbench (``tests/bench/test_parse_peer.py`` checks), so it pays for none of zhbench's reading: no layout
detection, no checks for blocked, missing, cut-off or verification pages, no canonical-link reading, no
backend-neutral tree.

``scrape(body, url)`` returns the fields of zhbench's page record for such a page (title, subtitle, summary,
paragraphs, infobox, entry links, senses, tags, canonical URL, content hash). On the bench page they must equal
``crawlers.parsers.parse``'s, or the bench fails: the two do the same extraction, one inside zhbench's parser and
one on its own.
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import quote, unquote, urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

NOISE = ("script, style, sup, noscript, [class*=sup-anchor], [class*=edit], [class*=mw-editsection], "
         "[class*=audio], [class*=lemma-audio], [class*=reference], .lemma-picture, .lemma-album, .text_img, "
         "[class*=lemmaPicture], [class*=lemmaAlbum]")
CONTROLS = {"播报", "编辑", "讨论", "上传视频", "[编辑]"}
BAIDU_HOSTS = {"baike.baidu.com", "wapbaike.baidu.com", "m.baike.baidu.com", "baike.baidu.hk"}
ENTRY_PATH = re.compile(r"^/item/([^/?#]+)(?:/(\d+))?/?$")
CITATION = re.compile(r"\[(?:\d+(?:[\-–,，]\d+)*|注\s*\d+|[a-z])\]")
SPACES = re.compile(r"[\s\u00a0\u3000\u200b\u200c\u200d\u2060\ufeff]+")
CJK = r"\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef"
SPACE_IN_CJK = re.compile(rf"(?<=[{CJK}])\s+(?=[{CJK}])")
SPACE_NOT_IN_LATIN = re.compile(r"(?<![A-Za-z0-9]) | (?![A-Za-z0-9])")
VALUE_SEPARATORS = re.compile(r"[、，,；;／/\n]")
CELL_SEPARATOR = " | "


def clean(text: str) -> str:
    """Citation marks dropped, whitespace collapsed and gone between Chinese characters."""
    while (stripped := CITATION.sub("", text)) != text:
        text = stripped
    return SPACE_IN_CJK.sub("", SPACES.sub(" ", text).strip())


def text_of(node) -> str:
    return clean(node.text(deep=True, separator="", strip=False)) if node is not None else ""


def name_of(node) -> str:
    """An infobox name: '中 文 名' -> '中文名', 'Python 3发布时间' keeps its space."""
    text = SPACES.sub(" ", CITATION.sub("", node.text())).strip().lstrip("•·・▪◦‧-–— ")
    return SPACE_NOT_IN_LATIN.sub("", text).rstrip("：:")


def split_cell(value: str) -> list[str]:
    """A cell's single values: split at 、，；/ and line breaks, never inside 《》 or brackets."""
    parts, current, depth = [], [], 0
    for ch in value:
        if ch in "《（(":
            depth += 1
        elif ch in "》）)" and depth:
            depth -= 1
        if depth == 0 and VALUE_SEPARATORS.match(ch):
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def strip_noise(region) -> None:
    for el in region.css(NOISE):
        el.decompose()
    for a in region.css("a"):
        if a.text().strip() in CONTROLS:
            a.decompose()


def inside_table(el, region) -> bool:
    stop, el = region.mem_id, el.parent
    while el is not None and el.mem_id != stop:
        if el.tag == "table":
            return True
        el = el.parent
    return False


def infobox(info) -> list[dict]:
    entries = []
    for dt in info.css("dt"):
        dd = dt.next
        while dd is not None and dd.tag != "dd":
            dd = dd.next
        name = name_of(dt)
        if dd is None or not name:
            continue
        for br in dd.css("br"):
            br.replace_with("\n")
        lines = [line for line in map(clean, dd.text().split("\n")) if line]
        value = "\n".join(lines)
        entries.append({"name": name, "value": value, "values": [v for line in lines for v in split_cell(line)]})
    return entries


def canonical(url: str) -> str:
    """The entry's address as Baidu spells it: https on its public host, the title percent-encoded once."""
    parts = urlsplit(url)
    host = parts.netloc.lower()
    scheme, host = ("https", "baike.baidu.com") if host in BAIDU_HOSTS else (parts.scheme or "http", host)
    path = quote(unquote(parts.path), safe="/")
    return f"{scheme}://{host}{path}"


def entry_links(roots, url: str) -> list[dict]:
    hosts = {urlsplit(url).netloc.lower(), *BAIDU_HOSTS}
    links, seen = [], set()
    for root in roots:
        for a in root.css("a[href]"):
            href = (a.attributes.get("href") or "").strip()
            absolute = urljoin(url, href) if href else ""
            parts = urlsplit(absolute)
            match = ENTRY_PATH.match(parts.path) if parts.netloc.lower() in hosts else None
            if not match:
                continue
            title = unquote(match.group(1)).replace("_", " ")
            target = canonical(absolute)
            if target in seen or not title or ":" in title or "：" in title:
                continue
            seen.add(target)
            links.append({"title": title, "url": target})
    return links


def scrape(body: bytes, url: str) -> dict:
    """The record of a current-layout Baidu Baike page."""
    doc = LexborHTMLParser(body.decode("utf-8"))
    title_box = doc.css_first(".J-lemma-title")
    summary_el, info_el = doc.css_first(".J-summary"), doc.css_first(".J-basic-info")
    content_el, poly = doc.css_first(".J-lemma-content"), doc.css_first("[class*=polysemantList]")
    title_el = title_box if title_box is not None and title_box.tag == "h1" else (
        title_box.css_first("h1") if title_box is not None else None)
    desc = None
    if title_box is not None and title_box.tag != "h1":
        desc = title_box.css_first("[class*=lemmaDesc], h2")
    if desc is None and title_box is not None:
        desc = doc.css_first("[id=lemmaDesc], [class*=lemmaDesc]")
    for el in (summary_el, info_el, content_el):
        if el is not None:
            strip_noise(el)
    summary = ""
    if summary_el is not None:
        summary = " ".join(t for t in map(text_of, summary_el.css("[data-tag=paragraph]")) if t) or text_of(summary_el)
    paragraphs, blocks = [], []
    if content_el is not None:
        for el in content_el.css("table, div[data-tag=paragraph]"):
            if inside_table(el, content_el):
                continue
            if el.tag == "table":
                blocks.append(el)
                rows = (CELL_SEPARATOR.join(t for t in (text_of(c) for c in tr.iter() if c.tag in ("th", "td")
                                                        and c.css_first("table") is None) if t)
                        for tr in el.css("tr"))
                paragraphs += [row for row in rows if row]
            elif el.css_first("table") is None and (text := text_of(el)):
                blocks.append(el)
                paragraphs.append(text)
    senses = []
    for li in poly.css("li") if poly is not None else ():
        a, label = li.css_first("a[href]"), text_of(li).lstrip("▪•· ").strip()
        if a is not None:
            senses.append({"label": label, "url": canonical(urljoin(url, a.attributes["href"]))})
        elif label:
            senses.append({"label": label, "url": canonical(url)})
    return {
        "canonical_url": canonical(url), "content_hash": hashlib.sha256(body).hexdigest(),
        "title": text_of(title_el), "subtitle": text_of(desc).strip("（）()").strip() if desc is not None else "",
        "summary": summary, "paragraphs": paragraphs,
        "infobox": infobox(info_el) if info_el is not None else [],
        "links": entry_links([el for el in (summary_el, info_el) if el is not None] + blocks, url),
        "senses": senses, "tags": [t for t in (text_of(a) for a in doc.css("[class*=tagList] a")) if t],
    }
