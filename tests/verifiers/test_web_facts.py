"""What other pages state about an entity's relation: values they give it, and years they dispute."""

from __future__ import annotations

from verifiers.search import Hit
from filters.statements import dispute, relation_words
from verifiers.web_facts import WebFacts

OWN = "https://baike.example/item/a"
HITS = [
    Hit(OWN, "秦宁鸿", "秦宁鸿，画家，生于1930年。", 2.0),
    Hit("https://museum.example/collection/1.html", "秦宁鸿_博物馆", "【简介】秦宁鸿。秦宁鸿是一位书法家。其生于1930-05-01。", 1.5),
    Hit("https://news.example/2020/0101/2.html", "关注秦宁鸿", "日前，秦宁鸿再次引起人们的关注。据介绍，秦宁鸿生于1932年。", 1.0),
    Hit("https://news.example/2020/0101/3.html", "关注某地", "某地举办书展，诗人出席。", 0.5),
]


class Search:
    def __init__(self):
        self.asked = []

    def search(self, query, k):
        self.asked.append((query, k))
        return HITS[:k]


def test_the_relations_words_are_its_name_and_its_cues():
    words = relation_words("出生日期")
    assert words[0] == "出生日期" and "生于" in words
    assert relation_words("没有这个关系") == ("没有这个关系",)


def test_a_value_another_page_states_for_the_relation_is_found_and_the_own_page_left_out():
    web = WebFacts(Search())
    assert web.states("秦宁鸿", "职业", "书法家", exclude=[OWN]) == "https://museum.example/collection/1.html"
    assert web.states("秦宁鸿", "职业", "画家", exclude=[OWN]) is None  # only the own page says it
    assert web.states("秦宁鸿", "职业", "画家") == OWN
    assert web.states("秦宁鸿", "职业", "诗人", exclude=[OWN]) is None  # a page that does not name the entity


def test_the_search_is_asked_once_per_head_and_relation():
    search = Search()
    web = WebFacts(search, k=10)
    for value in ("书法家", "画家", "诗人"):
        web.states("秦宁鸿", "职业", value)
    assert search.asked == [('"秦宁鸿" 职业', 10)]


def test_a_year_another_page_gives_the_relation_disputes_a_dated_answer():
    assert dispute(HITS, "秦宁鸿", [], "出生日期", "1930年5月1日", exclude=[OWN]) == (
        "https://news.example/2020/0101/2.html", "1932年")
    agreeing = [h for h in HITS if "1932" not in h.text]
    assert dispute(agreeing, "秦宁鸿", [], "出生日期", "1930年5月1日", exclude=[OWN]) is None
    assert dispute(HITS, "秦宁鸿", [], "职业", "画家") is None  # no year: never disputed here
    # a year in a sentence about something else is no dispute
    other = [Hit("https://news.example/x", "秦宁鸿", "秦宁鸿生于1930年。1950年他迁居北京。", 1.0)]
    assert dispute(other, "秦宁鸿", [], "出生日期", "1930年") is None


def test_a_year_in_a_sentence_that_only_names_the_entity_disputes_nothing():
    moved = [Hit("https://news.example/y", "秦宁鸿", "秦宁鸿1950年迁居北京。", 1.0)]
    assert dispute(moved, "秦宁鸿", [], "出生日期", "1930年") is None


def test_only_a_single_date_is_disputed_and_only_by_a_date_the_relation_stands_next_to():
    page = [Hit("https://news.example/z", "汤显祖", "2016年是汤显祖逝世400周年。汤显祖于1616年7月29日逝世。", 1.0)]
    assert dispute(page, "汤显祖", [], "逝世日期", "1616年7月29日") is None  # 2016年 dates the anniversary
    other = [Hit("https://news.example/z", "汤显祖", "汤显祖卒于1617年。", 1.0)]
    assert dispute(other, "汤显祖", [], "逝世日期", "1616年7月29日") == ("https://news.example/z", "1617年")
    span = [Hit("https://news.example/s", "宋朝", "宋朝存在时间为960年—1276年。", 1.0)]
    assert dispute(span, "宋朝", [], "存在时间", "960年—1279年") is None  # a span is not one date
    bc = [Hit("https://news.example/b", "苏格拉底", "苏格拉底生于公元前469年。", 1.0)]
    assert dispute(bc, "苏格拉底", [], "出生日期", "公元前469年") is None
    assert dispute(bc, "苏格拉底", [], "出生日期", "469年") == ("https://news.example/b", "公元前469年")


def test_a_relation_word_inside_the_name_and_another_entitys_page_dispute_nothing():
    edison = [Hit("https://openwiki.example/e", "爱迪生（美国发明家）", "其生于1847年2月11日。爱迪生于1931年10月18日逝世。", 1.0)]
    assert dispute(edison, "爱迪生", [], "出生日期", "1847年2月11日") is None  # 生于 inside 爱迪生 + 于
    plato = [Hit("https://baike.example/p", "柏拉图", "柏拉图出生于公元前427年，是苏格拉底的学生。", 1.0)]
    assert dispute(plato, "苏格拉底", [], "出生日期", "公元前469年") is None


def test_a_namesakes_page_disputes_nothing():
    own = "https://baike.example/item/a/1"
    hits = [Hit("https://baike.example/item/a/2", "顾铭安", "顾铭安卒于1525年。", 2.0),  # another entry, same name
            Hit("https://openwiki.example/b", "邹松杰（北宋药学家）", "邹松杰于984年逝世。", 1.0)]
    assert dispute(hits[:1], "顾铭安", [], "逝世日期", "1908年", exclude=[own]) is None
    assert dispute(hits[1:], "邹松杰", [], "逝世日期", "1999年", exclude=[own], sense="中国现代物理学家") is None
    assert dispute(hits[1:], "邹松杰", [], "逝世日期", "1999年", exclude=[own], sense="北宋药学家") == (
        "https://openwiki.example/b", "984年")


def test_a_value_another_page_lists_with_a_right_answer_is_found():
    """The museum page names 秦宁鸿 as 书法家 and 篆刻家 together: with 书法家 a right answer, 篆刻家 is one too, though
    no relation word stands beside it; a page that lists it without naming the entity says nothing of him."""
    hits = [Hit("https://museum.example/2.html", "馆藏", "秦宁鸿是当代书法家、篆刻家。", 1.0),
            Hit("https://news.example/3.html", "书展", "书法家、画家云集。", 0.9)]

    class Listing(Search):
        def search(self, query, k):
            return hits[:k]

    web = WebFacts(Listing())
    assert web.lists("秦宁鸿", "职业", "篆刻家", ["书法家"]) == "https://museum.example/2.html"
    assert web.lists("秦宁鸿", "职业", "画家", ["书法家"]) is None
    assert web.lists("秦宁鸿", "职业", "篆刻家", ["书法家"], exclude=["https://museum.example/2.html"]) is None
