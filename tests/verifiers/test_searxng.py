"""The SearXNG client against a stand-in instance (paging, refusals) and against the mirror's /search."""

from __future__ import annotations

import json
import socket
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from bench.localhost import free_port

from crawlers.mirror.site import MirrorServer
from crawlers.urls import reserved_host
from verifiers.search import Hit, SearchError
from verifiers.searxng import SearxNG


@contextmanager
def stand_in(answer, keep_alive: bool = False, connections: list | None = None):
    """A SearXNG stand-in on 127.0.0.1: ``answer(path, params, headers)`` gives (status, content type, body);
    yields its base URL and the requests it received. ``keep_alive``: HTTP/1.1, connections kept open (each
    one it accepts is appended to ``connections``); else HTTP/1.0, one connection a request."""
    requests: list[tuple[str, dict, dict]] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"

        def setup(self):
            super().setup()
            if connections is not None:
                connections.append(self.client_address)

        def log_message(self, *args):
            pass

        def do_GET(self):  # noqa: N802
            parts = urlsplit(self.path)
            params = {k: v[0] for k, v in parse_qs(parts.query).items()}
            requests.append((parts.path, params, dict(self.headers)))
            status, content_type, body, *extra = answer(parts.path, params)
            payload = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            for name, value in (extra[0] if extra else {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    # polled often, so that shutdown does not wait half a second per test
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def result(n: int) -> dict:
    return {"url": f"https://site.example/{n}", "title": f"标题{n}", "content": f"内容{n}", "score": 10.0 - n / 10,
            "engine": "bing", "engines": ["bing"], "positions": [n % 10 + 1], "category": "general"}


def paged(per_page: dict[int, list[dict]]):
    """Answers pages of canned results; a page not listed has none."""
    def answer(path, params):
        results = per_page.get(int(params.get("pageno", "1")), [])
        return 200, "application/json", {"query": params["q"], "number_of_results": 0, "results": results,
                                         "answers": [], "corrections": [], "infoboxes": [], "suggestions": [],
                                         "unresponsive_engines": []}
    return answer


PAGES = {
    1: [result(n) for n in range(10)],
    # a duplicate of page 1's first, and one result without a URL: neither counts
    2: [result(0), {"title": "无链接", "content": "x"}] + [result(n) for n in range(10, 18)],
    3: [result(n) for n in range(18, 25)],
}


def test_search_pages_through_the_instance_until_k_results_in_its_order():
    with stand_in(paged(PAGES)) as (base, requests):
        hits = SearxNG(base).search("长江 东海", 15)
    assert [h.url for h in hits] == [f"https://site.example/{n}" for n in range(15)]
    assert hits[0] == Hit("https://site.example/0", "标题0", "内容0", 10.0)
    assert [(path, params) for path, params, _ in requests] == [
        ("/search", {"q": "长江 东海", "format": "json", "pageno": "1"}),
        ("/search", {"q": "长江 东海", "format": "json", "pageno": "2"})]
    headers = requests[0][2]
    assert headers["Accept"] == "application/json" and headers["User-Agent"] == "zhbench"


def test_search_stops_at_the_first_page_without_results_and_dedups_urls():
    with stand_in(paged(PAGES)) as (base, requests):
        hits = SearxNG(base + "/").search("长江", 50)
    assert [h.url for h in hits] == [f"https://site.example/{n}" for n in range(25)]
    assert [params["pageno"] for _, params, _ in requests] == ["1", "2", "3", "4"]


def test_search_asks_at_most_one_page_more_than_k_needs():
    every_page_repeats = paged({n: [result(0)] for n in range(1, 20)})
    with stand_in(every_page_repeats) as (base, requests):
        hits = SearxNG(base).search("长江", 10)
    assert [h.url for h in hits] == ["https://site.example/0"]
    assert len(requests) == 2  # ceil(10 / 10) + 1


def test_an_instance_that_says_how_many_results_it_has_is_not_asked_for_more():
    def answer(path, params):
        page = int(params["pageno"])
        return 200, "application/json", {"number_of_results": 12, "results": PAGES[page][:6 if page == 1 else 10]}

    with stand_in(answer) as (base, requests):
        hits = SearxNG(base).search("长江", 10)  # 6, then 10 of which 9 new: 12 given of 12
    assert len(hits) == 10 and [params["pageno"] for _, params, _ in requests] == ["1", "2"]
    with stand_in(lambda path, params: (200, "application/json", {"number_of_results": 3, "results": PAGES[1][:3]})
                  ) as (base, requests):
        assert len(SearxNG(base).search("长江", 10)) == 3
    assert len(requests) == 1  # without it, an empty second page would be asked


def test_searches_go_over_one_kept_open_connection():
    connections: list = []
    with stand_in(paged(PAGES), keep_alive=True, connections=connections) as (base, requests):
        client = SearxNG(base)
        for query in ("长江", "黄河", "珠江"):
            assert len(client.search(query, 15)) == 15
        idle = list(client._connections._idle)
        client.close()
    assert len(requests) == 6 and len(connections) == 1
    assert len(idle) == 1 and idle[0].sock is None and client._connections._idle == []  # closed


def test_a_connection_the_instance_closed_while_idle_is_opened_again():
    connections: list = []
    with stand_in(paged(PAGES), keep_alive=True, connections=connections) as (base, requests):
        client = SearxNG(base)
        assert len(client.search("长江", 5)) == 5
        for connection in client._connections._idle:  # as a server ending an idle connection: the socket closed
            connection.sock.shutdown(socket.SHUT_RDWR)
        assert len(client.search("黄河", 5)) == 5
    assert len(requests) == 2 and len(connections) == 2


def test_a_redirect_is_followed():
    with stand_in(paged(PAGES)) as (target, served):
        def moved(path, params):
            return 302, "text/plain", b"", {"Location": f"{target}{path}?{urlencode(params)}"}

        with stand_in(moved, keep_alive=True) as (base, asked):
            hits = SearxNG(base).search("长江", 5)
    assert len(hits) == 5 and len(asked) == 1 and [p["pageno"] for _, p, _ in served] == ["1"]


def test_through_a_proxy_the_searches_go_by_urllib(monkeypatch):
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")
    assert SearxNG("https://searx.example.org")._connections is None
    assert SearxNG("http://searx.example.org")._connections is not None  # no proxy for http


def test_the_address_names_the_backend_and_its_cache_key():
    port = free_port()  # nothing listens: no /config says what it searches
    plain, slash, search = (SearxNG(f"http://127.0.0.1:{port}"), SearxNG(f"http://127.0.0.1:{port}/"),
                            SearxNG(f"http://127.0.0.1:{port}/search"))
    assert plain.base_url == slash.base_url == search.base_url == f"http://127.0.0.1:{port}"
    assert plain.name == f"searxng:127.0.0.1:{port}" and plain.corpus == search.corpus
    assert plain.cache_key == f"searxng:127.0.0.1:{port}@{plain.corpus}"
    assert SearxNG("https://searx.example.org/sub/search/").base_url == "https://searx.example.org/sub"
    assert SearxNG("https://searx.example.org").corpus != plain.corpus
    assert SearxNG("http://127.0.0.1:8888", corpus="mirror-demo").cache_key == "searxng:127.0.0.1:8888@mirror-demo"
    for bad in ("127.0.0.1:8888", "ftp://x.example", "http://x.example/search?q=a&format=json"):
        with pytest.raises(ValueError, match="SearXNG address"):
            SearxNG(bad)


def test_403_says_to_turn_on_the_json_format():
    with stand_in(lambda path, params: (403, "text/html", b"<h1>Forbidden</h1>")) as (base, requests):
        with pytest.raises(SearchError, match=r"Add json to search\.formats in its settings\.yml") as error:
            SearxNG(base).search("长江", 10)
    assert len(requests) == 1 and error.value.__cause__ is None and error.value.__suppress_context__


def test_429_is_retried_then_reported_as_the_limiter():
    with stand_in(lambda path, params: (429, "text/plain", b"Too Many Requests")) as (base, requests):
        started = time.monotonic()
        with pytest.raises(SearchError, match=r"429 Too Many Requests \(3 times\): its limiter") as error:
            SearxNG(base, retries=2, backoff_s=0.01).search("长江", 10)
    assert len(requests) == 3 and time.monotonic() - started < 2
    assert "server.limiter: false" in str(error.value) and "concurrency" in str(error.value)


def test_a_5xx_is_retried_and_the_search_goes_on():
    answers = iter([(503, "text/plain", b"busy"), (502, "text/plain", b"bad gateway")])

    def answer(path, params):
        return next(answers, None) or paged(PAGES)(path, params)

    with stand_in(answer) as (base, requests):
        hits = SearxNG(base, backoff_s=0.01).search("长江", 5)
    assert [h.url for h in hits] == [f"https://site.example/{n}" for n in range(5)] and len(requests) == 3


def test_a_reply_that_is_not_json_or_has_no_results_says_so():
    with stand_in(lambda path, params: (200, "text/html", b"<html>Welcome</html>")) as (base, _):
        with pytest.raises(SearchError, match=r"did not answer JSON .*text/html.*root address of a SearXNG"):
            SearxNG(base).search("长江", 10)
    with stand_in(lambda path, params: (200, "application/json", {"hits": []})) as (base, _):
        with pytest.raises(SearchError, match="without a 'results' list"):
            SearxNG(base).search("长江", 10)


def test_a_refused_connection_or_a_silent_instance_asks_whether_it_runs():
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(SearchError, match=rf"cannot reach SearXNG at http://127.0.0.1:{port} .*is the SearXNG "
                                          "instance running") as error:
        SearxNG(f"http://127.0.0.1:{port}").search("长江", 10)
    assert error.value.__suppress_context__

    def slow(path, params):
        time.sleep(0.5)
        return paged(PAGES)(path, params)

    with stand_in(slow) as (base, _):
        with pytest.raises(SearchError, match=r"did not answer .* within 0.1 s: is the SearXNG instance running"):
            SearxNG(base, timeout_s=0.1).search("长江", 10)


def test_the_mirror_says_what_it_searches_so_its_results_are_cached_wherever_it_listens(mini_site):
    with MirrorServer(mini_site, port=0) as one, MirrorServer(mini_site, port=0) as other:
        keys = {(SearxNG(one.url).cache_key, SearxNG(one.url).name), (SearxNG(other.url).cache_key,
                                                                      SearxNG(other.url).name)}
    assert keys == {(f"searxng@{mini_site.corpus_key()}", f"searxng:{mini_site.corpus_key()}")}


def test_the_same_client_searches_the_mirror(mini_site):
    with MirrorServer(mini_site) as mirror:
        hits = SearxNG(mirror.url).search("李白 长安", 10)
        reply = json.loads(mini_site.respond("/search?q=%E6%9D%8E%E7%99%BD+%E9%95%BF%E5%AE%89&format=json").body)
    assert hits == [Hit(r["url"], r["title"], r["content"], r["score"]) for r in reply["results"]]
    assert hits and all(reserved_host(h.url) for h in hits)  # the encyclopedia and the sites beside it
    assert any(h.title == "李白" and "长安" in h.text for h in hits)


def by_query(path, params):
    """Ten results for each query, its words in every one; the query ``失败`` answers 500."""
    if params["q"] == "失败":
        return 500, "application/json", {"error": "engine down"}
    time.sleep(0.02)  # an instance's time to answer: what asking several at once overlaps
    query = params["q"]
    results = [{"url": f"https://site.example/{query}/{n}", "title": query, "content": f"{query}{n}", "score": 1.0}
               for n in range(10)]
    return 200, "application/json", {"query": query, "number_of_results": 10, "results": results}


def test_searches_asked_at_once_answer_as_one_after_another_and_in_the_queries_order():
    queries = [f"词{n}" for n in range(24)]
    with stand_in(by_query) as (base, requests):
        one_by_one = SearxNG(base).search_many(queries, 10)
        at_once = SearxNG(base, concurrency=6).search_many(queries, 10)
    assert at_once == one_by_one
    assert [hits[0].title for hits in at_once] == queries
    assert len(requests) == 2 * len(queries)  # each asked once each time: 10 results on its first page


def test_searches_asked_at_once_overlap_up_to_the_concurrency(monkeypatch):
    active, most = 0, 0
    lock = threading.Lock()
    original = SearxNG._fetch

    def counted(self, url):
        nonlocal active, most
        with lock:
            active += 1
            most = max(most, active)
        try:
            return original(self, url)
        finally:
            with lock:
                active -= 1

    monkeypatch.setattr(SearxNG, "_fetch", counted)
    with stand_in(by_query) as (base, _):
        SearxNG(base, concurrency=4).search_many([f"词{n}" for n in range(40)], 10)
    assert most == 4


def test_a_failing_search_among_many_raises_and_the_searches_not_started_are_not_asked():
    queries = ["失败"] + [f"词{n}" for n in range(200)]
    with stand_in(by_query) as (base, requests):
        with pytest.raises(SearchError, match="HTTP 500"):
            SearxNG(base, concurrency=4, retries=0).search_many(queries, 10)
    assert len(requests) < 40  # those in flight when it failed, not the 200 behind them


def test_concurrency_below_one_is_refused():
    with pytest.raises(ValueError, match="concurrency must be 1 or more"):
        SearxNG("http://127.0.0.1:8888", concurrency=0)


def test_a_ctrl_c_while_searches_are_in_flight_ends_the_wait_and_the_process_at_once():
    # A search service that hangs: the Ctrl-C (a SIGINT to the process after 0.5 s) ends the wait at once,
    # and the process exits without waiting for the searches' 30-second timeout.
    import subprocess
    import sys
    import textwrap

    def hangs(path, params):
        time.sleep(20)
        return 200, "application/json", {"results": []}

    with stand_in(hangs) as (base, _):
        script = textwrap.dedent(f"""
            import os, signal, threading, time
            from verifiers.searxng import SearxNG
            threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
            started = time.monotonic()
            try:
                SearxNG({base!r}, timeout_s=30, concurrency=4).search_many([f"词{{n}}" for n in range(8)], 10)
            except KeyboardInterrupt:
                print(f"interrupted after {{time.monotonic() - started:.1f}} s", flush=True)
        """)
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
        took = time.monotonic() - started
    assert done.stdout.startswith("interrupted after 0."), done.stdout + done.stderr
    assert took < 10  # not the 20 s the service hangs, nor the client's 30 s timeout
