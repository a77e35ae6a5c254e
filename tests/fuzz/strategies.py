"""Chinese-heavy inputs for the fuzzing suites, and their shared settings.

The suites run 10,000 generated cases per property, derandomised (the same cases on every run,
so CI is stable) and without an example database (nothing written beside the checkout).
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

FUZZ = settings(max_examples=10_000, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])

# CJK characters: the unified ideographs with extension A (U+3400-U+9FFF, with the few hexagram
# symbols between them) and the compatibility ideographs, what filters.normalize.is_cjk accepts. One
# character set, so that a run of them is a single choice for Hypothesis (cheap to draw and to shrink).
CJK = st.characters(min_codepoint=0x3400, max_codepoint=0x9FFF,
                    include_characters="".join(map(chr, range(0xF900, 0xFB00))))
# Characters of infobox cells and summaries: separators, brackets, full-width forms, digits and units.
MARKS = st.sampled_from(list(
    "、，,；;/／《》（）()【】「」“”‘’：:。！？·•—-～~ .\n\t\r"
    "０１２３４５６７８９ＡＢＣａｂｃ％\u3000\u00a0"
    "0123456789年月日时分米千克公里斤万亿约余多左右以上第一二三十个人首"
    "abcxyzABCXYZ%℃°²³µμ"
    "[]注"
))
# The invisible characters pages carry: zero-width, direction marks, soft hyphens, controls.
INVISIBLE = st.sampled_from(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u200e", "\u200f", "\u202a",
                             "\u202e", "\u00ad", "\x00", "\x01", "\x1b", "\x1f", "\x7f", "\x85", "\x8d", "\x9f",
                             "\u2028", "\u2029", "\x0b", "\x0c"])
UNITS = st.sampled_from(["米", "千米", "公里", "千克", "公斤", "平方千米", "万平方千米", "亿元", "人", "年", "岁",
                         "kg", "km", "m²", "%", "℃"])
# Pieces the cleaners look for: citation marks, sub-row bullets, entities, dates, thousands, markers.
PIECES = st.sampled_from(["[1]", "[2,5]", "[1-3]", "[注 1]", "[a]", "[编辑]", " • ", " - ", "·", "—", "：", " : ",
                          "播报", "编辑", "&amp;", "&shy;", "<b>", "</b>", "1881-09-25", "1959年08月14日",
                          "1,545", "约", "余", "多", "左右", "明代", "第二", "首轮", "《", "》", "（", "）"])

cjk_word = st.text(alphabet=CJK, min_size=1, max_size=4)
# Prose in one draw: CJK with the CJK marks (U+3000-U+303F: 、。《》「」), full-width forms and ASCII.
cjk_text = st.text(alphabet=st.characters(min_codepoint=0x3000, max_codepoint=0x9FFF,
                                          include_characters="，；：（）！？０１２ 0123456789abc-/"), max_size=24)
# Runs of CJK between separators, brackets, digits, units, the cleaners' pieces, invisible characters
# and now and then any characters at all (st.text's default: anything but a lone surrogate).
chinese_text = st.lists(st.one_of(st.text(alphabet=CJK, min_size=1, max_size=6), MARKS, MARKS, INVISIBLE, UNITS,
                                  PIECES, st.text(max_size=2)), max_size=16).map("".join)
