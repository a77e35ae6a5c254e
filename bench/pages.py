"""A realistic ~80 KB Baidu Baike page for parser benchmarks.

Real entry pages weigh 80–150 KB, most of it page chrome: the inline lemma
JSON (``window.PAGE_DATA``), script bundles, a "related entries" sidebar and
the reference list. This takes a mirror entry's current-layout page and adds
that chrome, built from other entries of the facts table, until the page
reaches the target size. The extracted record is the entry's own: none of the
added chrome may leak into it.
"""

from __future__ import annotations

import json
from html import escape

from crawlers.mirror import render
from crawlers.mirror.site import Site


def realistic_page(site: Site, title: str = "长江", target_bytes: int = 80_000) -> tuple[bytes, str]:
    entry = site.senses(title)[0]
    html = render.baidu(entry, site.baidu_link, site.senses(entry.title), site.build)
    others = [e for e in site.entries if e.key != entry.key]
    page_data = {
        "lemmaId": entry.baidu_id, "lemmaTitle": entry.title, "lemmaDesc": entry.sense,
        "abstract": entry.summary, "card": [{"key": n, "value": v} for n, v in entry.infobox],
        "catalog": [h for h, _ in entry.sections], "relations": [],
    }
    sidebar, refs = [], []
    size = len(html.encode()) + len(json.dumps(page_data, ensure_ascii=False).encode())
    i = 0
    while size < target_bytes:
        other = others[i % len(others)]
        relation = {"title": other.title, "desc": other.sense, "abstract": other.summary}
        page_data["relations"].append(relation)
        sidebar.append(f'<li class="relatedItem_x1"><a href="{escape(render.item_path(other.title, other.baidu_id))}'
                       f'?fromModule=lemma_related">{escape(other.title)}</a><span>{escape(other.sense)}</span></li>')
        refs.append(f'<li class="referenceItem_r2"><span class="refIndex">[{i + 1}]</span>'
                    f'<a rel="nofollow" href="https://example.org/ref/{i}">{escape(other.title)}相关资料</a>'
                    '<span class="refSite">参考网站</span><span class="refDate">2024-01-01</span></li>')
        size += sum(len(x.encode()) for x in (json.dumps(relation, ensure_ascii=False), sidebar[-1], refs[-1]))
        i += 1
    chrome = (
        f'<script>window.PAGE_DATA={json.dumps(page_data, ensure_ascii=False)};</script>'
        f'<div class="sideContent_s9"><div class="relatedLemma_k3"><h3>相关词条</h3><ul>{"".join(sidebar)}</ul></div></div>'
        f'<div class="lemmaReference_q7"><h3>参考资料</h3><ul>{"".join(refs)}</ul></div>'
    )
    page = html.replace("</body>", chrome + "</body>")
    return page.encode("utf-8"), f"http://127.0.0.1:8800{render.item_path(entry.title, entry.baidu_id)}"


# --- pages nested thousands deep: the inputs that once stalled the parser -----------------------------

BAIDU_URL = "https://baike.baidu.com/item/%E6%B5%8B%E8%AF%95/1"
WIKI_URL = "https://zh.wikipedia.org/wiki/%E6%B5%8B%E8%AF%95"
SOGOU_URL = "https://baike.sogou.com/v42.htm"
_LINK = "<a href='/item/%E7%94%B2/2'>甲</a>"


def _legacy(summary: str = "简介", value: str = "测试", body: str = "", senses: str = "") -> str:
    """Baidu's older layout with raw HTML in each slot."""
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>测试_百度百科</title></head><body>"
            "<div class='main-content'><dl class='lemmaWgt-lemmaTitle'><dd class='lemmaWgt-lemmaTitle-title'>"
            f"<h1>测试</h1></dd></dl><div class='lemma-summary'><div class='para'>{summary}</div></div>"
            "<div class='basic-info'><dl class='basicInfo-block'><dt class='basicInfo-item name'>中文名</dt>"
            f"<dd class='basicInfo-item value'>{value}</dd></dl></div><div class='para'>正文</div>{body}"
            f"<div class='polysemantList-wrapper'>{senses}</div></div></body></html>")


def _baidu(info: str = "<dt>名</dt><dd>值</dd>", content: str = "") -> str:
    """Baidu's current layout."""
    return ("<!DOCTYPE html><html><body><div class='J-lemma-title'><h1>测试</h1></div><div class='J-summary'>"
            f"<div data-tag='paragraph'>简介</div></div><div class='J-basic-info'><dl>{info}</dl></div>"
            f"<div class='J-lemma-content'><div data-tag='paragraph'>正文</div>{content}</div></body></html>")


def _wikipedia(infobox: str = "", body: str = "") -> str:
    return ("<!DOCTYPE html><html><body><h1 id='firstHeading'>测试</h1><div id='mw-content-text'>"
            f"<div class='mw-parser-output'>{infobox}<p>简介</p><h2>生平</h2><p>正文</p>{body}</div></div>"
            "</body></html>")


def _sogou(rows: str) -> str:
    return ("<!DOCTYPE html><html><body><h1 id='title'>测试</h1><div class='abstract'><p>简介</p></div>"
            f"<table class='abstract_tbl'>{rows}</table><div id='lemma_content'><p>正文</p></div></body></html>")


def _nest(open_: str, inner: str, close: str, depth: int) -> str:
    return open_ * depth + inner + close * depth


# Each shape nests one thing the layouts read, ``depth`` times, with the content at the bottom only (the
# record stays small at any depth: what grows is only the tree). "tables" is the page of the report:
# 3,001 of them took 17.4 s with the selectolax backend (lexbor makes them siblings, libxml2 nests them).
NESTED_SHAPES = {
    "tables": lambda d: (_legacy(body=_nest("<table>", "表", "</table>", d)), BAIDU_URL),
    "table_cells": lambda d: (_legacy(body=_nest("<table><tr><td>", _LINK, "</td></tr></table>", d)), BAIDU_URL),
    "sibling_tables": lambda d: (_legacy(body="<table><tr><td>格</td></tr></table>" * d), BAIDU_URL),
    "paragraphs": lambda d: (_legacy(body=_nest("<div class='para'>", _LINK, "</div>", d)), BAIDU_URL),
    "data_tag_paragraphs": lambda d: (_baidu(content=_nest("<div data-tag='paragraph'>", _LINK, "</div>", d)),
                                      BAIDU_URL),
    "divs": lambda d: (_legacy(body=_nest("<div>", f"<div class='para'>{_LINK}</div>", "</div>", d)), BAIDU_URL),
    "spans_in_a_value": lambda d: (_legacy(value=_nest("<span>", f"{_LINK}<br>{_LINK}", "</span>", d)), BAIDU_URL),
    "lists_in_values": lambda d: (_baidu(info=_nest("<dt>名</dt><dd><dl>", _LINK, "</dl></dd>", d)), BAIDU_URL),
    "names_before_a_value": lambda d: (_baidu(info="<dt>名</dt>" * d + f"<dd>{_LINK}</dd>"), BAIDU_URL),
    "noise": lambda d: (_legacy(summary=_nest("<sup>", "1", "</sup>", d) + "文"), BAIDU_URL),
    "links": lambda d: (_legacy(summary=_nest("<a href='/item/%E4%B9%99/3'><span>", "乙", "</span></a>", d)),
                        BAIDU_URL),
    "sense_lists": lambda d: (_legacy(senses=_nest("<ul><li>", _LINK, "</li></ul>", d)), BAIDU_URL),
    "wiki_disambiguation": lambda d: (_wikipedia(body=_nest("<ul><li>", "<a href='/wiki/A'>A</a>", "</li></ul>", d)
                                                 + "<table id='disambigbox'><tr><td>消歧义</td></tr></table>"),
                                      WIKI_URL),
    "wiki_infobox": lambda d: (_wikipedia(infobox=_nest("<table class='infobox'><tr><th>名</th><td>", "值",
                                                        "</td></tr></table>", d)), WIKI_URL),
    "sogou_infobox": lambda d: (_sogou("<tr><th>名</th><td>" + _nest("<table><tr><th>名</th><td>", "值",
                                                                       "</td></tr></table>", d) + "</td></tr>"),
                                SOGOU_URL),
}


def nested_page(shape: str, depth: int) -> tuple[str, str]:
    """(html, url) of one of :data:`NESTED_SHAPES` at ``depth``."""
    return NESTED_SHAPES[shape](depth)
