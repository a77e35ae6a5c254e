"""Which web search a run verifies against: a SearXNG instance, or the mirror's own for a crawl of the mirror."""

from __future__ import annotations

import json
import urllib.request

import pytest

from flows.settings import Settings
from flows.websearch import SearchSetupError, check_search, run_search
from tests.flows.test_cli import zhbench


def test_a_mirror_run_searches_a_mirror_of_its_own_world_and_a_configured_instance_is_used_as_it_is():
    settings = Settings()
    with run_search(settings) as verify:
        assert verify.search_backend == "searxng" and verify.search_url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(verify.search_url + "/search?q=%22%E6%9D%8E%E7%99%BD%22&format=json") as reply:
            results = json.loads(reply.read())["results"]
        assert results and {r["url"].split("/")[2] for r in results} > {"baike.example"}
    assert settings.verify.search_url == ""  # the configured settings (and so the stage keys) are untouched
    configured = Settings.model_validate({"verify": {"search_url": "https://searx.example.org"}})
    with run_search(configured) as verify:
        assert verify is configured.verify
    crawl_only = Settings.model_validate({"verify": {"search_backend": "crawl"}})
    with run_search(crawl_only) as verify:
        assert verify.search_url == ""


def test_a_real_site_with_search_on_needs_a_search_service():
    real = Settings.model_validate({"crawl": {"base_url": "https://baike.baidu.com"}})
    with pytest.raises(SearchSetupError, match="set verify.search_url to a SearXNG instance"):
        check_search(real)
    with pytest.raises(SearchSetupError):  # the evidence check searches too
        check_search(Settings.model_validate({"crawl": {"base_url": "https://baike.baidu.com"},
                                              "verify": {"search": False}}))
    for ok in ({"verify": {"search_url": "https://searx.example.org"}}, {"verify": {"search_backend": "crawl"}},
               {"verify": {"search": False, "items": False}}):
        check_search(Settings.model_validate({"crawl": {"base_url": "https://baike.baidu.com"}, **ok}))


def test_the_cli_says_so_in_one_line(tmp_path):
    from crawlers.mirror.site import MirrorServer, Site

    with MirrorServer(Site(faults=False), port=0) as site:  # a site that answers, as a real one would
        config = tmp_path / "zhbench.toml"
        config.write_text(f'[crawl]\nbase_url = "{site.url}"\n', encoding="utf-8")
        result = zhbench("run", "--config", str(config), "--data-dir", str(tmp_path / "data"), cwd=tmp_path)
    assert result.returncode != 0
    assert "verify.search_url" in result.stderr and "Traceback" not in result.stderr


def published_pages(directory):
    """The demo mirror's entries as a crawl of it publishes them (https://baike.example/item/…)."""
    from datetime import datetime, timezone

    from crawlers.mirror import render
    from crawlers.mirror.facts import load_facts
    from schemas import InfoboxEntry, Page
    from schemas.storage.shards import ShardWriter

    with ShardWriter(directory, "pages", Page) as writer:
        for entry in load_facts():
            url = render.PUBLIC_ORIGIN["baidu"] + render.item_path(entry.title, entry.baidu_id)
            writer.write(Page(url=url, canonical_url=url, title=entry.title, subtitle=entry.sense, status="ok",
                              source="baidu", summary=entry.summary, content_hash=f"{entry.baidu_id:016x}",
                              fetched_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
                              infobox=[InfoboxEntry(n, v, [x for x in v.split("、") if x]) for n, v in entry.infobox]))
    return writer.paths


def test_search_validation_runs_against_a_stand_in_searxng_and_the_mirror_alike(tmp_path):
    """The same verify stage, the same client: a stand-in SearXNG that knows one page of another site, and the
    mirror's search over its encyclopedia and the web beside it."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread
    from urllib.parse import parse_qs, urlsplit

    from crawlers.mirror.site import MirrorServer, Site
    from filters.align_stage import align_stage
    from flows.settings import AlignSettings, VerifySettings
    from flows.verify import verify_stage
    from schemas import Pair
    from schemas.storage.shards import iter_records

    pages = published_pages(tmp_path / "pages")
    aligned = align_stage(pages, AlignSettings(), tmp_path / "pairs")

    def validate(url: str, name: str) -> dict:
        result = verify_stage(aligned.shards, pages, VerifySettings(search_url=url), aligned.funnel, tmp_path / name,
                              tmp_path / name / "catalog.duckdb", aligned.rules)
        # every triple the search confirmed, whatever the pair rules then made of its pair
        kept = {(p.entity, t.relation, t.tail): t.support_urls for p in iter_records(result["shards"], Pair)
                for t in p.triples if t.support_urls}
        assert not any(p.url in t.support_urls for p in iter_records(result["shards"], Pair) for t in p.triples)
        return {"funnel": result["funnel"], "kept": kept}

    asked = []

    class StandIn(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):  # noqa: N802
            q = parse_qs(urlsplit(self.path).query).get("q", [""])[0]
            if urlsplit(self.path).path == "/search":  # not /config, which this stand-in does not have
                asked.append(q)
            results = [{"url": "https://poetry.example/libai", "title": "李白", "content": "李白生于701年，字太白。"}] \
                if q == '"李白" 出生日期' and parse_qs(urlsplit(self.path).query).get("pageno") == ["1"] else []
            body = json.dumps({"query": q, "results": results}, ensure_ascii=False).encode("utf-8")
            self.send_response(200 if urlsplit(self.path).path == "/search" else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        stand_in = validate(f"http://127.0.0.1:{server.server_port}", "stand-in")
    finally:
        server.shutdown()
        server.server_close()
    assert list(stand_in["kept"].values()) == [["https://poetry.example/libai"]]
    assert stand_in["funnel"]["search"]["backend"].startswith("searxng:127.0.0.1:")
    assert '"李白" 出生日期' in asked and all(q.startswith('"') for q in asked)

    with MirrorServer(Site(faults=False), port=0) as mirror:
        web = validate(mirror.url, "mirror")
    supports = [u for urls in web["kept"].values() for u in urls]
    assert len(web["kept"]) > len(stand_in["kept"]) and supports  # the own page never among them (above)
    assert {u.split("/")[2] for u in supports} >= {"openwiki.example", "news.example", "museum.example"}
