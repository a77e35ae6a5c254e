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
