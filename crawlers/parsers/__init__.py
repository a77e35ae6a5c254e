"""Pure page parsers: ``parse(html, url) -> Page``, selected by site and layout.

Two tree backends give identical records: ``lxml`` (the default, several times
faster; see ``bench/parse_bench.py``) and ``bs4`` (BeautifulSoup, the reference).
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from urllib.parse import urljoin

from crawlers.parsers import detect
from crawlers.parsers.layouts import LAYOUTS
from crawlers.parsers.tree import BACKENDS
from crawlers.urls import canonicalize
from schemas import Page

_CANONICAL = re.compile(r"""<link[^>]+rel=["']canonical["'][^>]*>""", re.I)
_HREF = re.compile(r"""href=["']([^"']+)["']""", re.I)

__all__ = ["BACKENDS", "canonicalize", "content_hash", "parse"]


def content_hash(body: bytes | str) -> str:
    data = body.encode("utf-8") if isinstance(body, str) else body
    return hashlib.sha256(data).hexdigest()


def parse(
    html: bytes | str,
    url: str,
    *,
    http_status: int = 200,
    encoding: str | None = None,
    fetched_at: datetime | None = None,
    depth: int = 0,
    backend: str = "lxml",
) -> Page:
    """Parse one fetched page into a :class:`Page`; pages that are not content get a status, not fields."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    text = detect.decode(html, encoding)
    page = Page(
        url=url,
        canonical_url=canonicalize(url),
        http_status=http_status,
        fetched_at=fetched_at,
        depth=depth,
        content_hash=content_hash(html),
    )
    page.source, page.layout = detect.detect_source(url, text)
    if detect.is_blocked(url, http_status, text):
        page.status = "blocked"
        return page
    if detect.is_not_found(http_status, text):
        page.status = "not_found"
        return page
    if detect.is_truncated(text):
        page.status = "truncated"
        return page
    canonical = _canonical_link(text, url)
    if canonical:
        page.canonical_url = canonicalize(canonical)
    layout = LAYOUTS.get(page.layout)
    if layout is None:
        page.status = "ok"
        return page
    fields = layout(BACKENDS[backend](text), url)
    page.status = fields.pop("status", "ok")
    for name, value in fields.items():
        setattr(page, name, value)
    return page


def _canonical_link(text: str, url: str) -> str:
    match = _CANONICAL.search(text[:20_000])
    if not match:
        return ""
    href = _HREF.search(match.group(0))
    return urljoin(url, href.group(1)) if href else ""
