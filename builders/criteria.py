"""The Chinese SimpleQA question criteria that rules can decide offline, without an LLM.

Chinese SimpleQA (section 3.2) asks for questions with one unambiguous answer that does
not change over time, and for short answers. :func:`check_question` applies the parts
of that a rule can check and returns the failed criteria as reason codes. The codes
are stored in releases; keep them stable:

* ``empty``                 the question or the answer is blank (nothing else is checked)
* ``answer_too_long``       the stripped answer has more than ``max_answer_chars`` characters
* ``answer_in_question``    the answer, normalised (:func:`filters.normalize.normalize`),
                            occurs in the normalised question, so the question gives it away
* ``multiple_answers``      the answer is an enumeration: it contains 、，；(or , ; outside
                            numbers), joins two items with 和/及/与/以及/跟, or ends with 等
* ``relative_time``         the question or answer contains a word from
                            ``relative_time_words.txt`` (现任, 目前, 至今 ...)
* ``time_variant_relation`` the relation is in ``time_variant_relations.txt`` (人口, 市值,
                            首席执行官 ...) or contains a relative-time word (现任校长)

Codes come back in this order. Subjectivity, contention and difficulty need a reader
or a model and are left to the verification stages.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from filters.normalize import normalize

REASONS = ("empty", "answer_too_long", "answer_in_question", "multiple_answers", "relative_time",
           "time_variant_relation")
RELATIVE_TIME_WORDS = Path(__file__).with_name("relative_time_words.txt")
TIME_VARIANT_RELATIONS = Path(__file__).with_name("time_variant_relations.txt")

# Words in which 和/及/与 is part of the word, not a conjunction between two items.
_NOT_CONJUNCTIONS = (
    "共和", "和平", "和约", "和会", "和谐", "和解", "和睦", "和尚", "和田", "和氏", "和亲", "和服", "和声", "和弦", "和煦",
    "和硕", "饱和", "缓和", "总和", "柔和", "温和", "中和", "调和", "讲和", "平和", "亲和", "附和", "暖和", "祥和",
    "谦和", "人和", "大和", "太和", "保和", "颐和", "六和", "埃及", "普及", "涉及", "波及", "企及", "及第", "及时",
    "及格", "不及", "参与", "给与", "赠与", "授与", "与会", "与否", "与其",
)
_NOT_CONJUNCTION = re.compile("|".join(sorted(_NOT_CONJUNCTIONS, key=len, reverse=True)))
_CONJUNCTION = re.compile(r"以及|和|及|与|跟")
_LIST_MARK = re.compile(r"[、，；]|(?<!\d)[,;]|[,;](?!\d)")
_TITLE = re.compile(r"《[^《》]*》")
# 等 closing a list, not the 等 of 一等, 中等, 平等, 相等 ...
_TRAILING_DENG = re.compile(r"(?<![一二三四五六七八九十头上中下高初平同对均相优劣次特超])等$")


@lru_cache(maxsize=8)
def load_word_list(path: Path) -> frozenset[str]:
    """One entry per line; ``#`` starts a comment; an entry may not contain whitespace."""
    entries: set[str] = set()
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        if any(c.isspace() for c in entry):
            raise ValueError(f"{path}:{number}: {entry!r} contains whitespace; write one entry per line")
        entries.add(entry)
    return frozenset(entries)


@lru_cache(maxsize=8)
def _word_pattern(path: Path) -> re.Pattern[str]:
    words = sorted(load_word_list(path), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, words))) if words else re.compile(r"(?!)")


def answer_budget_ok(answer: str, max_chars: int) -> bool:
    """Whether the stripped answer has at most ``max_chars`` characters."""
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, got {max_chars}")
    return len(answer.strip()) <= max_chars


def is_enumeration(answer: str) -> bool:
    """Whether the answer lists several items (see ``multiple_answers`` in the module docstring)."""
    text = _TITLE.sub("《》", answer.strip())  # 《战争与和平》 is one title
    if _LIST_MARK.search(text) or _TRAILING_DENG.search(text):
        return True
    text = _NOT_CONJUNCTION.sub(lambda m: "□" * len(m.group(0)), text)
    return any(m.start() >= 2 and len(text) - m.end() >= 2 for m in _CONJUNCTION.finditer(text))


def check_question(question: str, answer: str, relation: str = "", max_answer_chars: int = 20) -> list[str]:
    """The failed criteria of a question-answer pair as reason codes, in :data:`REASONS` order; [] passes."""
    if max_answer_chars < 1:
        raise ValueError(f"max_answer_chars must be at least 1, got {max_answer_chars}")
    if not question.strip() or not answer.strip():
        return ["empty"]
    failed = []
    if not answer_budget_ok(answer, max_answer_chars):
        failed.append("answer_too_long")
    norm_answer = normalize(answer)
    if norm_answer and norm_answer in normalize(question):
        failed.append("answer_in_question")
    if is_enumeration(answer):
        failed.append("multiple_answers")
    relative = _word_pattern(RELATIVE_TIME_WORDS)
    if relative.search(question) or relative.search(answer):
        failed.append("relative_time")
    if relation and (relation in load_word_list(TIME_VARIANT_RELATIONS) or relative.search(relation)):
        failed.append("time_variant_relation")
    return failed
