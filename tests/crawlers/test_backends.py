"""Every tree backend gives the lxml backend's record on every fixture page and every mirror page.

lxml and bs4 read the page with libxml2, selectolax with lexbor (HTML5's tree construction):
the saved pages (tests/fixtures/pages: the mirror's export, real Baidu and Wikipedia pages) and the
mirror's pages of every layout and fault are where they must agree. ../shared/data holds questions
and URLs, no pages, so no real page comes from there.
"""

from __future__ import annotations

import inspect
import random
import re

import pytest

from crawlers.mirror import render
from crawlers.mirror.site import Site
from crawlers.parsers import BACKENDS, parse
from tests.conftest import FIXTURES

BASE = "http://127.0.0.1:8800"


def mirror_pages(site: Site, every: int = 1):
    for entry in site.entries[::every]:
        for layout in ("baidu", "baidu_legacy"):
            entry_layout, entry.layout = entry.layout, layout
            try:
                yield f"{layout}:{entry.key}", site._render_baidu(entry).body
            finally:
                entry.layout = entry_layout
        yield f"sogou:{entry.key}", site.respond(f"/v{entry.sogou_id}.htm").body
        yield f"wiki:{entry.key}", site.respond(render.wiki_path(site.wiki_title(entry))).body
    for title, senses in site.by_title.items():
        if len(senses) > 1:
            yield f"senses:{title}", site.respond(render.item_path(title)).body
            yield f"disambiguation:{title}", site.respond(render.wiki_path(f"{title} (消歧义)")).body
    # Error pages: verification, cut off in transfer, Baidu's and Sogou's not-found pages.
    for name in ("captcha", "truncated", "missing"):
        yield f"special:{name}", site.respond(f"/__mirror__/{name}").body
    yield "not_found:sogou", site.respond("/search/fullsearch.htm?keyword=没有这个词条").body


def records(body: bytes, url: str = BASE + "/item/x/1") -> dict:
    """Each backend's record; fails unless all are the lxml backend's."""
    rows = {name: parse(body, url, backend=name).to_row() for name in BACKENDS}
    for name in BACKENDS:
        assert rows[name] == rows["lxml"], f"{name} differs from lxml"
    return rows


def check_agreement(site: Site, every: int) -> dict[str, int]:
    """Pages compared, by status."""
    statuses: dict[str, int] = {}
    for key, body in mirror_pages(site, every):
        try:
            status = records(body)["lxml"]["status"]
        except AssertionError as exc:
            raise AssertionError(f"{key}: {exc}") from None
        statuses[status] = statuses.get(status, 0) + 1
    return statuses


def test_backends_agree_on_a_sample_of_mirror_pages(bundled_site):
    site = Site(entries=bundled_site.entries, faults=False)
    statuses = check_agreement(site, every=10)
    assert statuses["ok"] >= 4 * len(site.entries) // 10
    assert {"disambiguation", "blocked", "truncated", "not_found"} <= set(statuses)


@pytest.mark.slow
def test_backends_agree_on_every_bundled_mirror_page(bundled_site):
    site = Site(entries=bundled_site.entries, faults=False)
    assert check_agreement(site, every=1)["ok"] >= 4 * len(site.entries)


SAVED_PAGES = sorted((FIXTURES / "pages").rglob("*.html"))
# The real pages under the URLs they were fetched from: the host decides the site, links are absolute.
REAL_URLS = {
    "baidu_home.html": "http://baike.baidu.com/",
    "baidu_xiongan_hitech_zone.html": "https://baike.baidu.com/item/河北雄安高新技术产业开发区/63950501",
    "wikipedia_xiongan.html": "https://zh.wikipedia.org/wiki/%E9%9B%84%E5%AE%89%E6%96%B0%E5%8C%BA",
}


@pytest.mark.parametrize("path", SAVED_PAGES, ids=lambda p: str(p.relative_to(FIXTURES / "pages")))
def test_backends_agree_on_saved_fixtures(path):
    rows = records(path.read_bytes(), REAL_URLS.get(path.name, BASE + "/item/x/1"))
    assert rows["lxml"]["status"] in ("ok", "disambiguation", "blocked", "truncated", "not_found")


def test_saved_fixtures_cover_every_layout_and_the_real_pages():
    assert len(SAVED_PAGES) >= 28
    assert {p.name for p in SAVED_PAGES} >= set(REAL_URLS)
    layouts = {parse(p.read_bytes(), REAL_URLS.get(p.name, BASE + "/item/x/1")).layout for p in SAVED_PAGES}
    assert layouts >= {"baidu", "baidu_legacy", "sogou", "wikipedia"}


@pytest.mark.parametrize("html", [
    b"",
    b"<html><body><p>no layout at all</p></body></html>",
    b"<?xml version='1.0' encoding='utf-8'?><html><body><div class='J-lemma-title'><h1>X</h1></div></body></html>",
    "<html><body><div class='lemma-summary'><div class='para'>未闭合<b>标签</div></div></body></html>".encode(),
    # Infobox values searched together: a value inside another, two names before one value, line breaks.
    ("<html><body><div class='J-lemma-title'><h1>X</h1></div><div class='J-basic-info'><dl>"
     "<dt>甲</dt><dd>一<br>二<dl><dt>乙</dt><dd><a href='/item/A'>A</a><br><a href='/item/B'>B</a></dd></dl></dd>"
     "<dt>丙</dt><dt>丁</dt><dd>三<br>四</dd></dl></div></body></html>").encode(),
    # Classes apart by white space CSS does not split at, names inside names, a heading with markup.
    ("<html><body><div class='x\u3000J-lemma-title'><h1>长<span>江</span><script>0</script></h1></div>"
     "<div class='J-summary\u00a0y'><div data-tag='paragraph'>甲<sup>1</sup><span class='lemma-audio_1'>播</span>"
     "<span class='audio_2'>报</span></div></div><div class='J-lemma-content'><div data-tag='paragraph'>乙</div>"
     "<table><tr><td><div data-tag='paragraph'>丙</div></td></tr></table></div></body></html>").encode(),
])
def test_backends_agree_on_odd_markup(html):
    rows = records(html)
    assert rows["lxml"] == rows["bs4"]


def test_unknown_backend_is_rejected():
    with pytest.raises(ValueError, match="backend must be one of"):
        parse(b"<html></html>", BASE, backend="regex")


def test_selectolax_is_the_default_backend_of_parse_the_crawl_and_reparse():
    from crawlers.crawl import CrawlConfig, reparse
    from crawlers.spider import BaikeSpider

    for function in (parse, reparse, BaikeSpider.__init__):
        assert inspect.signature(function).parameters["backend"].default == "selectolax", function
    assert CrawlConfig.__dataclass_fields__["backend"].default == "selectolax"
    assert set(BACKENDS) == {"selectolax", "lxml", "bs4"}


@pytest.mark.parametrize("body", [
    '<html><body><h1 id="firstHeading">长江<script>document.title = "x"</script></h1>'
    '<div class="mw-parser-output"><p>长江是河流。</p></div></body></html>',
    "</HTML><A ID='firstHeading'><SCRIPT>0",  # found by tests/fuzz: lxml read the script's text as the title
])
def test_a_script_inside_a_heading_is_not_part_of_the_title(body):
    url = "https://zh.wikipedia.org/wiki/%E9%95%BF%E6%B1%9F"
    titles = {backend: parse(body, url, backend=backend).title for backend in BACKENDS}
    assert set(titles.values()) == {"长江" if "长江" in body else ""}, titles


def _split_reference(value: str, classes: tuple, prefixes: tuple) -> bool:
    """The class test as the backends define it: the attribute split at white space (str.split)."""
    have = value.split()
    if classes and not any(c in have for c in classes):
        return False
    return not prefixes or any(c.startswith(p) for c in have for p in prefixes)


def test_the_class_test_splits_classes_as_str_split_does():
    from crawlers.parsers.tree import _SPACES, _class_ok

    rng = random.Random(7)
    pieces = ["edit", "editor", "audio", "lemma-audio", "a", "ab", "b", "", "x.y", "(", "\\"]
    spaces = _SPACES + ["\u200b", "\ufeff"]  # and two characters that are no white space
    queries = [((), ("edit",)), (("a",), ()), (("a", "ab"), ("au",)), (("",), ()), ((), ("",)),
               (("a b",), ()), ((), ("x.", "(")), (("edit",), ("lemma", "b")), (("\\",), ())]
    for _ in range(20000):
        value = "".join(rng.choice(pieces) + rng.choice(spaces) * rng.randint(0, 2) for _ in range(rng.randint(0, 4)))
        for classes, prefixes in queries:
            expected = _split_reference(value, classes, prefixes)
            assert _class_ok({"class": value}, classes, prefixes) is expected, (value, classes, prefixes)


def test_the_utf8_input_is_the_input_text_encoded():
    from crawlers.parsers.tree import _SPACES, _parser_bytes, _parser_input

    assert _SPACES == [chr(c) for c in range(0x110000) if re.match(r"\s", chr(c))]
    rng = random.Random(11)
    pieces = ["</body>", "</BODY", "</html", "</HtMl", ">", "<", "/", "body", "长江", "\x00", "\ud800", "a",
              "</bo", "dy>"] + _SPACES + ["\u200b"]
    for _ in range(20000):
        html = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert _parser_bytes(html) == _parser_input(html)[1], repr(html)


def test_selectolax_text_defaults_are_the_text_the_backend_reads():
    # SelectolaxNode.text calls lexbor's text() without arguments (half the cost): its defaults must
    # stay every text node below, joined as they stand.
    from selectolax.lexbor import LexborHTMLParser

    html = "<div id=x> a <b>\u3000b\n</b><p>c <i> </i></p>\t<!-- d --><span></span>e </div>"
    el = LexborHTMLParser(html).css_first("#x")
    assert el.text() == el.text(deep=True, separator="", strip=False) == " a \u3000b\nc  \te "


def test_grouped_search_gives_each_groups_own_search_or_declines():
    from crawlers.parsers.tree import selectolax_root

    html = ("<div id='box'><dl><dt>a</dt><dd id='v1'><a>1</a><br><span><a>2</a></span></dd>"
            "<dt>b</dt><dd id='v2'>x<br>y</dd><dt>c</dt><dd id='v3'></dd></dl><a>outside</a></div>")
    box = selectolax_root(html).first(id="box")
    values = [box.first(id=f"v{i}") for i in (1, 2, 3)]
    grouped = box.grouped(values, ("a", "br"))
    assert [[(n.name, n.text()) for n in found] for found in grouped] == [
        [(n.name, n.text()) for n in value.all(tag=("a", "br"))] for value in values]
    assert [len(found) for found in grouped] == [3, 1, 0]
    assert box.grouped(values + values[:1], ("a", "br")) is None  # a group twice
    nested = selectolax_root("<div id='o'><p id='p'><b id='q'><a>1</a></b></p></div>")
    outer = nested.first(id="o")
    assert outer.grouped([outer.first(id="p"), outer.first(id="q")], "a") is None  # one inside another


def test_searches_for_several_queries_find_what_each_backend_finds():
    from itertools import combinations

    from crawlers.parsers.tree import lxml_root, selectolax_root

    html = ("<div id='r'><p class='a b'>1</p><span class='ab\u3000c'>2</span><a class='edit_1' href='/x'>3</a>"
            "<a class='x lemma-audio'>4</a><sup>5</sup><div data-tag='paragraph' class='para'>6</div>"
            "<div id='me' class='A'>7</div><b class=''>8</b><i class>9</i><table><tr><td class='c'>10</td></tr>"
            "</table><script>11</script></div>")
    queries = [dict(tag="sup"), dict(tag=("script", "b")), dict(cls="a"), dict(cls=("c", "x")), dict(prefix="edit"),
               dict(prefix=("lemma", "ab")), dict(cls="b", prefix="a"), dict(tag="p", cls="b"), dict(id="me"),
               dict(tag="div", attr=("data-tag", "paragraph")), dict(cls=""), dict(prefix=""), dict(cls="a b")]
    roots = {name: make(html).first(id="r") for name, make in (("selectolax", selectolax_root), ("lxml", lxml_root))}

    def found(root, chosen):
        return [(n.name, n.text()) for n in root.any_of(*chosen)]

    for size in (1, 2, 3):
        for chosen in combinations(queries, size):
            assert found(roots["selectolax"], chosen) == found(roots["lxml"], chosen), chosen
    for query in queries:
        each = {name: [(n.name, n.text()) for n in root.all(**query)] for name, root in roots.items()}
        assert each["selectolax"] == each["lxml"], query
        first = {name: root.first(**query) for name, root in roots.items()}
        assert [n and (n.name, n.text()) for n in first.values()] == [each["lxml"][0] if each["lxml"] else None] * 2
    for pair in combinations(queries, 2):
        chosen = {str(i): query for i, query in enumerate(pair)}
        selected = {name: {key: [(n.name, n.text()) for n in nodes] for key, nodes in root.select(chosen).items()}
                    for name, root in roots.items()}
        assert selected["selectolax"] == selected["lxml"], pair
