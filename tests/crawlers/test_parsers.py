from __future__ import annotations

import re

import pytest

from crawlers.mirror.render import strip_markup
from crawlers.parsers import parse
from tests.conftest import FIXTURES, entry

BASE = "http://127.0.0.1:8800"
CITATION = re.compile(r"\[\d+\]")


def fetch(site, path):
    response = site.respond(path)
    return parse(response.body, BASE + path, http_status=response.status,
                 encoding=response.headers.get("Content-Type", "").partition("charset=")[2] or None)


def page_paths(site, e):
    wiki_title = site.wiki_title(e).replace(" ", "_")
    return {
        "baidu": f"/item/{e.title}/{e.baidu_id}",
        "sogou": f"/v{e.sogou_id}.htm",
        "wikipedia": f"/wiki/{wiki_title}",
    }


@pytest.mark.parametrize("layout", ["baidu", "baidu_legacy"])
def test_both_baidu_layouts_give_the_same_record(mini_site, layout):
    e = entry(mini_site, "李白", "唐代浪漫主义诗人")
    original = e.layout
    e.layout = layout
    try:
        page = fetch(mini_site, f"/item/李白/{e.baidu_id}")
    finally:
        e.layout = original
    assert page.status == "ok" and page.source == "baidu" and page.layout == layout
    assert page.title == "李白"
    assert page.subtitle == "唐代浪漫主义诗人"
    assert page.summary == strip_markup(e.summary)
    assert [(i.name, i.value) for i in page.infobox] == e.infobox
    assert page.paragraphs == [strip_markup(p) for _, paras in e.sections for p in paras]
    assert {s["label"] for s in page.senses} == {"唐代浪漫主义诗人", "李荣浩演唱歌曲"}


@pytest.mark.parametrize("site_name", ["baidu", "sogou", "wikipedia"])
def test_every_site_parses_back_to_the_facts(mini_site, site_name):
    for e in mini_site.entries:
        page = fetch(mini_site, page_paths(mini_site, e)[site_name])
        assert page.status == "ok", (site_name, e.title)
        assert page.source == site_name
        assert (page.title, page.subtitle or e.sense) == (e.title, e.sense)
        assert page.summary == strip_markup(e.summary)
        assert [(i.name, i.value) for i in page.infobox] == e.infobox
        assert page.paragraphs == [strip_markup(p) for _, paras in e.sections for p in paras]


def test_citation_marks_edit_labels_and_padding_are_removed(mini_site):
    e = entry(mini_site, "长江")
    assert e.layout == "baidu_legacy"
    html = mini_site.respond(f"/item/长江/{e.baidu_id}").body.decode()
    assert "中&nbsp;" in html and "[1]" in html and "编辑" in html  # the raw page has all three
    page = fetch(mini_site, f"/item/长江/{e.baidu_id}")
    text = page.summary + "".join(page.paragraphs)
    assert not CITATION.search(text)
    assert "编辑" not in text and "播报" not in text and "\xa0" not in text
    assert page.infobox[0].name == "中文名"


def test_multi_value_cells_are_split_and_keep_the_original_string(mini_site):
    page = fetch(mini_site, page_paths(mini_site, entry(mini_site, "李白", "唐代浪漫主义诗人"))["baidu"])
    works = next(i for i in page.infobox if i.name == "代表作品")
    assert works.value == "《静夜思》、《蜀道难》、《将进酒》"
    assert works.values == ["《静夜思》", "《蜀道难》", "《将进酒》"]


def test_links_are_absolute_entry_links_without_navigation(mini_site):
    page = fetch(mini_site, page_paths(mini_site, entry(mini_site, "杜甫"))["baidu"])
    assert [l["title"] for l in page.links] == ["唐朝", "李白", "长江"]
    assert all(l["url"].startswith(BASE + "/item/") for l in page.links)
    wiki = fetch(mini_site, page_paths(mini_site, entry(mini_site, "杜甫"))["wikipedia"])
    # The navbox lists other entries too; only the article's own mentions count.
    assert [l["title"] for l in wiki.links] == ["唐朝", "李白", "长江"]


def test_link_urls_drop_tracking_query_and_fragment(mini_site):
    page = fetch(mini_site, page_paths(mini_site, entry(mini_site, "李白", "李荣浩演唱歌曲"))["baidu"])
    assert all("?" not in s["url"] and "#" not in s["url"] for s in page.senses)


def test_multi_sense_title_is_a_disambiguation_page_with_every_sense(mini_site):
    page = fetch(mini_site, "/item/李白")
    assert page.status == "disambiguation"
    assert [s["label"] for s in page.senses] == ["唐代浪漫主义诗人", "李荣浩演唱歌曲"]
    wiki = fetch(mini_site, "/wiki/李白_(消歧义)")
    assert wiki.status == "disambiguation"
    assert [s["label"] for s in wiki.senses] == ["唐代浪漫主义诗人", "李荣浩演唱歌曲"]


def test_wikipedia_sense_page_splits_title_and_subtitle(mini_site):
    page = fetch(mini_site, "/wiki/李白_(李荣浩演唱歌曲)")
    assert (page.title, page.subtitle) == ("李白", "李荣浩演唱歌曲")


def test_wikipedia_variants_share_one_canonical_url(mini_site):
    hans = fetch(mini_site, "/zh-hans/杜甫")
    wiki = fetch(mini_site, "/wiki/杜甫")
    assert hans.canonical_url == wiki.canonical_url == BASE + "/wiki/%E6%9D%9C%E7%94%AB"


@pytest.mark.parametrize("path, status", [
    ("/__mirror__/captcha", "blocked"),
    ("/wappass/static/captcha/tuxing.html?u=x", "blocked"),
    ("/__mirror__/forbidden", "blocked"),
    ("/__mirror__/truncated", "truncated"),
    ("/item/鲁班锁", "not_found"),
    ("/v1.htm", "not_found"),
    ("/wiki/不存在的条目", "not_found"),
])
def test_pages_that_are_not_content_get_a_status_and_no_fields(faulty_site, path, status):
    page = fetch(faulty_site, path)
    assert page.status == status
    assert page.title == "" and page.infobox == [] and page.links == []


def test_gbk_page_decodes_from_its_meta_charset(faulty_site):
    body = faulty_site.respond("/__mirror__/gbk").body
    with pytest.raises(UnicodeDecodeError):
        body.decode("utf-8")
    page = parse(body, BASE + "/__mirror__/gbk")  # no HTTP charset: the <meta> tag decides
    assert page.status == "ok"
    assert page.title == faulty_site.gbk_entry.title


def test_hand_saved_current_layout_page(tmp_path):
    html = (FIXTURES / "pages" / "baidu_current_zhangheng.html").read_bytes()
    page = parse(html, "https://baike.baidu.com/item/%E5%BC%A0%E8%A1%A1/7331?fromModule=lemma_search-box")
    assert page.status == "ok"
    assert page.canonical_url == "https://baike.baidu.com/item/%E5%BC%A0%E8%A1%A1/7331"
    assert (page.title, page.subtitle) == ("张衡", "东汉时期天文学家")
    assert page.summary.startswith("张衡（78年－139年），字平子")
    assert not CITATION.search(page.summary)
    assert [(i.name, i.value) for i in page.infobox][:3] == [
        ("中文名", "张衡"), ("字", "平子"), ("出生日期", "78年")]
    inventions = next(i for i in page.infobox if i.name == "主要成就")
    assert inventions.values == ["浑天仪", "地动仪"]
    assert [l["title"] for l in page.links] == ["南阳", "东汉", "浑天仪", "地动仪", "洛阳"]
    assert page.paragraphs == ["张衡出身于南阳名门望族，青年时游学三辅，后入洛阳太学。",
                               "132年，张衡制成候风地动仪，能测出地震发生的方向。"]


@pytest.mark.parametrize("cell, values", [
    ("0.0899 g/L", ["0.0899 g/L"]), ("100千米/小时", ["100千米/小时"]), ("2.7 g/cm3", ["2.7 g/cm3"]),
    ("汉族/回族", ["汉族", "回族"]), ("1.2米/1.5米", ["1.2米", "1.5米"]), ("3元/吨、5元/吨", ["3元/吨", "5元/吨"]),
])
def test_a_slash_inside_a_unit_does_not_split_the_value(cell, values):
    from crawlers.parsers.text import split_values

    assert split_values(cell) == values


def _urljoin_then_split(base: str, href: str):
    from urllib.parse import urljoin, urlsplit

    try:
        absolute = urljoin(base, href)
        return absolute, urlsplit(absolute)
    except ValueError:
        return None


def test_links_are_joined_to_the_page_url_as_urljoin_joins_them():
    import random

    from crawlers.parsers.layouts import _resolver

    rng = random.Random(5)
    bases = ["http://127.0.0.1:8800/item/x/1", "https://baike.baidu.com/item/长江/1355328?from=a#b",
             "HTTP://Baike.Baidu.com", "https://zh.wikipedia.org/wiki/A/B/../C", "http:/no-host", "ftp://h/x",
             "http://[::1]:80/p", "//h/x", "/relative/only", "", "http://h/a;p?q#f"]
    pieces = ["/", "item", "长江", "%E9%95%BF", ".", "..", "?", "#", ";", "=", "a", " ", "\t", "\n", "\x01", ":",
              "//", "\\", "[", "]", "http:", "1355328"]
    for _ in range(30000):
        base = rng.choice(bases)
        href = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 7)))
        if rng.random() < 0.5:
            href = "/" + href
        assert _resolver(base)(href) == _urljoin_then_split(base, href), (base, href)
    # The plain paths (the fast way) are among those compared, with a query and a fragment.
    for href in ("/item/长江/1355328", "/item/%E9%95%BF%E6%B1%9F?fromModule=lemma_inlink", "/a/b/#x", "/"):
        assert _resolver(bases[0])(href) == _urljoin_then_split(bases[0], href)


def test_entry_titles_are_unquoted_as_urllib_unquotes_them():
    import random
    from urllib.parse import unquote

    from crawlers.parsers.layouts import _unquote

    rng = random.Random(7)
    # Escapes of whole characters, of half a character (invalid UTF-8), of ASCII, in either case; stray
    # "%", a bad digit, plain text between escapes.
    pieces = ["%E9%95%BF", "%e6%b1%9f", "%E9", "%95", "%41", "%2B", "%25", "%", "%G1", "%4", "a", "_", "长", " ", "%00",
              "%FF", "%C3%A9", "%F0%9F%98%80"]
    for _ in range(30000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert _unquote(text) == unquote(text), text
    assert _unquote("%E9%95%BF%E6%B1%9F") == "长江"


def test_links_that_only_white_space_parts_are_found_as_the_pattern_finds_them():
    import random

    from crawlers.parsers.layouts import _spaced

    rng = random.Random(11)
    spaces = [" ", "\n", "\t", "\x1c", "\x85", "\xa0", "\u3000", "\u2028"]
    words = ["A", "B", "长江", "a b", "+", "86", "A\u3000B", ".", "*"]
    for _ in range(30000):
        pieces = [rng.choice(words + [""]) if rng.random() < 0.05 else rng.choice(words)
                  for _ in range(rng.randint(2, 4))]
        parts = [rng.choice(spaces) * rng.randint(0, 2)]
        for piece in pieces:
            parts += [piece, rng.choice(spaces) * rng.randint(0, 2)]
        text = "".join(parts) if rng.random() < 0.8 else "".join(rng.choice(words + spaces) for _ in range(6))
        pattern = r"\s*" + r"\s+".join(re.escape(p) for p in pieces) + r"\s*"
        assert _spaced(pieces, text) == bool(re.fullmatch(pattern, text)), (pieces, text)


VERIFY_NOTICE = "<p>请完成验证后继续访问</p><form action='/verify'><input name='code'></form>"
ENTRY_MARKUP = ("<div class='lemmaWgt-lemmaTitle-title'><h1>{h1}</h1></div>"
                "<div class='lemma-summary'><div class='para'>{text}</div></div>")


@pytest.mark.parametrize("head, body", [
    ("<title>百度安全验证 - 百度</title>", "<p>网络不给力，请稍后重试</p>"),  # stored ok before
    ("<title>\u200b百度安全验证 </title>", ""),
    ("<title>安全验证中</title>", ""),
    ("<script>" + "var x = 1;" * 3_000 + "</script><title>百度安全验证</title>", VERIFY_NOTICE),  # title past 20,000
    ("<title></title>", VERIFY_NOTICE),
    ("", "<div>安全验证</div><input type='text' id='verify-code'>"),
])
def test_a_verification_page_is_blocked_with_its_kind(head, body):
    html = f"<!DOCTYPE html><html><head><meta charset='utf-8'>{head}</head><body>{body}</body></html>"
    for url in ("https://baike.baidu.com/item/%E6%9D%8E%E7%99%BD", BASE + "/item/x"):
        page = parse(html.encode("utf-8"), url)
        assert (page.status, page.reason, page.title, page.summary) == ("blocked", "captcha_page", "", "")


@pytest.mark.parametrize("title, text", [
    ("验证码_百度百科", "验证码是一种区分用户是计算机还是人的程序。"),
    ("安全验证_百度百科", "安全验证是网站常用的防护手段，页面会提示“请完成验证”。"),
])
def test_an_entry_about_verification_is_content(title, text):
    html = (f"<html><head><meta charset='utf-8'><title>{title}</title></head><body>"
            + ENTRY_MARKUP.format(h1=title.split("_")[0], text=text) + "<form><input></form></body></html>")
    page = parse(html.encode("utf-8"), BASE + "/item/x")
    assert (page.status, page.title) == ("ok", title.split("_")[0])


def test_a_page_with_an_empty_title_is_recorded_as_unparsable_with_no_fields():
    bare = "<html><head><meta charset='utf-8'><title></title></head><body><p>请稍后再试</p></body></html>"
    page = parse(bare.encode("utf-8"), BASE + "/item/x")  # stored ok, empty, before
    assert (page.status, page.reason, page.title) == ("unparsable", "no_layout", "")
    emptied = ("<html><head><meta charset='utf-8'><title></title></head><body>"
               + ENTRY_MARKUP.format(h1="", text="这里有一段正文。") + "</body></html>")
    page = parse(emptied.encode("utf-8"), BASE + "/item/x")
    assert (page.status, page.reason, page.layout) == ("unparsable", "no_title", "baidu_legacy")
    assert page.summary == "" and page.infobox == [] and page.links == []
