"""The CDTP alignment filters on generated pairs: texts stitched from the pair's own values and
relation names, cue words, punctuation and random characters. Judging never raises, every drop
carries its reason, and the judgement of a pair depends on that pair alone."""

from __future__ import annotations

import copy

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from filters.align import cdtp_filters
from filters.enumerations import enumerations
from filters.text import AlignedText
from filters.base import Funnel, apply_filters
from filters.normalize import normalize
from schemas import Pair, Triple
from tests.fuzz.strategies import FUZZ, chinese_text, cjk_word

pytestmark = pytest.mark.slow

RELATIONS = ["出生日期", "出生地", "逝世地", "国籍", "职业", "代表作品", "字", "号", "别名", "中文名", "外文名", "海拔",
             "面积", "首都", "所属国家", "成立时间", "专辑歌手", "曲目数量", "操作系统", "上市日期", "毕业院校", "影响"]
# What joins a value to its relation in Baike prose, and what ends a clause or lists items.
GLUE = ["是", "为", "于", "的", "有", "和", "与", "及", "、", "，", "。", "；", "（", "）", "—", "：", "生于", "出生于",
        "位于", "逝世于", "代表作品有", "人", "年", "著名", "中国", "又名", "\n", " "]
VALUES = st.one_of(
    cjk_word,
    st.builds("{}{}".format, st.integers(0, 3000), st.sampled_from(["年", "米", "千米", "公里", "人", "首", "", "万"])),
    st.builds("{}-{:02d}-{:02d}".format, st.integers(100, 2100), st.integers(1, 12), st.integers(1, 31)),
    cjk_word.map("《{}》".format),
    st.text(max_size=6),
)
PAIR_FIELDS = ("decision", "reason", "position_index")


MARK_CHARS = list("、，,；;/／《》（）()【】「」“”：:。！？·—-～ 0123456789年月日米约余多第一二十个人首abc%")


@st.composite
def pairs(draw, pair_id: str = "p"):
    entity = draw(st.one_of(cjk_word, cjk_word, st.text(max_size=5)))
    triples = [Triple(head=entity, relation=r, tail=v)
               for r, v in draw(st.lists(st.tuples(st.sampled_from(RELATIONS), VALUES), max_size=6))]
    words = draw(st.lists(cjk_word, min_size=1, max_size=4))
    if draw(st.integers(0, 9)) == 0:
        text = draw(chinese_text)
    else:  # one draw per piece of text, an index into this table, keeps generation cheap
        table = [entity, *GLUE, *MARK_CHARS, *words, *(t.tail for t in triples), *(t.relation for t in triples)]
        text = "".join(table[i] for i in draw(st.lists(st.integers(0, len(table) - 1), max_size=30)))
    return Pair(pair_id=pair_id, entity=entity, text=text, triples=triples, aliases=words[:draw(st.integers(0, 2))])


def judge(batch: list[Pair], vocabulary: list[str], threshold: float = 0.75) -> list[Pair]:
    triple_filters, pair_filters = cdtp_filters(vocabulary, threshold=threshold)
    return list(apply_filters(copy.deepcopy(batch), triple_filters, pair_filters, Funnel()))


def verdicts(pair: Pair) -> tuple:
    return (*(getattr(pair, f) for f in PAIR_FIELDS), [(t.decision, t.reason, t.span_end) for t in pair.triples])


def check_invariants(pair: Pair, threshold: float) -> None:
    length = len(normalize(pair.text))
    for triple in pair.triples:
        if triple.decision == "kept":
            assert triple.reason == "" and 0 < triple.span_end <= length
        else:
            assert triple.decision == "dropped"
            name, _, why = triple.reason.partition(":")
            assert name in ("grounding", "relation") and why
    kept = [t for t in pair.triples if t.decision == "kept"]
    if pair.decision == "kept":
        assert pair.reason == "" and pair.position_index > threshold
    else:
        assert pair.decision == "dropped"
        name, _, why = pair.reason.partition(":")
        assert name in ("pair", "position_index", "trailing_relation", "enumeration") and why
    assert pair.position_index is None or 0 <= pair.position_index <= 1
    if kept:  # a pair with a grounded triple is never dropped for having none, and its index is measured
        assert pair.reason != "pair:no_grounded_triple"
        assert pair.position_index == round(max(t.span_end for t in kept) / length, 6)
    elif pair.decision == "dropped":
        assert pair.reason in ("pair:no_text", "pair:no_infobox", "pair:no_grounded_triple")


@st.composite
def same_id(draw, first: Pair):
    """A second pair of the first's id: another pair, or the first with its text turned round, with
    another entity, or the same again."""
    how = draw(st.integers(0, 3))
    if how == 0:
        return draw(pairs(first.pair_id))
    second = copy.deepcopy(first)
    if how == 1:
        cut = draw(st.integers(0, len(first.text)))
        second.text = first.text[cut:] + first.text[:cut]
    elif how == 2:
        second.entity, second.aliases = draw(cjk_word), []
    return second


@FUZZ
@given(pairs().flatmap(lambda first: st.tuples(st.just(first), same_id(first))), st.sampled_from([0.5, 0.75, 0.9]))
@example((  # two pairs of one id: each judged on its own text, not the first one's
    Pair(pair_id="p", entity="泰山", text="泰山海拔1545米。", triples=[Triple("泰山", "海拔", "1545米")]),
    Pair(pair_id="p", entity="黄山", text="黄山海拔1864米。", triples=[Triple("黄山", "海拔", "1864米")])), 0.75)
@example((  # names that overlap in the text (张三丰 and 三丰山 in 张三丰山脉): masked whichever comes first
    Pair(pair_id="p", entity="张三丰", aliases=["三丰山"], text="张三丰，出生日期为1247年，张三丰山脉。",
         triples=[Triple("张三丰", "出生日期", "1247年")]),
    Pair(pair_id="p", entity="山脉", text="", triples=[Triple("山脉", "山脉", "")])), 0.5)
def test_alignment_verdicts_have_reasons_and_depend_on_the_pair_alone(batch, threshold):
    vocabulary = sorted({t.relation for p in batch for t in p.triples})
    alone = [judge([pair], vocabulary, threshold)[0] for pair in batch]
    together = judge(list(batch), vocabulary, threshold)  # one id twice, one text cache
    assert [verdicts(p) for p in together] == [verdicts(p) for p in alone]  # and deterministic
    for pair in alone:
        check_invariants(pair, threshold)
        relations = {t.relation for t in pair.triples}
        if relations and set(vocabulary) <= relations and all(t.decision == "kept" for t in pair.triples):
            # every relation the text could name after the last triple is one of its own, covered
            assert not pair.reason.startswith("trailing_relation")
        if "、" not in normalize(pair.text) and "《" not in normalize(pair.text):
            assert not pair.reason.startswith("enumeration")


@FUZZ
@given(chinese_text, st.one_of(VALUES, chinese_text))
def test_a_found_mention_is_the_normalised_value_and_enumerations_never_raise(text, value):
    aligned = AlignedText(text)
    found = aligned.find(value)
    if found is not None:
        start, end = found
        assert aligned.text[start:end] == normalize(value)
    for items in enumerations(aligned.text):
        assert len(items) >= 2 and all(items)
