"""The bundled offline mirror: routes, fault pages and the HTTP server.

One server on 127.0.0.1 hosts the four sites side by side, each under the URL
forms the real site uses:

* Baidu Baike ``/item/<title>`` and ``/item/<title>/<id>`` (current or older layout per entry),
  ``/item/<title>`` of a multi-sense title is the older layout's sense list;
* Sogou Baike ``/v<id>.htm`` and ``/search/fullsearch.htm?keyword=<title>``;
* zh-Wikipedia ``/wiki/<title>``, ``/wiki/<title>_(<sense>)``, ``/wiki/<title>_(消歧义)``
  and the ``/zh-hans/`` and ``/zh-cn/`` variants of every article;
* the web beside the encyclopedia (crawlers.mirror.web): a second encyclopedia, news, gazetteer and museum
  pages on reserved hosts, served for a request whose Host names the site (``Host: news.example``) and at
  ``/__web__/<host><path>``;
* web search ``/search?q=<words>&format=json``, answered in SearXNG's JSON (crawlers.mirror.search) over
  every entry's Baidu Baike page at its published URL (``https://baike.example/item/…``) and the web's pages.

Faults a crawler meets on the real sites are served too: robots.txt, 404 pages,
one entry encoded in GBK, one entry whose first response is cut off, one whose
first request is sent to a verification (captcha) page, and ``/__mirror__/``
paths that always serve the captcha, the truncated page and a 403.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator
from urllib.parse import parse_qs, quote, unquote, urlsplit

from crawlers.mirror import render
from crawlers.mirror.facts import FACTS_DIR, Entry, load_facts
from crawlers.mirror.realistic import RealisticCorpus
from crawlers.mirror.search import Document, MirrorSearch
from crawlers.mirror.synth import SYNTHETIC_ID_BASE, SynthConfig, Synthesizer
from crawlers.mirror.web import SITES as WEB_SITES

ROBOTS = """User-agent: *
Disallow: /usercenter
Disallow: /create
Disallow: /edit
Disallow: /w/
Disallow: /wiki/Special:

User-agent: BadBot
Disallow: /
"""


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


def _html(text: str, status: int = 200, charset: str = "utf-8") -> Response:
    return Response(status, text.encode(charset), {"Content-Type": f"text/html; charset={charset}"})


PROFILES = ("demo", "realistic")

_CITATION = re.compile(r"\[\d+(?:[-–]\d+)?\]")  # a citation mark in running text: [3], [3-5]


class Site:
    """Every page of the mirror, rendered on request from the facts table.

    profile: "demo" serves the facts table (or ``entries``); "realistic" serves entries
    0..size-1 of ``RealisticCorpus(size, seed)``, held in memory (up to ~20k is comfortable),
    linked only by their explicit [[title]] markup.
    """

    def __init__(self, entries: list[Entry] | None = None, facts_dir: Path = FACTS_DIR,
                 build: str = "2024.1", faults: bool = True, synthetic: int = 0,
                 synth_config: SynthConfig | None = None, rate_limit: float = 0.0,
                 profile: str = "demo", size: int = 0, seed: int = 0):
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")
        if profile == "realistic":
            if entries is not None or synthetic:
                raise ValueError("the realistic profile generates its own entries: pass size and seed only")
            self.corpus: RealisticCorpus | None = RealisticCorpus(size, seed)
            self.entries = list(self.corpus.take(size))
        else:
            if size:
                raise ValueError("size and seed apply to the realistic profile only")
            self.corpus = None
            self.entries = entries if entries is not None else load_facts(facts_dir)
        self.profile = profile
        self.build = build
        # Synthetic entries are rendered on request from their id, never held in memory.
        self.synthetic = synthetic
        self.synth = Synthesizer(self.entries, synth_config or SynthConfig()) if synthetic else None
        self.by_title: dict[str, list[Entry]] = {}
        for entry in self.entries:
            self.by_title.setdefault(entry.title, []).append(entry)
        self.by_baidu_id = {e.baidu_id: e for e in self.entries}
        self.by_sogou_id = {e.sogou_id: e for e in self.entries}
        titles = list(self.by_title)
        auto = profile == "demo"  # generated text links by explicit markup only
        self.baidu_link = render.Linker(titles, lambda t: render.item_path(t, self.by_title[t][0].baidu_id), auto)
        self.sogou_link = render.Linker(titles, lambda t: f"/v{self.by_title[t][0].sogou_id}.htm", auto)
        self.wiki_link = render.Linker(titles, render.wiki_path, auto)
        # Fault entries are picked deterministically from the entries with the lowest ids.
        ordered = sorted((e for e in self.entries if len(self.by_title[e.title]) == 1), key=lambda e: e.baidu_id)
        self.gbk_entry = ordered[0] if faults and ordered else None
        self.truncate_once = {ordered[1].key} if faults and len(ordered) > 1 else set()
        self.block_once = {ordered[2].key} if faults and len(ordered) > 2 else set()
        self._served: set[str] = set()
        self._lock = threading.Lock()
        # Above rate_limit entry requests per second the site pushes back, as the real
        # ones do: alternately a 429 with Retry-After and a redirect to the verification page.
        self.rate_limit = rate_limit
        self._recent: deque[float] = deque()
        self._refusals = 0
        # Entry pages changed after the mirror started (a recrawl must notice these).
        self.edits: dict[str, str] = {}
        # Web search over the sites' pages; indexed on the first query, so the server starts at once.
        self._web = None
        self._corpus_key: str | None = None
        self.search = MirrorSearch(self.search_documents)

    # -- helpers -----------------------------------------------------------------

    def senses(self, title: str) -> list[Entry]:
        return self.by_title.get(title, [])

    def wiki_title(self, entry: Entry) -> str:
        senses = self.senses(entry.title)
        return entry.title if senses[0].key == entry.key else f"{entry.title} ({entry.sense})"

    def _by_id(self, table: dict[int, Entry], id_text: str) -> Entry | None:
        if not id_text.isdigit():
            return None
        number = int(id_text)
        if self.synth is not None and SYNTHETIC_ID_BASE <= number < SYNTHETIC_ID_BASE + self.synthetic:
            return self.synth.entry(number - SYNTHETIC_ID_BASE)
        return table.get(number)

    def synthetic_url(self, index: int) -> str:
        """The Baidu-form path of synthetic entry ``index`` (seed lists for large crawls use these)."""
        if self.synth is None or not 0 <= index < self.synthetic:
            raise IndexError(f"synthetic entry {index} is not served (the site has {self.synthetic})")
        entry = self.synth.entry(index)
        return render.item_path(entry.title, entry.baidu_id)

    def _first_time(self, key: str) -> bool:
        with self._lock:
            if key in self._served:
                return False
            self._served.add(key)
            return True

    def export(self, directory: Path) -> int:
        """Write each entry's page on every site, plus the fault pages, as static files.

        Entry pages are written whole: the one-time faults (captcha, cut-off) are
        exported separately under special/.
        """
        pages: dict[str, bytes] = {}
        for name, path in (("robots.txt", "/robots.txt"), ("special/captcha.html", "/__mirror__/captcha"),
                           ("special/truncated.html", "/__mirror__/truncated"),
                           ("special/gbk.html", "/__mirror__/gbk"), ("special/not_found.html", "/item/鲁班锁")):
            pages[name] = self.respond(path).body
        for entry in self.entries:
            name = f"{entry.title}-{entry.baidu_id}".replace("/", "_")
            pages[f"baidu/{name}.html"] = self._render_baidu(entry).body
            pages[f"sogou/{entry.sogou_id}.html"] = self.respond(f"/v{entry.sogou_id}.htm").body
            pages[f"wikipedia/{name}.html"] = self.respond(render.wiki_path(self.wiki_title(entry))).body
        for title, senses in self.by_title.items():
            if len(senses) > 1:
                safe = title.replace("/", "_")
                pages[f"baidu/{safe}-senses.html"] = self.respond(render.item_path(title)).body
                pages[f"wikipedia/{safe}-disambiguation.html"] = self.respond(
                    render.wiki_path(f"{title} (消歧义)")).body
        for relative, body in pages.items():
            target = Path(directory) / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(body)
        return len(pages)

    @property
    def web(self):
        """The other sites' pages on this mirror's entries (crawlers.mirror.web), built on first use."""
        if self._web is None:
            from crawlers.mirror.web import Web

            with self._lock:
                if self._web is None:
                    self._web = Web(self.entries, seed=getattr(self.corpus, "seed", 0) or 0)
        return self._web

    def _web_page(self, host: str, target: str) -> Response:
        """A page of one of the other sites (crawlers.mirror.web), by its host and path; 404 for none."""
        page = self.web.page(host, quote(unquote(urlsplit(target).path), safe="/()_%"))
        if page is None:
            return _html(f"<html><body><h1>404</h1><p>{host}: no such page</p></body></html>", status=404)
        return _html(self.web.render(page))

    def corpus_key(self) -> str:
        """What the search's results depend on: the pages it ranks (:meth:`search_documents`, as written) and the
        code that ranks them (crawlers/mirror/search.py). How the pages came to be written (the generators'
        code) is not part of it: a change there that writes the same pages finds the same results. Computed
        once."""
        if self._corpus_key is None:
            digest = hashlib.sha256(self.profile.encode())
            digest.update(Path(__file__).with_name("search.py").read_bytes())
            for document in self.search_documents():
                digest.update(json.dumps([document.url, document.title, document.site, document.paragraphs],
                                         ensure_ascii=False).encode("utf-8") + b"\n")
            self._corpus_key = f"mirror-{self.profile}-{digest.hexdigest()[:16]}"
        return self._corpus_key

    def search_documents(self) -> Iterator[Document]:
        """The pages web search (``/search``) ranks: each entry's Baidu Baike page under its public URL, its
        summary and section paragraphs as a reader sees them (no link markup, no citation marks), then every
        page of the web beside it (crawlers.mirror.web). Synthetic entries are rendered on request only and
        are not searched."""
        # The published URL (results carry the sites' URLs, not the mirror's address).
        origin = render.PUBLIC_ORIGIN["baidu"]
        for entry in self.entries:
            paragraphs = [entry.summary, *(p for _, paras in entry.sections for p in paras)]
            yield Document(
                url=origin + render.item_path(entry.title, entry.baidu_id),
                title=entry.title,
                site=urlsplit(origin).netloc,
                paragraphs=tuple(_CITATION.sub("", render.strip_markup(p)).strip() for p in paragraphs),
            )
        # and the other sites' pages on the same entities (a second encyclopedia, news, reference pages)
        for page in self.web:
            yield Document(url=page.url, title=page.title, site=page.site, paragraphs=page.paragraphs)

    # -- routing ------------------------------------------------------------------

    def edit(self, title: str, summary: str, sense: str | None = None) -> None:
        """Change an entry's summary, as an editor would; its ETag and Last-Modified change with it."""
        for entry in self.senses(title):
            if sense is None or entry.sense == sense:
                entry.summary = summary
                self.edits[entry.key] = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime())
                return
        raise KeyError(title)

    def _over_rate(self) -> bool:
        if not self.rate_limit:
            return False
        with self._lock:
            now = time.monotonic()
            while self._recent and now - self._recent[0] > 1.0:
                self._recent.popleft()
            if len(self._recent) >= self.rate_limit:
                self._refusals += 1
                return True
            self._recent.append(now)
            return False

    def respond(self, target: str, headers: dict[str, str] | None = None) -> Response:
        """The response to a GET of ``target``; ``headers`` may carry conditional validators, and a Host that
        names a site of the web beside the encyclopedia (``Host: news.example``) gets that site's page."""
        host = (headers or {}).get("host", "").split(":")[0].lower()
        response = self._web_page(host, target) if host in WEB_SITES else self._route(target)
        if response.status == 200 and response.headers.get("Content-Type", "").startswith("text/html"):
            etag = '"' + hashlib.sha256(response.body).hexdigest()[:20] + '"'
            response.headers["ETag"] = etag
            response.headers["Last-Modified"] = self._last_modified(target)
            if headers and headers.get("if-none-match") == etag:
                return Response(304, b"", {"ETag": etag})
        return response

    def _last_modified(self, target: str) -> str:
        parts = urlsplit(target)
        if parts.path.startswith("/item/"):
            quoted_title, _, id_text = parts.path.removeprefix("/item/").strip("/").partition("/")
            entry = self.by_baidu_id.get(int(id_text)) if id_text.isdigit() else None
            if entry is not None and entry.key in self.edits:
                return self.edits[entry.key]
        return "Mon, 01 Jan 2024 00:00:00 GMT"

    def _route(self, target: str) -> Response:
        parts = urlsplit(target)
        path = unquote(parts.path)
        query = parse_qs(parts.query)
        if path == "/robots.txt":
            return Response(200, ROBOTS.encode(), {"Content-Type": "text/plain; charset=utf-8"})
        if path.startswith("/__mirror__/"):
            return self._special(path.removeprefix("/__mirror__/"))
        if path.startswith("/wappass/"):
            return _html(render.baidu_captcha())
        if path.startswith("/__web__/"):  # a page of the web beside the encyclopedia: /__web__/<host><path>
            host, _, rest = path.removeprefix("/__web__/").partition("/")
            return self._web_page(host, "/" + rest)
        if path == "/config":  # as SearXNG's, with what its results depend on (a client's cache key)
            return Response(200, json.dumps({"instance_name": "zhbench mirror", "zhbench_corpus": self.corpus_key()},
                                            ensure_ascii=False).encode("utf-8"),
                            {"Content-Type": "application/json; charset=utf-8"})
        if path == "/search":  # web search, not an entry: the rate limit below counts entry requests only
            status, reply = self.search.answer(query)
            return Response(status, json.dumps(reply, ensure_ascii=False).encode("utf-8"),
                            {"Content-Type": "application/json; charset=utf-8"})
        if path.startswith(("/item/", "/v", "/wiki/")) and self._over_rate():
            if self._refusals % 2:
                return Response(429, b"Too Many Requests", {"Retry-After": "1", "Content-Type": "text/plain"})
            return Response(302, headers={"Location": f"/wappass/static/captcha/tuxing.html?u={quote(target, safe='')}"})
        if path.startswith("/item/"):
            # Split before unquoting: a title may itself contain an encoded "/".
            return self._baidu(parts.path.removeprefix("/item/").strip("/"))
        if path.startswith("/v") and path.endswith(".htm"):
            return self._sogou(path[2:-4])
        if path == "/search/fullsearch.htm":
            keyword = (query.get("keyword") or [""])[0]
            senses = self.senses(keyword)
            if not senses:
                return _html(render.sogou_not_found(keyword), 404)
            return Response(302, headers={"Location": f"/v{senses[0].sogou_id}.htm"})
        for prefix in ("/wiki/", "/zh-hans/", "/zh-cn/"):
            if path.startswith(prefix):
                return self._wiki(path.removeprefix(prefix))
        return _html(render.baidu_not_found(path), 404)

    def _special(self, name: str) -> Response:
        if name == "captcha":
            return _html(render.baidu_captcha())
        if name == "forbidden":
            return _html("<html><body>403 Forbidden</body></html>", 403)
        if name == "truncated" and self.entries:
            entry = self.entries[0]
            html = render.baidu(entry, self.baidu_link, self.senses(entry.title), self.build)
            return _html(html[: len(html) * 3 // 5])
        if name == "gbk" and self.gbk_entry is not None:
            return self._render_baidu(self.gbk_entry)
        return _html(render.baidu_not_found(name), 404)

    def _baidu(self, rest: str) -> Response:
        quoted_title, _, id_text = rest.partition("/")
        title = unquote(quoted_title)
        senses = self.senses(title)
        if not id_text:
            if not senses:
                return _html(render.baidu_not_found(title), 404)
            if len(senses) > 1:
                return _html(render.baidu_disambiguation(title, senses))
            return Response(302, headers={"Location": render.item_path(title, senses[0].baidu_id)})
        entry = self._by_id(self.by_baidu_id, id_text)
        if entry is None:
            return _html(render.baidu_not_found(title), 404)
        if entry.title != title:
            return Response(301, headers={"Location": render.item_path(entry.title, entry.baidu_id)})
        if entry.key in self.block_once and self._first_time("block\t" + entry.key):
            target = quote(render.item_path(entry.title, entry.baidu_id), safe="")
            return Response(302, headers={"Location": f"/wappass/static/captcha/tuxing.html?ak=mirror&u={target}"})
        response = self._render_baidu(entry)
        if entry.key in self.truncate_once and self._first_time("truncate\t" + entry.key):
            response.body = response.body[: len(response.body) * 3 // 5]
        return response

    def _render_baidu(self, entry: Entry) -> Response:
        senses = [entry] if entry.labels.get("synthetic") else self.senses(entry.title)
        if entry.layout == "baidu_legacy":
            html = render.baidu_legacy(entry, self.baidu_link, senses)
        else:
            html = render.baidu(entry, self.baidu_link, senses, self.build)
        if self.gbk_entry is not None and entry.key == self.gbk_entry.key:
            html = html.replace('<meta charset="utf-8">', '<meta charset="gbk">')
            return _html(html, charset="gbk")
        return _html(html)

    def _sogou(self, id_text: str) -> Response:
        entry = self._by_id(self.by_sogou_id, id_text)
        if entry is None:
            return _html(render.sogou_not_found(id_text), 404)
        return _html(render.sogou(entry, self.sogou_link))

    def _wiki(self, name: str) -> Response:
        page_title = name.replace("_", " ").strip()
        if page_title.endswith(" (消歧义)"):
            title = page_title.removesuffix(" (消歧义)")
            senses = self.senses(title)
            if len(senses) < 2:
                return _html(render.wikipedia_not_found(page_title), 404)
            return _html(render.wikipedia_disambiguation(title, senses, self.wiki_title))
        for entry in self.senses(page_title.split(" (")[0]):
            if self.wiki_title(entry) == page_title:
                others = [s for s in self.senses(entry.title) if s.key != entry.key]
                return _html(render.wikipedia(entry, self.wiki_link, page_title, others))
        return _html(render.wikipedia_not_found(page_title), 404)


class _Handler(BaseHTTPRequestHandler):
    site: Site
    server_version = "zhbench-mirror/1"
    # Persistent connections, as the real sites keep them: a crawler reuses one connection for many
    # pages instead of a TCP handshake and a server thread per page. Every response has a length.
    protocol_version = "HTTP/1.1"
    timeout = 60  # seconds an idle connection keeps its thread
    disable_nagle_algorithm = True  # headers and body are two writes: without this the body waits for an ACK

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        response = self.site.respond(self.path, {k.lower(): v for k, v in self.headers.items()})
        self.send_response(response.status)
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        self.wfile.write(response.body)

    def do_HEAD(self) -> None:  # noqa: N802
        response = self.site.respond(self.path)
        self.send_response(response.status)
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's signature)
        pass  # a crawl makes thousands of requests; the crawler keeps its own stats


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        """A client that hung up before its answer was written (a search given up on after its timeout, a crawl
        stopped) is no error of the mirror's: nothing is printed. Anything else is, as http.server prints it."""
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)):
            return
        super().handle_error(request, client_address)


class MirrorServer:
    """The mirror on 127.0.0.1, in a background thread: ``with MirrorServer() as m: m.url``."""

    def __init__(self, site: Site | None = None, port: int = 0, host: str = "127.0.0.1"):
        self.site = site or Site()
        handler = type("Handler", (_Handler,), {"site": self.site})
        self.httpd = _Server((host, port), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="zhbench-mirror", daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "MirrorServer":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "MirrorServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
