"""Pages nested thousands deep are read in time linear in the page, with every backend.

The work is counted, not timed (crawlers/parsers/counting.py: each node operation charged the elements it
reads, each walk its steps): at twice the depth a linear reading visits about twice the elements, a
quadratic one four times. 3,001 nested tables took 17.4 s with the selectolax backend when a layout asked
within() of every pair of tables; bench/parse_nested_bench.py gives the seconds.

Reading nested structures once also fixed what was read twice: a paragraph inside a paragraph, a list
item's sub-list, a list of names inside a value, a name cell holding a table, a tag box inside another.
"""

from __future__ import annotations

import pytest

from bench.pages import NESTED_SHAPES, nested_page
from crawlers.parsers import BACKENDS, parse
from crawlers.parsers.counting import Counted, visits
from crawlers.parsers.tree import selectolax_root
from crawlers.parsers.walks import counting
from tests.crawlers.test_parser_robustness import BAIDU, WIKI, both, legacy_page

SMALL, LARGE = 150, 300


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("shape", sorted(NESTED_SHAPES))
def test_reading_a_nested_page_visits_elements_in_proportion_to_its_depth(shape, backend):
    small, large = (visits(*nested_page(shape, depth), backend)[1] for depth in (SMALL, LARGE))
    assert 1.7 < large / small < 2.2, (small, large)


def test_the_lxml_backend_reads_pages_past_libxml2s_depth_limit_linearly():
    # Past 2,048 levels the lxml backend reads BeautifulSoup's tree of the page (crawlers.parsers.tree).
    small, large = (visits(*nested_page("table_cells", depth), "lxml")[1] for depth in (700, 1400))
    assert 1.7 < large / small < 2.2, (small, large)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_the_count_sees_a_quadratic_reading(backend):
    def text_of_every_div(depth: int) -> int:
        root = Counted(BACKENDS[backend]("<div>" * depth + "x" + "</div>" * depth))
        with counting() as visited:
            assert all(div.text() == "x" for div in root.all(tag="div"))
        return visited.count

    assert text_of_every_div(LARGE) / text_of_every_div(SMALL) > 3.5


def test_the_page_of_the_report_reads_the_same_in_every_backend():
    html, url = nested_page("tables", 3001)
    page = both(html, url)
    assert (page.status, page.paragraphs, page.summary) == ("ok", ["正文"], "简介")


@pytest.mark.parametrize("shape", sorted(NESTED_SHAPES))
def test_nested_pages_read_the_same_in_every_backend(shape):
    page = both(*nested_page(shape, 400))
    assert page.status in ("ok", "disambiguation")


def test_the_walks_answer_as_within_and_first_do():
    html = ("<div id='r'><table id='t1'><tr><td id='c1'><p id='p1'><a id='a1'>1</a></p><table id='t2'><tr>"
            "<td id='c2'><a id='a2'>2</a></td></tr></table></td></tr></table><p id='p2'><a id='a3'>3</a></p>"
            "<dl><dt id='n1'>n</dt><dt id='n2'>m</dt><span></span><dd id='v1'>v</dd><dt id='n3'>o</dt></dl></div>")
    root = selectolax_root(html).first(id="r")
    nodes = {n.get("id"): n for n in root.all() if n.get("id")}
    items = [nodes[k] for k in ("a1", "a2", "a3", "p1", "t2", "c2")]
    among = [nodes[k] for k in ("t1", "t2", "c1")]
    expected = []
    for item in items:
        above = [i for i, a in enumerate(among) if item.within(a)]
        expected.append(max(above, key=lambda i: sum(among[i].within(a) for a in among)) if above else None)
    assert root.nearest(items, among) == expected == [2, 1, None, 2, 2, 1]
    candidates = [nodes[k] for k in ("t1", "c1", "t2", "c2", "p1", "p2")]
    tables = [nodes["t2"]]
    assert root.holding(tables, candidates) == [c.first(tag="table") is not None for c in candidates]
    names = [nodes[k] for k in ("n1", "n2", "n3")]
    assert [v and v.get("id") for v in (root.following(names, "dd"))] == ["v1", "v1", None]


# --- what nesting read twice ----------------------------------------------------------------------------

def test_a_paragraph_inside_a_paragraph_is_read_once_as_part_of_it():
    page = both(legacy_page(extra="<div class='para'>外<div class='para'>内</div>尾</div>"))
    assert page.paragraphs == ["正文", "外内尾"]


def test_a_sense_holding_a_sub_list_is_read_without_it():
    senses = ("<div class='polysemantList-wrapper'><ul><li><a href='/item/%E7%94%B2/2'>甲</a>，诗人"
              "<ul><li><a href='/item/%E4%B9%99/3'>乙</a>，画家</li></ul></li></ul></div>")
    page = both(legacy_page(extra=senses))
    assert [(s["label"], s["url"].rsplit("/", 2)[-2]) for s in page.senses] == [
        ("甲，诗人", "%E7%94%B2"), ("乙，画家", "%E4%B9%99")]


def test_a_disambiguation_item_holding_a_sub_list_gives_no_sense_of_its_own():
    html = ("<html><body><h1 id='firstHeading'>测试 (消歧义)</h1><div id='mw-content-text'>"
            "<div class='mw-parser-output'><ul><li>人物<ul><li><a href='/wiki/A'>A</a>，演员</li>"
            "<li><a href='/wiki/B'>B</a>，歌手</li></ul></li></ul></div></div></body></html>")
    page = both(html, WIKI)
    assert page.status == "disambiguation"
    assert [(s["label"], s["url"].rsplit("/", 1)[-1]) for s in page.senses] == [("演员", "A"), ("歌手", "B")]


def test_a_value_holding_names_of_its_own_stands_for_them():
    html = ("<html><body><div class='J-lemma-title'><h1>测试</h1></div><div class='J-basic-info'><dl>"
            "<dt>外</dt><dd>值<dl><dt>内</dt><dd>内值</dd></dl></dd><dt>名</dt><dd>另值</dd></dl></div></body></html>")
    assert [(e.name, e.value) for e in both(html, BAIDU).infobox] == [("内", "内值"), ("名", "另值")]


def test_a_name_cell_holding_a_table_stands_for_it():
    html = ("<html><body><h1 id='firstHeading'>测试</h1><div id='mw-content-text'><div class='mw-parser-output'>"
            "<table class='infobox'><tr><th>名<table><tr><th>内</th><td>内值</td></tr></table></th><td>值</td></tr>"
            "<tr><th>名二</th><td>值二</td></tr></table><p>正文</p></div></div></body></html>")
    assert [(e.name, e.value) for e in both(html, WIKI).infobox] == [("内", "内值"), ("名二", "值二")]


def test_a_tag_box_inside_another_is_read_once():
    html = ("<html><body><div class='J-lemma-title'><h1>测试</h1></div><div class='tagList_a'>"
            "<div class='tagList_b'><a>人物</a></div><a>诗人</a></div></body></html>")
    assert both(html, BAIDU).tags == ["人物", "诗人"]


def test_a_category_link_inside_nested_list_items_is_read_once():
    html = ("<html><body><h1 id='firstHeading'>测试</h1><div id='catlinks'><ul><li><a>甲</a><ul><li><a>乙</a>"
            "</li></ul></li></ul></div></body></html>")
    assert both(html, WIKI).tags == ["甲", "乙"]


def test_a_link_holding_another_link_is_no_edit_control():
    # libxml2 nests the two links and read the outer one's text as 编辑, an edit control's label; HTML5
    # (lexbor) closes the outer link before the inner one opens, and neither reads 编辑.
    page = both(legacy_page(summary="<a href='/item/x/1'>编<span><a href='/item/y/2'>辑</a></span></a>"))
    assert page.summary == "编辑"


def test_nested_noise_is_taken_out_with_what_follows_it_kept():
    page = both(legacy_page(summary="前<sup>1<sup>2<sup>3</sup>4</sup>5</sup>后"))
    assert page.summary == "前后"


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_a_deep_page_gives_its_record_at_every_depth(backend):
    # The content at the bottom of 2,000 nested paragraphs is read once, as one paragraph.
    html, url = nested_page("paragraphs", 2000)
    page = parse(html, url, backend=backend)
    assert page.paragraphs == ["正文", "甲"]
    assert [link["title"] for link in page.links] == ["甲"]
