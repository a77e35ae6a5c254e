"""Decoding, site and layout detection, and recognition of pages that are not content."""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_\-]+)""", re.I)

BLOCK_URL_MARKERS = ("wappass", "captcha", "verify", "/sorry", "antispider")
BLOCK_TEXT_MARKERS = ("百度安全验证", "安全验证", "请完成下方验证", "访问过于频繁", "captcha")
NOT_FOUND_MARKERS = (
    "百度百科尚未收录词条",
    "您所访问的页面不存在",
    "百度百科错误页",
    "抱歉，没有找到与",
    "维基百科目前还没有与上述标题相同的条目",
    "搜狗百科暂未收录",
)


def decode(body: bytes | str, declared: str | None = None) -> str:
    """Decode a page: BOM, then the HTTP charset, then <meta charset>, then UTF-8, then GB18030.

    GBK and GB2312 are decoded as GB18030, their superset, so no character is lost.
    """
    if isinstance(body, str):
        return body
    if body.startswith(b"\xef\xbb\xbf"):
        return body[3:].decode("utf-8", errors="replace")
    candidates = []
    if declared:
        candidates.append(declared)
    match = _META_CHARSET.search(body[:4096])
    if match:
        candidates.append(match.group(1).decode("ascii"))
    candidates += ["utf-8", "gb18030"]
    for name in candidates:
        name = name.lower()
        if name in ("gbk", "gb2312", "gb_2312-80", "x-gbk"):
            name = "gb18030"
        try:
            return body.decode(name)
        except (LookupError, UnicodeDecodeError):
            continue
    return body.decode("utf-8", errors="replace")


def detect_source(url: str, html: str) -> tuple[str, str]:
    """Return (source, layout) from the markup, falling back on the URL's host."""
    head = html[:200_000]
    if "J-lemma-title" in head or "J-lemma-content" in head:
        return "baidu", "baidu"
    if "lemmaWgt-lemmaTitle-title" in head or "lemma-summary" in head or "lemmaWgt-subLemmaListTitle" in head:
        return "baidu", "baidu_legacy"
    if "abstract_tbl" in head or "base-info-card" in head or 'class="abstract"' in head:
        return "sogou", "sogou"
    if "firstHeading" in head or "mw-parser-output" in head:
        return "wikipedia", "wikipedia"
    host = urlsplit(url).hostname or ""
    if "baike.baidu" in host:
        return "baidu", ""
    if "baike.sogou" in host:
        return "sogou", ""
    if "wikipedia.org" in host:
        return "wikipedia", ""
    return "other", ""


def block_kind(http_status: int, url: str, location: str = "", title: str = "") -> str | None:
    """Which kind of block a response is (http_429, http_403, captcha_redirect, captcha_page), or None.

    url is where the response came from; location, a redirect's target; title, the page's <title>.
    """
    if http_status == 429:
        return "http_429"
    if http_status == 403:
        return "http_403"
    if 300 <= http_status < 400 and any(m in unquote(location).lower() for m in BLOCK_URL_MARKERS):
        return "captcha_redirect"
    if any(m in unquote(url).lower() for m in BLOCK_URL_MARKERS):
        return "captcha_redirect"
    if any(m in title for m in BLOCK_TEXT_MARKERS):
        return "captcha_page"
    return None


def is_blocked(url: str, http_status: int, html: str) -> bool:
    return block_kind(http_status, url, title=page_title(html)) is not None


def is_not_found(http_status: int, html: str) -> bool:
    if http_status in (404, 410):
        return True
    head = html[:20_000]
    return any(m in head for m in NOT_FOUND_MARKERS)


def is_truncated(html: str) -> bool:
    """A page cut off in transfer: no closing </html> (pages that omit it also lack </body>)."""
    tail = html[-2048:].lower()
    return "</html>" not in tail and "</body>" not in tail


def page_title(html: str) -> str:
    match = re.search(r"<title[^>]*>(.*?)</title>", html[:20_000], re.S | re.I)
    return match.group(1) if match else ""
