"""Cleaning and normalising values and texts: the cases the fuzzing suites (tests/fuzz) found."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from crawlers.parsers.text import CITATION, clean_name, clean_text, split_values
from filters.clean import INVISIBLE, clean
from filters.normalize import normalize, value_key


def test_invisible_is_every_control_and_format_character_but_whitespace():
    expected = {chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF
                and unicodedata.category(chr(c)) in ("Cc", "Cf") and not chr(c).isspace()}
    found = {chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF and INVISIBLE.match(chr(c))}
    assert found == expected, f"Unicode {unicodedata.unidata_version}: update filters.clean.INVISIBLE"


@pytest.mark.parametrize("text, cleaned", [
    ("北\u200e京", "北京"),  # a direction mark inside a name
    ("北京&shy;市", "北京市"),  # a soft hyphen, written as an entity
    ("\x8d泰山\x81", "泰山"),  # C1 controls that cp1252 leaves undefined, so ftfy keeps them
    ("李白\x01（701年）", "李白（701年）"),
    ("a\tb\nc", "a b c"),  # whitespace controls are spaces
])
def test_clean_drops_control_and_format_characters(text, cleaned):
    assert clean(text) == cleaned


@pytest.mark.parametrize("text", [
    "\u200b\x9b¢",  # the zero-width space hid "\x9b¢" from ftfy on the first pass, not on the second
    "Î[1]“",  # the citation held the halves of mojibake apart (Î“ is Γ) until clean_text removed it
])
def test_cleaning_twice_changes_nothing_when_mojibake_was_hidden(text):
    once = clean(text)
    assert clean(once) == once


def test_normalize_composes_a_mark_that_nfkc_wrote_after_a_space():
    # NFKC writes ´ as a space and a combining acute; with the space removed the acute must compose.
    assert normalize("a´") == "á"
    assert normalize(normalize("a´")) == normalize("a´")


@pytest.mark.parametrize("value, key", [("一余余", "一"), ("约约960万平方千米", "960万平方千米"), ("约多", "约多"),
                                        ("明代", "明朝"), ("约960万平方千米", "960万平方千米"), ("Ａ、´", "á")])
def test_value_key_drops_every_approximate_marker_and_is_its_own_key(value, key):
    assert value_key(value) == key
    assert value_key(key) == key


# Found by the fuzz suites in crawlers/parsers/text.py.

def test_split_values_never_splits_inside_a_title_with_a_stray_bracket():
    assert split_values("《）、》、《乙》") == ["《）、》", "《乙》"]


@pytest.mark.parametrize("name", [" •  • ", "• - 行政机构"])
def test_clean_name_strips_every_bullet_of_a_sub_row(name):
    cleaned = clean_name(name)
    assert cleaned.lstrip("•·・▪◦‧-–— ") == cleaned
    assert clean_name(cleaned) == cleaned


def test_clean_text_leaves_no_citation_mark():
    assert not CITATION.search(clean_text("[[1]1]中"))


def test_the_per_value_caches_keep_the_values_met_lately_not_the_crawls():
    """Each cache of a function of one value is bounded by one figure: a pass over every value of a
    crawl would otherwise leave them full for the rest of the run (filters.normalize.CACHE_ENTRIES)."""
    from builders.criteria_words import first_two_tagged as _tagged, split_words as _words, word_bounds as _bounds
    from builders.formats import value_format
    from filters.dedup import field_key
    from filters.grounding import _has_verb, _pieces
    from filters.normalize import CACHE_ENTRIES, _normalize_short, value_key

    assert 1 << 10 <= CACHE_ENTRIES <= 1 << 14
    for cached in (_bounds, _tagged, _words, value_format, field_key, _has_verb, _pieces, _normalize_short,
                   value_key):
        assert cached.cache_info().maxsize == CACHE_ENTRIES, cached.__name__
    value_key.cache_clear()
    for n in range(CACHE_ENTRIES + 50):
        value_key(f"第{n}号")
    assert value_key.cache_info().currsize == CACHE_ENTRIES and value_key("第1号") == "第1号"


def test_the_per_value_caches_are_emptied_together():
    """A run empties them as each stage ends (flows.stages.StageClock): their last entries would keep the
    memory of the stage's freed models."""
    from builders.criteria_words import first_two_tagged as _tagged, split_words as _words, word_bounds as _bounds
    from builders.formats import value_format
    from filters.dedup import field_key
    from filters.grounding import _has_verb, _pieces
    from filters.normalize import _normalize_short, clear_value_caches, value_key

    caches = (_bounds, _tagged, _words, value_format, field_key, _has_verb, _pieces, _normalize_short, value_key)
    _bounds("北京市"), _tagged("北京市"), _words("北京市"), value_format("1990年"), field_key("北京市")
    _has_verb("出生于北京"), _pieces("北京市"), value_key("北京市")
    assert all(cached.cache_info().currsize for cached in caches)
    clear_value_caches()
    assert [cached.__name__ for cached in caches if cached.cache_info().currsize] == []
    assert value_key("北京市") == "北京市"  # and they fill again
