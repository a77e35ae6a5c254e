"""Value normalisation on generated Chinese-heavy strings: text cleaning, matching normalisation,
value keys, cell splitting and answer comparison never raise, and keep their promises."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from builders.contamination import answers_agree
from builders.criteria import answer_core, answer_in_question, answer_length, is_enumeration
from crawlers.parsers.text import CITATION, clean_name, clean_text, split_values
from filters.clean import clean
from filters.normalize import _t2s, normalize, normalize_once, value_key
from tests.fuzz.strategies import CJK, FUZZ, chinese_text, cjk_word
from verifiers.items import match_grade as verify_grade
from warehouse.scoring import _REFUSALS, match_grade, tokens

pytestmark = pytest.mark.slow

ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
SEPARATORS = "、，,；;／/\n"
_CJK_RANGE = r"\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef"



@FUZZ
@given(chinese_text)
@example("a´")  # NFKC writes ´ as a space and a combining mark: the mark must compose once the space goes
@example("一余余")  # a marker behind a marker: the key's key is the key
@example("Ａ、´")  # the mark composes once the punctuation between is gone
@example("约约960万平方千米")
@example("\x8d")  # a C1 control that cp1252 leaves undefined: ftfy keeps it
@example("北\u200e京&shy;市")
@example("\u200b\x9b¢")  # the zero-width space hid mojibake from ftfy on the first pass only
@example("Î[1]“")  # the citation held mojibake apart until it was removed
@example("1,881-09-25")
@example("公、里")  # the unit appears once the punctuation is gone: 公里 is 千米
def test_cleaning_and_normalisation_keep_their_promises(text):
    once = normalize(text)
    assert normalize(once) == once and normalize_once(text) == once
    assert not any(ch.isspace() for ch in once)

    key = value_key(text)
    assert value_key(key) == key == value_key(once)
    assert not any(unicodedata.category(ch).startswith(("P", "Z")) for ch in key)
    if key:
        assert answers_agree(key, key) is True

    cleaned = clean_text(text)
    assert cleaned == cleaned.strip() and not any(ch in cleaned for ch in ZERO_WIDTH)
    assert not re.search(r"\s\s", cleaned) and not re.search(rf"[{_CJK_RANGE}]\s[{_CJK_RANGE}]", cleaned)
    assert clean_text(cleaned) == cleaned and not CITATION.search(cleaned)

    name = clean_name(text)
    assert name == name.strip() and not name.endswith((":", "："))
    assert not re.search(r"\s", name.replace(" ", "")) and "  " not in name
    assert clean_name(name) == name

    matched = clean(text)
    assert matched == matched.strip()
    assert not [ch for ch in matched if unicodedata.category(ch) in ("Cc", "Cf")]
    if "&" not in text:
        assert clean(matched) == matched  # an entity (&amp;lt;) unescapes once per call, by design

    values = split_values(text)
    content = text.strip()
    position = 0
    for value in values:  # the values, in order, with nothing but separators and space between them
        assert value and value == value.strip()
        found = content.find(value, position)
        assert found >= 0 and all(ch in SEPARATORS or ch.isspace() for ch in content[position:found])
        position = found + len(value)
    assert all(ch in SEPARATORS or ch.isspace() for ch in content[position:])
    assert all(v and v == v.strip() for v in split_values(text, values[:1] + [text[:3], text[3:]]))


@FUZZ
@given(st.integers(0, 9999), st.integers(1, 12), st.integers(1, 31), st.sampled_from("-/."),
       st.integers(0, 10 ** 12), st.text(alphabet="0123456789abcxyzABCXYZ", max_size=12))
def test_normalize_writes_dates_numbers_and_full_width_forms_one_way(year, month, day, mark, number, latin):
    if year >= 100:
        written = f"{year}年{month}月{day}日"
        assert normalize(f"{year}{mark}{month:02d}{mark}{day:02d}") == written
        assert normalize(f"{year}年{month:02d}月{day:02d}日") == written
    assert normalize(f"{number:,}") == str(number)
    full_width = "".join(chr(ord(ch) + 0xFEE0) for ch in latin)
    assert normalize(full_width) == normalize(latin) == latin.lower()


# Titles, stray brackets of another kind inside included (《）、》, 《（、》).
title = st.lists(st.one_of(CJK, CJK, st.sampled_from(list("、，,；;/／·：: 12ab（）()"))), min_size=1, max_size=8) \
    .map(lambda chars: "《" + "".join(chars) + "》")


@FUZZ
@given(st.lists(title, min_size=1, max_size=5), st.sampled_from(["、", "，", "；", "/", "／", "\n", " / ", ", "]))
def test_split_values_never_splits_a_title(titles, separator):
    assert split_values(separator.join(titles)) == [t.strip() for t in titles]


@FUZZ
@given(chinese_text, st.one_of(chinese_text, cjk_word))
def test_answer_comparison_and_criteria_never_raise_and_an_answer_matches_itself(response, answer):
    for grade in (match_grade, verify_grade):
        assert grade(answer, response) in ("CORRECT", "INCORRECT", "NOT_ATTEMPTED")
    gold = normalize(answer)
    if gold and not any(r in gold for r in _REFUSALS):
        assert match_grade(answer, answer) == "CORRECT"
        assert verify_grade(answer, answer) == "CORRECT"
    converted = _t2s().convert(unicodedata.normalize("NFKC", response)).lower()
    assert "".join(tokens(response)) == re.sub(r"\s", "", converted)  # tokens lose whitespace, nothing else
    a, b = value_key(answer), value_key(response)
    assert answers_agree(a, b) == answers_agree(b, a)

    assert answer_length(answer) >= 0
    core = answer_core(answer)
    assert core == core.strip()
    assert isinstance(is_enumeration(answer), bool)
    assert isinstance(answer_in_question(response, answer), bool)
