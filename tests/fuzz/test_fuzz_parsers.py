"""The page parsers on generated input, on both tree backends.

1. Any bytes, any str, and tag soup made of the layouts' own markup: parse never raises, gives a
   known status, and never a parser_error (that reason marks a bug that parse caught).
2. Pages built from each layout's template (crawlers/mirror/render.py) with generated titles,
   infobox names and values, summaries, paragraphs and links (Chinese-heavy text, entities,
   control characters, nested inline tags, <br>, comments, deep nesting, malformed hrefs): both
   backends give the same record, and the title and infobox come back as generated, cleaned as
   documented (tree.readable, then text.clean_text / clean_name).
3. parse is deterministic: the same input gives the same record.

Regressions found here are also plain tests in tests/crawlers/test_parser_robustness.py.
"""

from __future__ import annotations

import html as markup
from dataclasses import dataclass

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from crawlers.parsers import BACKENDS, parse, readable
from crawlers.parsers.text import CONTROL_WORDS, clean_name, clean_text
from schemas import PAGE_STATUSES, Page
from tests.fuzz.strategies import CJK, FUZZ

pytestmark = pytest.mark.slow

URLS = {
    "baidu": "https://baike.baidu.com/item/%E6%B5%8B%E8%AF%95/42",
    "baidu_legacy": "https://baike.baidu.com/item/%E6%B5%8B%E8%AF%95/42",
    "sogou": "https://baike.sogou.com/v42.htm",
    "wikipedia": "https://zh.wikipedia.org/wiki/%E6%B5%8B%E8%AF%95",
    "mirror": "http://127.0.0.1:8800/item/%E6%B5%8B%E8%AF%95/42",
}


def parse_both(body: bytes | str, url: str) -> Page:
    """The lxml backend's page, checked to be valid and the same as every other backend's."""
    pages = {name: parse(body, url, backend=name) for name in BACKENDS}
    for page in pages.values():
        assert page.status in PAGE_STATUSES
        assert not page.reason.startswith("parser_error"), page.reason
        assert_readable(page)
    for name in BACKENDS:
        assert pages[name].to_row() == pages["lxml"].to_row(), name
    return pages["lxml"]


def assert_readable(page: Page) -> None:
    texts = [page.title, page.subtitle, page.summary, *page.paragraphs, *page.tags]
    texts += [s for e in page.infobox for s in (e.name, e.value, *e.values)]
    texts += [s for link in page.links for s in link.values()] + [s for sense in page.senses for s in sense.values()]
    for text in texts:
        assert readable(text) == text, text


# --- 1. anything --------------------------------------------------------------------------------------

# The layouts' markup, broken markup and the characters that broke parsers, to be stitched at random.
TOKENS = [
    "<!DOCTYPE html>", "<html>", "</html>", "<head>", "</head>", "<body>", "</body>", "<title>", "</title>",
    "<meta charset='gbk'>", "<meta charset='undefined'>", "<?xml version='1.0' encoding='gbk'?>",
    "<link rel='canonical' href='http://[::1'>", "<link rel='canonical' href='/item/A/1'>",
    "<div class='J-lemma-title'>", "<div class='lemmaDesc_x'>", "<div class='J-summary'>",
    "<div class='J-basic-info'>", "<div class='J-lemma-content'>", "<div data-tag='paragraph'>",
    "<div class='polysemantList_x'>", "<div class='tagList_x'>", "<div class='main-content'>",
    "<dd class='lemmaWgt-lemmaTitle-title'>", "<div class='lemma-summary'>", "<div class='para'>",
    "<div class='basic-info'>", "<div class='polysemantList-wrapper'>", "<div class='lemmaWgt-subLemmaListTitle'>",
    "<ul class='custom_dot'>", "<div id='open-tag-item'>", "<span class='taglist'>", "<dl>", "</dl>",
    "<dt class='basicInfo-item name'>", "</dt>", "<dd class='basicInfo-item value'>", "</dd>",
    "<h1 id='title'>", "<span class='lemma_subtitle'>", "<div class='abstract'>", "<table class='abstract_tbl'>",
    "<th class='base-info-card-title'>", "<td class='base-info-card-value'>", "<div id='lemma_content'>",
    "<div class='lemma_content_wrap'>", "<div class='lemma_tags'>", "<div class='text_img'>",
    "<h1 id='firstHeading'>", "<div id='mw-content-text'>", "<div class='mw-parser-output'>",
    "<table class='infobox'>", "<div class='mw-heading'>", "<span class='mw-editsection'>",
    "<table id='disambigbox'>", "<div id='catlinks'>", "<div class='navbox'>", "<div class='lemma-picture'>",
    "<table>", "</table>", "<tr>", "</tr>", "<th>", "</th>", "<td>", "</td>", "<ul>", "</ul>", "<li>", "</li>",
    "<div>", "</div>", "<span>", "</span>", "<p>", "</p>", "<h1>", "</h1>", "<h2>", "</h2>", "<b>", "</b>",
    "<a href='/item/%E4%B8%AD/1'>", "<a href='/item/A%0B%01/2'>", "<a href='http://[::1'>", "<a href='/wiki/B'>",
    "<a href='/wiki/Category:C'>", "<a href='/v7.htm' title='搜狗'>", "<a href='/lemma/ShowInnerLink.htm?lemmaId=9'>",
    "<a href='/item/x/" + "1" * 4301 + "'>", "<a href='javascript:;'>", "<a>", "</a>", "<br>", "<br/>", "</br>",
    "<sup>", "</sup>", "<script>", "</script>", "<style>", "</style>", "<noscript>", "</noscript>",
    "<!--", "-->", "<![CDATA[", "]]>", "<?php ?>", "<", ">", "&", "&#", ";", "'", '"', "=",
    "&amp;", "&nbsp;", "&#1;", "&#x0b;", "&#0;", "&#xd800;", "&#xfffe;", "&#x110000;", "&#20013;", "&#x85;",
    "\x00", "\x01", "\x0b", "\x0c", "\r", "\n", "\t", " ", "\x85", "\x9f", "\ufffe", "\ufdd0", "\ud800", "\ufeff",
    "中文", "张衡", "名", "值", "、", "，", "[1]", "编辑", "播报", "（", "）", "：", "消歧义", "百度安全验证",
]
tag_soup = st.lists(st.one_of(st.sampled_from(TOKENS), st.sampled_from(TOKENS), st.text(max_size=4)),
                    max_size=80).map("".join)
CODECS = ["utf-8", "gb18030", "latin-1", "utf-16"]


def _encoded(text: str, codec: str) -> bytes:
    return text.encode(codec, "surrogatepass" if codec.startswith("utf") else "replace")


anything = st.one_of(
    st.binary(max_size=3000),
    st.text(max_size=1000),
    tag_soup,
    st.builds(_encoded, tag_soup, st.sampled_from(CODECS)),
)


@FUZZ
@given(body=anything, url=st.sampled_from(sorted(URLS.values())))
@example(body=b"", url=URLS["baidu"])
@example(body="0</HTML><A CLASS='lemmaWgt-subLemmaListTitle'>", url=URLS["baidu"])  # markup after </html>
@example(body=b"\xef\xbb\xbf", url=URLS["baidu"])
@example(body=b'{"a": "<p>1</p>"}', url=URLS["baidu"])
@example(body="<div class='lemma-summary'><div class='para'>a<sup>1</sup>\x0bb</div></div></html>", url=URLS["baidu"])
@example(body="<div class='lemma-summary'><a href='http://[::1'>x</a></div></html>", url=URLS["baidu"])
@example(body="<div class='J-summary'>\ud800</div></html>", url=URLS["baidu"])
@example(body=b"<meta charset='undefined'>\xff</html>", url=URLS["baidu"])
def test_parse_never_raises_and_both_backends_agree(body, url):
    parse_both(body, url)


# --- 2. pages of each layout ----------------------------------------------------------------------------

# (reference, the character the parser reads it as); readable() then drops or spaces the odd ones.
ENTITIES = [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&#39;", "'"), ("&nbsp;", "\xa0"),
            ("&middot;", "·"), ("&#20013;", "中"), ("&#x6587;", "文"), ("&#x1F600;", "😀"), ("&#1;", "\x01"),
            ("&#x0b;", "\x0b"), ("&#x0c;", "\x0c"), ("&#x1f;", "\x1f"), ("&#x7f;", "\x7f"), ("&#x80;", "€"),
            ("&#x85;", "…"), ("&#x81;", "\x81"), ("&#0;", "\ufffd"), ("&#xd800;", "\ufffd"), ("&#xfffe;", "\ufffe"),
            ("&#xfdd0;", "\ufdd0"), ("&#x110000;", "\ufffd"), ("&#13;", "\r"), ("&#10;", "\n"), ("&#9;", "\t")]
# Characters written raw: controls and noncharacters, which no text keeps (NUL is removed before
# parsing), and the spaces and invisible characters that clean_text handles.
RAW = ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f", "\x80", "\x85", "\x9f", "\ufdd0", "\ufffe",
       "\uffff", "\U0001fffe", "\u200b", "\u3000", "\xa0", "\t", "\ufeff", "\ufffd"]
WORDS = ["张衡", "东汉", "天文学家", "浑天仪", "Python 3", "1.2米", "g/L", "《静夜思》", "、", "，", "；", "/", "：",
         "[1]", "[注 1]", "编辑", "播报", " ", "  ", "·", "•", "-"]
INLINE = ["b", "i", "em", "strong", "span", "font", "small", "u", "sub", "code"]
HREFS = ["/item/%E5%BC%A0%E8%A1%A1/7331", "/item/东汉", "/wiki/%E4%B8%9C%E6%B1%89", "/v123.htm",
         "/lemma/ShowInnerLink.htm?lemmaId=77", "https://baike.baidu.com/item/X?fromModule=a#b", "//[::1/item/x",
         "http://[::1", "http://[", "/item/A%0B/1", "/item/x/" + "9" * 4301, "javascript:void(0)", "#", "",
         "%zz", "http://a b/", "/wiki/File:X.png", "mailto:a@b"]
DEPTHS = [1] * 40 + [2, 40, 256, 300, 2100]
# Text the title slot may hold: no brackets (Wikipedia reads "X (Y)" as title and subtitle).
TITLE_CHARS = st.one_of(CJK, CJK, CJK, st.sampled_from(list("·•-—、，。 0123456789abcXYZ《》\t\u3000\xa0")))
TEXT_CHARS = st.one_of(CJK, CJK, st.sampled_from(list("，。、；：/ 0123456789abcXYZ《》（）()")))


@dataclass(frozen=True)
class Text:
    text: str

    def html(self) -> str:
        return markup.escape(self.text, quote=False)

    def seen(self, br: str, noise: bool) -> str:
        return self.text


@dataclass(frozen=True)
class Raw:
    """A character written into the page as it is (a control character, a noncharacter)."""
    char: str

    def html(self) -> str:
        return self.char

    def seen(self, br: str, noise: bool) -> str:
        return "" if self.char == "\x00" else self.char


@dataclass(frozen=True)
class Entity:
    ref: str
    char: str

    def html(self) -> str:
        return self.ref

    def seen(self, br: str, noise: bool) -> str:
        return self.char


@dataclass(frozen=True)
class Comment:
    text: str

    def html(self) -> str:
        return f"<!--{self.text}-->"

    def seen(self, br: str, noise: bool) -> str:
        return ""


@dataclass(frozen=True)
class Br:
    def html(self) -> str:
        return "<br>"

    def seen(self, br: str, noise: bool) -> str:
        return br


@dataclass(frozen=True)
class Element:
    """An inline element; tag "sup" and "script" are noise the layouts take out of body text, and
    a link whose text is an edit control's label (编辑) goes with them."""
    tag: str
    children: tuple
    depth: int = 1
    href: str | None = None

    def html(self) -> str:
        attrs = f' href="{markup.escape(self.href)}"' if self.href is not None else ""
        inner = "".join(c.html() for c in self.children)
        return f"<{self.tag}{attrs}>" * self.depth + inner + f"</{self.tag}>" * self.depth

    def seen(self, br: str, noise: bool) -> str:
        inner = "".join(c.seen(br, noise) for c in self.children)
        if noise and self.tag in ("sup", "script"):
            return ""
        if noise and self.tag == "a" and readable(seen(self.children, "", noise)).strip() in CONTROL_WORDS:
            return ""  # an edit control's label: taken out before <br> become line feeds
        return inner


def render(nodes) -> str:
    return "".join(n.html() for n in nodes)


def seen(nodes, br: str = "", noise: bool = False) -> str:
    """The text the tree holds for these nodes: <br> as ``br``, noise taken out when ``noise``."""
    return "".join(n.seen(br, noise) for n in nodes)


def leaves(chars, surrogates: bool):
    raw = st.sampled_from(RAW + (["\ud800", "\udfff"] if surrogates else []))
    return st.one_of(
        st.text(alphabet=chars, min_size=1, max_size=6).map(Text),
        st.sampled_from(WORDS).map(Text),
        raw.map(Raw),
        st.sampled_from(ENTITIES).map(lambda e: Entity(*e)),
        st.text(alphabet="abc 中文", max_size=5).map(Comment),
    )


def fragments(chars, surrogates: bool, noise: bool):
    """Inline content: text, entities, raw characters, comments, <br> and inline elements nested up
    to three deep; with noise, also <sup>, <script> and links (good, odd and malformed hrefs)."""
    node = leaves(chars, surrogates)
    if noise:
        node = st.one_of(node, st.just(Br()))
    tags = st.sampled_from(INLINE + (["sup", "script", "a"] if noise else []))
    for _ in range(3):
        node = st.one_of(node, node, st.builds(
            lambda tag, kids, href: Element(tag, tuple(kids), href=href if tag == "a" else None),
            tags, st.lists(node, max_size=3), st.sampled_from(HREFS)))
    if noise:
        node = node.filter(_well_nested)
    return st.lists(node, max_size=4).map(tuple)


def _well_nested(node, in_link: bool = False) -> bool:
    """No link inside a link (the parser would close the outer one), and a script holding text only."""
    if not isinstance(node, Element):
        return True
    if node.tag == "script":
        return all(isinstance(c, Text) for c in node.children) and "</" not in render(node.children)
    if node.tag == "a" and in_link:
        return False
    return all(_well_nested(c, in_link or node.tag == "a") for c in node.children)


# Built once: strategies built inside a draw are validated again on every example.
TITLES = {surrogates: fragments(TITLE_CHARS, surrogates, noise=False) for surrogates in (False, True)}
BODIES = {surrogates: fragments(TEXT_CHARS, surrogates, noise=True) for surrogates in (False, True)}


def baidu(title, summary, rows, paragraphs, charset):
    c = "_x1Y2z"
    return (
        f"<!DOCTYPE html><html><head><meta charset='{charset}'><title>词条_百度百科</title></head><body>"
        f"<div class='mainContent{c}'><div class='lemmaTitleBox{c}'><div class='lemmaTitle{c} J-lemma-title'>"
        f"<h1 class='lemmaTitle{c}'>{title}</h1><div class='lemmaDesc{c}'>义项</div></div></div>"
        f"<div class='lemmaSummary{c} J-summary'><div class='para{c}' data-tag='paragraph'>"
        f"<span class='text{c}'>{summary}</span></div></div>"
        f"<div class='basicInfo{c} J-basic-info'><dl class='basicInfoBlock{c}'>"
        + "".join(f"<div class='itemWrapper{c}'><dt class='basicInfoItem{c} itemName{c}'>{name}</dt>"
                  f"<dd class='basicInfoItem{c} itemValue{c}'><span class='text{c}'>{value}</span></dd></div>"
                  for name, value in rows)
        + f"</dl></div><div class='lemmaContent{c} J-lemma-content'>"
        + "".join(f"<div data-tag='paragraph' class='para{c}'><span class='text{c}'>{p}</span></div>"
                  for p in paragraphs)
        + "</div></div></body></html>\n"
    )


def baidu_legacy(title, summary, rows, paragraphs, charset):
    return (
        f"<!DOCTYPE html><html><head><meta charset='{charset}'><title>词条_百度百科</title></head><body>"
        "<div class='main-content'><dl class='lemmaWgt-lemmaTitle'><dd class='lemmaWgt-lemmaTitle-title'>"
        f"<h1>{title}</h1><h2>（义项）</h2></dd></dl>"
        f"<div class='lemma-summary'><div class='para'>{summary}</div></div>"
        "<div class='basic-info J-basic-info'><dl class='basicInfo-block'>"
        + "".join(f"<dt class='basicInfo-item name'>{name}</dt><dd class='basicInfo-item value'>\n{value}\n</dd>"
                  for name, value in rows)
        + "</dl></div>" + "".join(f"<div class='para'>{p}</div>" for p in paragraphs)
        + "</div></body></html>\n"
    )


def sogou(title, summary, rows, paragraphs, charset):
    return (
        f"<!DOCTYPE html><html><head><meta charset='{charset}'><title>词条 - 搜狗百科</title></head><body>"
        f"<div class='lemma_name'><h1 id='title'>{title}</h1><span class='lemma_subtitle'>义项</span></div>"
        f"<div class='abstract'><p>{summary}</p></div><table class='abstract_tbl'><tbody>"
        + "".join(f"<tr><th class='base-info-card-title'>{name}</th><td class='base-info-card-value'>"
                  f"<div class='base-info-card-value-text'>{value}</div></td></tr>" for name, value in rows)
        + "</tbody></table><div class='lemma_content' id='lemma_content'><div class='lemma_section'>"
        "<h2 class='section_title'>生平</h2><div class='text_pic'>"
        + "".join(f"<p>{p}</p>" for p in paragraphs)
        + "</div></div></div></body></html>\n"
    )


def wikipedia(title, summary, rows, paragraphs, charset):
    return (
        f"<!DOCTYPE html><html><head><meta charset='{charset}'><title>词条 - 维基百科</title></head><body>"
        f"<h1 id='firstHeading' class='firstHeading'><span class='mw-page-title-main'>{title}</span></h1>"
        "<div id='bodyContent'><div id='mw-content-text'><div class='mw-content-ltr mw-parser-output'>"
        "<table class='infobox vcard'><tbody><tr><th colspan='2' class='infobox-above'>词条</th></tr>"
        + "".join(f"<tr><th scope='row' class='infobox-label'>{name}</th><td class='infobox-data'>{value}</td></tr>"
                  for name, value in rows)
        + f"</tbody></table><p>{summary}</p><div class='mw-heading mw-heading2'><h2 id='s'>生平</h2></div>"
        + "".join(f"<p>{p}</p>" for p in paragraphs)
        + "</div></div></div></body></html>\n"
    )


TEMPLATES = {"baidu": baidu, "baidu_legacy": baidu_legacy, "sogou": sogou, "wikipedia": wikipedia}


@st.composite
def layout_pages(draw):
    """(layout, body, url, expected title, expected infobox rows)."""
    layout = draw(st.sampled_from(sorted(TEMPLATES)))
    charset = draw(st.sampled_from(["str", "utf-8", "gb18030"]))
    surrogates = charset == "str"  # a str may hold them; no encoder writes them
    title = draw(TITLES[surrogates])
    summary = draw(BODIES[surrogates])
    rows = draw(st.lists(st.tuples(BODIES[surrogates], BODIES[surrogates]), max_size=3))
    paragraphs = draw(st.lists(BODIES[surrogates], max_size=2))
    # An infobox name always holds a character that survives cleaning, so every row is read.
    rows = [((Text("名"),) + name, value) for name, value in rows]
    # Now and then one slot sits deep: past libxml2's 256 levels, or past 2,048 where the lxml
    # backend reads the page through bs4.
    depth = draw(st.sampled_from(DEPTHS))
    if depth > 1:
        slot = draw(st.sampled_from(["title", "summary", "value"] if rows else ["title", "summary"]))
        if slot == "title":
            title = (Element("span", title, depth),)
        elif slot == "summary":
            summary = (Element("span", summary, depth),)
        else:
            rows[0] = (rows[0][0], (Element("b", rows[0][1], depth),))
    html = TEMPLATES[layout](render(title), render(summary), [(render(n), render(v)) for n, v in rows],
                             [render(p) for p in paragraphs], "utf-8" if charset == "str" else charset)
    body = html if charset == "str" else html.encode(charset)
    expected_title = clean_text(readable(seen(title)))
    expected_rows = [(clean_name(readable(seen(name, noise=True))), infobox_value(seen(value, "\n", noise=True)))
                     for name, value in rows]
    return layout, body, URLS[layout], expected_title, expected_rows


def infobox_value(text: str) -> str:
    # As the layouts read a cell: its lines (the site's <br>) cleaned one by one, joined with "\n".
    lines = [line for line in (clean_text(part) for part in readable(text).split("\n")) if line]
    return "\n".join(lines)


@FUZZ
@given(case=layout_pages())
def test_pages_of_every_layout_give_the_same_record_and_their_title_and_infobox(case):
    layout, body, url, title, rows = case
    page = parse_both(body, url)
    if not title:  # a page with an empty title is no entry: recorded, never content
        assert (page.status, page.reason, page.layout, page.infobox) == ("unparsable", "no_title", layout, [])
        return
    assert (page.status, page.layout) == ("ok", layout)
    assert page.title == title
    assert [(e.name, e.value) for e in page.infobox] == rows


# --- 3. determinism ----------------------------------------------------------------------------------

@FUZZ
@given(body=st.one_of(tag_soup, layout_pages().map(lambda case: case[1])), backend=st.sampled_from(sorted(BACKENDS)))
def test_parse_is_deterministic(body, backend):
    url = URLS["baidu"]
    assert parse(body, url, backend=backend).to_row() == parse(body, url, backend=backend).to_row()
