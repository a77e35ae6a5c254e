"""Decoding, site and layout detection, and recognition of pages that are not content.

The site a page is from is decided by its URL's host wherever the host is one of the sites'
(``baike.baidu.com``, ``zh.wikipedia.org`` …); only a page from another host (the bundled mirror
on 127.0.0.1, a local copy) is recognised by its markup. The layout always comes from the markup.

A page's status comes from its content, never from words in its URL path or title: an entry about
CAPTCHA (``/item/CAPTCHA``, a page titled 「Verify」) is content. A verification page is recognised
by the host or path of the verification service it is served from (wappass.baidu.com,
``/static/captcha``, Sogou's ``/antispider/``, ``/sorry``), by its exact ``<title>`` (entries always
carry the site's suffix, as in 「验证码_百度百科」, so an exact title never names an entry), by a title
that names a verification (百度安全验证 - 百度, 安全验证中) and carries no entry's suffix, or by the
markup of the verification form: the service's own, or a notice (请完成验证, 安全验证) beside a form
or an input on a page with no entry markup. zh-Wikipedia serves no verification page.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import urlsplit

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_\-]+)""", re.I)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.S | re.I)

# Hosts of the verification services, and the paths they are served under (on those hosts, and on
# copies of the sites such as the bundled mirror, which serves Baidu's under /wappass/).
VERIFY_HOSTS = ("wappass.baidu.com",)
VERIFY_PATH = re.compile(r"^(?:/wappass)?/static/captcha(?:/|$)|^/(?:wappass|antispider|sorry)(?:/|$)", re.I)
# <title> of a verification page, matched whole: Baidu's 百度安全验证 page, and the bare titles
# generic verification pages carry. A whole-title match never hits an entry (「验证码_百度百科」).
VERIFY_TITLES = frozenset({"百度安全验证", "安全验证", "验证码", "访问验证", "请输入验证码"})
# Words of a title that names a verification; such a title without an entry's suffix is a verification page.
VERIFY_TITLE_WORDS = ("安全验证", "验证码", "访问验证", "人机验证", "请完成验证")
ENTRY_TITLE_SUFFIXES = tuple(unicodedata.normalize("NFKC", s) for s in (
    "_百度百科", "_搜狗百科", "- 搜狗百科", "维基百科，自由的百科全书", "維基百科，自由的百科全書"))
# What a verification page asks, beside a form or an input of its own (on a page with no entry markup).
VERIFY_NOTICES = ("请完成验证", "完成下方验证", "完成安全验证", "安全验证")
_FORM = re.compile(r"<(?:form|input)\b", re.I)
# Characters a title may carry that are no part of its words.
_INVISIBLE = re.compile("[\u200b-\u200f\u2060\ufeff]")
# Markup only a verification page carries: Sogou's antispider form and its notice; Baidu's
# verification dialog.
VERIFY_MARKUP = (
    'id="seccodeImage"', 'id="seccodeInput"', "此验证码用于确认这些请求是您的正常行为",
    'class="passMod_dialog', "请完成下方验证后继续操作",
)

NOT_FOUND_MARKERS = (
    "百度百科尚未收录词条",
    "您所访问的页面不存在",
    "百度百科错误页",
    "抱歉，没有找到与",
    "维基百科目前还没有与上述标题相同的条目",
    "搜狗百科暂未收录",
)
# The Baidu Baike home page, where a missing entry is redirected: no entry, so not_found. Its title
# read 百度百科_全球最大中文百科全书 in 2019 (tests/fixtures/pages/real/baidu_home.html); the pattern
# also takes the later wording 全球领先的中文百科全书 and other separators.
HOME_TITLE = re.compile(r"^\s*百度百科\s*[_—\-–|]+\s*全球(?:最大|领先)的?中文百科全书\s*$")

# Markup of each layout, per site, in the order they are tried.
LAYOUT_MARKERS = {
    "baidu": (("baidu", ("J-lemma-title", "J-lemma-content")),
              ("baidu_legacy", ("lemmaWgt-lemmaTitle-title", "lemma-summary", "lemmaWgt-subLemmaListTitle"))),
    "sogou": (("sogou", ("abstract_tbl", "base-info-card", "lemma_content_wrap", "ShowInnerLink.htm")),),
    "wikipedia": (("wikipedia", ("firstHeading", "mw-parser-output")),),
}


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


def _split(url: str):
    try:
        return urlsplit(url.strip())
    except ValueError:  # a malformed URL ("http://[::1") names no host and no path
        return urlsplit("")


def site_of_host(url: str) -> str | None:
    """The site a URL's host belongs to (baidu, sogou, wikipedia), or None for any other host."""
    host = (_split(url).hostname or "").lower().rstrip(".")
    if host in ("baidu.com", "baike.baidu.hk") or host.endswith((".baidu.com", ".baidu.hk")):
        return "baidu"
    if host == "sogou.com" or host.endswith(".sogou.com"):
        return "sogou"
    if host == "wikipedia.org" or host.endswith(".wikipedia.org"):
        return "wikipedia"
    return None


def _layout(site: str, html: str) -> str:
    for layout, markers in LAYOUT_MARKERS[site]:
        if any(m in html for m in markers):
            return layout
    return ""


def detect_source(url: str, html: str) -> tuple[str, str]:
    """Return (source, layout): the source from the URL's host, or from the markup on other hosts;
    the layout from the markup (the whole page: scripts can push the body past any fixed prefix)."""
    site = site_of_host(url)
    if site is not None:
        return site, _layout(site, html)
    for site in LAYOUT_MARKERS:
        layout = _layout(site, html)
        if layout:
            return site, layout
    return "other", ""


def _verification_url(url: str) -> bool:
    # The path stays encoded: a title holding "/" (%2F) never reads as a path of the service.
    parts = _split(url)
    host = (parts.hostname or "").lower()
    return host in VERIFY_HOSTS or bool(VERIFY_PATH.search(parts.path))


def block_kind(http_status: int, url: str, location: str = "", title: str = "", html: str = "") -> str | None:
    """Which kind of block a response is (http_429, http_403, captcha_redirect, captcha_page), or None.

    url is where the response came from; location, a redirect's target; title, the page's <title>;
    html, its text, for the markup of a verification form. A redirect blocks when its target is a
    verification service, whatever words an entry's path holds (``/item/Verify`` is an entry).
    """
    if http_status == 429:
        return "http_429"
    if http_status == 403:
        return "http_403"
    if 300 <= http_status < 400 and location and _verification_url(location):
        return "captcha_redirect"
    if url and _verification_url(url):
        return "captcha_redirect"
    if verification_title(title) or html and verification_markup(html):
        return "captcha_page"
    return None


def verification_title(title: str) -> bool:
    """A <title> of a verification page: one of theirs whole, or one naming a verification that no entry has."""
    title = _INVISIBLE.sub("", unicodedata.normalize("NFKC", title)).strip()
    if title in VERIFY_TITLES:
        return True
    return any(w in title for w in VERIFY_TITLE_WORDS) and not title.endswith(ENTRY_TITLE_SUFFIXES)


def verification_markup(html: str) -> bool:
    """The markup of a verification page: the service's dialog, or a notice asking for a verification beside a
    form; never on a page with entry markup (an entry may quote a notice)."""
    if any(_layout(site, html) for site in LAYOUT_MARKERS):
        return False
    if any(m in html for m in VERIFY_MARKUP):
        return True
    return any(n in html for n in VERIFY_NOTICES) and _FORM.search(html) is not None


def is_blocked(url: str, http_status: int, html: str) -> bool:
    return block_reason(url, http_status, html) is not None


def block_reason(url: str, http_status: int, html: str) -> str | None:
    """Which kind of block a fetched page is (:func:`block_kind`), or None."""
    return block_kind(http_status, url, title=page_title(html), html=html)


def is_not_found(http_status: int, html: str) -> bool:
    if http_status in (404, 410):
        return True
    if HOME_TITLE.match(page_title(html)):
        return True
    head = html[:20_000]
    return any(m in head for m in NOT_FOUND_MARKERS)


def is_truncated(html: str) -> bool:
    """A page cut off in transfer: no closing </html> (pages that omit it also lack </body>)."""
    tail = html[-2048:].lower()
    return "</html>" not in tail and "</body>" not in tail


def page_title(html: str) -> str:
    match = _TITLE.search(html[:20_000])
    return match.group(1).strip() if match else ""
