"""The backends' records of the saved pages mutated (tests/fuzz/mutations.py): equal on valid markup, and on
broken markup different only where lexbor's tree (HTML5's) and libxml2's differ, in one of the known ways.

Rates, per change and per field: ``python -m tests.fuzz.mutations --count 4000 --seed 1 --changes 4``.
"""

from __future__ import annotations

import pytest

from crawlers.parsers import BACKENDS, parse
from tests.crawlers.test_parser_robustness import BAIDU, WIKI, both, legacy_page
from tests.fuzz.mutations import Mutant, differing_fields, mutants, tree_shape

GROUPS = {
    "formatting": {"a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u"},
    "table": {"table", "caption", "colgroup", "col", "tbody", "thead", "tfoot", "tr", "td", "th"},
    "list": {"dl", "dt", "dd", "ul", "ol", "li", "menu"},
    "block": {"div", "p", "h1", "h2", "h3", "h4", "h5", "h6", "address", "article", "aside", "blockquote", "center",
              "footer", "form", "header", "main", "nav", "pre", "section"},
}
_REOPENED = ("a link or a formatting element left open: HTML5 reopens it in each block that follows (the "
             "adoption agency), libxml2 closes it at the end of its own block; text moves into or out of the "
             "link (an edit link, taken out as noise, takes a paragraph with it)")
_TABLE = ("a table, a row or a cell left open: HTML5 implies the rows and cells and moves what a table holds "
          "outside its cells out before the table; libxml2 leaves it where it stands")
_RANK = ("libxml2 lets no end tag close an element of higher rank (</dd> or </li> cannot close an open <div>, "
         "</div> cannot close a table cell) and ignores it, where HTML5 closes what it holds; what follows "
         "lands inside the element left open")
_HEADING = "a heading left open: HTML5 ends it at the next heading's start, libxml2 nests the next one in it"
# (change, what it touched) -> why the trees differ. A change touching two elements (two end tags swapped)
# is known by both groups.
KNOWN_DIFFERENCES = {
    ("drop_end", "formatting"): _REOPENED, ("left_open", "formatting"): _REOPENED,
    ("swap_ends", "block/formatting"): _REOPENED,
    ("drop_end", "table"): _TABLE, ("left_open", "table"): _TABLE,
    ("left_open", "list"): _RANK, ("stray_end", "list"): _RANK, ("left_open", "block"): _RANK,
    ("stray_end", "block"): _RANK, ("swap_ends", "block/list"): _RANK, ("swap_ends", "block/block"): _RANK,
    ("drop_end", "block"): _HEADING,
}


def group(tag: str) -> str:
    return "/".join(sorted(next((g for g, tags in GROUPS.items() if t in tags), t) for t in tag.split("/")))


def unexplained(mutant: Mutant, backends=("selectolax", "lxml")) -> str:
    """Why the backends' records of a mutant are not as they must be; "" where they are."""
    rows = {b: parse(mutant.html, mutant.url, backend=b).to_row() for b in backends}
    fields = differing_fields(rows)
    if not fields:
        return ""
    where = f"{mutant.page} {mutant.changes}: {', '.join(fields)} differ"
    if mutant.well_formed:
        return f"{where} on valid markup"
    if tree_shape(mutant.html, "selectolax") == tree_shape(mutant.html, "lxml"):
        return f"{where} where lexbor's and libxml2's trees agree"
    kinds = {(change, group(tag)) for change, tag in mutant.changes}
    if not kinds & KNOWN_DIFFERENCES.keys():
        return f"{where}: no known difference of {sorted(kinds)}"
    return ""


def test_records_agree_on_valid_markup_and_differ_only_in_known_ways_on_broken_markup():
    found = [unexplained(m) for m in mutants(400, seed=1)]
    assert not [f for f in found if f]


def test_the_three_backends_agree_on_valid_markup_of_the_small_pages():
    from tests.fuzz.mutations import saved_pages

    small = [p for p in saved_pages() if len(p[2]) < 20_000]
    found = [unexplained(m, sorted(BACKENDS)) for m in mutants(200, seed=3, changes=3, pages=small) if m.well_formed]
    assert not [f for f in found if f]


@pytest.mark.slow
@pytest.mark.parametrize("seed, changes", [(5, 1), (6, 4)])
def test_records_of_many_mutants_agree_or_differ_in_known_ways(seed, changes):
    found = [unexplained(m) for m in mutants(4000, seed=seed, changes=changes)]
    assert not [f for f in found if f]


# --- each known difference, on a page of its own ------------------------------------------------------------

def test_a_link_left_open_is_reopened_by_html5_in_the_next_block():
    # lexbor reads the edit link again around 后文 and takes it out with the link; libxml2 ends the link in
    # its own paragraph.
    page = legacy_page(extra="<div class='para'>前<a class='edit_x' href='/edit'>改</div><div class='para'>后文</div>")
    assert tree_shape(page, "selectolax") != tree_shape(page, "lxml")
    paragraphs = {b: parse(page, BAIDU, backend=b).paragraphs for b in ("selectolax", "lxml")}
    assert paragraphs == {"selectolax": ["正文", "前"], "lxml": ["正文", "前", "后文"]}


def test_a_div_left_open_in_a_value_swallows_the_next_names_in_libxml2():
    info = ("<dt class='basicInfo-item name'>甲</dt><dd class='basicInfo-item value'>一<div>x</dd>"
            "<dt class='basicInfo-item name'>乙</dt><dd class='basicInfo-item value'>二</dd>")
    page = legacy_page().replace("<dt class='basicInfo-item name'>中文名</dt><dd class='basicInfo-item value'>测试</dd>",
                                 info)
    assert tree_shape(page, "selectolax") != tree_shape(page, "lxml")
    names = {b: [e.name for e in parse(page, BAIDU, backend=b).infobox] for b in ("selectolax", "lxml")}
    assert names == {"selectolax": ["甲", "乙"], "lxml": ["乙"]}


def test_cells_left_open_before_a_paragraph_move_it_before_the_table_in_html5():
    page = legacy_page(extra="<table><tr><td>格</td></tr><div class='para'>后文</div></table>")
    paragraphs = {b: parse(page, BAIDU, backend=b).paragraphs for b in ("selectolax", "lxml")}
    assert paragraphs == {"selectolax": ["正文", "后文", "格"], "lxml": ["正文", "格"]}


# --- valid markup libxml2 builds otherwise, mended ---------------------------------------------------------

def test_a_template_is_no_part_of_the_page_in_any_backend():
    page = both(legacy_page(summary="前<template>模板<a href='/item/%E4%B9%99/3'>乙</a></template>后"))
    assert (page.summary, page.links) == ("前后", [])


@pytest.mark.parametrize("values", [
    "<dt class='basicInfo-item name'>甲<dt class='basicInfo-item name'>乙<dd class='basicInfo-item value'>一</dl>",
    "<dt class='basicInfo-item name'>甲<dd class='basicInfo-item value'>一<dt class='basicInfo-item name'>乙"
    "<dd class='basicInfo-item value'>二</dl>",
])
def test_names_and_values_whose_end_tags_are_left_out_end_at_the_next_one(values):
    page = both(legacy_page().replace(
        "<dt class='basicInfo-item name'>中文名</dt><dd class='basicInfo-item value'>测试</dd></dl>", values))
    assert [e.name for e in page.infobox] == ["甲", "乙"]
    assert {e.value for e in page.infobox} <= {"一", "二"}


def test_cells_whose_row_start_tag_is_left_out_make_a_row_of_their_own():
    html = ("<html><body><h1 id='firstHeading'>测试</h1><div id='mw-content-text'><div class='mw-parser-output'>"
            "<table class='infobox'><tbody><tr><th>甲</th><td>一</td></tr><th>乙</th><td>二</td></tr>"
            "<tr><th>丙</th><td>三</td></tr></tbody></table><p>正文</p></div></div></body></html>")
    assert [(e.name, e.value) for e in both(html, WIKI).infobox] == [("甲", "一"), ("乙", "二"), ("丙", "三")]
