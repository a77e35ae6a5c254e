"""Entry URL canonicalisation: one spelling per entry, so each entry is fetched once."""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import quote, unquote, urlsplit

_SAFE = "/()_-.~,:!*'"
_BAIDU_ITEM = re.compile(r"^/item/([^/]+)(/\d+)?/?$")
_WIKI_VARIANT = re.compile(r"^/(?:zh-hans|zh-hant|zh-cn|zh-tw|zh-hk|zh-sg)/(.+)$")


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
