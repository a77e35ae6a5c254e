"""The web beside the mirror's encyclopedia: what its pages state, and what they are planted with."""

from __future__ import annotations

import pytest

from crawlers.mirror.facts import load_facts
from crawlers.mirror.realistic import RealisticCorpus
from crawlers.mirror.web import SITES, Web, entry_facts, fame
from crawlers.urls import reserved_host
from filters.normalize import value_key

SIZE = 1500


@pytest.fixture(scope="module")
def corpus():
    return list(RealisticCorpus(SIZE, 0).take(SIZE))


@pytest.fixture(scope="module")
def web(corpus):
    return Web(corpus)


def test_every_page_is_on_a_reserved_host_of_one_of_the_sites(web):
    assert len(web) > SIZE // 2
    assert {p.site for p in web} == set(SITES)
    assert all(reserved_host(p.url) and p.url == f"https://{p.site}{p.path}" for p in web)
    assert len({p.url for p in web}) == len(web)


def test_famous_entities_are_on_more_sites_than_long_tail_ones(corpus, web):
    sites = {}
    for entry in corpus:
        sites.setdefault(fame(entry), []).append(len(web.by_entity.get(entry.key, [])))
    mean = {tier: sum(n) / len(n) for tier, n in sites.items()}
    assert mean["famous"] > mean["mid"] > mean["long_tail"]
    assert 0 in sites["long_tail"] and min(sites["famous"]) >= 1


def test_pages_state_true_facts_only_and_never_a_planted_false_value(corpus, web):
    by_key = {e.key: e for e in corpus}
    false = 0
    for page in web:
        entry = by_key[page.labels["entity_key"]]
        truth = {(r, value_key(v)) for r, v in entry_facts(entry)}
        text = "".join(page.paragraphs)
        for relation, value, written in page.labels["facts"]:
            assert (relation, value_key(value)) in truth
            assert written in text and page.labels["entity"] in text
        for row in entry.labels["rows"]:
            if row["false"]:
                false += 1
                assert row["value"] not in text, (page.url, row)
    assert false


def test_values_are_written_their_own_way_and_some_sites_disagree(web):
    facts = [f for p in web for f in p.labels["facts"]]
    rewritten = [f for f in facts if f[1] != f[2]]
    conflicts = [c for p in web for c in p.labels["conflicts"]]
    assert any("-" in w for _, _, w in rewritten) and any("公里" in w for _, _, w in rewritten)
    assert conflicts and all(c in facts for c in conflicts)
    assert all(value_key(true) != value_key(stated) for _, true, stated in conflicts)


def test_the_web_is_the_same_every_time_and_rendered_with_boilerplate(corpus, web):
    again = Web(corpus)
    assert [(p.url, p.paragraphs) for p in again] == [(p.url, p.paragraphs) for p in web]
    page = web.pages[0]
    html = web.render(page)
    assert all(p in html for p in page.paragraphs) and "相关文章" in html and "广告" in html
    assert f'<link rel="canonical" href="{page.url}">' in html


def test_the_demo_entries_get_the_same_treatment():
    demo = Web(load_facts())
    assert {p.site for p in demo} == set(SITES)
    assert any(p.labels["conflicts"] for p in demo)


def test_the_mirror_serves_the_web_by_host_and_under_its_own_path():
    from crawlers.mirror.site import MirrorServer, Site

    site = Site(faults=False)
    page = next(p for p in site.web if p.site == "news.example")
    with MirrorServer(site, port=0) as mirror:
        import urllib.error
        import urllib.request

        by_path = urllib.request.urlopen(f"{mirror.url}/__web__/{page.site}{page.path}").read().decode("utf-8")
        request = urllib.request.Request(mirror.url + page.path, headers={"Host": page.site})
        by_host = urllib.request.urlopen(request).read().decode("utf-8")
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{mirror.url}/__web__/news.example/no-such-page.html")
    assert by_path == by_host and page.paragraphs[0] in by_path and missing.value.code == 404
