"""The realistic mirror profile: a generated Baike-like corpus whose planted properties are labelled."""

from __future__ import annotations

import collections
import json
import random
import re
import time

import pytest

from crawlers.mirror import realistic
from crawlers.mirror.realistic import INFOBOX_ROWS, REALISTIC_ID_BASE, SUMMARY_CHARS, RealisticCorpus
from crawlers.mirror.realistic.labels import _find
from crawlers.mirror.realistic.phrasing import _NAMES
from crawlers.mirror.render import Linker, strip_markup
from crawlers.mirror.site import Site
from crawlers.parsers import parse
from filters.clean import clean
from tests.crawlers.test_mirror import walk

BASE = "http://127.0.0.1:8800"
SAMPLE = 2000
LABEL_KEYS = {"profile", "seed", "index", "tier", "clean_summary", "noise", "rows", "extra_facts", "enumerations",
              "last_supported_end", "trailing_named_relations", "facts", "senses", "near_duplicate_of", "fillers"}
ROW_KEYS = {"relation", "value", "supported", "how", "form", "span", "named", "false", "true_value"}
HOWS = {"name", "cue", "pattern", "value_only", "absent", "contradicted", "partial"}
FORMS = {"verbatim", "date_notation", "numeral", "unit_word", "approximate"}
_MARKUP = re.compile(r"\[\[([^\[\]|]+)(?:\|[^\[\]]+)?\]\]")


def _squash(text: str) -> str:
    return re.sub(r"\s", "", text)


def _canonical(relation: str) -> str:
    """The relation a row shows under another spelling (出生时间 -> 出生日期)."""
    return next((c for c, aliases in realistic.ALIASES.items() if relation in aliases), relation)


@pytest.fixture(scope="module")
def corpus() -> RealisticCorpus:
    return RealisticCorpus(SAMPLE, seed=0)


@pytest.fixture(scope="module")
def entries(corpus):
    return list(corpus.take(SAMPLE))


@pytest.fixture(scope="module")
def site() -> Site:
    return Site(profile="realistic", size=300, seed=0, faults=False)


# --- determinism ---------------------------------------------------------------------------------


def test_entry_depends_only_on_seed_size_and_index(entries):
    other = RealisticCorpus(SAMPLE, seed=0)
    order = list(range(0, SAMPLE, 7))
    random.Random(3).shuffle(order)  # a cold corpus asked in another order gives the same entries
    for i in order:
        again = other.entry(i)
        assert (again.title, again.sense, again.summary, again.infobox, again.sections, again.labels) == (
            entries[i].title, entries[i].sense, entries[i].summary, entries[i].infobox, entries[i].sections,
            entries[i].labels)
        assert again.baidu_id == again.sogou_id == REALISTIC_ID_BASE + i


def test_different_seeds_give_different_corpora(entries):
    other = RealisticCorpus(SAMPLE, seed=1)
    generated = range(realistic.N_FIXED, realistic.N_FIXED + 200)
    differing = sum(other.entry(i).summary != entries[i].summary for i in generated)
    assert differing >= 190


def test_constructor_and_accessors_reject_bad_arguments(corpus):
    for size in (0, -5, 2.5, "10", True):
        with pytest.raises(ValueError, match="size"):
            RealisticCorpus(size)
    with pytest.raises(ValueError, match="seed"):
        RealisticCorpus(10, seed="a")
    with pytest.raises(IndexError):
        corpus.entry(SAMPLE)
    with pytest.raises(ValueError):
        list(corpus.take(SAMPLE + 1))
    with pytest.raises(ValueError):
        corpus.seeds(0)
    assert len(corpus) == SAMPLE


# --- labels --------------------------------------------------------------------------------------


def test_labels_follow_the_schema_and_are_json(entries):
    for e in entries:
        labels = e.labels
        assert set(labels) == LABEL_KEYS, e.title
        assert labels["profile"] == "realistic" and labels["seed"] == 0
        assert json.loads(json.dumps(labels, ensure_ascii=False)) == labels
        values = [v for _, cell in e.infobox for v in strip_markup(cell).split("、")]
        assert [r["value"] for r in labels["rows"]] == values, e.title  # one label per single value, in order
        for row in labels["rows"]:
            assert set(row) == ROW_KEYS and row["how"] in HOWS
            assert (row["form"] in FORMS) if row["supported"] else row["form"] is None
            assert row["supported"] == (row["how"] in ("name", "cue", "pattern"))
            assert (row["span"] is None) == (row["how"] == "absent")
            assert row["false"] == (row["true_value"] is not None)
            if row["false"]:  # the page is wrong throughout: where its text states the row, it states the false value
                assert row["true_value"] != row["value"] and row["how"] in ("name", "cue", "pattern", "absent")


def test_spans_lie_in_the_clean_summary_and_quote_their_values(entries):
    for e in entries:
        labels = e.labels
        text = labels["clean_summary"]
        for row in labels["rows"]:
            if row["span"] is None:
                continue
            start, end = row["span"]
            assert 0 <= start < end <= len(text), (e.title, row)
            quoted = text[start:end]
            if row["supported"] and row["form"] == "verbatim":
                assert quoted == row["value"], (e.title, row)
            elif row["supported"]:
                assert quoted != row["value"], (e.title, row)  # a paraphrase: another notation, numerals ...
            elif row["how"] == "value_only":
                assert quoted == row["value"], (e.title, row)
            elif row["how"] == "contradicted":
                assert quoted != row["value"], (e.title, row)
            elif row["how"] == "partial":
                assert quoted != row["value"] and quoted.rstrip("年") in row["value"], (e.title, row)
        for extra in labels["extra_facts"]:
            start, end = extra["span"]
            assert text[start:end] == extra["value"], (e.title, extra)
        for enum in labels["enumerations"]:
            start, end = enum["span"]
            assert 4 <= len(enum["items"]) <= 10 and len(enum["in_infobox"]) == len(enum["items"])
            listed = text[start:end]
            assert all(item in listed for item in enum["items"]), (e.title, enum)
        ends = [r["span"][1] for r in labels["rows"] if r["supported"]]
        assert labels["last_supported_end"] == (max(ends) if ends else None)


def test_summary_is_the_clean_text_plus_markup_and_noise(entries):
    for e in entries:
        text = strip_markup(e.summary)
        for noise in e.labels["noise"]:
            assert noise in text, (e.title, noise)
            text = text.replace(noise, "", 1)
        assert _squash(text) == _squash(e.labels["clean_summary"]), e.title


def test_absent_rows_are_really_absent_and_stale_rows_keep_the_current_value_in_facts(entries):
    for e in entries:
        labels = e.labels
        text = labels["clean_summary"]
        facts = {tuple(f) for f in labels["facts"]}
        for row in labels["rows"]:
            if row["how"] == "absent":
                assert _find(text, row["value"]) is None, (e.title, row)
            if row["how"] == "contradicted":
                start, end = row["span"]
                relation = _canonical(row["relation"])
                assert (relation, text[start:end]) in facts, (e.title, row)
                assert (relation, row["value"]) not in facts, (e.title, row)
        for extra in labels["extra_facts"]:
            assert (extra["relation"], extra["value"]) in facts


def test_trailing_named_relations_are_named_extra_facts_after_the_last_supported_row(entries):
    seen = 0
    for e in entries:
        labels = e.labels
        last = labels["last_supported_end"] or 0
        expected = []
        for extra in sorted(labels["extra_facts"], key=lambda x: x["span"]):
            if extra["named"] and extra["span"][0] >= last and extra["relation"] not in expected:
                expected.append(extra["relation"])
        assert labels["trailing_named_relations"] == expected, e.title
        seen += bool(expected)
    assert seen > 0


def test_enumeration_items_in_the_infobox_are_supported_rows(entries):
    for e in entries:
        for enum in e.labels["enumerations"]:
            rows = {r["value"]: r for r in e.labels["rows"] if _canonical(r["relation"]) == enum["relation"]}
            for item, boxed in zip(enum["items"], enum["in_infobox"]):
                assert boxed == (item in rows), (e.title, item)
                assert not boxed or rows[item]["supported"], (e.title, item)


# --- distributions and planted properties -----------------------------------------------------------


def test_tiers_summary_lengths_and_row_counts_fall_in_their_ranges(entries):
    tiers = collections.Counter(e.labels["tier"] for e in entries)
    assert 0.03 <= tiers["famous"] / SAMPLE <= 0.09
    assert 0.20 <= tiers["mid"] / SAMPLE <= 0.32
    assert 0.60 <= tiers["long_tail"] / SAMPLE <= 0.76
    for e in entries:
        tier = e.labels["tier"]
        low, high = SUMMARY_CHARS[tier]
        assert low <= len(e.labels["clean_summary"]) <= high, (e.title, tier, len(e.labels["clean_summary"]))
        low, high = INFOBOX_ROWS[tier]
        assert low <= len(e.infobox) <= high, (e.title, tier, len(e.infobox))
        assert 2 <= len(e.sections) <= 5 and all(1 <= len(p) <= 3 for _, p in e.sections)
    layouts = collections.Counter(e.layout for e in entries)
    assert 0.18 <= layouts["baidu_legacy"] / SAMPLE <= 0.32


def test_each_planted_property_occurs(entries):
    rows = [r for e in entries for r in e.labels["rows"] if r["relation"] != "中文名"]
    hows = collections.Counter(r["how"] for r in rows)
    forms = collections.Counter(r["form"] for r in rows if r["supported"])
    extras = [x for e in entries for x in e.labels["extra_facts"]]
    enums = [x for e in entries for x in e.labels["enumerations"]]
    noise = [n for e in entries for n in e.labels["noise"]]
    assert hows["absent"] > 0.2 * len(rows)  # the most common case
    assert 0.35 < sum(r["supported"] for r in rows) / len(rows) < 0.65  # CDTP keeps about half
    for how in ("name", "cue", "pattern", "value_only", "contradicted", "partial"):
        assert hows[how] > 0, how
    for form in FORMS:
        assert forms[form] > 0, form
    assert any(x["named"] for x in extras) and any(not x["named"] for x in extras)
    assert any(all(x["in_infobox"]) for x in enums) and any(not all(x["in_infobox"]) for x in enums)
    assert any(n.startswith("[") for n in noise) and any(not n.strip() for n in noise)
    assert any(e.labels["senses"] > 1 for e in entries)
    assert any(e.labels["near_duplicate_of"] is not None for e in entries)
    shown = {r["relation"] for r in rows}
    assert shown & {"出生时间", "出生年月", "生日", "代表作", "主要作品", "别称", "又名", "英文名", "外文名称"}


def test_multi_sense_titles_are_labelled_and_differ_by_sense(entries):
    by_title = collections.defaultdict(list)
    for e in entries:
        by_title[e.title].append(e)
    shared = [group for group in by_title.values() if len(group) > 1]
    assert 0.015 <= len(shared) / len(by_title) <= 0.05  # about 3% of titles
    for group in by_title.values():
        assert all(e.labels["senses"] == len(group) for e in group), group[0].title
        assert len({e.sense for e in group}) == len(group), group[0].title
    people = [g for g in shared if all(e.type == "person" for e in g)]
    overlapping = [g for g in people if len({dict(map(tuple, e.labels["facts"])).get("出生地") for e in g}) == 1]
    assert overlapping  # two people of the same name born in the same city


def test_near_duplicates_copy_an_earlier_entry_with_light_edits(entries):
    dups = [e for e in entries if e.labels["near_duplicate_of"] is not None]
    assert 0.003 <= len(dups) / SAMPLE <= 0.02
    for dup in dups:
        source = entries[dup.labels["near_duplicate_of"]]
        assert source.labels["index"] < dup.labels["index"]
        assert dup.title != source.title and len(dup.title) == len(source.title)
        assert len(dup.summary) == len(source.summary) and dup.summary != source.summary
        assert dup.sections == source.sections and dup.type == source.type


def test_links_point_at_entries_of_the_corpus(corpus, entries):
    titles = {e.title for e in entries}
    for e in entries[:500]:
        parts = [e.summary] + [v for _, v in e.infobox] + [p for _, ps in e.sections for p in ps]
        for part in parts:
            for target in _MARKUP.findall(part):
                assert target in titles and target != e.title, (e.title, target)


def test_fillers_name_no_relation_of_the_vocabulary():
    names = {n for rel in realistic.PHRASES for n in _NAMES[rel] if len(n) >= 2} | {"中文名"}
    for family, sentences in {**realistic.FILLERS, **realistic.LINK_FILLERS}.items():
        for sentence in sentences:
            assert not [n for n in names if n in sentence], (family, sentence)


def test_relation_aliases_are_the_reviewed_ones():
    table = {}
    for line in open("filters/relation_aliases.tsv", encoding="utf-8"):
        if line.strip() and not line.startswith("#"):
            alias, canonical = line.rstrip("\n").split("\t")
            table[alias] = canonical
    for canonical, aliases in realistic.ALIASES.items():
        assert all(table[a] == canonical for a in aliases)


def test_seeds_are_famous_titles_of_the_corpus(corpus, entries):
    seeds = corpus.seeds(10)
    assert len(seeds) == len(set(seeds)) == 10
    tiers = {e.title: e.labels["tier"] for e in entries}
    assert all(tiers[t] == "famous" for t in seeds)


def test_generation_speed_is_printed(capsys):
    started = time.perf_counter()
    count = 3000
    for _ in RealisticCorpus(100_000, seed=5).take(count):
        pass
    per_entry = (time.perf_counter() - started) / count
    with capsys.disabled():
        print(f"\nrealistic corpus: {per_entry * 1e3:.3f} ms per entry, ~{per_entry * 100_000:.0f} s per 100k")


# --- serving -------------------------------------------------------------------------------------------


def test_site_serves_entries_that_parse_back_to_their_labels(site):
    for e in site.entries:
        response = site.respond(f"/item/{e.title}/{e.baidu_id}")
        page = parse(response.body, f"{BASE}/item/x/{e.baidu_id}")
        assert page.status == "ok" and (page.title, page.subtitle) == (e.title, e.sense), e.title
        assert [i.name for i in page.infobox] == [name for name, _ in e.infobox], e.title
        assert [i.value for i in page.infobox] == [clean(strip_markup(v)) for _, v in e.infobox], e.title
        assert _squash(clean(page.summary)) == _squash(e.labels["clean_summary"]), e.title


def test_multi_sense_title_serves_its_sense_list(site):
    title, senses = next((t, s) for t, s in site.by_title.items() if len(s) > 1)
    page = parse(site.respond(f"/item/{title}").body, f"{BASE}/item/{title}")
    assert page.status == "disambiguation"
    assert sorted(s["label"] for s in page.senses) == sorted(e.sense for e in senses)
    entry_page = parse(site.respond(f"/item/{title}/{senses[0].baidu_id}").body, f"{BASE}/item/x")
    assert len(entry_page.senses) == len(senses)


def test_a_depth_first_walk_from_the_seeds_reaches_most_entries(site):
    assert len(walk(site, site.corpus.seeds(10))) >= 0.85 * len(site.entries)


def test_realistic_site_links_only_explicit_markup(site):
    assert site.baidu_link.pattern is None
    linker = Linker(["长江", "黄河"], lambda t: f"/item/{t}", auto=False)
    html = linker("长江与[[黄河]]", "x", set())
    assert 'href="/item/黄河"' in html and 'href="/item/长江"' not in html


def test_site_profiles_reject_bad_arguments():
    with pytest.raises(ValueError, match="profile"):
        Site(profile="wikipedia")
    with pytest.raises(ValueError, match="realistic"):
        Site(size=100)
    with pytest.raises(ValueError, match="size and seed only"):
        Site(profile="realistic", size=10, synthetic=5)
    with pytest.raises(ValueError, match="size"):
        Site(profile="realistic")


def test_fault_pages_work_on_the_realistic_profile():
    faulty = Site(profile="realistic", size=120)
    assert parse(faulty.respond("/__mirror__/truncated").body, BASE + "/x").status == "truncated"
    gbk = faulty.respond("/__mirror__/gbk")
    assert "gbk" in gbk.headers["Content-Type"] and parse(gbk.body, BASE + "/x").status == "ok"


def test_some_stated_figures_are_planted_false_and_keep_their_true_value(entries):
    false = [(e, r) for e in entries for r in e.labels["rows"] if r["false"]]
    assert false, "no planted false value to measure search validation on"
    for e, row in false:  # the world's facts (what other sites state) hold the true value, never the false one
        values = {v for _, v in e.labels["facts"]}
        assert row["true_value"] in values and row["value"] not in values, e.title
