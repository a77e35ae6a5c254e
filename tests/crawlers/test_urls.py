"""canonicalize: every real spelling of an entry URL becomes one URL, and two entries never share one;
entry / reject_reason: which URLs name an entry; split_urls: the URLs in a messy field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crawlers.urls import canonicalize, entry, entry_url, public_url, reject_reason, site_of, split_urls

FIXTURE = Path(__file__).parent.parent / "fixtures" / "urls" / "simpleqa_urls.txt"
LI_BAI = "%E6%9D%8E%E7%99%BD"  # 李白
LI_TAIBAI = "%E6%9D%8E%E5%A4%AA%E7%99%BD"  # 李太白
CJ_SENSES = "%E9%95%BF%E6%B1%9F_(%E6%B6%88%E6%AD%A7%E4%B9%89)"  # 长江_(消歧义)

BAIDU = f"https://baike.baidu.com/item/{LI_BAI}/1043"
BAIDU_TITLE = f"https://baike.baidu.com/item/{LI_BAI}"
SOGOU = "https://baike.sogou.com/v7581.htm"
WIKI = f"https://zh.wikipedia.org/wiki/{LI_BAI}"

FORMS = [
    # Baidu Baike: https, the desktop host, /item/<title>[/<id>], no query, fragment or trailing /
    (BAIDU, BAIDU),
    ("https://baike.baidu.com/item/李白/1043", BAIDU),
    (f"http://baike.baidu.com/item/{LI_BAI}/1043", BAIDU),
    (f"https://baike.baidu.com/item/{LI_BAI.lower()}/1043/", BAIDU),
    (f"https://baike.baidu.com/item/{LI_BAI}/1043?fr=ge_ala", BAIDU),
    (f"https://baike.baidu.com/item/{LI_BAI}/1043?fromModule=lemma_search-box#5-1", BAIDU),
    (f"https://baike.baidu.com/item/{LI_BAI}/1043#:~:text=%E8%AF%97%E4%BB%99", BAIDU),
    (f"https://baike.baidu.com/item/{LI_BAI}/1043?fromtitle={LI_TAIBAI}&fromid=89&fr=aladdin", BAIDU),
    (f"https://baike.baidu.com/item/{LI_BAI}/1043?lemmaFrom=lemma_starMap&starNodeId=d6e5", BAIDU),
    (f"https://wapbaike.baidu.com/item/{LI_BAI}/1043", BAIDU),
    (f"https://m.baike.baidu.com/item/{LI_BAI}/1043?noadapt=1", BAIDU),
    (f"https://baike.baidu.hk/item/{LI_BAI}/1043", BAIDU),
    (f"HTTPS://Baike.Baidu.com:443/item/{LI_BAI}/1043", BAIDU),
    (f" https://baike.baidu.com/item/{LI_BAI}/1043 ", BAIDU),
    (f"\\nhttps://baike.baidu.com/item/{LI_BAI}/1043?fromModule\\u003dlemma_search-box", BAIDU),
    (f"https://baike.baidu.com/item/{LI_BAI}?fromtitle={LI_TAIBAI}&fromid=89&fromModule=lemma_search-box",
     BAIDU_TITLE),
    (f"https://baike.baidu.com/item/{LI_BAI}/0?fromModule=lemma_inlink", BAIDU_TITLE),
    ("https://baike.baidu.com/item/AC/DC/6244", "https://baike.baidu.com/item/AC%2FDC/6244"),
    ("https://baike.baidu.com/item/AC%2fDC/6244", "https://baike.baidu.com/item/AC%2FDC/6244"),
    ("https://baike.baidu.com/item/Collab Star/20607777", "https://baike.baidu.com/item/Collab%20Star/20607777"),
    ("http://baike.baidu.com/view/1758.htm?fr=aladdin", "https://baike.baidu.com/view/1758.htm"),
    ("https://baike.baidu.com/subview/1758/5085914.htm#1", "https://baike.baidu.com/subview/1758/5085914.htm"),
    # Sogou Baike: /v<id>.htm, whichever path carries the id
    (SOGOU, SOGOU),
    ("http://baike.sogou.com/v7581.htm?fromTitle=%E6%9D%8E%E7%99%BD&ch=frombaikevr", SOGOU),
    ("https://baike.sogou.com/v7581.htm#!;", SOGOU),
    ("https://baike.sogou.com/m/v7581.htm", SOGOU),
    ("https://baike.sogou.com/m/fullLemma?lid=7581", SOGOU),
    ("https://baike.sogou.com/m/fullLemma?lid=7581&g_ut=3", SOGOU),
    ("http://baike.sogou.com/lemma/ShowInnerLink.htm?lemmaId=7581&ss_c=ssc.citiao.link", SOGOU),
    # zh-Wikipedia: /wiki/<title> on the desktop host, whichever variant path, host or form
    (WIKI, WIKI),
    ("https://zh.wikipedia.org/wiki/李白", WIKI),
    (f"http://zh.wikipedia.org/wiki/{LI_BAI}#生平", WIKI),
    (f"https://zh.wikipedia.org/wiki/{LI_BAI}/", WIKI),
    (f"https://zh.wikipedia.org/wiki/{LI_BAI}?oldformat=true", WIKI),
    (f"https://zh.wikipedia.org/wiki/{LI_BAI}?oldid=81234567", WIKI),
    (f"https://zh.wikipedia.org/zh-hans/{LI_BAI}", WIKI),
    (f"https://zh.wikipedia.org/zh-hant/{LI_BAI}", WIKI),
    (f"https://zh.wikipedia.org/zh-cn/{LI_BAI}#:~:text=%E8%AF%97", WIKI),
    (f"https://zh.wikipedia.org/zh-tw/{LI_BAI}", WIKI),
    (f"https://zh.wikipedia.org/zh-hk/{LI_BAI}", WIKI),
    (f"https://zh.wikipedia.org/zh-sg/{LI_BAI}", WIKI),
    (f"https://zh.wikipedia.org/zh-my/{LI_BAI}", WIKI),
    (f"https://zh.wikipedia.org/zh/{LI_BAI}", WIKI),
    (f"https://zh.m.wikipedia.org/wiki/{LI_BAI}", WIKI),
    (f"https://zh.m.wikipedia.org/zh-cn/{LI_BAI}", WIKI),
    (f"https://zh-m-wikipedia-org.translate.goog/wiki/{LI_BAI}?_x_tr_sl=zh-TW&_x_tr_tl=zh-CN&_x_tr_hl=zh-CN", WIKI),
    (f"https://zh.wikipedia.org/w/index.php?title={LI_BAI}&oldformat=true", WIKI),
    (f"https://zh.wikipedia.org/w/index.php?title\\u003d{LI_BAI}\\u0026oldformat\\u003dtrue", WIKI),
    (f"https://zh.wikipedia.org/w/index.php?title={LI_BAI}&variant=zh-cn&oldid=81234567", WIKI),
    ("https://zh.wikipedia.org/w/index.php?title=长江+(消歧义)&uselang=zh-cn",
     f"https://zh.wikipedia.org/wiki/{CJ_SENSES}"),
    ("https://zh.wikipedia.org/wiki/长江 (消歧义)", f"https://zh.wikipedia.org/wiki/{CJ_SENSES}"),
    ("https://zh.wikipedia.org/wiki/%E9%95%BF%E6%B1%9F%20%28%E6%B6%88%E6%AD%A7%E4%B9%89%29",
     f"https://zh.wikipedia.org/wiki/{CJ_SENSES}"),
    ("https://zh.wikipedia.org/wiki/AC%2FDC", "https://zh.wikipedia.org/wiki/AC/DC"),
    ("https://zh.wikipedia.org/wiki/Washington,_D.C.", "https://zh.wikipedia.org/wiki/Washington,_D.C."),
    ("https://zh.wikipedia.org/w/index.php?curid=12345&action=view",
     "https://zh.wikipedia.org/w/index.php?curid=12345"),
    ("https://zh.wikipedia.org/w/index.php?oldid=81234567", "https://zh.wikipedia.org/w/index.php?oldid=81234567"),
]


@pytest.mark.parametrize("url, canonical", FORMS)
def test_every_form_of_an_entry_url_becomes_its_one_canonical_url(url, canonical):
    assert canonicalize(url) == canonical


@pytest.mark.parametrize("url, canonical", FORMS)
def test_the_canonical_url_is_a_fixed_point_and_the_public_url(url, canonical):
    assert canonicalize(canonical) == canonical
    found = entry(url)
    assert found is not None and found.url == canonical
    assert public_url(url, found.site) == canonical


@pytest.mark.parametrize("fetched, canonical", [
    ("http://127.0.0.1:8800/item/李白/1043?fromModule=lemma_search-box#2",
     f"http://127.0.0.1:8800/item/{LI_BAI}/1043"),
    ("http://127.0.0.1:8800/item/李白/", f"http://127.0.0.1:8800/item/{LI_BAI}"),
    ("http://127.0.0.1:8800/v7581.htm?fromTitle=x", "http://127.0.0.1:8800/v7581.htm"),
    ("http://127.0.0.1:8800/m/fullLemma?lid=7581", "http://127.0.0.1:8800/v7581.htm"),
    ("http://127.0.0.1:8800/zh-my/长江_(消歧义)", f"http://127.0.0.1:8800/wiki/{CJ_SENSES}"),
    ("HTTP://LOCALHOST:9000/wiki/李白#生平", f"http://localhost:9000/wiki/{LI_BAI}"),
    ("https://proxy.example.org:8443/item/李白/1043", f"https://proxy.example.org:8443/item/{LI_BAI}/1043"),
])
def test_another_host_keeps_scheme_host_and_port_under_the_same_path_rules(fetched, canonical):
    assert canonicalize(fetched) == canonical
    assert canonicalize(canonical) == canonical


@pytest.mark.parametrize("fetched, site, public", [
    ("http://127.0.0.1:8800/m/fullLemma?lid=7581", "sogou", SOGOU),
    ("http://127.0.0.1:41234/zh-tw/李白", "wikipedia", WIKI),
    ("http://127.0.0.1:8800/item/李白/0", "baidu", BAIDU_TITLE),
])
def test_public_url_of_a_mirror_url_in_any_form(fetched, site, public):
    assert public_url(fetched, site) == public


def test_two_sogou_ids_stay_two_urls():
    first = canonicalize("https://baike.sogou.com/m/fullLemma?lid=9157686")
    second = canonicalize("https://baike.sogou.com/m/fullLemma?lid=7620843&g_ut=3")
    assert first == "https://baike.sogou.com/v9157686.htm"
    assert second == "https://baike.sogou.com/v7620843.htm"


@pytest.mark.parametrize("one, other", [
    (BAIDU, BAIDU_TITLE),  # /item/<title> may be the list of senses
    (BAIDU, f"https://baike.baidu.com/item/{LI_BAI}/1044"),
    (BAIDU, "https://baike.baidu.com/view/1043.htm"),  # which title an old id names only the site knows
    ("https://zh.wikipedia.org/w/index.php?title=A&oldid=5", "https://zh.wikipedia.org/w/index.php?title=B&oldid=5"),
    ("https://zh.wikipedia.org/w/index.php?curid=5", "https://zh.wikipedia.org/w/index.php?oldid=5"),
    (WIKI, f"{WIKI}_(%E6%B6%88%E6%AD%A7%E4%B9%89)"),
    ("https://en.wikipedia.org/wiki/Li_Bai", "https://zh.wikipedia.org/wiki/Li_Bai"),
    ("https://baike.sogou.com/m/fullLemma?key=李白", "https://baike.sogou.com/m/fullLemma?key=杜甫"),
    ("http://127.0.0.1:8800/search/fullsearch.htm?keyword=李白",
     "http://127.0.0.1:8800/search/fullsearch.htm?keyword=杜甫"),
    ("https://baike.baidu.com/tashuo/browse/content?id=aaf4a9d8",
     "https://baike.baidu.com/tashuo/browse/content?id=0973544b"),
    ("https://baike.baidu.com/item/C%2B%2B", "https://baike.baidu.com/item/C"),
])
def test_two_different_pages_never_share_a_canonical_url(one, other):
    assert canonicalize(one) != canonicalize(other)


def test_a_page_that_is_no_entry_keeps_its_query_less_tracking():
    url = "https://wapbaike.baidu.com/tashuo/browse/content?id=aaf4a9d8&fr=share&utm_source=x#top"
    assert canonicalize(url) == "https://baike.baidu.com/tashuo/browse/content?id=aaf4a9d8"
    assert canonicalize("https://baike.sogou.com/m/fullLemma?key=李白") == (
        "https://baike.sogou.com/m/fullLemma?key=%E6%9D%8E%E7%99%BD")


@pytest.mark.parametrize("url, site, title, lemma_id", [
    (BAIDU, "baidu", "李白", "1043"),
    (f"https://baike.baidu.hk/item/{LI_BAI}", "baidu", "李白", ""),
    ("https://baike.baidu.com/view/1758.htm", "baidu", "", "1758"),
    ("https://baike.sogou.com/m/fullLemma?lid=7581", "sogou", "", "7581"),
    (f"https://zh.wikipedia.org/zh-cn/{CJ_SENSES}", "wikipedia", "长江 (消歧义)", ""),
    ("https://zh.wikipedia.org/wiki/Re:从零开始的异世界生活", "wikipedia", "Re:从零开始的异世界生活", ""),
    ("https://zh.wikipedia.org/w/index.php?curid=12345", "wikipedia", "", "12345"),
    ("http://127.0.0.1:8800/v7581.htm", "sogou", "", "7581"),
])
def test_entry_names_the_site_title_and_id(url, site, title, lemma_id):
    found = entry(url)
    assert (found.site, found.title, found.id) == (site, title, lemma_id)
    assert entry_url(url) == found.url


@pytest.mark.parametrize("url, reason", [
    ("https://zh.wikipedia.org/wiki/User:Clarafly/Sandbox", "namespace"),
    ("https://zh.wikipedia.org/wiki/Template:%E6%AD%BB%E5%88%91", "namespace"),
    ("https://zh.wikipedia.org/zh-hans/Portal:%E6%B0%A3%E8%B1%A1/3", "namespace"),
    ("https://zh.wikipedia.org/wiki/File:Beyond_flower.jpg", "namespace"),
    ("https://zh.wikipedia.org/wiki/Category_talk:X", "namespace"),
    ("https://zh.wikipedia.org/wiki/Special:Search?search=李白", "search"),
    ("https://zh.wikipedia.org/w/index.php?search=李白&title=Special:Search", "search"),
    ("https://zh.wikipedia.org/w/index.php?title=李白&action=edit", "not_entry"),
    ("https://baike.sogou.com/m/fullLemma?key=李白", "search"),
    ("http://127.0.0.1:8800/search/fullsearch.htm?keyword=李白", "search"),
    ("https://baike.baidu.com/search?word=李白", "search"),
    ("https://baike.baidu.com/", "not_entry"),
    ("https://zh.wikipedia.org/wiki/", "not_entry"),
    ("https://baike.baidu.com/tashuo/browse/content?id=0973544b83d18526d77cdc49", "not_entry"),
    ("https://baike.baidu.com/link?url=S0gtRmDxH-Pxv5", "not_entry"),
    ("https://zhidao.baidu.com/question/2064879062232854507.html", "other_service"),
    ("https://en.wikipedia.org/wiki/Li_Bai", "other_service"),
    ("https://baike.sogou.com/v0.htm", "bad_id"),
    ("https://zh.wikipedia.org/wiki/%E6%9D%8E%E7%99", "truncated"),  # cut inside 白
    ("https://www.sohu.com/a/165091568_796875", "not_entry"),
])
def test_a_url_that_names_no_entry_says_why(url, reason):
    assert entry(url) is None and entry_url(url) is None
    assert reject_reason(url) == reason


def test_site_of_knows_the_sites_hosts_only():
    assert site_of("https://wapbaike.baidu.com/item/x") == "baidu"
    assert site_of("https://zh-m-wikipedia-org.translate.goog/wiki/x") == "wikipedia"
    assert site_of("https://baike.sogou.com/v1.htm") == "sogou"
    assert site_of("http://127.0.0.1:8800/item/x") is None
    assert site_of("https://en.wikipedia.org/wiki/x") is None
    assert site_of("https://zhidao.baidu.com/q") is None


@pytest.mark.parametrize("field, urls", [
    ("", []),
    ("null", []),
    ("\\nhttps://zh.wikipedia.org/wiki/A", ["https://zh.wikipedia.org/wiki/A"]),
    (" https://zh.wikipedia.org/wiki/A  ", ["https://zh.wikipedia.org/wiki/A"]),
    ("https://baike.baidu.com/item/A/1,\\nhttps://zh.wikipedia.org/zh-cn/B",
     ["https://baike.baidu.com/item/A/1", "https://zh.wikipedia.org/zh-cn/B"]),
    ("https://baike.baidu.com/item/A/1?fr\\u003dge_ala；https://baike.baidu.com/item/B/2?fr\\u003daladdin",
     ["https://baike.baidu.com/item/A/1?fr=ge_ala", "https://baike.baidu.com/item/B/2?fr=aladdin"]),
    ("https://baike.baidu.com/item/A/5140?fr\\u003dge_ala,sohu.com/a/494281468_100261426",
     ["https://baike.baidu.com/item/A/5140?fr=ge_ala", "https://sohu.com/a/494281468_100261426"]),
    ("https://baike.baidu.com/item/A/1#:~:text\\u003d%E3%80%82https://zh.wikipedia.org/zh-cn/B",
     ["https://baike.baidu.com/item/A/1#:~:text=%E3%80%82", "https://zh.wikipedia.org/zh-cn/B"]),
    ("https://baike.baidu.com/item/A/1#:~:text=%E3%80%8ACollab,Star%E3%80%8B",
     ["https://baike.baidu.com/item/A/1#:~:text=%E3%80%8ACollab,Star%E3%80%8B"]),
    ("https://zh.wikipedia.org/wiki/Washington,_D.C.", ["https://zh.wikipedia.org/wiki/Washington,_D.C."]),
    ("(https://zh.wikipedia.org/wiki/长江_(消歧义))", ["https://zh.wikipedia.org/wiki/长江_(消歧义)"]),
    ("“https://baike.sogou.com/v1.htm”，【https://baike.sogou.com/v2.htm】、https://baike.sogou.com/v3.htm。",
     ["https://baike.sogou.com/v1.htm", "https://baike.sogou.com/v2.htm", "https://baike.sogou.com/v3.htm"]),
    ("来源：https://baike.sogou.com/v1.htm", ["https://baike.sogou.com/v1.htm"]),
    ("http://www.researchgate.net/\n购买类型：免费资源", ["http://www.researchgate.net/"]),
    ("https://web.archive.org/web/2020/https://zh.wikipedia.org/wiki/A",
     ["https://web.archive.org/web/2020/https://zh.wikipedia.org/wiki/A"]),
    ("//zh.wikipedia.org/wiki/A www.baidu.com", ["https://zh.wikipedia.org/wiki/A", "https://www.baidu.com"]),
    ("https://wk.baidu.com/view/0b?pu=sl@1,pw@1000,sz@22", ["https://wk.baidu.com/view/0b?pu=sl@1,pw@1000,sz@22"]),
])
def test_split_urls_finds_each_url_in_a_messy_field(field, urls):
    assert split_urls(field) == urls


def _sample_urls() -> list[str]:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 300
    return [u for line in lines for field in json.loads(line) for u in split_urls(field) if site_of(u)]


def test_real_url_fields_canonicalize_clean():
    urls = _sample_urls()
    clean = [u for u in urls if (found := entry(u)) is not None and canonicalize(found.url) == found.url
             and public_url(found.url, found.site) == found.url]
    assert len(urls) > 700
    assert len(clean) / len(urls) >= 0.99
    # what is not clean is a page that is no entry, and says so
    assert {reject_reason(u) for u in urls if u not in clean} <= {"namespace", "not_entry"}


def test_real_urls_canonicalize_idempotently():
    for url in _sample_urls():
        canonical = canonicalize(url)
        assert canonicalize(canonical) == canonical, url


def test_an_id_no_int_reads_is_a_malformed_url_and_leading_zeros_go():
    assert canonicalize("https://baike.sogou.com/v007581.htm") == SOGOU
    assert canonicalize("https://baike.baidu.com/item/x/" + "9" * 4300).endswith("9" * 4300)
    for url in ("https://baike.baidu.com/item/x/" + "9" * 4301, "http://127.0.0.1:8800/v" + "1" * 5000 + ".htm",
                "http://[::1"):
        with pytest.raises(ValueError):
            canonicalize(url)
