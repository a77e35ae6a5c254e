"""Entry URLs: one spelling per entry, so each entry is fetched once (``canonicalize``), and the
public site's address of an entry wherever it was fetched from (``public_url``)."""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import quote, unquote, urlsplit

_SAFE = "/()_-.~,:!*'"
_BAIDU_ITEM = re.compile(r"^/item/([^/]+)(/\d+)?/?$")
_WIKI_VARIANT = re.compile(r"^/(?:zh-hans|zh-hant|zh-cn|zh-tw|zh-hk|zh-sg)/(.+)$")

# Each site's public host and the path of its entries (after canonicalize), as the live sites
# spell them: /item/<title>[/<id>], /v<id>.htm, /wiki/<title>.
PUBLIC_SITES = {
    "baidu": ("https://baike.baidu.com", _BAIDU_ITEM),
    "sogou": ("https://baike.sogou.com", re.compile(r"^/v\d+\.htm$")),
    "wikipedia": ("https://zh.wikipedia.org", re.compile(r"^/wiki/.+$")),
}


@lru_cache(maxsize=1 << 16)
def canonicalize(url: str) -> str:
    """Drop query and fragment (``?fromModule=``, ``#viewPageContent``), encode the path once,
    and map ``/zh-hans/``-style Wikipedia variants to ``/wiki/``."""
    parts = urlsplit(url.strip())
    raw_path = parts.path
    if raw_path.startswith("/item/"):
        # Baidu titles may contain an encoded "/": encode each segment on its own.
        segments = raw_path.removeprefix("/item/").strip("/").split("/")
        path = "/item/" + "/".join(quote(unquote(s), safe="") for s in segments)
    else:
        path = quote(unquote(raw_path), safe=_SAFE)
    variant = _WIKI_VARIANT.match(unquote(raw_path))
    if variant:
        path = "/wiki/" + quote(variant.group(1), safe=_SAFE)
    match = _BAIDU_ITEM.match(path)
    if match:
        path = f"/item/{match.group(1)}{match.group(2) or ''}"
    scheme = (parts.scheme or "http").lower()
    return f"{scheme}://{parts.netloc.lower()}{path}"


def public_url(url: str, site: str) -> str:
    """The public site's canonical URL of an entry fetched at ``url`` (the bundled mirror on
    127.0.0.1, a copy of the site, or the site itself): https://baike.baidu.com/item/<title>[/<id>],
    https://baike.sogou.com/v<id>.htm or https://zh.wikipedia.org/wiki/<title>, path encoded once.

    site is the site the page is from (a page record's ``source``). A URL that is not one of that
    site's entry paths, or of another source, comes back canonicalized, its host kept.
    """
    canonical = canonicalize(url)
    public = PUBLIC_SITES.get(site)
    if public is None:
        return canonical
    base, entry = public
    path = urlsplit(canonical).path
    return base + path if entry.match(path) else canonical
