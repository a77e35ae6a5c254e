"""parse() on pages that break parsers: control characters, malformed links, deep nesting, huge
text, bodies that are no page, wrong charsets. Every body gives a Page, the same from both backends.

Each input that once raised or split the backends is here; tests/fuzz generates many more.
"""

from __future__ import annotations

import pytest

from crawlers.parsers import BACKENDS, parse, readable
from schemas import PAGE_STATUSES, Page

BAIDU = "https://baike.baidu.com/item/%E6%B5%8B%E8%AF%95/1"
WIKI = "https://zh.wikipedia.org/wiki/%E6%B5%8B%E8%AF%95"


def legacy_page(summary: str = "简介", name: str = "中文名", value: str = "测试", extra: str = "") -> str:
    """Baidu's older layout, with raw HTML in each slot."""
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>测试_百度百科</title></head><body>"
        "<div class='main-content'><dl class='lemmaWgt-lemmaTitle'><dd class='lemmaWgt-lemmaTitle-title'>"
        "<h1>测试</h1></dd></dl>"
        f"<div class='lemma-summary'><div class='para'>{summary}</div></div>"
        "<div class='basic-info'><dl class='basicInfo-block'>"
        f"<dt class='basicInfo-item name'>{name}</dt><dd class='basicInfo-item value'>{value}</dd></dl></div>"
        f"<div class='para'>正文</div>{extra}</div></body></html>"
    )


def both(html: bytes | str, url: str = BAIDU, **kwargs) -> Page:
    """The page from the lxml backend, after checking that every other backend gives the same record."""
    pages = {name: parse(html, url, backend=name, **kwargs) for name in BACKENDS}
    for name in BACKENDS:
        assert pages[name].to_row() == pages["lxml"].to_row(), name
    return pages["lxml"]


# --- characters a page's text never holds ------------------------------------------------------------

@pytest.mark.parametrize("char, reads_as", [
    ("\x01", ""), ("\x08", ""), ("\x0b", " "), ("\x0c", " "), ("\x1f", ""), ("\x7f", ""),
    ("\x80", ""), ("\x85", " "), ("\x9f", ""), ("\ufdd0", ""), ("\ufffe", ""), ("\uffff", ""),
    ("\U0001fffe", ""), ("\U0010ffff", ""), ("\ud800", ""), ("\udfff", ""),
])
def test_readable_drops_controls_noncharacters_and_surrogates(char, reads_as):
    assert readable(f"a{char}b") == f"a{reads_as}b"


def test_readable_keeps_tab_newline_return_and_text():
    text = "中文\tA\nB\rC\u00a0\u3000\ufffd😀\ue000"
    assert readable(text) == text


# Raw in the page, and as character references (which the parser expands after decoding).
CONTROLS = ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x1f", "\x7f", "\x80", "\x85", "\x9f", "\ufdd0", "\ufffe",
            "\uffff", "\U0001fffe", "&#1;", "&#x0b;", "&#x0c;", "&#x1f;", "&#x7f;", "&#x81;", "&#xfffe;", "&#xfdd0;"]


@pytest.mark.parametrize("char", CONTROLS, ids=repr)
def test_control_character_beside_a_removed_element_or_a_break_is_dropped(char):
    # lxml refused to store text holding it when a <sup> was taken out or a <br> became a line
    # feed (ValueError: All strings must be XML compatible).
    page = both(legacy_page(summary=f"前<sup>[1]</sup>{char}后", name=f"名<sup>1</sup>{char}字",
                            value=f"甲<br>{char}乙<sup>2</sup>{char}丙"))
    assert page.status == "ok"
    assert page.summary == "前后"
    assert (page.infobox[0].name, page.infobox[0].value) == ("名字", "甲\n乙丙")


@pytest.mark.parametrize("char", CONTROLS, ids=repr)
def test_control_character_between_latin_words(char):
    page = both(legacy_page(summary=f"ab{char}cd <b>x</b>{char}y"))
    spaced = char in ("\x0b", "\x0c", "\x85", "&#x0b;", "&#x0c;")
    assert page.summary == ("ab cd x y" if spaced else "abcd xy")


@pytest.mark.parametrize("reference", ["&#0;", "&#xd800;", "&#xdfff;", "&#x110000;", "&#99999999999;"])
def test_reference_to_nul_a_surrogate_or_past_unicode_reads_as_replacement_character(reference):
    assert both(legacy_page(summary=f"a{reference}b")).summary == "a\ufffdb"


def test_control_characters_in_a_gbk_page_are_dropped():
    page = both(legacy_page(summary="前\x0b后\x01。").replace("utf-8", "gbk").encode("gbk"))
    assert (page.status, page.summary) == ("ok", "前后。")


def test_unpaired_surrogates_in_a_text_body_are_dropped():
    # str bodies with lone surrogates (decoded with errors="surrogateescape") raised UnicodeEncodeError.
    page = both(legacy_page(summary="前\ud800后", value="值\udcff"))
    assert (page.summary, page.infobox[0].value) == ("前后", "值")


def test_link_title_decoded_from_its_url_is_readable():
    page = both(legacy_page(summary="<a href='/item/A%0Bb%01c/7'>A</a>"))
    assert [link["title"] for link in page.links] == ["A bc"]


# --- malformed links --------------------------------------------------------------------------------

# Malformed on any page: an unclosed IPv6 host; an entry id too long for int() (4,300 digits).
BAD_HREFS = ["http://[::1", "http://[", "//[::1/item/x", "https://baike.baidu.com/item/x/" + "9" * 4301]


@pytest.mark.parametrize("href", BAD_HREFS + ["/item/x/" + "1" * 5000, "javascript:void(0)", "", "%zz", "http://a b/"],
                         ids=lambda h: h[:30])
def test_malformed_link_in_text_is_skipped(href):
    # "http://[::1" raised ValueError: Invalid IPv6 URL; a 5,000-digit id, Exceeds the limit (4300 digits).
    page = both(legacy_page(summary=f"<a href='{href}'>坏</a>和<a href='/item/%E5%A5%BD/2'>好</a>"))
    assert page.status == "ok"
    assert page.summary == "坏和好"
    assert [link["title"] for link in page.links] == ["好"]


@pytest.mark.parametrize("href", BAD_HREFS, ids=lambda h: h[:30])
def test_malformed_sense_link_is_skipped(href):
    senses = (f"<div class='polysemantList-wrapper'><ul><li><a href='{href}'>坏义项</a></li>"
              "<li><a href='/item/%E6%B5%8B%E8%AF%95/3'>好义项</a></li></ul></div>")
    page = both(legacy_page(extra=senses))
    assert page.status == "ok"
    assert [sense["label"] for sense in page.senses] == ["好义项"]


@pytest.mark.parametrize("href", BAD_HREFS, ids=lambda h: h[:30])
def test_malformed_link_on_a_disambiguation_page_is_skipped(href):
    legacy = ("<html><body><dl class='lemmaWgt-lemmaTitle'><dd class='lemmaWgt-lemmaTitle-title'><h1>测试</h1></dd>"
              "</dl><div class='lemmaWgt-subLemmaListTitle'>多义词</div><ul class='custom_dot'>"
              f"<li><a href='{href}'>测试：坏</a></li><li><a href='/item/%E6%B5%8B%E8%AF%95/3'>测试：好</a></li>"
              "</ul></body></html>")
    wiki = ("<html><body><h1 id='firstHeading'>测试 (消歧义)</h1><div id='mw-content-text'>"
            f"<div class='mw-parser-output'><ul><li><a href='{href}'>坏</a>，一</li>"
            "<li><a href='/wiki/%E5%A5%BD'>好</a>，二</li></ul><table id='disambigbox'><tr><td>消歧义</td></tr>"
            "</table></div></div></body></html>")
    for html, url in ((legacy, BAIDU), (wiki, WIKI)):
        page = both(html, url)
        assert page.status == "disambiguation"
        assert len(page.senses) == 1


@pytest.mark.parametrize("href", BAD_HREFS, ids=lambda h: h[:30])
def test_malformed_canonical_link_is_ignored(href):
    page = both(legacy_page().replace("</title>", f"</title><link rel='canonical' href='{href}'>"))
    assert (page.status, page.canonical_url) == ("ok", BAIDU)


def test_a_url_that_is_no_url_is_a_bad_argument():
    with pytest.raises(ValueError, match="url must be a URL"):
        parse(legacy_page(), "http://[::1")


# --- deep nesting and huge pages ---------------------------------------------------------------------

@pytest.mark.parametrize("levels", [255, 256, 300, 2047, 2049, pytest.param(10_000, id="10000"),
                                    pytest.param(100_000, id="100000", marks=pytest.mark.slow)])
def test_deeply_nested_page_keeps_its_content_in_both_backends(levels):
    # lxml lost the whole page past 255 levels (libxml2's depth limit) while bs4 read it all;
    # past 2,048 (the limit with huge_tree) the lxml backend reads the page through bs4.
    # No RecursionError either: bs4's tree walks (find_all, get_text, decompose) are iterative.
    summary = "<span>" * levels + "深处<sup>1</sup>" + "</span>" * levels + "后面"
    page = both(legacy_page(summary=summary))
    assert page.status == "ok"
    assert page.summary == "深处后面"


def test_deeply_nested_infobox_value_and_paragraph():
    levels = 2500
    page = both(legacy_page(value="<b>" * levels + "值<br>二" + "</b>" * levels,
                            extra="<div>" * levels + "<div class='para'>深处</div>" + "</div>" * levels))
    assert page.status == "ok"
    assert [(e.name, e.value) for e in page.infobox] == [("中文名", "值\n二")]
    assert page.paragraphs[-1] == "深处"


def test_text_node_over_ten_megabytes_is_read_whole():
    # lxml gave an empty record (libxml2: Resource limit exceeded) without huge_tree.
    text = "长" * 3_500_000  # 10.5 MB in UTF-8
    page = both(legacy_page(summary=text).encode("utf-8"))
    assert page.status == "ok"
    assert page.summary == text
    assert page.paragraphs == ["正文"]


# --- bodies that are no page -------------------------------------------------------------------------

@pytest.mark.parametrize("body, reason", [
    (b"", "empty"),
    (b" \r\n\t ", "empty"),
    (b"\xef\xbb\xbf", "empty"),
    (b"\xef\xbb\xbf\n\xef\xbb\xbf ", "empty"),
    ("\ufeff  ", "empty"),
    (b'{"title": "\xe6\xb5\x8b\xe8\xaf\x95", "html": "<div>x</div>"}', "not_html"),
    (b"[1, 2, 3]", "not_html"),
    ("纯文本，没有任何标记。".encode(), "not_html"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01<html></html>", "binary"),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "binary"),
    (b"GIF89a\x01\x00\x01\x00", "binary"),
    (b"%PDF-1.7\n<</Type/Catalog>>\n%%EOF", "binary"),
    (b"PK\x03\x04\x14\x00", "binary"),
    (b"\x1f\x8b\x08\x00", "binary"),
    (bytes(range(256)) * 4, "binary"),
    (b"\x00" * 100, "binary"),
])
def test_body_that_is_no_page_is_unparsable_with_a_reason(body, reason):
    # These were "truncated" (no </html>), which the spider fetches again.
    page = both(body)
    assert (page.status, page.reason) == ("unparsable", reason)
    assert page.title == "" and page.links == []


def test_unparsable_is_a_page_status_and_the_reason_is_stored():
    assert "unparsable" in PAGE_STATUSES
    page = parse(b"", BAIDU)
    (back,) = Page.from_batch(Page.to_batch([page]))
    assert (back.status, back.reason) == ("unparsable", "empty")


def test_page_cut_off_in_transfer_is_still_truncated():
    html = legacy_page()
    assert both(html[: len(html) // 2]).status == "truncated"


def test_parser_failure_becomes_a_status_with_a_reason(monkeypatch):
    from crawlers.parsers import layouts

    def broken(root, url):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setitem(layouts.LAYOUTS, "baidu_legacy", broken)
    page = both(legacy_page())
    assert (page.status, page.reason) == ("unparsable", "parser_error:RecursionError")
    assert page.source == "baidu" and page.content_hash


# --- charsets ------------------------------------------------------------------------------------------

def test_utf8_body_declared_gbk_is_read_as_utf8():
    body = legacy_page(summary="张衡是东汉时期的天文学家").replace("utf-8", "gb2312").encode()
    for declared in (None, "gbk", "gb2312", "iso-8859-1", "utf-16"):
        page = both(body, encoding=declared)
        assert (page.status, page.summary) == ("ok", "张衡是东汉时期的天文学家"), declared


def test_gbk_body_declared_utf8_is_read_from_its_meta():
    body = legacy_page(summary="张衡是东汉时期的天文学家").replace("utf-8", "gbk").encode("gbk")
    page = both(body, encoding="utf-8")
    assert page.summary == "张衡是东汉时期的天文学家"


@pytest.mark.parametrize("charset", ["undefined", "idna", "punycode", "utf-7", "unicode_escape", "rot13", "hex",
                                     "x-unknown", "utf-16", "utf-32"])
def test_meta_charset_naming_an_odd_codec(charset):
    # "undefined" and "idna" raised UnicodeError (not a UnicodeDecodeError) out of decoding.
    body = legacy_page(summary="简介\xff").replace("utf-8", charset).encode("latin-1", "replace")
    page = both(body)
    assert page.status in PAGE_STATUSES and not page.reason.startswith("parser_error")


@pytest.mark.parametrize("body", [
    '<?xml version="1.0" encoding="gbk"?>' + legacy_page(summary="中文简介"),
    ('<?xml version="1.0" encoding="gbk"?>' + legacy_page(summary="中文简介")).encode("utf-8"),
    ('<?xml version="1.0" encoding="utf-8"?>' + legacy_page(summary="中文简介").replace("utf-8", "gbk")).encode("gbk"),
    "\ufeff" + legacy_page(summary="中文简介"),
    b"\xef\xbb\xbf" + legacy_page(summary="中文简介").encode(),
], ids=["str", "utf8-bytes-declared-gbk", "gbk-bytes-declared-utf8", "str-bom", "bytes-bom"])
def test_xml_declaration_and_byte_order_mark(body):
    page = both(body)
    assert (page.status, page.summary) == ("ok", "中文简介")


def test_parse_is_deterministic():
    body = legacy_page(summary="前\x0b<sup>1</sup>后<a href='http://[::1'>x</a>").encode()
    assert parse(body, BAIDU).to_row() == parse(body, BAIDU).to_row()


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_markup_after_the_end_of_the_document_is_read_as_body(backend):
    # libxml2's tree dropped what follows </html>, BeautifulSoup opened a second <html>: the
    # backends disagreed on this page's status. Browsers read it into the body, and so do both.
    page = parse("0</HTML><A CLASS='lemmaWgt-subLemmaListTitle'>", "http://127.0.0.1:8800/item/x/42",
                 backend=backend)
    assert page.status == "disambiguation"


# --- links a table holds outside its cells ---------------------------------------------------------------

# HTML5 moves what a table holds outside its cells and caption out of it, before the innermost table
# around it (lexbor); libxml2 leaves it in the table (lxml, bs4). A table's links are those of its cells
# and caption in every backend. Found by tests/fuzz: "</html>lemmaWgt-lemmaTitle-title>0<table><a href=/item/0%>".
@pytest.mark.parametrize("table, titles", [
    ("<table><a href='/item/甲'>甲</a></table>", []),
    ("<table><tr><a href='/item/甲'>甲</a><td>格</td></tr></table>", []),
    ("<table><caption><a href='/item/甲'>甲</a></caption><tr><td><a href='/item/乙'>乙</a></td></tr></table>",
     ["甲", "乙"]),
    # Out of the inner table, into the outer table's cell: kept.
    ("<table><tr><td>外<table><a href='/item/甲'>甲</a><tr><td><a href='/item/乙'>乙</a></td></tr></table>"
     "</td></tr></table>", ["甲", "乙"]),
])
def test_a_link_a_table_holds_outside_its_cells_is_no_link_of_the_table(table, titles):
    page = both(legacy_page(extra=table))
    assert [link["title"] for link in page.links] == titles


def test_the_fuzzers_table_link_reads_the_same_in_every_backend():
    assert both("</html>lemmaWgt-lemmaTitle-title>0<table><a href=/item/0%>", "http://127.0.0.1:8800/item/x/1").links == []
