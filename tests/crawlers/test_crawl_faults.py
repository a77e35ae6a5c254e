"""A crawl against a fault server on 127.0.0.1: what is never fetched, and what every fault leaves behind.

The server answers each entry path with one fault. A second server on another port stands for
"somewhere else" (another local service, a metadata endpoint): the crawl must never reach it,
whether through a redirect of a page or of robots.txt.
"""

from __future__ import annotations

import http.server
import socket
import threading
import time
from urllib.parse import quote, unquote

import pytest

from crawlers.allowlist import HostPolicy
from crawlers.crawl import CrawlConfig, check_reachable, run_crawl
from crawlers.fetchlog import FetchLog
from crawlers.mirror import render

ENTRY = ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}_百度百科</title></head><body>"
         "<div class='lemmaWgt-lemmaTitle-title'><h1>{title}</h1></div>"
         "<div class='lemma-summary'><div class='para'>{title}是一个词条。{links}</div></div>"
         "</body></html>")


def entry_page(title: str, links: list[str] = ()) -> bytes:
    anchors = "".join(f"<a href='/item/{quote(t)}'>{t}</a>" for t in links)
    return ENTRY.format(title=title, links=anchors).encode("utf-8")


class PageHandler(http.server.BaseHTTPRequestHandler):
    """Answers every GET with ``page(path)`` as HTML; quiet."""

    def page(self, path: str) -> bytes:
        raise NotImplementedError

    def do_GET(self):  # noqa: N802
        body = self.page(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Recorder(http.server.ThreadingHTTPServer):
    """A server that only records the paths asked of it: it must stay empty."""

    daemon_threads = True

    def __init__(self):
        self.hits: list[str] = []

        recorder = self

        class Handler(PageHandler):
            def page(self, path: str) -> bytes:
                recorder.hits.append(path)
                return entry_page("别处")

        super().__init__(("127.0.0.1", 0), Handler)


FAULTS = ["外站跳转", "元数据跳转", "服务器错误", "连接重置", "超时", "短正文", "跳转循环", "无效跳转", "正常"]


def fault_server(elsewhere: int):
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def send_body(self, status: int, body: bytes, headers: dict | None = None, length: int | None = None):
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body) if length is None else length))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def redirect(self, location: str):
            self.send_body(302, b"", {"Location": location})

        def do_GET(self):  # noqa: N802
            hits.append(self.path)
            path = unquote(self.path)
            if path == "/robots.txt":
                return self.redirect(f"http://127.0.0.1:{elsewhere}/robots.txt")
            title = path.removeprefix("/item/")
            if title == "起点":
                return self.send_body(200, entry_page("起点", FAULTS))
            if title == "外站跳转":
                return self.redirect(f"http://127.0.0.1:{elsewhere}/item/x")
            if title == "元数据跳转":
                return self.redirect("http://169.254.169.254/latest/meta-data/iam/")
            if title == "服务器错误":
                return self.send_body(500, b"<html><body>error</body></html>")
            if title == "连接重置":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                self.close_connection = True
                self.connection.close()
                return None
            if title == "超时":
                time.sleep(3)
                return self.send_body(200, entry_page("超时"))
            if title == "短正文":
                body = entry_page("短正文")
                self.send_body(200, body[:200], length=len(body))
                self.close_connection = True
                return None
            if title == "跳转循环":
                return self.redirect("/item/" + quote("跳转循环"))
            if title == "无效跳转":
                return self.redirect("http://[::1")
            if title == "正常":
                return self.send_body(200, entry_page("正常"))
            return self.send_body(404, b"<html><body>not found</body></html>")

        def log_message(self, *args):
            pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            pass  # the crawler hanging up on the slow page is part of the test

    server = Server(("127.0.0.1", 0), Handler)
    server.hits = hits
    return server


@pytest.fixture()
def servers():
    elsewhere = Recorder()
    faulty = fault_server(elsewhere.server_address[1])
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in (elsewhere, faulty)]
    for thread in threads:
        thread.start()
    yield faulty, elsewhere
    for server in (faulty, elsewhere):
        server.shutdown()
        server.server_close()


def test_redirects_never_leave_the_site_and_every_fault_is_recorded(servers, tmp_path):
    faulty, elsewhere = servers
    base = f"http://127.0.0.1:{faulty.server_address[1]}"
    config = CrawlConfig(start_urls=[base + "/item/" + quote("起点")], out_dir=str(tmp_path), timeout_s=1.0,
                         concurrency=4, max_depth=2)
    result = run_crawl(config)

    assert elsewhere.hits == []  # neither the page redirect nor the robots.txt redirect was followed
    lines = {unquote(e["url"].rsplit("/", 1)[-1]): e for e in FetchLog(tmp_path / "fetched.jsonl").entries()}
    status = {title: (e["page_status"], e.get("reason", "").split(":", 1)[0]) for title, e in lines.items()}
    assert status == {
        "起点": ("ok", ""), "正常": ("ok", ""),
        "外站跳转": ("refused", "offsite"), "元数据跳转": ("refused", "offsite"),
        "服务器错误": ("failed", "http_500"), "连接重置": ("failed", "connection_lost"),
        "超时": ("failed", "timeout"), "短正文": ("failed", status["短正文"][1]),
        "跳转循环": ("failed", "redirect"), "无效跳转": ("failed", "redirect"),
    }
    assert status["短正文"][1] in ("short_body", "connection_lost")
    assert "redirect loop" in lines["跳转循环"]["reason"] and "[::1" in lines["无效跳转"]["reason"]
    assert "169.254.169.254" in lines["元数据跳转"]["reason"]
    refusals = result.stats["zhbench/refusals"]
    assert any(r["robots_txt"] and str(elsewhere.server_address[1]) in r["url"] for r in refusals)
    # Every status is in the summary the command prints.
    assert result.by_status == {"failed": 6, "ok": 2, "refused": 2}


def test_the_host_policy_refuses_other_hosts_private_addresses_and_bad_urls():
    mirror = HostPolicy(["127.0.0.1:8800"])
    assert mirror.refusal("http://127.0.0.1:8800/item/李白") is None
    assert mirror.refusal("http://127.0.0.1:8801/item/李白").kind == "offsite"
    assert mirror.refusal("http://localhost:8800/").kind == "offsite"
    assert mirror.refusal("http://169.254.169.254/latest/meta-data/").kind == "offsite"
    assert mirror.refusal("file:///etc/passwd").kind == "scheme"
    assert mirror.refusal("http://[::1").kind == "invalid_url"
    site = HostPolicy(["baike.baidu.com"])
    assert site.refusal("https://baike.baidu.com/item/李白") is None
    assert site.refusal("http://baike.baidu.com:22/").kind == "offsite"
    assert site.refusal("https://wappass.baidu.com/static/captcha").kind == "offsite"
    # A public site whose own host turned private (DNS pointing inward) is refused.
    inward = HostPolicy(["baike.baidu.com"], allow_private=False)
    inward._hosts.add("127.0.0.1:9")
    assert inward.refusal("http://127.0.0.1:9/").kind == "private_address"


def test_the_reachability_check_does_not_follow_a_redirect(servers):
    faulty, elsewhere = servers
    check_reachable(f"http://127.0.0.1:{faulty.server_address[1]}/item/x")
    assert elsewhere.hits == []
    assert faulty.hits == ["/robots.txt"]


def test_a_page_the_parser_cannot_read_is_recorded_with_its_html(monkeypatch, tmp_path):
    import crawlers.spider as spider_module
    from scrapy.http import HtmlResponse, Request

    def broken(*args, **kwargs):
        raise ValueError("All strings must be XML compatible")

    monkeypatch.setattr(spider_module, "parse", broken)
    spider = spider_module.BaikeSpider(start_urls=["http://127.0.0.1:1/item/x"])
    spider.crawler = type("C", (), {"stats": type("S", (), {"inc_value": lambda *a, **k: None})()})()
    body = render.baidu_captcha().encode("utf-8")
    response = HtmlResponse("http://127.0.0.1:1/item/x", body=body, request=Request("http://127.0.0.1:1/item/x"))
    (item,) = list(spider.parse(response))
    assert item["status"] == "parse_error" and "XML compatible" in item["reason"]
    assert item["body"] == body


def test_a_burst_of_blocked_requests_is_one_strike_and_the_wait_is_shown():
    import asyncio

    from scrapy.http import Request, Response
    from scrapy.statscollectors import MemoryStatsCollector

    from crawlers.middleware import BlockBackoffMiddleware

    from scrapy.settings import Settings

    stats = MemoryStatsCollector(type("Crawler", (), {"settings": Settings()})())
    backoff = BlockBackoffMiddleware(stats, base_delay=0.01, max_delay=60.0, max_tries=5)
    requests = [Request(f"http://127.0.0.1:1/item/{n}") for n in range(8)]
    for request in requests:  # eight requests in flight together
        asyncio.run(backoff.process_request(request))
    for request in requests:  # ... all answered 429 together
        backoff.process_response(request, Response(request.url, status=429))
    assert backoff.strikes["127.0.0.1:1"] == 1
    waiting = stats.get_value("zhbench/backoff/waiting")
    assert waiting["reason"] == "http_429" and waiting["strikes"] == 1 and waiting["cap_s"] == 60.0
    time.sleep(0.02)
    again = Request("http://127.0.0.1:1/item/9")
    asyncio.run(backoff.process_request(again))  # sent after the pause: blocked again, a second strike
    backoff.process_response(again, Response(again.url, status=429))
    assert backoff.strikes["127.0.0.1:1"] == 2


@pytest.fixture()
def slow_site():
    class Handler(PageHandler):
        def page(self, path: str) -> bytes:
            if path != "/robots.txt":
                time.sleep(1.0)
            # Forty linked pages of a second each: the crawl lasts well past the signal.
            return entry_page("慢", [f"慢{n}" for n in range(40)])

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            pass

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _crawl_command(base: str, tmp_path):
    import os
    import subprocess
    import sys

    seeds = tmp_path / "seeds.txt"
    seeds.write_text("慢\n", encoding="utf-8")
    return subprocess.Popen([sys.executable, "-m", "flows.cli", "crawl", "--site", "baidu", "--base-url", base,
                             "--seeds", str(seeds), "--data-dir", str(tmp_path / "data"), "--name", "slow"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})


def _crawler_child(parent: int, timeout: float = 20.0) -> int:
    import subprocess

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = subprocess.run(["pgrep", "-P", str(parent), "-f", "crawlers.crawl"], capture_output=True, text=True)
        if found.stdout.split():
            return int(found.stdout.split()[0])
        time.sleep(0.2)
    raise AssertionError("the crawler child never started")


def _gone(pid: int, timeout: float = 30.0) -> bool:
    import os

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split()[2] == "Z":
                    return True
        except (ProcessLookupError, FileNotFoundError):
            return True
        time.sleep(0.2)
    return False


def test_sigterm_stops_the_crawler_child(slow_site, tmp_path):
    import signal

    command = _crawl_command(slow_site, tmp_path)
    child = _crawler_child(command.pid)
    time.sleep(1.5)
    command.send_signal(signal.SIGTERM)
    _, err = command.communicate(timeout=60)
    assert command.returncode == 143
    assert "terminated (SIGTERM)" in err and "Traceback" not in err
    assert _gone(child)


def test_a_crawler_whose_parent_is_killed_stops_and_keeps_what_it_fetched(slow_site, tmp_path):
    import json
    import signal

    command = _crawl_command(slow_site, tmp_path)
    child = _crawler_child(command.pid)
    time.sleep(2.5)
    command.send_signal(signal.SIGKILL)
    command.communicate(timeout=30)
    assert _gone(child)
    stats = json.loads((tmp_path / "data" / "crawls" / "slow" / "crawl-stats.json").read_text(encoding="utf-8"))
    assert stats["zhbench/stopped"] == "parent process gone"


def test_verification_and_titleless_pages_are_retried_or_recorded_never_stored_as_content(tmp_path):
    verification = ("<html><head><meta charset='utf-8'><title>百度安全验证 - 百度</title></head><body>"
                    "<p>请完成验证</p><form><input name='code'></form></body></html>").encode("utf-8")
    titleless = ENTRY.format(title="", links="").replace("<title>_百度百科</title>", "<title></title>").encode()
    asked: list[str] = []

    class Handler(PageHandler):
        def page(self, path: str) -> bytes:
            asked.append(unquote(path))
            return {"/item/验证": verification, "/item/无题": titleless}.get(
                unquote(path), entry_page("起点", ["验证", "无题"]))

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        config = CrawlConfig(start_urls=[base + "/item/" + quote("起点")], out_dir=str(tmp_path), max_depth=1,
                             max_block_retries=1, backoff_base_s=0.01, backoff_max_s=0.05)
        result = run_crawl(config)
    finally:
        server.shutdown()
        server.server_close()
    lines = {unquote(e["url"].rsplit("/", 1)[-1]): e for e in FetchLog(tmp_path / "fetched.jsonl").entries()}
    assert {t: (e["page_status"], e.get("reason", "")) for t, e in lines.items()} == {
        "起点": ("ok", ""), "验证": ("blocked", "captcha_page"), "无题": ("unparsable", "no_title")}
    assert asked.count("/item/验证") == 2  # asked again once, as any captcha is, before it is given up
    assert result.stats["zhbench/blocked/captcha_page"] == 2 and result.stats["zhbench/gave_up/captcha_page"] == 1
    assert result.by_status == {"blocked": 1, "ok": 1, "unparsable": 1}
