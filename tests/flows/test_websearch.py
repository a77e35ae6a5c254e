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
    for ok in ({"verify": {"search_url": "https://searx.example.org"}}, {"verify": {"search_backend": "crawl"}},
               {"verify": {"search": False}}):
        check_search(Settings.model_validate({"crawl": {"base_url": "https://baike.baidu.com"}, **ok}))


def test_the_cli_says_so_in_one_line(tmp_path):
    config = tmp_path / "zhbench.toml"
    config.write_text('[crawl]\nbase_url = "https://baike.baidu.com"\n', encoding="utf-8")
    result = zhbench("run", "--config", str(config), "--data-dir", str(tmp_path / "data"), cwd=tmp_path)
    assert result.returncode != 0
    assert "verify.search_url" in result.stderr and "Traceback" not in result.stderr
