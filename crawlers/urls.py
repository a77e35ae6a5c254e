"""Entry URLs of Baidu Baike, Sogou Baike and zh-Wikipedia: one spelling per entry, so each entry is
fetched and counted once (``canonicalize``); the entry a URL names, if any (``entry``, ``entry_url``,
``reject_reason``); the public site's address of an entry wherever it was fetched from
(``public_url``); and the URLs a messy text field holds (``split_urls``).

The canonical URL of an entry, per site:

* Baidu Baike: ``https://baike.baidu.com/item/<title>[/<id>]``, every character of the title but
  letters, digits and ``-._~`` encoded (an encoded or bare "/" inside a title stays part of it);
  id 0, which Baidu's own in-text links carry when they name no sense, is the same as no id.
  wapbaike.baidu.com, m.baike.baidu.com and baike.baidu.hk serve the same entries under the same ids.
  The old id-only spellings ``/view/<id>.htm`` and ``/subview/<id>/<id>.htm`` stay as they are: which
  title they name only the site knows. ``/item/<title>`` and ``/item/<title>/<id>``
  stay two URLs: the first may be a list of senses.
* Sogou Baike: ``https://baike.sogou.com/v<id>.htm``; the mobile ``/m/v<id>.htm`` and
  ``/m/fullLemma?lid=<id>`` and the in-text link ``/lemma/ShowInnerLink.htm?lemmaId=<id>`` carry the
  same id.
* zh-Wikipedia: ``https://zh.wikipedia.org/wiki/<title>``, spaces as "_" and encoded as MediaWiki
  writes its own links. The mobile host (and Google Translate's proxy of either host), the
  script-variant paths (``/zh-hans/``, ``/zh-cn/``, ``/zh-my/`` …) and ``/w/index.php?title=<title>``
  name the same entry. ``/w/index.php?curid=<page id>`` and ``?oldid=<revision id>`` without a title
  stay as they are (only the site maps them to a title). The first letter is not upper-cased:
  the site's own links already are, and the bundled mirror matches titles exactly.

Query parameters. Those that name an entry become the entry's path above: Sogou ``lid`` and
``lemmaId``, MediaWiki ``title``, and ``curid`` or ``oldid`` where no title is given. Every other
parameter of an entry URL is dropped, as none of them names another entry: ``fr``, ``fromModule``,
Baidu's ``fromtitle``/``fromid`` (the redirect a visit came through), Sogou's ``fromTitle``, MediaWiki
``variant``/``uselang``/``oldformat``, and ``oldid`` beside a title (a revision of that same entry).
A URL that is no entry is w3lib's canonical URL (escapes normalised, query parameters sorted) less
tracking parameters, so two searches stay two URLs. The fragment (``#3``, ``#:~:text=…``) is always
dropped.

Hosts. The public hosts above become ``https://`` and the site's desktop host; the other hosts of
their domains (zhidao.baidu.com, en.wikipedia.org) get ``https://`` and keep their host. Any other
host (the bundled mirror on 127.0.0.1:<port>, a copy of a site behind a proxy) keeps its scheme, host
and port, and its paths follow the same rules, whichever site's they look like.

Reserved hosts. A host under a name RFC 2606 reserves (``.example``, ``.test``, ``.invalid``,
``example.com``/``.net``/``.org``) is fictional: a crawl of the bundled mirror publishes its pages there
(``https://baike.example/item/…``), and ``public_url`` keeps them, so a release never links a made-up entry
to a real site's domain. A page fetched from a real site, or from a copy of one, keeps the real site's URL.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple
from urllib.parse import parse_qsl, quote, unquote_to_bytes, urlsplit

from w3lib.url import canonicalize_url, url_query_cleaner

# Every host that serves a site's entries, and the site; then each site's public host.
_SITE_HOSTS = {
    "baike.baidu.com": "baidu", "wapbaike.baidu.com": "baidu", "m.baike.baidu.com": "baidu",
    "baike.baidu.hk": "baidu",
    "baike.sogou.com": "sogou",
    "zh.wikipedia.org": "wikipedia", "zh.m.wikipedia.org": "wikipedia",
}
_PUBLIC_HOST = {"baidu": "baike.baidu.com", "sogou": "baike.sogou.com", "wikipedia": "zh.wikipedia.org"}
# Domains whose every host serves https. Their hosts other than the ones above are other services
# (zhidao.baidu.com) or other wikis (en.wikipedia.org): they hold no entries of these sites.
_PUBLIC_DOMAINS = ("baidu.com", "baidu.hk", "sogou.com", "wikipedia.org")

# Left bare in paths. Baidu titles: nothing but letters, digits and "-._~" (the spelling crawls
# already store). MediaWiki titles: as wfUrlencode writes the site's own links.
_BAIDU_SAFE = ""
_WIKI_SAFE = ";@$!*(),/~:"

_WIKI_VARIANTS = frozenset({"zh", "zh-hans", "zh-hant", "zh-cn", "zh-tw", "zh-hk", "zh-mo", "zh-sg", "zh-my"})
_WIKI_SPACES = re.compile(rb"[ _]+")
_SOGOU_V = re.compile(r"v([0-9]+)\.htm/?")
_SOGOU_ID = re.compile(r"(?:^|&)(?:lid|lemmaId)=([0-9]+)(?:&|$)")
_SOGOU_ID_PATHS = frozenset({"/m/fullLemma", "/lemma/ShowInnerLink.htm"})
_BAIDU_VIEW = re.compile(r"/view/([0-9]+)\.htm/?")
_BAIDU_SUBVIEW = re.compile(r"/subview/([0-9]+)/([0-9]+)\.htm/?")
_MAX_ID_DIGITS = 4300  # sys.int_info.default_max_str_digits

# Parameters that say where a visit came from or how to show the page, on any URL of these sites.
_TRACKING = frozenset({
    "fr", "fromModule", "fromtitle", "fromid", "fromTitle", "fromlemmaid", "ch", "g_ut", "noadapt",
    "lemmaFrom", "lemmaIdFrom", "starNodeId", "bk_fr", "bk_share", "bk_sharefr", "structureId",
    "structureClickId", "ss_c", "sefr", "spm", "oldformat",
})
_TRACKING_PREFIXES = ("utm_", "_x_tr_")

# MediaWiki namespaces of zh-Wikipedia (canonical names and the Chinese aliases), lower-cased:
# pages there are no encyclopedia entries. A "<namespace> talk" page is none either.
_WIKI_NAMESPACES = frozenset({
    "media", "special", "talk", "user", "wikipedia", "project", "wp", "file", "image", "mediawiki",
    "template", "help", "category", "portal", "draft", "module", "timedtext", "gadget",
    "gadget definition", "topic",
    "媒体", "媒體", "特殊", "讨论", "討論", "用户", "用戶", "使用者", "维基百科", "維基百科", "文件", "檔案",
    "图像", "圖像", "模板", "样板", "樣板", "帮助", "幫助", "分类", "分類", "主题", "主題", "草稿", "模块",
    "模組",
})
# Search pages: Baidu's /search?word=, Sogou's fullsearch and mobile fullLemma?key=, MediaWiki's
# index.php?search= (and Special:Search, a namespace page).
_SEARCH_PATHS = frozenset({"/search", "/search/word", "/search/none", "/search/fullsearch.htm"})
_SEARCH_QUERIES = {"/m/fullLemma": re.compile(r"(?:^|&)key="), "/w/index.php": re.compile(r"(?:^|&)search=")}


class Entry(NamedTuple):
    """The entry a URL names: its site, canonical URL, and the title and id the URL gives."""

    site: str  # "baidu", "sogou" or "wikipedia"
    url: str  # canonical
    title: str  # decoded, as the URL spells it; "" when the URL gives only an id
    id: str  # the site's id of the entry ("<id>/<sub id>" for Baidu's /subview/); "" when none


@lru_cache(maxsize=1 << 16)
def canonicalize(url: str) -> str:
    """The one spelling of ``url`` that every spelling of the same page shares (module docstring).

    A backslash escape (a literal ``\\n`` before the URL, ``\\u003d`` for "=") is a second layer of
    escaping, as no URL holds a backslash: it is undone first. Raises ValueError where
    ``urllib.parse.urlsplit`` does (``http://[::1``) and for an entry id of more than 4,300 digits.
    """
    if "\\" in url:
        url = _ESCAPES.sub(_unescape, url)
    parts = urlsplit(url.strip())
    netloc, rules, public = _host(parts.netloc)
    scheme = "https" if public else (parts.scheme.lower() or "http")
    path, query = _path(parts.path, parts.query, rules)
    return f"{scheme}://{netloc}{path}?{query}" if query else f"{scheme}://{netloc}{path}"


def entry(url: str) -> Entry | None:
    """The entry ``url`` names, or None for any other page (a search, a home page, a user page)."""
    judged = _judge(url)
    return judged if isinstance(judged, Entry) else None


def entry_url(url: str) -> str | None:
    """The canonical URL of the entry ``url`` names, or None when it names none."""
    judged = _judge(url)
    return judged.url if isinstance(judged, Entry) else None


def reject_reason(url: str) -> str:
    """Why ``url`` names no entry, "" when it names one.

    Reasons: ``other_service`` (a host of a site's domain without its entries: zhidao.baidu.com,
    en.wikipedia.org), ``search`` (a search page), ``namespace`` (a MediaWiki page outside the
    articles: User:, File:, Special:), ``bad_id`` (an id the site never gives, such as 0),
    ``truncated`` (the title breaks off inside a character), ``not_entry`` (any other path).
    """
    judged = _judge(url)
    return "" if isinstance(judged, Entry) else judged


def site_of(url: str) -> str | None:
    """The site whose host ``url`` is on (its public host or an alias such as wapbaike.baidu.com),
    None on any other host (the bundled mirror, zhidao.baidu.com, en.wikipedia.org)."""
    netloc, rules, _ = _host(urlsplit(url.strip()).netloc)
    return rules if _PUBLIC_HOST.get(rules) == netloc else None


def public_url(url: str, site: str) -> str:
    """The public site's canonical URL of an entry fetched at ``url`` (a copy of the site, or the site
    itself): https://baike.baidu.com/item/<title>[/<id>], https://baike.sogou.com/v<id>.htm or
    https://zh.wikipedia.org/wiki/<title>, path encoded once.

    site is the site the page is from (a page record's ``source``). A URL that is not one of that
    site's entries, or of another source, comes back canonicalized, its host kept; so does a URL on a
    reserved host (:func:`reserved_host`), where the bundled mirror's pages are published.
    """
    # Uncached: a stage maps each page's URL once in a pass over the crawl, so a cache would only fill
    # (two caches of 65,536 URLs held 96 MB after a pass over 84k pages, and a second pass of more pages
    # than that found none of its URLs in them). A canonical URL is its own canonical form.
    canonical = canonicalize.__wrapped__(url)
    if site not in _PUBLIC_HOST or reserved_host(canonical):
        return canonical
    judged = _entry_of(canonical)
    if not isinstance(judged, Entry) or judged.site != site:
        return canonical
    parts = urlsplit(canonical)
    query = f"?{parts.query}" if parts.query else ""
    return f"https://{_PUBLIC_HOST[site]}{parts.path}{query}"


# RFC 2606: names that are never a real site's. Its fourth, .localhost, is where a copy of a real site may be
# fetched from (http://localhost:9000/item/…), so it is not one of them.
_RESERVED_TLDS = ("example", "test", "invalid")
_RESERVED_DOMAINS = ("example.com", "example.net", "example.org")


def reserved_host(url: str) -> bool:
    """True when ``url``'s host is a name RFC 2606 reserves: fictional pages (the bundled mirror's) live there."""
    try:
        host = (urlsplit(url.strip()).hostname or "").rstrip(".")
    except ValueError:
        return False
    return host.rpartition(".")[2] in _RESERVED_TLDS or any(
        host == d or host.endswith("." + d) for d in _RESERVED_DOMAINS)


# --- splitting a text field into URLs -------------------------------------------------------------

_ESCAPES = re.compile(r"\\(?:u([0-9a-fA-F]{4})|([nrt])|(/))")
_URL_START = r"(?:[A-Za-z][A-Za-z0-9+.-]*://|//|www\.|(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}/)"
# A break: separators before something that starts a URL, or a scheme glued to the text before it
# (not after "/" or "=": an archived or redirected URL carries its target inside it).
_BREAKS = re.compile(rf"[\"'”’」』》〉>\]】}}]*[,，;；、|｜]+[\"'“‘「『《〈<\[【{{(（]*(?={_URL_START})"
                     r"|(?<=[^/=])(?=https?://)")
_LEADING = "\"'“”‘’「」『』《〈<[【{(（,，;；、。|｜:："
_TRAILING = "\"'“”‘’「」『』》〉>]】},，;；、。|｜"
_HAS_URL_START = re.compile(_URL_START)


def split_urls(text: str | None) -> list[str]:
    """The URLs in a messy text field, in order, duplicates kept.

    Undoes a second layer of escaping (a literal ``\\n``, ``\\u003d``); splits at whitespace, at
    commas and other separators (ASCII or Chinese) that come before a URL, and where a URL is glued
    to the text before it; trims quotes, brackets and punctuation around each; gives a URL without a
    scheme ``https://``. Words that are no URL ("null", a label) are left out. A comma inside a URL
    (``/wiki/Washington,_D.C.``) is kept.
    """
    if not text:
        return []
    if "\\" in text:
        text = _ESCAPES.sub(_unescape, text)
    urls = []
    for token in text.split():
        for piece in _BREAKS.split(token):
            url = _trim(piece)
            if url:
                urls.append(url)
    return urls


def _unescape(match: re.Match) -> str:
    code, _, slash = match.groups()
    if code:
        return chr(int(code, 16))
    return slash or " "


def _trim(piece: str) -> str:
    piece = piece.lstrip(_LEADING)
    while piece:
        last = piece[-1]
        if last in _TRAILING:
            piece = piece[:-1]
        elif last == ")" and piece.count(")") > piece.count("("):
            piece = piece[:-1]
        elif last == "）" and piece.count("）") > piece.count("（"):
            piece = piece[:-1]
        else:
            break
    match = _HAS_URL_START.match(piece)
    if not match or len(piece) == match.end():
        return ""
    if piece.startswith("//"):
        return "https:" + piece
    if "://" not in piece[:match.end()]:
        return "https://" + piece
    return piece


# --- hosts ----------------------------------------------------------------------------------------

_ANY, _OTHER = "any", ""  # path rules: every site's (a mirror or proxy), none (another service)


@lru_cache(maxsize=4096)
def _host(netloc: str) -> tuple[str, str, bool]:
    """(the netloc canonical URLs spell, whose path rules apply: a site, _ANY or _OTHER, public?)"""
    netloc = netloc.lower()
    host, port = netloc, ""
    if ":" in netloc and not netloc.endswith("]"):
        host, _, port = netloc.rpartition(":")
    host = host.rstrip(".")
    if host.endswith(".translate.goog"):
        # Google Translate's proxy spells the proxied host with "-" for "." and "--" for "-".
        proxied = host.removesuffix(".translate.goog").replace("--", "\0").replace("-", ".").replace("\0", "-")
        if proxied in _SITE_HOSTS or proxied.endswith(".wikipedia.org"):
            host = proxied
    if host.endswith(".m.wikipedia.org"):
        host = host.removesuffix(".m.wikipedia.org") + ".wikipedia.org"
    site = _SITE_HOSTS.get(host)
    if site:
        return _PUBLIC_HOST[site], site, True
    for domain in _PUBLIC_DOMAINS:
        if host == domain or host.endswith("." + domain):
            return host, ("wikipedia" if domain == "wikipedia.org" else _OTHER), True
    return (f"{host}:{port}" if port else host), _ANY, False


# --- paths ----------------------------------------------------------------------------------------

def _path(path: str, query: str, rules: str) -> tuple[str, str]:
    """The canonical (path, query) of a page at ``path?query`` on a host with these path rules."""
    found = None
    if rules in ("baidu", _ANY):
        if path.startswith("/item/"):
            found = _baidu_item(path[6:])
        elif path.startswith("/view/") or path.startswith("/subview/"):
            found = _baidu_view(path)
    if found is None and rules in ("sogou", _ANY):
        found = _sogou(path, query)
    if found is None and rules in ("wikipedia", _ANY):
        found = _wikipedia(path, query)
    if found is not None:
        return found
    return _generic(path or "/", query)


def _baidu_item(rest: str) -> tuple[str, str] | None:
    segments = [s for s in rest.split("/") if s]
    if not segments:
        return None
    lemma_id = ""
    if len(segments) > 1 and segments[-1].isascii() and segments[-1].isdigit():
        number = _number(segments.pop())
        lemma_id = f"/{number}" if number != "0" else ""  # Baidu's in-text links give id 0 for "by title"
    title = quote(unquote_to_bytes("/".join(segments)), safe=_BAIDU_SAFE)
    return f"/item/{title}{lemma_id}", ""


def _baidu_view(path: str) -> tuple[str, str] | None:
    match = _BAIDU_VIEW.fullmatch(path)
    if match:
        return f"/view/{_number(match.group(1))}.htm", ""
    match = _BAIDU_SUBVIEW.fullmatch(path)
    if match:
        return f"/subview/{_number(match.group(1))}/{_number(match.group(2))}.htm", ""
    return None


def _sogou(path: str, query: str) -> tuple[str, str] | None:
    if path.startswith("/v") or path.startswith("/m/v"):
        match = _SOGOU_V.fullmatch(path, 3 if path[1] == "m" else 1)
        if match:
            return f"/v{_number(match.group(1))}.htm", ""
    elif path in _SOGOU_ID_PATHS and query:
        match = _SOGOU_ID.search(query)
        if match:
            return f"/v{_number(match.group(1))}.htm", ""
    return None


def _wikipedia(path: str, query: str) -> tuple[str, str] | None:
    if path.startswith("/wiki/"):
        raw = path[6:]
    elif path == "/w/index.php":
        return _mediawiki_index(query)
    else:
        variant, slash, raw = path[1:].partition("/")
        if not slash or variant not in _WIKI_VARIANTS:
            return None
    title = _wiki_title(unquote_to_bytes(raw))
    if not title:
        return None
    if _wiki_namespace(title) in ("special", "特殊"):
        return "/wiki/" + quote(title, safe=_WIKI_SAFE), _clean_query(query)  # Special:Search?search=…
    return "/wiki/" + quote(title, safe=_WIKI_SAFE), ""


def _mediawiki_index(query: str) -> tuple[str, str] | None:
    params = dict(parse_qsl(query, errors="surrogateescape"))
    if params.get("action", "view") != "view" or "diff" in params or "search" in params:
        return None
    if params.get("title"):
        title = _wiki_title(params["title"].encode("utf-8", "surrogateescape"))
        return ("/wiki/" + quote(title, safe=_WIKI_SAFE), "") if title else None
    for key in ("curid", "oldid"):
        value = params.get(key, "")
        if value.isascii() and value.isdigit():
            return "/w/index.php", f"{key}={_number(value)}"
    return None


def _number(digits: str) -> str:
    """An id without leading zeros. An id is a number that readers of these URLs (the mirror, the
    stores) take with int(), which refuses more than 4,300 digits: a longer one is malformed."""
    if len(digits) > _MAX_ID_DIGITS:
        raise ValueError(f"an entry id of {len(digits)} digits is no id")
    return digits.lstrip("0") or "0"


def _wiki_title(raw: bytes) -> bytes:
    # MediaWiki: a space is "_", a run of them one, none at either end; a trailing "/" is a typo.
    title = _WIKI_SPACES.sub(b"_", raw).strip(b"_")
    return title.rstrip(b"/") or title


def _wiki_namespace(title: bytes | str) -> str:
    if isinstance(title, bytes):
        title = title.decode("utf-8", "replace")
    prefix, colon, _ = title.partition(":")
    return prefix.replace("_", " ").strip().lower() if colon else ""


def _generic(path: str, query: str) -> tuple[str, str]:
    """The (path, query) of a page that is no entry: w3lib's canonical URL, less tracking parameters."""
    url = canonicalize_url(f"http://h{path}?{query}" if query else f"http://h{path}")
    if query:
        keys = {k for k, _ in parse_qsl(urlsplit(url).query, keep_blank_values=True)}
        tracking = [k for k in keys if k in _TRACKING or k.startswith(_TRACKING_PREFIXES)]
        if tracking:
            url = url_query_cleaner(url, tracking, remove=True, unique=False)
    parts = urlsplit(url)
    return parts.path, parts.query


def _clean_query(query: str) -> str:
    return _generic("/", query)[1]


# --- entries --------------------------------------------------------------------------------------

_ENTRY_PATHS = (
    ("baidu", re.compile(r"/item/(?P<title>[^/?]+)(?:/(?P<id>[0-9]+))?")),
    ("baidu", re.compile(r"/view/(?P<id>[0-9]+)\.htm")),
    ("baidu", re.compile(r"/subview/(?P<id>[0-9]+/[0-9]+)\.htm")),
    ("sogou", re.compile(r"/v(?P<id>[0-9]+)\.htm")),
    ("wikipedia", re.compile(r"/wiki/(?P<title>[^?]+)(?:\?.*)?")),
    ("wikipedia", re.compile(r"/w/index\.php\?(?:curid|oldid)=(?P<id>[0-9]+)")),
)


@lru_cache(maxsize=1 << 16)
def _judge(url: str) -> Entry | str:
    return _entry_of(canonicalize(url))


def _entry_of(canonical: str) -> Entry | str:
    """_judge of a canonical URL, uncached."""
    parts = urlsplit(canonical)
    _, rules, _ = _host(parts.netloc)
    if rules == _OTHER or (rules == "wikipedia" and parts.netloc != _PUBLIC_HOST["wikipedia"]):
        return "other_service"
    target = f"{parts.path}?{parts.query}" if parts.query else parts.path
    for site, pattern in _ENTRY_PATHS:
        if rules not in (site, _ANY):
            continue
        match = pattern.fullmatch(target)
        if not match:
            continue
        found = match.groupdict()
        lemma_id = found.get("id") or ""
        if lemma_id and not lemma_id.rpartition("/")[2].strip("0"):
            return "bad_id"
        title = ""
        if found.get("title"):
            try:
                title = unquote_to_bytes(found["title"]).decode("utf-8")
            except UnicodeDecodeError:
                return "truncated"
            if site == "wikipedia":
                title = title.replace("_", " ")
                namespace = _wiki_namespace(title)
                if namespace in _WIKI_NAMESPACES or namespace.endswith((" talk", "讨论", "討論")):
                    return "search" if namespace in ("special", "特殊") and "search" in title.lower() else "namespace"
        return Entry(site, canonical, title, lemma_id)
    search_query = _SEARCH_QUERIES.get(parts.path)
    if parts.path in _SEARCH_PATHS or (search_query and search_query.search(parts.query)):
        return "search"
    return "not_entry"
