"""The Chinese SimpleQA question criteria that rules can decide offline, without an LLM.

Chinese SimpleQA (section 3.2) asks for questions with one unambiguous, objective answer
that does not change over time, and for short answers. :func:`check_question` applies
the parts of that a rule can check and returns the failed criteria as reason codes. The
codes are stored in releases; keep them stable:

* ``empty``                 the question or the answer is blank (nothing else is checked)
* ``answer_too_long``       the answer's length (:func:`answer_length`: its core without
                            bracketed glosses, a Latin-script word or a number counting as
                            one) is more than ``max_answer_chars``
* ``answer_in_question``    the answer, normalised (:func:`filters.normalize.normalize`),
                            occurs in the normalised question, so the question gives it away:
                            a number or code not inside a longer number or code (8 is not in
                            GB50489, 1年 not in 2021年), one Chinese character only as a whole
                            word (否 is not in 是否), a longer Chinese answer anywhere (太宗 in
                            唐太宗); not when the question offers it as a choice (A还是B)
* ``multiple_answers``      the answer's core (glosses left out, as for answer_too_long) is an
                            enumeration: it contains 、，；(or , ; outside numbers), joins two items with the word 和/及/与/以及/跟
                            (jieba segmentation: 阿尔及利亚 is one word; not inside one name,
                            ``name_heads.txt``: 康乐及文化事务署, unless both sides are places:
                            欧洲及亚洲中部), ends with 等 (等地), sets items apart by spaces, slashes
                            or labels (平假名：…), or glosses several values (5（简单）8（普通）); unless the
                            question asks for a counted set (哪两种, 三种理论是什么), whose
                            members are its one answer, or for a full name (全称)
* ``relative_time``         the question or answer contains a word from
                            ``relative_time_words.txt`` (现任, 目前, 至今 ...) as whole words,
                            outside titles and quotes, in a clause without an explicit date
                            (截至2020年 is dated)
* ``time_variant_relation`` the relation is in ``time_variant_relations.txt`` (人口, 市值,
                            首席执行官 ...) or contains a relative-time word (现任校长)
* ``time_variant_question`` the question itself asks for the value of a relation of
                            ``time_variant_relations.txt`` (a word of it, then the ask:
                            苹果公司的首席执行官是谁, 人口最多的国家) with no explicit date and no word of
                            ``time_anchor_words.txt`` (首任, 第几任, 曾任, 哪一年 ...); only when
                            neither relative_time nor time_variant_relation failed already
* ``asks_for_several``      the question asks for several things: a word of
                            ``several_answers_words.txt`` (有哪些, 列举, 有什么著名 ...)
* ``subjective``            the question asks for a judgement: 最 + a word of
                            ``subjective_words.txt`` (最美, 最好, 最著名, 最受欢迎 ...) says what is
                            asked, in a clause that asks and names no award or poll
* ``unnamed_referent``      the question's subject is only a pronoun or demonstrative: its
                            first word is one of ``referring_words.txt`` (他, 该, 这部, 此人 ...)
                            and it names nothing by a title, a quote or a Latin-script name
* ``underspecified_subject`` the subject names no one in particular: a common given name alone
                            or after a common surname (``underspecified_names.txt``: 卫国, 王伟)
                            or a person known only by a generic title (赵戬老师), with nothing
                            else said of them; a bare lower-case handle (max的父亲); a typhoon
                            name without its year; a title that ``senses`` (a crawl's sense
                            lists) gives to several entries, with no word of any of its senses
* ``one_of_many``           a word of ``multi_valued_words.txt`` (孙子, 下设, 子公司 ...) is asked
                            for in the singular with nothing that singles one value out (an
                            order, 唯一, 最, a date, a count, a narrowing verb: 饰演X的演员)
* ``explanatory``           the question asks for an explanation: a word of
                            ``explanatory_words.txt`` (由来, 职能, 要点, 简介 ...) asked untyped, a
                            how or why (怎么制作, 为什么会), a meaning (何意, 是什么意思), 你知道X是什么吗,
                            a bare 如何 or 是怎样的; or the answer is a statement (名称来源于…)
* ``kb_debris``             the question asks for a knowledge base's layout (第一条是什么, 解释2)
                            or the answer is a section's name (概述, 简介)
* ``no_reference_point``    a distance to a place of a kind rather than a name (离火车站有多远),
                            or a rank asked with no field to rank in and no measured dimension
* ``answer_type_mismatch``  the answer does not answer the ask: a time asked and no date or a
                            duration given, a number asked and none given, a place or a person
                            asked and only a date given, or an answer saying it is not known

Codes come back in this order. Contention, difficulty, several answers that only the
facts reveal (a ruler with two era names asked 使用过什么年号) and records that may be
broken (世界上最高的建筑) need a reader or a model and are left to the verification stages.

The rules are in :mod:`builders.criteria_answers` and :mod:`builders.criteria_questions`, the word lists
and the jieba words they are matched against in :mod:`builders.criteria_words`; here, each failed rule
becomes a :class:`Failure` with its reason code and span.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from builders.criteria_answers import (answer_budget_ok, answer_core, answer_in_question, answer_in_question_span,
                                       answer_length, enumeration_span, is_enumeration, mismatch_span, one_name,
                                       sentence_span)
from builders.criteria_questions import (asks_counted_set, asks_for_several, explanatory_span, has_unnamed_referent,
                                         is_subjective, is_time_variant_question, kb_debris_span, one_of_many_span,
                                         reference_span, relative_time_words, several_span, subjective_span,
                                         time_variant_span, underspecified_span, unnamed_span)
from builders.criteria_words import (EXPLANATORY_WORDS, MULTI_VALUED_WORDS, NAME_HEADS, REFERRING_WORDS,
                                     RELATIVE_TIME_WORDS, SEVERAL_ANSWERS_WORDS, SUBJECTIVE_WORDS, TIME_ANCHOR_WORDS,
                                     TIME_VARIANT_RELATIONS, UNDERSPECIFIED_NAMES, load_word_list, word_pattern)

# What callers import from here: the checks, and the word lists and measures they read beside them.
__all__ = ["REASONS", "Failure", "check_question", "explain_question", "check_wording", "explain_wording",
           "answer_core", "answer_length", "answer_budget_ok", "is_enumeration", "answer_in_question",
           "asks_counted_set", "is_time_variant_question", "asks_for_several", "is_subjective", "has_unnamed_referent",
           "load_word_list", "RELATIVE_TIME_WORDS", "TIME_VARIANT_RELATIONS", "TIME_ANCHOR_WORDS",
           "SEVERAL_ANSWERS_WORDS", "SUBJECTIVE_WORDS", "REFERRING_WORDS", "NAME_HEADS", "EXPLANATORY_WORDS",
           "MULTI_VALUED_WORDS", "UNDERSPECIFIED_NAMES"]

REASONS = ("empty", "answer_too_long", "answer_in_question", "multiple_answers", "relative_time",
           "time_variant_relation", "time_variant_question", "asks_for_several", "subjective", "unnamed_referent",
           "underspecified_subject", "one_of_many", "explanatory", "kb_debris", "no_reference_point",
           "answer_type_mismatch")
# A full name is one name, whatever it joins: 独立验证及确认 is the 全称 of IV&V.
_ASKS_FULL_NAME = re.compile(r"全称|全名")
# An answer that is still going on (2010年6月-), or a count as of a day (截至2019年7月): both change.
_OPEN_RANGE = re.compile(r"(?<=[\d年月日])\s*[-—–~～至]\s*(?:今)?$")
_AS_OF = re.compile(r"截至|截止|至今|迄今")


@dataclass(frozen=True)
class Failure:
    """A failed criterion: its reason code, the text that triggered it, and where that text is
    (``question``, ``answer`` or ``relation``; ``""`` for ``empty``)."""

    reason: str
    span: str
    field: str

    def as_dict(self) -> dict:
        return {"reason": self.reason, "field": self.field, "span": self.span}


def check_question(question: str, answer: str, relation: str = "", max_answer_chars: int = 20,
                   senses: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    """The failed criteria of a question-answer pair as reason codes, in :data:`REASONS` order; [] passes."""
    return [f.reason for f in explain_question(question, answer, relation, max_answer_chars, senses)]


def explain_question(question: str, answer: str, relation: str = "", max_answer_chars: int = 20,
                     senses: Mapping[str, Sequence[str]] | None = None) -> list[Failure]:
    """The failed criteria with the span that triggered each (see :func:`check_question`). ``senses``
    maps a title that several entries share to the labels that tell them apart (a crawl's sense lists), for
    ``underspecified_subject``."""
    if max_answer_chars < 1:
        raise ValueError(f"max_answer_chars must be at least 1, got {max_answer_chars}")
    if not question.strip() or not answer.strip():
        return [Failure("empty", "", "")]
    failed = []
    listed = enumeration_span(answer)
    if not answer_budget_ok(answer, max_answer_chars) and (listed or not one_name(answer)):
        failed.append(Failure("answer_too_long", answer_core(answer), "answer"))
    given_away = answer_in_question_span(question, answer)
    if given_away:
        failed.append(Failure("answer_in_question", given_away, "question"))
    if listed and not asks_counted_set(question) and not _ASKS_FULL_NAME.search(question):
        failed.append(Failure("multiple_answers", listed, "answer"))
    failed += _wording(question, answer, relation, senses)
    if not any(f.reason == "explanatory" for f in failed):
        sentence = sentence_span(answer)
        if sentence:
            failed.append(Failure("explanatory", sentence, "answer"))
    mismatch = mismatch_span(question, answer)
    if mismatch:
        failed.append(Failure("answer_type_mismatch", mismatch, "question"))
    return sorted(failed, key=lambda f: REASONS.index(f.reason))


def check_wording(question: str, relation: str = "", senses: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    """The criteria a question's own wording decides, for a question without its answer (the codes
    from ``relative_time`` on, in :data:`REASONS` order); [] passes, ``["empty"]`` for a blank question."""
    return [f.reason for f in explain_wording(question, relation, senses)]


def explain_wording(question: str, relation: str = "",
                    senses: Mapping[str, Sequence[str]] | None = None) -> list[Failure]:
    """:func:`check_wording` with the span of each failure."""
    return _wording(question, "", relation, senses) if question.strip() else [Failure("empty", "", "")]


def _wording(question: str, answer: str, relation: str,
             senses: Mapping[str, Sequence[str]] | None = None) -> list[Failure]:
    failed = []
    relative = relative_time_words(question)
    if relative:
        failed.append(Failure("relative_time", relative[0], "question"))
    elif answer:
        # 2010年6月-: still going on; 2篇（截至2019年7月）: a count as of a day, which has changed since
        found = relative_time_words(answer) or [m.group(0) for m in (_OPEN_RANGE.search(answer.strip()),
                                                                       _AS_OF.search(answer)) if m]
        if found:
            failed.append(Failure("relative_time", found[0], "answer"))
    if relation and (relation in load_word_list(TIME_VARIANT_RELATIONS)
                     or word_pattern(RELATIVE_TIME_WORDS).search(relation)):
        failed.append(Failure("time_variant_relation", relation, "relation"))
    if not {"relative_time", "time_variant_relation"} & {f.reason for f in failed}:
        span = time_variant_span(question)
        if span:
            failed.append(Failure("time_variant_question", span, "question"))
    for reason, rule in (("asks_for_several", several_span), ("subjective", subjective_span),
                         ("unnamed_referent", unnamed_span)):
        span = rule(question)
        if span:
            failed.append(Failure(reason, span, "question"))
    span = underspecified_span(question, senses)
    if span:
        failed.append(Failure("underspecified_subject", span, "question"))
    if not any(f.reason == "asks_for_several" for f in failed):
        span = one_of_many_span(question)
        if span:
            failed.append(Failure("one_of_many", span, "question"))
    span = explanatory_span(question)
    if span:
        failed.append(Failure("explanatory", span, "question"))
    span = kb_debris_span(question, answer)
    if span:
        failed.append(Failure("kb_debris", span, "answer" if span == answer_core(answer).strip() and span not in
                              question else "question"))
    span = reference_span(question)
    if span:
        failed.append(Failure("no_reference_point", span, "question"))
    return failed
