"""The mirror's web search: SearXNG's /search JSON over the sites' pages, ranked by BM25."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from urllib.parse import quote, urlencode, urlparse

import pytest

from crawlers.urls import reserved_host
from crawlers.mirror import render
from crawlers.mirror.search import Document, MirrorSearch, snippet
from crawlers.mirror.site import MirrorServer, Site
from tests.conftest import MINI_FACTS

REPLY_FIELDS = {"query", "number_of_results", "results", "answers", "corrections", "infoboxes", "suggestions",
                "unresponsive_engines"}
RESULT_FIELDS = {"url", "title", "content", "engine", "engines", "positions", "score", "category", "parsed_url",
                 "template", "publishedDate"}


@pytest.fixture(scope="module")
def mirror():
    """The demo profile (the bundled facts table) on 127.0.0.1."""
    with MirrorServer(Site(faults=False)) as server:
        yield server


def get(mirror: MirrorServer, path: str, **params: str) -> tuple[int, str, bytes]:
    """Status, Content-Type and body of a GET (an error status is returned, not raised)."""
    url = mirror.url + path + ("?" + urlencode(params) if params else "")
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers["Content-Type"], error.read()


def search(mirror: MirrorServer, **params: str) -> dict:
    status, content_type, body = get(mirror, "/search", format="json", **params)
    assert (status, content_type) == (200, "application/json; charset=utf-8"), body
    return json.loads(body)


def public_url(site: Site, title: str) -> str:
    entry = site.senses(title)[0]
    return "https://baike.example" + render.item_path(entry.title, entry.baidu_id)


def test_search_answers_in_searxng_json_with_the_entry_page_among_the_results(mirror):
    reply = search(mirror, q="李白 出生")
    assert set(reply) == REPLY_FIELDS
    assert reply["query"] == "李白 出生"
    assert all(reply[name] == [] for name in ("answers", "corrections", "infoboxes", "suggestions",
                                              "unresponsive_engines"))
    results = reply["results"]
    assert len(results) == 10 and isinstance(reply["number_of_results"], int) and reply["number_of_results"] > 10
    for position, result in enumerate(results, 1):
        assert set(result) == RESULT_FIELDS
        assert (result["engine"], result["engines"]) == ("mirror-bm25", ["mirror-bm25"])
        assert result["positions"] == [position]
        assert (result["category"], result["template"], result["publishedDate"]) == ("general", "default.html", None)
        assert result["parsed_url"] == list(urlparse(result["url"]))
        assert reserved_host(result["url"])  # the encyclopedia and the sites beside it
        assert isinstance(result["score"], float) and result["score"] > 0
        assert "李白" in result["title"] + result["content"] or "出生" in result["title"] + result["content"]
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    assert len({r["url"] for r in results}) == len(results)  # one result per page
    li_bai = next(r for r in results if r["url"] == public_url(mirror.site, "李白"))
    assert li_bai["title"] == "李白" and "李白" in li_bai["content"]
    assert "[[" not in li_bai["content"] and "]]" not in li_bai["content"]


def test_a_result_content_is_the_page_paragraph_that_holds_the_query_words(mirror):
    # jieba segments 出生于 as 出/生于, so for 李白 出生 the page's best passage need not hold 出生;
    # 长安 is a word wherever it occurs.
    reply = search(mirror, q="李白 长安")
    li_bai = next(r for r in reply["results"] if r["url"] == public_url(mirror.site, "李白"))
    assert "李白" in li_bai["content"] and "长安" in li_bai["content"]
    paragraphs = next(d for d in mirror.site.search_documents() if d.url == li_bai["url"]).paragraphs
    assert li_bai["content"] in paragraphs


def test_the_same_query_gives_the_same_reply_every_time(mirror):
    first = get(mirror, "/search", q="李白 出生", format="json")
    assert get(mirror, "/search", q="李白 出生", format="json") == first
    # and a fresh index of the same corpus
    again = Site(entries=mirror.site.entries, faults=False).respond("/search?" + urlencode(
        {"q": "李白 出生", "format": "json"}))
    assert again.body == first[2]


def test_pages_hold_ten_results_each_and_never_repeat_a_page(mirror):
    one, two = search(mirror, q="李白 出生"), search(mirror, q="李白 出生", pageno="2")
    assert two["results"] and two["results"] != one["results"]
    assert not {r["url"] for r in one["results"]} & {r["url"] for r in two["results"]}
    assert two["results"][0]["positions"] == [1]  # SearXNG numbers results within their page
    assert two["results"][0]["score"] <= one["results"][-1]["score"]
    assert one["number_of_results"] == two["number_of_results"]
    assert search(mirror, q="李白 出生", pageno="99")["results"] == []


def test_language_categories_safesearch_and_time_range_are_accepted_and_ignored(mirror):
    plain = search(mirror, q="长江")
    assert search(mirror, q="长江", language="zh-CN", categories="general", safesearch="0",
                  time_range="year") == plain


def test_bad_requests_get_400_and_a_json_error_that_says_what_to_fix(mirror):
    status, content_type, body = get(mirror, "/search", format="json")
    assert (status, content_type) == (400, "application/json; charset=utf-8")
    assert "q parameter" in json.loads(body)["error"]
    status, _, body = get(mirror, "/search", q="  ", format="json")
    assert status == 400 and "No query" in json.loads(body)["error"]
    status, _, body = get(mirror, "/search", q="李白", format="html")
    assert status == 400 and "format=json only" in json.loads(body)["error"]
    status, _, body = get(mirror, "/search", q="李白")
    assert status == 400 and "format=json only" in json.loads(body)["error"]
    for pageno in ("0", "x", "-1"):
        status, _, body = get(mirror, "/search", q="李白", format="json", pageno=pageno)
        assert status == 400 and "pageno" in json.loads(body)["error"]


def test_a_query_no_page_shares_a_word_with_finds_nothing(mirror):
    reply = search(mirror, q="zzqqxx")
    assert (reply["number_of_results"], reply["results"]) == (0, [])


def test_sogou_search_route_still_serves_its_entry_page(mirror):
    response = mirror.site.respond("/search/fullsearch.htm?keyword=" + quote("李白"))
    sogou_id = mirror.site.senses("李白")[0].sogou_id
    assert response.status == 302 and response.headers["Location"] == f"/v{sogou_id}.htm"
    status, content_type, body = get(mirror, "/search/fullsearch.htm", keyword="李白")  # the redirect followed
    assert status == 200 and content_type.startswith("text/html") and "搜狗百科" in body.decode("utf-8")
    assert get(mirror, "/search/fullsearch.htm", keyword="鲁班锁")[0] == 404


def test_searches_do_not_count_against_the_entry_rate_limit():
    site = Site(facts_dir=MINI_FACTS, faults=False, rate_limit=2)
    for _ in range(5):
        assert site.respond("/search?q=%E6%9D%8E%E7%99%BD&format=json").status == 200
    entry = site.senses("长江")[0]
    for _ in range(2):
        assert site.respond(render.item_path(entry.title, entry.baidu_id)).status == 200


def test_pages_of_equal_score_come_in_passage_order_one_result_per_url():
    documents = [Document(f"https://news.example/{n}.html", "报道", "news.example", ("长江注入东海。",))
                 for n in (3, 1, 2)]
    documents.append(Document("https://news.example/3.html", "报道", "news.example", ("又一段：长江。",)))
    documents.append(Document("https://blog.example/x", "随笔", "blog.example", ("黄河流入渤海。",)))
    status, reply = MirrorSearch(lambda: documents).answer({"q": ["长江"], "format": ["json"]})
    assert status == 200
    assert [r["url"] for r in reply["results"]] == [f"https://news.example/{n}.html" for n in (3, 1, 2)]
    assert len({r["score"] for r in reply["results"]}) == 1


def test_the_index_is_built_on_the_first_query_only():
    calls = []

    def documents():
        calls.append(1)
        return [Document("https://news.example/1.html", "长江", "news.example", ("长江注入东海。",))]

    search = MirrorSearch(documents)
    assert calls == []  # the server starts without reading the documents
    for _ in range(3):
        search.answer({"q": ["长江"], "format": ["json"]})
    assert calls == [1]


def test_a_long_paragraph_is_cut_around_the_query_word_without_cutting_a_number():
    paragraph = "乙" * 95 + "12345678" + "乙" * 97 + "长江" + "乙" * 194 + "98765432" + "乙" * 100
    cut = snippet(paragraph, ["长江"])
    assert cut.startswith("12345678") and cut.endswith("98765432")  # the numbers at both edges kept whole
    assert "长江" in cut and 300 <= len(cut) <= 320
    assert snippet("短段落。", ["长江"]) == "短段落。"


def test_a_long_paragraph_snippet_starts_after_a_sentence_end_near_the_word():
    paragraph = "甲" * 250 + "。" + "乙" * 30 + "长江" + "丙" * 300
    cut = snippet(paragraph, ["长江"])
    assert cut.startswith("乙") and "长江" in cut and len(cut) == 300
