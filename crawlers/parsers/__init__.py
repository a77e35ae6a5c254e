"""Pure page parsers: ``parse(html, url) -> Page``, selected by site and layout.

Three tree backends give identical records: ``selectolax`` (lexbor's HTML5 tree searched with CSS
selectors; the default, the fastest), ``lxml`` (libxml2 with compiled XPath) and ``bs4``
(BeautifulSoup, the reference); ``bench/parse_bench.py`` times them side by side.
:mod:`crawlers.parsers.tree` says how they are kept identical on deep pages and
which characters the text of a record never holds.

``parse`` raises only on bad arguments (an unknown backend, a URL that is no URL);
every body gives a :class:`Page`. A blocked page's ``reason`` is its kind (``captcha_page``,
``captcha_redirect``, ``http_403``, ``http_429``). A body that cannot be read gets status
``unparsable`` and a ``reason``:

* ``empty``: nothing but white space and byte-order marks;
* ``binary``: an image, a PDF, an archive or a font (by its signature), or a body whose
  first 1,024 characters are more than a tenth control characters or undecodable bytes;
* ``not_html``: text without any markup, or JSON;
* ``no_layout``: HTML without the markup of any site's entry page (an error or a verification page of a
  kind not recognised, a page of another site);
* ``no_title``: an entry layout with an empty title (a page that lost its content, or is no entry);
* ``parser_error:<exception>``: the parser failed on the page. That is a bug: the page is
  recorded rather than lost, and the generated pages of ``tests/fuzz`` hunt for such bugs.

Decoding: a body that is valid UTF-8 and holds more than a few non-ASCII characters
(``_UTF8_EVIDENCE`` bytes beyond its length in characters: six Chinese characters in UTF-8)
is read as UTF-8, whatever charset its HTTP header or ``<meta>`` declares. Sites converted to
UTF-8 keep their old ``gb2312`` declaration, and GBK text is practically never valid UTF-8:
one common character in eleven is, six in a row one time in 40,000, and it takes twelve to
pass. Any other body is read as :func:`crawlers.parsers.detect.decode` reads it.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from urllib.parse import urljoin, urlsplit

from crawlers.parsers import detect
from crawlers.parsers.layouts import LAYOUTS
from crawlers.parsers.tree import BACKENDS, readable
from crawlers.urls import canonicalize
from schemas import Page

_CANONICAL = re.compile(r"""<link[^>]+rel=["']canonical["'][^>]*>""", re.I)
_HREF = re.compile(r"""href=["']([^"']+)["']""", re.I)

# Signatures of what a link or a misconfigured server may return instead of a page.
_BINARY_SIGNATURES = (
    b"\x89PNG", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"RIFF", b"\x00\x00\x01\x00",  # images
    b"%PDF-", b"PK\x03\x04", b"\x1f\x8b", b"7z\xbc\xaf", b"wOFF", b"wOF2",  # documents, archives, fonts
)
_CONTENT = re.compile(r"[^\s\ufeff]")
_BINARY_CHARS = re.compile("[\x00-\x08\x0e-\x1f\ufffd]")
_MARKUP = re.compile(r"<[A-Za-z!?/]")
_UTF8_EVIDENCE = 12

__all__ = ["BACKENDS", "canonicalize", "content_hash", "parse", "readable"]


def content_hash(body: bytes | str) -> str:
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    return hashlib.sha256(data).hexdigest()


def parse(
    html: bytes | str,
    url: str,
    *,
    http_status: int = 200,
    encoding: str | None = None,
    fetched_at: datetime | None = None,
    depth: int = 0,
    backend: str = "selectolax",
) -> Page:
    """Parse one fetched page into a :class:`Page`; pages that are not content get a status, not fields."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    try:
        urlsplit(url)
    except ValueError as exc:
        raise ValueError(f"url must be a URL, got {url!r}: {exc}") from None
    page = Page(url=url, canonical_url=url, http_status=http_status, fetched_at=fetched_at, depth=depth,
                content_hash=content_hash(html))
    try:
        _read(page, html, encoding, backend)
    except Exception as exc:  # noqa: BLE001 - one page the parser trips on is a record with a reason
        return _unparsable(page, f"parser_error:{type(exc).__name__}")
    if page.status == "ok" and not page.title:  # an error or a verification page in an entry's clothes
        return _unparsable(page, "no_title")
    return page


def _unparsable(page: Page, reason: str) -> Page:
    """The page as a record of what could not be read: where it came from and why, no fields."""
    return Page(url=page.url, canonical_url=page.canonical_url, source=page.source, layout=page.layout,
                status="unparsable", reason=reason, http_status=page.http_status, fetched_at=page.fetched_at,
                depth=page.depth, content_hash=page.content_hash)


def _read(page: Page, html: bytes | str, encoding: str | None, backend: str) -> None:
    url = page.url
    page.canonical_url = canonicalize(url)
    text, utf8 = _decode(html, encoding)
    page.source, page.layout = detect.detect_source(url, text)
    blocked = detect.block_reason(url, page.http_status, text)
    if blocked:
        page.status, page.reason = "blocked", blocked
        return
    if detect.is_not_found(page.http_status, text):
        page.status = "not_found"
        return
    reason = _not_a_page(html, text)
    if reason:
        page.status, page.reason = "unparsable", reason
        return
    if detect.is_truncated(text):
        page.status = "truncated"
        return
    canonical = _canonical_link(text, url)
    if canonical:
        page.canonical_url = canonical
    layout = LAYOUTS.get(page.layout)
    if layout is None:  # no site's markup: no title, text or infobox to read
        page.status, page.reason = "unparsable", "no_layout"
        return
    fields = layout(BACKENDS[backend](text, utf8=utf8), url)
    page.status = fields.pop("status", "ok")
    for name, value in fields.items():
        setattr(page, name, value)
    _make_readable(page)


def _decode(body: bytes | str, declared: str | None) -> tuple[str, bytes | None]:
    """The page's text (module docstring: valid UTF-8 first), and for a body read as UTF-8, its bytes without a
    byte-order mark (the tree is built from them: the text encoded again is the same bytes)."""
    if isinstance(body, bytes):
        try:
            text = body.decode("utf-8-sig")
        except UnicodeDecodeError:
            pass
        else:
            if len(body) - len(text) >= _UTF8_EVIDENCE:
                return text, body[3:] if body.startswith(b"\xef\xbb\xbf") else body
    try:
        return detect.decode(body, declared), None
    except UnicodeError:  # a codec named by the page that fails other than on a byte (idna, undefined)
        return body.decode("utf-8", errors="replace"), None


def _not_a_page(body: bytes | str, text: str) -> str:
    """Why the body is no HTML page (empty, binary, not_html), or "" when it may be one."""
    first = _CONTENT.search(text)
    if first is None:
        return "empty"
    if isinstance(body, bytes) and body.startswith(_BINARY_SIGNATURES):
        return "binary"
    sample = text[:1024]
    if len(_BINARY_CHARS.findall(sample)) * 10 > len(sample):
        return "binary"
    if first.group() in "{[" or _MARKUP.search(text) is None:
        return "not_html"
    return ""


def _canonical_link(text: str, url: str) -> str:
    match = _CANONICAL.search(text[:20_000])
    if not match:
        return ""
    href = _HREF.search(match.group(0))
    if not href:
        return ""
    try:
        return canonicalize(urljoin(url, href.group(1)))
    except ValueError:  # a malformed canonical link ("http://[::1") names nothing
        return ""


def _make_readable(page: Page) -> None:
    # The tree's text is readable already; this covers what layouts derive otherwise, such as a
    # link's title decoded from its URL ("/item/A%0Bb").
    page.title, page.subtitle, page.summary = readable(page.title), readable(page.subtitle), readable(page.summary)
    page.paragraphs = [readable(p) for p in page.paragraphs]
    page.tags = [readable(t) for t in page.tags]
    for entry in page.infobox:
        entry.name, entry.value = readable(entry.name), readable(entry.value)
        entry.values = [readable(v) for v in entry.values]
    for link in page.links:
        link["title"] = readable(link["title"])
    for sense in page.senses:
        sense["label"] = readable(sense["label"])
