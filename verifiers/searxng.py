"""The SearXNG client: a SearXNG instance's JSON API (a real one, or the bundled mirror's ``/search``, which answers
in the same JSON), one of the search backends of :mod:`verifiers.search`.

It pages through ``/search?q=…&format=json&pageno=N`` until k results, retries 429 and 5xx, says what to change
when the instance refuses (JSON output off, its limiter), and keeps its connections open between searches.
"""

from __future__ import annotations

import hashlib
import http.client
import io
import json
import math
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from schemas.records import Hit
from verifiers.search import SearchError, asked_at_once


class _Busy(Exception):
    """A reply another attempt may get past: 429 (the instance's limiter) or 5xx."""

    def __init__(self, status: int, reason: str, retry_after: float | None):
        super().__init__(f"HTTP {status} {reason}")
        self.status, self.reason, self.retry_after = status, reason, retry_after


def _retry_after(headers) -> float | None:
    """A Retry-After header given in seconds, or None (absent, or an HTTP date: the backoff decides then)."""
    value = (headers.get("Retry-After") or "").strip() if headers is not None else ""
    return float(value) if value.isascii() and value.isdigit() else None


def _score(value) -> float:
    try:
        return float(value or 0.0)
    except (TypeError, ValueError):
        return 0.0  # an instance that scores otherwise: the order of its results is what counts


class SearxNG:
    """A SearXNG instance's JSON API, ``GET {base_url}/search?q=…&format=json&pageno=N``: a real instance or
    the bundled mirror's, with the same code.

    base_url: the instance's root (``http://127.0.0.1:8888``, ``https://searx.example.org``); a trailing ``/``
    or ``/search`` is dropped. corpus: what its results depend on besides the query, for the cache key; by
    default what the instance's ``/config`` says it searches (``zhbench_corpus``: the bundled mirror's world,
    so a mirror on another port answers from the cache), else its address, so another instance asks again.

    An instance answers about 10 results a page, fewer once its engines' duplicates are merged: pages are asked
    until k results, a page with none, the ``number_of_results`` the instance gives (when above 0: SearXNG gives 0
    where its engines' estimate is below the results it has), or ceil(k/10)+1 pages. A 429 or 5xx is asked again ``retries`` times,
    after ``backoff_s``, then twice that (or the server's Retry-After, up to :attr:`MAX_WAIT_S`); any other
    failure raises SearchError at once, saying what to change.
    """

    PAGE_SIZE = 10
    MAX_WAIT_S = 10.0  # the longest Retry-After honoured: a search should not stall a stage for minutes

    def __init__(self, base_url: str, timeout_s: float = 20.0, corpus: str | None = None, *,
                 retries: int = 2, backoff_s: float = 0.5, concurrency: int = 1):
        parts = urllib.parse.urlsplit(base_url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"SearXNG address {base_url!r} is not an http(s) URL: give the instance's root, "
                             "e.g. http://127.0.0.1:8888")
        if parts.query or parts.fragment:
            raise ValueError(f"SearXNG address {base_url!r} has a query string: give the instance's root only "
                             "(the client adds q, format and pageno)")
        if timeout_s <= 0:
            raise ValueError(f"timeout_s must be above 0 seconds, got {timeout_s}")
        if retries < 0 or backoff_s < 0:
            raise ValueError(f"retries and backoff_s must be 0 or more, got {retries} and {backoff_s}")
        if concurrency < 1:
            raise ValueError(f"concurrency must be 1 or more, got {concurrency}")
        path = parts.path.rstrip("/").removesuffix("/search").rstrip("/")
        self.base_url = urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))
        self.timeout_s, self.retries, self.backoff_s, self.concurrency = timeout_s, retries, backoff_s, concurrency
        self.address = f"searxng:{parts.netloc}"
        self._corpus, self._declared = corpus, None
        # Searches over kept-open connections, unless a proxy stands between (urllib's environment settings)
        proxied = parts.scheme in urllib.request.getproxies() and not urllib.request.proxy_bypass(parts.hostname)
        self._connections = None if proxied else _Connections(parts.scheme, parts.netloc, timeout_s)

    @property
    def corpus(self) -> str:
        return self._corpus or hashlib.sha256(self.base_url.encode()).hexdigest()[:16]

    def declared(self) -> str:
        """What the instance says it searches, asked once (no I/O before): "" for one that says nothing."""
        if self._declared is None:
            self._declared = "" if self._corpus else self._declared_corpus()
        return self._declared

    @property
    def name(self) -> str:
        """``searxng:<host:port>``, or for an instance that says what it searches (the bundled mirror),
        ``searxng:<that>``: reports and manifests then name no port that changes from run to run."""
        return f"searxng:{self.declared()}" if self.declared() else self.address

    @property
    def cache_key(self) -> str:
        """The catalog cache's key for this instance's results: by what it says it searches, wherever it
        listens; else by its address and the corpus given."""
        return f"searxng@{self.declared()}" if self.declared() else f"{self.address}@{self.corpus}"

    def _declared_corpus(self) -> str:
        """What the instance says its results depend on: ``zhbench_corpus`` in its ``/config`` (the bundled
        mirror's world, by profile, size, seed and version); "" for an instance that says nothing of it."""
        request = urllib.request.Request(f"{self.base_url}/config", headers={"Accept": "application/json",
                                                                             "User-Agent": "zhbench"})
        try:
            with urllib.request.urlopen(request, timeout=min(self.timeout_s, 5.0)) as response:
                found = json.loads(response.read().decode("utf-8")).get("zhbench_corpus")
        except (OSError, ValueError, AttributeError):
            return ""
        return found if isinstance(found, str) and found.isascii() and 0 < len(found) <= 64 else ""

    def close(self) -> None:
        """Close the connections kept open between searches."""
        if self._connections is not None:
            self._connections.close()

    def search_many(self, queries: list[str], k: int) -> list[list[Hit]]:
        """search() for each query, ``concurrency`` at a time (the instance's limiter may need raising to match:
        a 429 is asked again after a wait, as one search at a time is)."""
        return asked_at_once(self.search, queries, k, self.concurrency)

    def search(self, query: str, k: int) -> list[Hit]:
        """The first k results for ``query``, in the instance's order; one per URL (its first), none without one."""
        hits: list[Hit] = []
        seen: set[str] = set()
        pages = math.ceil(k / self.PAGE_SIZE) + 1 if k > 0 else 0
        given = 0
        for page in range(1, pages + 1):
            results, total = self._page(query, page)
            if not results:
                break
            given += len(results)
            for result in results:
                url = result.get("url") if isinstance(result, dict) else None
                if not url or not isinstance(url, str) or url in seen:
                    continue
                seen.add(url)
                hits.append(Hit(url, str(result.get("title") or ""), str(result.get("content") or ""),
                                _score(result.get("score"))))
            if len(hits) >= k or 0 < total <= given:  # k, or every result the instance has
                break
        return hits[:k]

    def _page(self, query: str, page: int) -> tuple[list, int]:
        """The ``results`` of one page and the ``number_of_results`` in all (0 where not given), asked again while
        the instance is busy."""
        url = f"{self.base_url}/search?" + urllib.parse.urlencode({"q": query, "format": "json", "pageno": page})
        attempts = 0
        while True:
            try:
                return self._fetch(url)
            except _Busy as busy:
                attempts += 1
                if attempts > self.retries:
                    raise SearchError(self._busy_message(busy, attempts)) from None
                wait = busy.retry_after if busy.retry_after is not None else self.backoff_s * 2 ** (attempts - 1)
                time.sleep(min(wait, self.MAX_WAIT_S))

    def _busy_message(self, busy: _Busy, attempts: int) -> str:
        tried = f"{attempts} time{'s' if attempts > 1 else ''}"
        if busy.status == 429:
            return (f"SearXNG at {self.base_url} answered 429 Too Many Requests ({tried}): its limiter refuses "
                    "this client. Turn it off for this client (server.limiter: false in its settings.yml, or "
                    "this machine's address in pass_ip of [botdetection.ip_lists] in limiter.toml), or lower "
                    "the verify stage's concurrency")
        return (f"SearXNG at {self.base_url} answered HTTP {busy.status} {busy.reason} ({tried}): the instance "
                "fails to search; its log says why")

    def _get(self, url: str) -> tuple[bytes, str, str]:
        """The body of a successful answer to GET url, its charset and its content type; HTTPError for a refusal.
        Over a kept-open connection (the place a redirect names is asked by urllib), else by urllib."""
        if self._connections is not None:
            status, reason, headers, body = self._connections.get(url, _SEARCH_HEADERS)
            if status >= 400 or (300 <= status < 400 and not headers.get("Location")):
                raise urllib.error.HTTPError(url, status, reason, headers, io.BytesIO(body))
            if not 300 <= status < 400:
                return body, headers.get_content_charset() or "utf-8", headers.get_content_type()
            url = urllib.parse.urljoin(url, headers["Location"])
        request = urllib.request.Request(url, headers=_SEARCH_HEADERS)
        with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
            return (response.read(), response.headers.get_content_charset() or "utf-8",
                    response.headers.get_content_type())

    def _fetch(self, url: str) -> tuple[list, int]:
        try:
            body, charset, content_type = self._get(url)
        except urllib.error.HTTPError as error:
            try:
                detail = _error_detail(error)
            finally:
                error.close()
            if error.code == 429 or error.code >= 500:
                raise _Busy(error.code, error.reason, _retry_after(error.headers)) from None
            if error.code == 403:
                raise SearchError(f"SearXNG at {self.base_url} answered 403 Forbidden to format=json: its JSON "
                                  "output is off. Add json to search.formats in its settings.yml "
                                  "(formats: [html, json]) and restart it") from None
            raise SearchError(f"SearXNG at {self.base_url} answered HTTP {error.code} {error.reason} to "
                              f"{url}{detail}") from None
        except (TimeoutError, urllib.error.URLError, http.client.HTTPException, OSError) as error:
            reason = error.reason if isinstance(error, urllib.error.URLError) else error
            if isinstance(reason, TimeoutError):
                raise SearchError(f"SearXNG at {self.base_url} did not answer {url} within {self.timeout_s:g} s: "
                                  "is the SearXNG instance running? (a slow one needs a longer timeout)") from None
            raise SearchError(f"cannot reach SearXNG at {self.base_url} ({reason}): is the SearXNG instance "
                              "running, at this address?") from None
        try:
            data = json.loads(body.decode(charset))
        except (ValueError, LookupError):
            start = " ".join(body[:80].decode("utf-8", "replace").split())
            raise SearchError(f"SearXNG at {self.base_url} did not answer JSON to {url} ({content_type}, "
                              f"beginning {start!r}): is {self.base_url} the root address of a SearXNG "
                              "instance?") from None
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            said = f" (it says {data['error']!r})" if isinstance(data, dict) and data.get("error") else ""
            raise SearchError(f"SearXNG at {self.base_url} answered JSON without a 'results' list{said}: is "
                              f"{self.base_url} the root address of a SearXNG instance?")
        total = data.get("number_of_results")
        return results, total if isinstance(total, int) and not isinstance(total, bool) else 0


_SEARCH_HEADERS = {"Accept": "application/json", "User-Agent": "zhbench"}


class _Connections:
    """HTTP/1.1 connections to one host, kept open between requests, each carrying one request at a time (as
    many as the searches in flight): a search then costs no TCP or TLS handshake, and the instance starts no
    server thread for it. A connection the server closed while it was idle is opened again once."""

    def __init__(self, scheme: str, netloc: str, timeout_s: float):
        self.scheme, self.netloc, self.timeout_s = scheme, netloc, timeout_s
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def _open(self) -> http.client.HTTPConnection:
        if self.scheme == "https":
            import ssl

            return http.client.HTTPSConnection(self.netloc, timeout=self.timeout_s,
                                               context=ssl.create_default_context())
        return http.client.HTTPConnection(self.netloc, timeout=self.timeout_s)

    def get(self, url: str, headers: dict[str, str]) -> tuple[int, str, http.client.HTTPMessage, bytes]:
        """(status, reason, headers, body) of GET url."""
        parts = urllib.parse.urlsplit(url)
        target = f"{parts.path or '/'}?{parts.query}" if parts.query else parts.path or "/"
        with self._lock:
            connection = self._idle.pop() if self._idle else None
        reused = connection is not None
        while True:
            connection = connection or self._open()
            try:
                connection.request("GET", target, headers=headers)
                response = connection.getresponse()
                body = response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                connection.close()
                if not reused:
                    raise
                connection, reused = None, False  # closed by the server while idle: once more, on a new one
                continue
            except BaseException:
                connection.close()
                raise
            break
        if response.will_close:
            connection.close()
        else:
            with self._lock:
                self._idle.append(connection)
        return response.status, response.reason, response.headers, body

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()


def _error_detail(error: urllib.error.HTTPError) -> str:
    """SearXNG's own account of a refused request (``{"error": …}``), as ``: …``, or nothing."""
    try:
        said = json.loads(error.read(4096).decode("utf-8")).get("error")
    except (OSError, ValueError, AttributeError, http.client.HTTPException):
        return ""
    return f": {said}" if isinstance(said, str) and said else ""
