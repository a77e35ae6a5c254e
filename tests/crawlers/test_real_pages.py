"""Pages of the real sites parse to what an annotator reads off them, on both tree backends.

The first part runs on saved pages (tests/fixtures/pages/real; the README there names each page's
repository, path, commit and URL): one table row of expected fields per page. The second part covers
layouts no saved page was found for (Sogou Baike, Baidu's older layout, nested Wikipedia infoboxes)
with short documents written here, each reproducing one structure the real sites use; they are not
saved pages. The last part holds the status rules: a page is blocked for what it is, not for the
words in its URL or title.
"""

from __future__ import annotations

from functools import cache

import pytest

from crawlers.parsers import BACKENDS, canonicalize, parse
from crawlers.parsers.detect import block_kind
from tests.conftest import FIXTURES

REAL = FIXTURES / "pages" / "real"
BAIDU_ITEM = "https://baike.baidu.com/item/"
WIKI = "https://zh.wikipedia.org/wiki/"

PAGES = {
    "baidu_home.html": dict(
        url="http://baike.baidu.com/",
        source="baidu", layout="", status="not_found", title="",
    ),
    "baidu_xiongan_hitech_zone.html": dict(
        url=BAIDU_ITEM + "%E6%B2%B3%E5%8C%97%E9%9B%84%E5%AE%89%E9%AB%98%E6%96%B0%E6%8A%80%E6%9C%AF%E4%BA%A7%E4%B8%9A"
        "%E5%BC%80%E5%8F%91%E5%8C%BA/63950501?fromtitle=%E9%9B%84%E5%AE%89%E9%AB%98%E6%96%B0%E5%8C%BA&fromid=63952189",
        source="baidu", layout="baidu", status="ok",
        title="河北雄安高新技术产业开发区", subtitle="河北省雄安新区下辖开发区",
        canonical=BAIDU_ITEM + "河北雄安高新技术产业开发区/63950501",
        summary_starts="河北雄安高新技术产业开发区，隶属河北省雄安新区，简称雄安高新区，为省级高新技术产业开发区。",
        infobox={"中文名": "河北雄安高新技术产业开发区", "别名": "雄安高新区", "所属地区": "河北省雄安新区",
                 "批准时间": "2023年12月27日", "核准面积": "952.7463公顷", "启动时间": "2024年5月9日"},
        min_paragraphs=5,
        sentences=["2023年12月，河北省政府批复设立省级河北雄安高新技术产业开发区。",
                   "2024年5月9日，雄安高新区正式揭牌启动，标志着雄安新区高新技术产业开发区管委会组织机构正式运行。"],
        # The picture's caption sits in a paragraph block of its own; it is no sentence of the text.
        not_paragraphs=["雄安高新技术产业开发区管委会"],
        links=[("雄安新区", BAIDU_ITEM + "雄安新区/20594936")],
    ),
    "wikipedia_xiongan.html": dict(
        url=WIKI + "%E9%9B%84%E5%AE%89%E6%96%B0%E5%8C%BA",
        source="wikipedia", layout="wikipedia", status="ok", title="雄安新区", subtitle="",
        canonical=WIKI + "雄安新区",
        summary_starts="雄安新区是中国第19个国家级新区，也是首个由中共中央、国务院印发通知成立的国家级新区",
        infobox={"国家": "中华人民共和国", "所属行政区": "河北省", "建置时间": "2017年4月1日\n（设立）",
                 "行政机构": "中国共产党河北省委员会\n河北雄安新区工作委员会（雄安新区党工委）\n河北省人民政府\n"
                             "河北雄安新区管理委员会（雄安新区管委会）",
                 "电话区号": "+86 (0)0312", "车辆号牌": "冀X"},
        values={"邮政编码": ["070000（新建片区）", "071800（雄县）", "071700（容城县）", "071600（安新县）"],
                "电话区号": ["+86 (0)0312"]},
        min_paragraphs=70,
        sentences=["2019年8月26日，国务院批复同意设立中国（河北）自由贸易试验区，其中包括设在雄安新区境内的雄安片区。"],
        # Link titles as the page names the target (its title attribute), whatever script the URL is in.
        links=[("国际冠码", WIKI + "%E5%9C%8B%E9%9A%9B%E5%86%A0%E7%A2%BC"),
               ("河北省 (中华民国)", WIKI + "%E6%B2%B3%E5%8C%97%E7%9C%81_(%E4%B8%AD%E8%8F%AF%E6%B0%91%E5%9C%8B)"),
               ("张国华 (1964年)", WIKI + "%E5%BC%A0%E5%9B%BD%E5%8D%8E_(1964%E5%B9%B4)")],
        # Wikisource documents the article links to are no Wikipedia entries.
        no_link_titles=["s:河北雄安新区规划纲要"],
    ),
}


@cache
def _parse(name: str, backend: str = "lxml"):
    return parse((REAL / name).read_bytes(), PAGES[name]["url"], backend=backend)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("name", sorted(PAGES))
def test_real_page_gives_the_fields_an_annotator_reads(name, backend):
    want = PAGES[name]
    page = _parse(name, backend)
    assert (page.source, page.layout, page.status) == (want["source"], want["layout"], want["status"])
    assert page.title == want["title"]
    if "subtitle" in want:
        assert page.subtitle == want["subtitle"]
    if "canonical" in want:
        assert page.canonical_url == canonicalize(want["canonical"])
    if "summary_starts" in want:
        assert page.summary.startswith(want["summary_starts"])
    infobox = {e.name: e for e in page.infobox}
    for field, value in want.get("infobox", {}).items():
        assert infobox[field].value == value, field
    for field, values in want.get("values", {}).items():
        assert infobox[field].values == values, field
    assert len(page.paragraphs) >= want.get("min_paragraphs", 0)
    for sentence in want.get("sentences", []):
        assert sentence in page.paragraphs
    for text in want.get("not_paragraphs", []):
        assert text not in page.paragraphs and not any(p.startswith(text) for p in page.paragraphs)
    links = {l["title"]: l["url"] for l in page.links}
    for title, url in want.get("links", []):
        assert links.get(title) == canonicalize(url), title
    for title in want.get("no_link_titles", []):
        assert title not in links
    if want["status"] != "ok":
        assert page.infobox == [] and page.paragraphs == [] and page.links == []


@pytest.mark.parametrize("name", sorted(PAGES))
def test_real_page_gives_the_same_record_on_both_backends(name):
    records = {backend: _parse(name, backend) for backend in BACKENDS}
    first, *others = records.values()
    for other in others:
        assert other.contract() == first.contract()
        assert (other.links, other.infobox, other.canonical_url) == (first.links, first.infobox, first.canonical_url)


def test_no_infobox_name_keeps_its_bullet_or_edit_label():
    page = _parse("wikipedia_xiongan.html")
    assert "总计" in {e.name for e in page.infobox}  # the page writes it " • 总计"
    assert not any(e.name.startswith(("•", "·")) for e in page.infobox)
    assert "[编辑]" not in page.title and "编辑" not in page.title


# --- Structures of the real sites, written out here ---------------------------------------------

# Sogou Baike, 2014-2018 pages: the infobox is a table (abstract_tbl) of two list tables
# (abstract_list), the text is in sections of lemma_content_wrap, an inline picture
# (span.text_img) carries its caption inside the paragraph, and entry links go through
# /lemma/ShowInnerLink.htm?lemmaId=<id>, the id of the entry's own address /v<id>.htm.
SOGOU_2017 = """<!DOCTYPE html><html><head><title>网络爬虫 - 搜狗百科</title></head><body>
<div class="lemma_name"><h1 id="title">网络爬虫</h1>
<div class="lemma_focus_wrap"><a href="/lemma/CreateV1.e?sp=2" class="btn_edit_lemma"><i></i>编辑词条</a></div></div>
<div class="abstract_main"><div class="abstract"><div class="edit_abstract"></div>
<p>网络爬虫是一种自动抓取<a class="ed_inner_link" target="_blank"
 href="/lemma/ShowInnerLink.htm?lemmaId=17200&amp;ss_c=ssc.citiao.link">万维网</a>信息的程序。<sup><a
 href="#quote1">[1]</a></sup></p>
</div></div>
<div class="abstract_tbl_wrap"><table class="abstract_tbl"><tbody><tr>
<td class="abstract_list_wrap"><table class="abstract_list"><tbody>
<tr><th>中文名</th><td>
  网络爬虫
</td></tr>
<tr><th>别    称</th><td>网络蜘蛛</td></tr>
</tbody></table></td>
<td class="abstract_list_wrap"><table class="abstract_list"><tbody>
<tr><th>目    的</th>
<td>获取<a class="ed_inner_link" href="/lemma/ShowInnerLink.htm?lemmaId=17200&amp;ss_c=ssc.citiao.link">万维网</a>信息</td>
</tr>
</tbody></table></td></tr></tbody></table></div>
<div class="lemma_content_wrap"><div class="section_wrap"><section>
<div class="section_title"><h2><a name="para1">相关介绍</a>
</h2><a class="btn_edit" href="/Create.e?sp=1"><i></i>编辑</a></div>
<div class="section_content"><div class="rich_text_area">
<p><span class="text_img ed_imgfloat_right"><a class="ed_image_link" href="/p/1.jpg">
<img src="/p/1.jpg"></a><span>网络爬虫</span></span>另一些不常使用的名字还有蚂蚁。搜索引擎例如<a class="ed_inner_link"
 href="/lemma/ShowInnerLink.htm?lemmaId=7671535&amp;ss_c=ssc.citiao.link">AltaVista</a>是用户访问万维网的入口。</p>
<p>（1）不同领域的用户往往具有不同的检索目的。</p>
<table><tr><th>策略</th><th>说明</th></tr>
<tr><td><a class="ed_inner_link" href="/lemma/ShowInnerLink.htm?lemmaId=67302516">深度优先策略</a></td>
<td>设计较为简单</td></tr></table>
</div></div></section></div></div></body></html>"""

# Sogou Baike, 2019- pages: the same tables, each name a th.base-info-card-title and each value a
# div.base-info-card-value inside a plain td.
SOGOU_2020 = """<!DOCTYPE html><html><head><title>故宫博物院 - 搜狗百科</title></head><body>
<div class="lemma_name"><h1 id="title">故宫博物院</h1></div>
<div class="abstract" id="j-shareAbstract"><p>故宫博物院是在明朝、清朝两代皇宫的基础上建立起来的博物馆。</p></div>
<table class="abstract_tbl"><tbody><tr><td class="abstract_list_wrap"><table class="abstract_list"><tbody>
<tr><th class="base-info-card-title">中文名</th><td><div class="base-info-card-value">故宫博物院</div></td></tr>
<tr><th class="base-info-card-title">开放时间</th><td><div class="base-info-card-value">8:30-17:00<br>周一闭馆</div></td></tr>
</tbody></table></td></tr></tbody></table>
<div class="lemma_content_wrap"><section><div class="section_content"><div class="rich_text_area">
<p>故宫博物院建立于1925年。</p></div></div></section></div></body></html>"""

# Baidu Baike, older layout: a picture box inside a paragraph, its caption a span.description
# (the sentence around it reads on after the box); a table in the body; an infobox value in
# several <br>-separated lines.
BAIDU_LEGACY = """<!DOCTYPE html><html><head><title>曙光1000_百度百科</title></head><body>
<div class="main-content">
<dl class="lemmaWgt-lemmaTitle lemmaWgt-lemmaTitle-"><dd class="lemmaWgt-lemmaTitle-title"><h1>曙光1000</h1>
<a class="edit-lemma cmn-btn-hover-blue j-edit-link" href="javascript:;"><em class="cmn-icon"></em>编辑</a></dd></dl>
<div class="lemma-summary" label-module="lemmaSummary">
<div class="para" label-module="para">曙光1000是大规模并行计算机。</div></div>
<div class="basic-info cmn-clearfix"><dl class="basicInfo-block basicInfo-left">
<dt class="basicInfo-item name">获&nbsp;&nbsp;&nbsp;&nbsp;奖</dt>
<dd class="basicInfo-item value">
1996年中国科学院科技进步特等奖<br/>1997年国家科学技术进步一等奖
</dd>
<dt class="basicInfo-item name">研制单位</dt>
<dd class="basicInfo-item value"><a target="_blank"
 href="/item/国家智能计算机研究开发中心">国家智能计算机研究开发中心</a>
</dd></dl></div>
<div class="para-title level-2" label-module="para-title">
<h2 class="title-text"><span class="title-prefix">曙光1000</span>获奖情况</h2></div>
<div class="para" label-module="para">1996年，曙光1000获得中国科学院科技进步特等奖，1997年国家<div
 class="lemma-picture text-pic layout-right" style="width:220px; float: right;">
<a class="image-link" href="/pic/x" title="李国杰"><img class="lazy-img" alt="李国杰"></a>
<span class="description">
李国杰
</span>
</div>科学技术进步一等奖</div>
<table log-set-param="table_view" class="table-view log-set-param"><tbody>
<tr><th>年份</th><th>机型</th></tr>
<tr><td>1993年</td><td>
<div class="para" label-module="para"><a target="_blank" href="/item/%E6%9B%99%E5%85%891%E5%8F%B7">曙光1号</a>
</div></td></tr>
<tr><td>1995年</td><td><div class="para" label-module="para">曙光1000</div></td></tr>
</tbody></table>
</div></body></html>"""

# zh-Wikipedia: an infobox row whose cell holds a second infobox table (relatives, collapsed).
WIKI_NESTED = """<!DOCTYPE html><html><head><title>曹操 - 维基百科，自由的百科全书</title></head><body>
<h1 id="firstHeading" class="firstHeading"><span class="mw-page-title-main">曹操</span></h1>
<div id="mw-content-text"><div class="mw-parser-output">
<table class="infobox"><tbody>
<tr><th colspan="2">曹操</th></tr>
<tr><th scope="row">字</th><td>孟德</td></tr>
<tr><td colspan="2"><table class="infobox bordered collapsible collapsed"><tbody>
<tr><th colspan="2">亲属</th></tr>
<tr><th><a href="/wiki/%E7%88%B6%E8%A6%AA" title="父亲">父亲</a></th>
<td>太皇帝<a href="/wiki/%E6%9B%B9%E5%B5%A9" title="曹嵩">曹嵩</a></td></tr>
<tr><th>继室</th><td><a href="/wiki/%E6%AD%A6%E5%AE%A3%E5%8D%9E%E7%9A%87%E5%90%8E" title="武宣卞皇后">武宣皇后</a></td></tr>
</tbody></table></td></tr>
<tr><th scope="row">庙号</th><td>太祖</td></tr>
</tbody></table>
<p><b>曹操</b>是东汉末年的<a href="/wiki/%E6%9D%B1%E6%BC%A2" class="mw-redirect" title="东汉">东汉</a>大臣。</p>
</div></div></body></html>"""


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_sogou_2017_markup_gives_infobox_paragraphs_and_links(backend):
    page = parse(SOGOU_2017, "https://baike.sogou.com/v77860.htm", backend=backend)
    assert (page.source, page.layout, page.status, page.title) == ("sogou", "sogou", "ok", "网络爬虫")
    assert page.summary == "网络爬虫是一种自动抓取万维网信息的程序。"
    assert [(e.name, e.value) for e in page.infobox] == [
        ("中文名", "网络爬虫"), ("别称", "网络蜘蛛"), ("目的", "获取万维网信息")]
    assert page.paragraphs == ["另一些不常使用的名字还有蚂蚁。搜索引擎例如AltaVista是用户访问万维网的入口。",
                               "（1）不同领域的用户往往具有不同的检索目的。",
                               "策略 | 说明", "深度优先策略 | 设计较为简单"]
    assert page.links == [
        {"title": "万维网", "url": canonicalize("https://baike.sogou.com/v17200.htm")},
        {"title": "AltaVista", "url": canonicalize("https://baike.sogou.com/v7671535.htm")},
        {"title": "深度优先策略", "url": canonicalize("https://baike.sogou.com/v67302516.htm")}]


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_sogou_2020_markup_gives_infobox_with_lines(backend):
    page = parse(SOGOU_2020, "https://baike.sogou.com/v2000.htm", backend=backend)
    assert (page.layout, page.title, page.paragraphs) == ("sogou", "故宫博物院", ["故宫博物院建立于1925年。"])
    hours = page.infobox[1]
    assert (hours.name, hours.value, hours.values) == ("开放时间", "8:30-17:00\n周一闭馆", ["8:30-17:00", "周一闭馆"])


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_baidu_legacy_caption_table_and_lines(backend):
    page = parse(BAIDU_LEGACY, BAIDU_ITEM + "%E6%9B%99%E5%85%891000", backend=backend)
    assert (page.layout, page.title, page.summary) == ("baidu_legacy", "曙光1000", "曙光1000是大规模并行计算机。")
    # The caption leaves the sentence it was placed in.
    assert "1996年，曙光1000获得中国科学院科技进步特等奖，1997年国家科学技术进步一等奖" in page.paragraphs
    assert not any("李国杰" in p for p in page.paragraphs)
    # Table rows are paragraphs; the links in their cells are links of the page.
    assert page.paragraphs[-3:] == ["年份 | 机型", "1993年 | 曙光1号", "1995年 | 曙光1000"]
    assert [l["title"] for l in page.links] == ["国家智能计算机研究开发中心", "曙光1号"]
    # An infobox value in lines keeps them apart: no 、 the site never wrote.
    awards = page.infobox[0]
    assert awards.name == "获奖"
    assert awards.value == "1996年中国科学院科技进步特等奖\n1997年国家科学技术进步一等奖"
    assert awards.values == ["1996年中国科学院科技进步特等奖", "1997年国家科学技术进步一等奖"]


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_nested_wikipedia_infobox_rows_are_entries_of_their_own(backend):
    page = parse(WIKI_NESTED, WIKI + "%E6%9B%B9%E6%93%8D", backend=backend)
    assert [(e.name, e.value) for e in page.infobox] == [
        ("字", "孟德"), ("父亲", "太皇帝曹嵩"), ("继室", "武宣皇后"), ("庙号", "太祖")]
    # The link's title is the page's name for the target; the URL is in traditional script.
    assert {"title": "东汉", "url": canonicalize(WIKI + "%E6%9D%B1%E6%BC%A2")} in page.links


# --- Status: what a page is, not what its URL or title says --------------------------------------

def _entry_about(title: str, url: str) -> str:
    return BAIDU_LEGACY.replace("曙光1000", title) if "baidu" in url else WIKI_NESTED.replace("曹操", title)


@pytest.mark.parametrize("url, title", [
    (BAIDU_ITEM + "CAPTCHA/1234", "CAPTCHA"),
    (BAIDU_ITEM + "%E9%AA%8C%E8%AF%81%E7%A0%81", "验证码"),
    (WIKI + "Verify", "Verify"),
    (WIKI + "%E9%AA%8C%E8%AF%81%E7%A0%81", "验证码"),
])
def test_an_entry_about_captcha_or_verify_is_content(url, title):
    page = parse(_entry_about(title, url), url)
    assert page.status == "ok" and page.title == title


BAIDU_VERIFY = """<!DOCTYPE html><html><head><title>百度安全验证</title></head><body>
<div class="timeout hide-callback"><div class="timeout-title">网络不给力，请稍后重试</div></div>
<div id="captcha"></div></body></html>"""
SOGOU_ANTISPIDER = """<!DOCTYPE html><html><head><title>搜狗搜索</title></head><body>
<p class="p2">用户您好，我们的系统检测到您网络中存在异常访问请求。<br>此验证码用于确认这些请求是您的正常行为而不是自动程序发出的，需要您协助验证。</p>
<form name="authform" method="POST" id="seccodeForm" action="/"><img id="seccodeImage" src="util/seccode.php">
<input type="text" name="c" id="seccodeInput"></form></body></html>"""


@pytest.mark.parametrize("html, url, source", [
    (BAIDU_VERIFY, "https://wappass.baidu.com/static/captcha/tuxing.html?ak=1&u=%2Fitem%2FX", "baidu"),
    (BAIDU_VERIFY, "https://baike.baidu.com/item/X", "baidu"),
    (SOGOU_ANTISPIDER, "https://www.sogou.com/antispider/?from=%2Fv77860.htm", "sogou"),
    (SOGOU_ANTISPIDER, "https://baike.sogou.com/v77860.htm", "sogou"),
])
def test_verification_pages_are_blocked_by_what_they_are(html, url, source):
    page = parse(html, url)
    assert (page.status, page.source) == ("blocked", source)


@pytest.mark.parametrize("status, url, location, title, kind", [
    (302, BAIDU_ITEM + "X", "https://wappass.baidu.com/static/captcha/tuxing.html?ak=1", "", "captcha_redirect"),
    (302, "https://baike.sogou.com/v1.htm", "https://www.sogou.com/antispider/?from=%2Fv1.htm", "", "captcha_redirect"),
    (302, "http://127.0.0.1:8800/item/X/1", "/wappass/static/captcha/tuxing.html?u=x", "", "captcha_redirect"),
    (302, "https://www.google.com/search?q=x", "https://www.google.com/sorry/index?continue=x", "", "captcha_redirect"),
    (302, BAIDU_ITEM + "CAPTCHA", BAIDU_ITEM + "CAPTCHA/7391", "", None),
    (301, WIKI + "verify", WIKI + "Verify", "", None),
    (200, BAIDU_ITEM + "Verify/1", "", "Verify_百度百科", None),
    (200, WIKI + "CAPTCHA", "", "验证码 - 维基百科，自由的百科全书", None),
    (200, BAIDU_ITEM + "X", "", "百度安全验证", "captcha_page"),
    (429, BAIDU_ITEM + "X", "", "", "http_429"),
])
def test_block_kind_looks_at_the_verification_service_not_at_words(status, url, location, title, kind):
    assert block_kind(status, url, location, title) == kind


@pytest.mark.parametrize("url, source", [
    ("https://baike.baidu.com/item/X", "baidu"), ("https://wapbaike.baidu.com/item/X", "baidu"),
    ("https://baike.baidu.hk/item/X", "baidu"), ("https://baike.sogou.com/v1.htm", "sogou"),
    ("https://zh.m.wikipedia.org/wiki/X", "wikipedia"),
])
def test_the_source_comes_from_the_host_whatever_the_markup(url, source):
    # Sogou markup served from Baidu's host is still Baidu's page (and has no Baidu layout).
    assert parse(SOGOU_2020, url).source == source
