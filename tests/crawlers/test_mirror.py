"""The bundled mirror: its facts table, its link graph and the synthetic corpus."""

from __future__ import annotations

import collections
import json

import pytest

from crawlers.mirror.facts import FactsError, load_facts
from crawlers.mirror.render import strip_markup
from crawlers.mirror.site import Site
from crawlers.mirror.synth import SynthConfig, Synthesizer
from crawlers.parsers import parse
from crawlers.seeds import bundled_seed_files, read_seeds
from schemas import DOMAINS

BASE = "http://127.0.0.1:8800"


def test_facts_table_covers_the_four_domains_with_at_least_400_entries(bundled_site):
    entries = bundled_site.entries
    assert len(entries) >= 400
    per_domain = collections.Counter(e.domain for e in entries)
    assert set(per_domain) == set(DOMAINS)
    assert min(per_domain.values()) >= 60
    assert sum(len(s) > 1 for s in bundled_site.by_title.values()) >= 5  # multi-sense titles
    assert {e.layout for e in entries} == {"baidu", "baidu_legacy"}


def test_every_entry_parses_back_from_its_baidu_page(bundled_site):
    site = Site(entries=bundled_site.entries, faults=False)
    for e in site.entries:
        response = site.respond(f"/item/{e.title}/{e.baidu_id}")
        page = parse(response.body, f"{BASE}/item/x/{e.baidu_id}")
        assert page.status == "ok", e.key
        assert (page.title, page.subtitle) == (e.title, e.sense), e.key
        assert page.summary == strip_markup(e.summary).strip(), e.key
        assert [(i.name, i.value) for i in page.infobox] == e.infobox, e.key


def walk(site: Site, titles: list[str]) -> set[tuple[str, str]]:
    """(title, sense) of every entry a depth-first walk from the titles reaches, following senses and
    entry links the way the spider does, without HTTP."""
    stack = [f"/item/{t}" for t in reversed(titles)]
    seen_paths, reached = set(), set()
    while stack:
        path = stack.pop()
        if path in seen_paths:
            continue
        seen_paths.add(path)
        response = site.respond(path)
        if response.status in (301, 302):
            stack.append(response.headers["Location"])
            continue
        page = parse(response.body, BASE + path, http_status=response.status)
        if page.status == "ok":
            reached.add((page.title, page.subtitle))
        for target in reversed([l["url"] for l in page.links] + [s["url"] for s in page.senses]):
            stack.append(target.removeprefix(BASE))
    return reached


def test_a_depth_first_crawl_from_the_bundled_seeds_reaches_most_entries(bundled_site):
    site = Site(entries=bundled_site.entries, faults=False)
    seeds = [t for f in bundled_seed_files() for t in read_seeds(f)]
    assert len(walk(site, seeds)) >= 0.8 * len(site.entries)


def test_bad_facts_line_names_file_and_line(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"title": "x"}\n', encoding="utf-8")
    with pytest.raises(FactsError, match=r"a.jsonl:1: missing field\(s\) sense"):
        load_facts(tmp_path)


def test_synthetic_entries_are_deterministic_and_labelled(bundled_site):
    config = SynthConfig(seed=5, ungrounded_rate=0.5, trailing_rate=0.5, near_duplicate_rate=0.1)
    first = Synthesizer(bundled_site.entries, config)
    again = Synthesizer(bundled_site.entries, config)
    entries = list(first.take(400))
    assert [e.summary for e in entries] == [again.entry(i).summary for i in range(400)]
    assert again.entry(399).summary == entries[399].summary  # any index alone, without the rest
    labels = [e.labels for e in entries]
    assert 0.35 < sum(bool(l["ungrounded"]) for l in labels) / 400 < 0.65
    assert 0.35 < sum(l["trailing"] for l in labels) / 400 < 0.65
    duplicates = [e for e in entries if e.labels["near_duplicate_of"] is not None]
    assert 0.04 < len(duplicates) / 400 < 0.18
    for dup in duplicates:
        source = entries[dup.labels["near_duplicate_of"]]
        assert dup.title == source.title and dup.summary != source.summary
        assert dup.infobox == source.infobox
    for e in entries:
        if e.labels["near_duplicate_of"] is None:
            for relation in e.labels["ungrounded"]:
                value = dict(e.infobox)[relation]
                assert f"{relation}为{value}" not in e.summary and f"{relation}是{value}" not in e.summary


def test_synthetic_entries_are_served_by_id(bundled_site):
    site = Site(entries=bundled_site.entries, synthetic=1000, synth_config=SynthConfig(seed=1))
    path = site.synthetic_url(999)
    page = parse(site.respond(path).body, BASE + path)
    assert page.status == "ok" and page.title == site.synth.entry(999).title
    assert site.respond("/item/x/21000000").status == 404  # past the corpus size


def test_synth_command_writes_records_and_seed_paths(tmp_path):
    from flows.cli import main

    out, urls = tmp_path / "s.jsonl", tmp_path / "urls.txt"
    assert main(["mirror", "synth", "--count", "50", "--seed", "2", "--out", str(out), "--seeds-out", str(urls)]) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 50 and all("labels" in r for r in records)
    assert len(urls.read_text().splitlines()) == 50


def test_export_writes_every_page_and_the_fault_pages(tmp_path):
    from crawlers.mirror.facts import load_facts
    from tests.conftest import MINI_FACTS

    site = Site(facts_dir=MINI_FACTS)
    assert site.export(tmp_path) == 5 + 3 * len(site.entries) + 2
    expected = {"captcha.html": "blocked", "truncated.html": "truncated", "not_found.html": "not_found",
                "gbk.html": "ok"}
    for name, status in expected.items():
        assert parse((tmp_path / "special" / name).read_bytes(), BASE + "/x").status == status
    for layout in ("baidu", "sogou", "wikipedia"):
        for path in (tmp_path / layout).glob("*.html"):
            page = parse(path.read_bytes(), BASE + "/x")
            assert page.status in ("ok", "disambiguation") and page.source == layout, path
    assert len(load_facts(MINI_FACTS)) == len(site.entries)


def test_a_client_that_hung_up_leaves_no_traceback_on_the_terminal(capsys):
    """A search given up on after its timeout closes its connection before the answer is written: the mirror
    says nothing of it (http.server would print a BrokenPipeError traceback); any other error it still prints."""
    from crawlers.mirror.site import MirrorServer

    with MirrorServer() as mirror:
        for error in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset")):
            try:
                raise error
            except OSError:
                mirror.httpd.handle_error(None, ("127.0.0.1", 1))
        assert capsys.readouterr().err == ""
        try:
            raise ValueError("a real fault")
        except ValueError:
            mirror.httpd.handle_error(None, ("127.0.0.1", 1))
        assert "a real fault" in capsys.readouterr().err
