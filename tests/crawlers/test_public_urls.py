"""public_url: wherever an entry was fetched (the bundled mirror's 127.0.0.1:<port>, a copy of the site,
the site itself), the public site's canonical URL of the entry."""

from __future__ import annotations

import pytest

from crawlers.urls import public_url, reserved_host

LI_BAI = "%E6%9D%8E%E7%99%BD"  # 李白


@pytest.mark.parametrize("fetched, site, public", [
    # Baidu: /item/<title> and /item/<title>/<id>, the title encoded once however it came
    ("http://127.0.0.1:8800/item/李白", "baidu", f"https://baike.baidu.com/item/{LI_BAI}"),
    ("http://127.0.0.1:41234/item/李白/1043", "baidu", f"https://baike.baidu.com/item/{LI_BAI}/1043"),
    (f"http://127.0.0.1:8800/item/{LI_BAI}/1043/?fromModule=lemma_search-box#2", "baidu",
     f"https://baike.baidu.com/item/{LI_BAI}/1043"),
    ("http://127.0.0.1:8800/item/AC%2FDC/6244", "baidu", "https://baike.baidu.com/item/AC%2FDC/6244"),
    ("http://127.0.0.1:8800/item/C%2B%2B", "baidu", "https://baike.baidu.com/item/C%2B%2B"),
    (f"https://baike.baidu.com/item/{LI_BAI}/1043", "baidu", f"https://baike.baidu.com/item/{LI_BAI}/1043"),
    # Sogou: /v<id>.htm
    ("http://127.0.0.1:8800/v7581.htm", "sogou", "https://baike.sogou.com/v7581.htm"),
    ("http://localhost:9000/v7581.htm?ch=frombaikevr", "sogou", "https://baike.sogou.com/v7581.htm"),
    # zh-Wikipedia: /wiki/<title>, a script variant path is the same entry
    ("http://127.0.0.1:8800/wiki/李白", "wikipedia", f"https://zh.wikipedia.org/wiki/{LI_BAI}"),
    ("http://127.0.0.1:8800/zh-hans/长江_(消歧义)", "wikipedia",
     "https://zh.wikipedia.org/wiki/%E9%95%BF%E6%B1%9F_(%E6%B6%88%E6%AD%A7%E4%B9%89)"),
    ("http://127.0.0.1:8800/wiki/AC/DC", "wikipedia", "https://zh.wikipedia.org/wiki/AC/DC"),
    ("https://zh.wikipedia.org/wiki/%E6%9D%8E%E7%99%BD#生平", "wikipedia", f"https://zh.wikipedia.org/wiki/{LI_BAI}"),
])
def test_an_entry_url_becomes_the_public_sites_canonical_url(fetched, site, public):
    assert public_url(fetched, site) == public


@pytest.mark.parametrize("fetched, site", [
    ("http://127.0.0.1:8800/search/fullsearch.htm?keyword=李白", "sogou"),  # a search, not an entry
    ("http://127.0.0.1:8800/wiki/李白", "baidu"),  # not a Baidu entry path
    ("http://127.0.0.1:8800/item/李白", "other"),  # a source with no public site
    ("http://127.0.0.1:8800/item/李白", ""),
])
def test_what_is_no_entry_of_the_site_keeps_its_host(fetched, site):
    assert public_url(fetched, site).startswith("http://127.0.0.1:8800/")


def test_the_port_and_the_spelling_do_not_change_the_public_url():
    spellings = ["http://127.0.0.1:8800/item/李白/1043", f"http://127.0.0.1:55555/item/{LI_BAI}/1043",
                 f"http://127.0.0.1:8800/item/{LI_BAI}/1043?fromModule=disambiguation"]
    assert {public_url(u, "baidu") for u in spellings} == {f"https://baike.baidu.com/item/{LI_BAI}/1043"}


def test_a_pass_over_the_crawl_leaves_the_crawlers_url_caches_empty():
    """Each page's URL is mapped once in a pass: its entries would only hold memory (2 x 65,536 URLs)."""
    from crawlers.urls import _judge, canonicalize

    canonicalize.cache_clear()
    _judge.cache_clear()
    urls = [f"http://127.0.0.1:8800/item/人物{i}/{i + 1}" for i in range(100)]
    assert [public_url(u, "baidu") for u in urls] == [
        f"https://baike.baidu.com/item/%E4%BA%BA%E7%89%A9{i}/{i + 1}" for i in range(100)]
    assert canonicalize.cache_info().currsize == 0 and _judge.cache_info().currsize == 0
    assert public_url("http://127.0.0.1:8800/item/李白", "sogou") == "http://127.0.0.1:8800/item/" + LI_BAI


@pytest.mark.parametrize("published", [
    "https://baike.example/item/%E6%9D%8E%E7%99%BD/8555631",
    "https://zhwiki.example/wiki/%E6%9D%8E%E7%99%BD",
    "https://news.test/2021/88.html",
    "https://www.example.com/item/%E6%9D%8E%E7%99%BD/1",
])
def test_a_url_on_a_reserved_host_is_kept_as_it_is(published):
    """The mirror's entries exist on no real site: published under RFC 2606 names, never moved to a real domain."""
    assert reserved_host(published)
    assert public_url(published, "baidu") == published


@pytest.mark.parametrize("real", ["https://baike.baidu.com/item/x", "http://127.0.0.1:8800/item/x",
                                  "http://localhost:9000/v1.htm", "https://example.cn/a", "https://myexample.com/"])
def test_real_and_fetch_hosts_are_not_reserved(real):
    assert not reserved_host(real)
