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
                            ``name_heads.txt``: 康乐及文化事务署), or ends with 等; unless the
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

Codes come back in this order. Contention, difficulty, several answers that only the
facts reveal (a ruler with two era names asked 使用过什么年号) and records that may be
broken (世界上最高的建筑) need a reader or a model and are left to the verification stages.

Word lists are matched against jieba words (:func:`filters.align._jieba`, initialised
quietly, its global dictionary untouched); the segmentation of a text is cached.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from pathlib import Path

from filters.normalize import normalize, value_cache

REASONS = ("empty", "answer_too_long", "answer_in_question", "multiple_answers", "relative_time",
           "time_variant_relation", "time_variant_question", "asks_for_several", "subjective", "unnamed_referent")
_HERE = Path(__file__).parent
RELATIVE_TIME_WORDS = _HERE / "relative_time_words.txt"
TIME_VARIANT_RELATIONS = _HERE / "time_variant_relations.txt"
TIME_ANCHOR_WORDS = _HERE / "time_anchor_words.txt"
SEVERAL_ANSWERS_WORDS = _HERE / "several_answers_words.txt"
SUBJECTIVE_WORDS = _HERE / "subjective_words.txt"
REFERRING_WORDS = _HERE / "referring_words.txt"
NAME_HEADS = _HERE / "name_heads.txt"

# Words in which 和/及/与 is part of the word, not a conjunction between two items; a second
# guard beside the segmentation, which keeps most of them as one word already.
_NOT_CONJUNCTIONS = (
    "共和", "和平", "和约", "和会", "和谐", "和解", "和睦", "和尚", "和田", "和氏", "和亲", "和服", "和声", "和弦", "和煦",
    "和硕", "饱和", "缓和", "总和", "柔和", "温和", "中和", "调和", "讲和", "平和", "亲和", "附和", "暖和", "祥和",
    "谦和", "人和", "大和", "太和", "保和", "颐和", "六和", "埃及", "普及", "涉及", "波及", "企及", "及第", "及时",
    "及格", "不及", "参与", "给与", "赠与", "授与", "与会", "与否", "与其",
)
_NOT_CONJUNCTION = re.compile("|".join(sorted(_NOT_CONJUNCTIONS, key=len, reverse=True)))
_CONJUNCTIONS = frozenset({"和", "及", "与", "以及", "跟"})
_CONJUNCTION_CHAR = re.compile(r"[和及与跟]")
_LIST_MARK = re.compile(r"[、，；]|(?<!\d)[,;]|[,;](?!\d)")
_TITLE = re.compile(r"《[^《》]*》")
# Titles and quoted names are one unit: no word inside them is read as a list or a time word.
_NAMED = re.compile(r"《[^《》]*》|“[^“”]*”|「[^「」]*」|『[^『』]*』|‘[^‘’]*’|\"[^\"]*\"|'[^']*'|”[^“”]*“")
# 等 closing a list, not the 等 of 一等, 中等, 平等, 相等, 甲等 ...
_TRAILING_DENG = re.compile(r"(?<![一二三四五六七八九十头上中下高初平同对均相优劣次特超甲乙丙丁])等$")
# A gloss: bracketed (托马斯·格雷欣（Thomas Gresham）, 香茅（柠檬草）) or, after a Chinese name, a
# Latin-script rendering behind a comma (项目反应理论，Item Response Theory).
_BRACKETED = re.compile(r"（[^（）]*）|\([^()]*\)")
_SPACES = re.compile(r"\s+")
_LATIN_GLOSS = re.compile(r"(?<=[\u3400-\u9fff])\s*[，,]\s*[A-Za-z][A-Za-z\s.'\-]*$")
# What counts as one unit of length: a Chinese character (or kana, or hangul), or a run of other
# letters or digits: a word or a number (3.46, Gell-Mann, O'Brien, Серада).
_CHAR_SCRIPTS = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff"
_WORD_RUN = rf"(?:(?![{_CHAR_SCRIPTS}])[^\W_])+"
_LENGTH_UNIT = re.compile(rf"[{_CHAR_SCRIPTS}]|{_WORD_RUN}(?:[.'\-]{_WORD_RUN})*")
_ALNUM = re.compile(r"[a-z0-9\u00c0-\u024f]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_CLAUSE = re.compile(r"[，,。；;：:！!？?]")
# An explicit date, or a release number, which fixes a moment as a date does (1.7.0的pytorch).
_DATE = re.compile(r"\d{3,4}\s*年|\d{1,2}\s*月|\d{1,2}\s*世纪|\d{2,4}\s*年代|[（(]\d{3,4}[）)]|\d{4}-\d{1,2}|公元"
                   r"|\d+\.\d+\.\d+")
_ASKS = re.compile(r"什么|哪|谁|何|多少|几")
# What follows a relation word that is itself the thing asked: 首席执行官是谁, 人口是多少, 人口最多的.
_ASKS_VALUE = re.compile(r"的?(?:总数|数量|人数|数)?(?:约|大约)?(?:是|为|有|达|约为)?(?:谁|多少|几|哪|什么|最多|最少|最高|最低|最大|最小)")
# An award or a poll: 最佳导演奖 and a chart's 最受欢迎男歌手 name a prize, whose winner is a fact.
_AWARD = re.compile(r"奖|榜|评选|票选|称号|获|当选|电影节")
# A counted set: 哪两种, 由哪三部分组成, 两种密钥分别是什么, 三种理论是什么 — its members are one answer.
_COUNT = r"[两二三四五六七八九十]+|\d+"
_CLASSIFIER = r"[个种类位项部本首座家所条名支件门篇幅组对]"
_COUNTED_SET = re.compile(rf"哪(?:{_COUNT}){_CLASSIFIER}|(?<!第)(?:{_COUNT}){_CLASSIFIER}[^，。；？?]*?(?:分别|什么|哪|谁)")
# A full name is one name, whatever it joins: 独立验证及确认 is the 全称 of IV&V.
_ASKS_FULL_NAME = re.compile(r"全称|全名")
# A choice offered by the question: 是单峰分布还是多峰分布.
_CHOICE = "还是"
# Words before the subject that refer to nothing: 请问, 那么.
_LEAD_IN = re.compile(r"^(?:请问|那么)?[，,\s]*")
# jieba's tags for proper names: a person, a place, an organisation, another name.
_NAME_TAGS = frozenset({"nr", "nrfg", "nrt", "ns", "nt", "nz"})


@lru_cache(maxsize=16)
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


@lru_cache(maxsize=16)
def _word_pattern(path: Path) -> re.Pattern[str]:
    words = sorted(load_word_list(path), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, words))) if words else re.compile(r"(?!)")


@value_cache  # a question is segmented once for all the rules that read its words
def _words(text: str) -> tuple[str, ...]:
    from filters.align import _jieba

    return tuple(_jieba().lcut(text, HMM=False))


@value_cache
def _bounds(text: str) -> tuple[frozenset[int], frozenset[int]]:
    """Offsets where a word of ``text`` starts, and where one ends."""
    starts, ends, offset = set(), set(), 0
    for word in _words(text):
        starts.add(offset)
        offset += len(word)
        ends.add(offset)
    return frozenset(starts), frozenset(ends)


def _mask_named(text: str) -> str:
    """Titles and quoted names replaced by a placeholder of the same length, so no word inside them counts."""
    return _NAMED.sub(lambda m: "□" * len(m.group(0)), text)


def _word_matches(path: Path, text: str, edges: str = "both") -> list[tuple[int, str]]:
    """(offset, entry) for each entry of the list in ``text`` that starts a word (``edges="start"``),
    ends one (``"end"``: 首相 in 英国首相), or spans whole words (``"both"``: 现在 in 现在的, not in 出现在)."""
    if not _word_pattern(path).search(text):
        return []  # no entry at all: no need to segment
    entries = load_word_list(path)
    lengths = sorted({len(e) for e in entries}, reverse=True)
    starts, ends = _bounds(text)
    return [(start, text[start:start + n]) for start in range(len(text)) for n in lengths
            if text[start:start + n] in entries and (edges == "end" or start in starts)
            and (edges == "start" or start + n in ends)]


def _clause_at(text: str, index: int) -> str:
    """The clause of ``text`` (between ，。；：！？) around ``index``."""
    begin = max((m.end() for m in _CLAUSE.finditer(text, 0, index)), default=0)
    end = _CLAUSE.search(text, index)
    return text[begin:end.start() if end else len(text)]


def answer_core(answer: str) -> str:
    """The answer without glosses (托马斯·格雷欣（Thomas Gresham） is 托马斯·格雷欣, 项目反应理论，Item Response
    Theory is 项目反应理论), stripped; the whole answer when nothing stands outside the brackets."""
    core = _LATIN_GLOSS.sub("", _SPACES.sub(" ", _BRACKETED.sub("", answer)).strip())
    return core if _LENGTH_UNIT.search(core) else answer.strip()


def answer_length(answer: str) -> int:
    """Units in the answer's core: a Chinese character is one, and so is a run of Latin letters or digits,
    so a Latin-script answer is measured in words (Willis Haviland Carrier is 3) and a number is one; an
    answer that is a symbol alone (€, ¥: a currency's sign) is one."""
    core = answer_core(answer)
    units = len(_LENGTH_UNIT.findall(core))
    if units == 0 and core and all(unicodedata.category(ch).startswith("S") for ch in core):
        return 1
    return units


def answer_budget_ok(answer: str, max_chars: int) -> bool:
    """Whether the answer's length (:func:`answer_length`) is at most ``max_chars``."""
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, got {max_chars}")
    return answer_length(answer) <= max_chars


def asks_counted_set(question: str) -> bool:
    """Whether the question asks for a set of a stated size (哪两种, 三种理论是什么)."""
    return bool(_COUNTED_SET.search(_mask_named(question)))


def _joins_one_name(before: str, after: str, heads: frozenset[str]) -> bool:
    """Whether 「before 和 after」 is one name: after ends with a name head that before does not end with."""
    return any(after.endswith(h) for h in heads) and not any(before.endswith(h) for h in heads)


def is_enumeration(answer: str) -> bool:
    """Whether the answer lists several items (see ``multiple_answers`` in the module docstring)."""
    text = _TITLE.sub("《》", answer_core(answer))  # 《战争与和平》 is one title
    if _LIST_MARK.search(text) or _TRAILING_DENG.search(text):
        return True
    text = _NOT_CONJUNCTION.sub(lambda m: "□" * len(m.group(0)), text)
    if not _CONJUNCTION_CHAR.search(text):
        return False  # no need to segment
    heads = load_word_list(NAME_HEADS)
    offset = 0
    for word in _words(text):
        if word in _CONJUNCTIONS:
            before, after = text[:offset], text[offset + len(word):]
            if len(before) >= 2 and len(after) >= 2 and not _joins_one_name(before, after, heads):
                return True
        offset += len(word)
    return False


def _alnum_at(text: str, index: int) -> bool:
    """Whether ``text[index]`` continues a number or code (a letter, a digit, or a decimal point between digits)."""
    if not 0 <= index < len(text):
        return False
    ch = text[index]
    if _ALNUM.match(ch):
        return True
    return ch == "." and index > 0 and index + 1 < len(text) and text[index - 1].isdigit() \
        and text[index + 1].isdigit()


def answer_in_question(question: str, answer: str) -> bool:
    """Whether the question gives the answer away (see ``answer_in_question`` in the module docstring)."""
    norm_question = normalize(question)
    for candidate in dict.fromkeys((normalize(answer), normalize(answer_core(answer)))):
        if not candidate:
            continue
        single_cjk = len(candidate) == 1 and _CJK.match(candidate)
        starts, ends = _bounds(norm_question) if single_cjk and candidate in norm_question else ((), ())
        start = norm_question.find(candidate)
        while start >= 0:
            end = start + len(candidate)
            if _ALNUM.match(candidate[0]) and _alnum_at(norm_question, start - 1):
                pass  # 8 inside GB50489, 1年 inside 2021年
            elif _ALNUM.match(candidate[-1]) and _alnum_at(norm_question, end):
                pass  # 12 inside 1234
            elif single_cjk and not (start in starts and end in ends):
                pass  # 否 inside 是否
            elif norm_question.startswith(_CHOICE, end) or norm_question.endswith(_CHOICE, 0, start):
                pass  # offered as a choice: 单峰分布还是多峰分布
            else:
                return True
            start = norm_question.find(candidate, start + 1)
    return False


def _relative_time_words(text: str) -> list[str]:
    """The relative-time words of ``text`` (whole words, outside titles and quotes, in undated clauses)."""
    masked = _mask_named(text)
    return [word for start, word in _word_matches(RELATIVE_TIME_WORDS, masked)
            if not _DATE.search(_clause_at(masked, start))]


def is_time_variant_question(question: str) -> bool:
    """Whether the question asks about a time-variant relation with nothing that fixes its moment."""
    masked = _mask_named(question)
    if _DATE.search(masked) or _word_pattern(TIME_ANCHOR_WORDS).search(masked):
        return False
    return any(_ASKS_VALUE.match(masked, start + len(word))
               for start, word in _word_matches(TIME_VARIANT_RELATIONS, masked, "end"))


def asks_for_several(question: str) -> bool:
    """Whether the question asks for several things (see ``asks_for_several`` in the module docstring)."""
    masked = _mask_named(question)
    for start, word in _word_matches(SEVERAL_ANSWERS_WORDS, masked, "start"):
        if masked.startswith("的", start + len(word)):
            continue  # 列出的第20个: describes what was listed, asks for one of it
        if word == "分别" and asks_counted_set(question):
            continue
        return True
    return False


@lru_cache(maxsize=1)
def _superlatives() -> re.Pattern[str]:
    words = sorted(load_word_list(SUBJECTIVE_WORDS), key=len, reverse=True)
    return re.compile("最(?:" + "|".join(map(re.escape, words)) + ")")


def is_subjective(question: str) -> bool:
    """Whether the question asks for a judgement (see ``subjective`` in the module docstring)."""
    masked = _mask_named(question)
    for m in _superlatives().finditer(masked):
        clause = _clause_at(masked, m.start())
        if not _ASKS.search(clause) or _AWARD.search(clause):
            continue
        after = masked[m.end():]
        said_of_asked = "哪" in clause[:clause.find(m.group(0))]  # 哪种语言最适合初学者
        modifies_asked = re.match(r"[^，。；？?的]{0,4}的[^，。；？?]*", after)  # 最美的湖泊是哪一个
        if modifies_asked and "之一" in modifies_asked.group(0):
            continue  # 最著名的壁画室之一: describes the subject
        if said_of_asked or modifies_asked:
            return True
    return False


def has_unnamed_referent(question: str) -> bool:
    """Whether the question's subject is only a pronoun or demonstrative (see ``unnamed_referent``)."""
    if _NAMED.search(question) or _LATIN_WORD.search(question):
        return False
    text = _LEAD_IN.sub("", question.strip())
    referring = load_word_list(REFERRING_WORDS)
    if not text or text[0] not in referring and not any(text.startswith(w) for w in referring):
        return False  # no need to segment
    first = _words(text)[0]
    return (first in referring or first[0] in referring) and _opens_with_pronoun(text)


@value_cache
def _tagged(text: str) -> tuple[tuple[str, str], ...]:
    """The first two words of ``text`` with their jieba part-of-speech tags."""
    import jieba.posseg

    from filters.align import _jieba

    _jieba()  # initialised quietly
    words = []
    for pair in jieba.posseg.cut(text, HMM=False):
        words.append((pair.word, pair.flag))
        if len(words) == 2:
            break
    return tuple(words)


def _opens_with_pronoun(text: str) -> bool:
    """Whether ``text`` opens with a pronoun (jieba r, rz: 该书, 这部, 此人; not 那不勒斯) that is not
    the first character of a name (他加禄语: the next word is tagged a name)."""
    tagged = _tagged(text)
    if not tagged or not tagged[0][1].startswith("r"):
        return False
    return len(tagged) < 2 or tagged[1][1] not in _NAME_TAGS


def check_question(question: str, answer: str, relation: str = "", max_answer_chars: int = 20) -> list[str]:
    """The failed criteria of a question-answer pair as reason codes, in :data:`REASONS` order; [] passes."""
    if max_answer_chars < 1:
        raise ValueError(f"max_answer_chars must be at least 1, got {max_answer_chars}")
    if not question.strip() or not answer.strip():
        return ["empty"]
    failed = []
    if not answer_budget_ok(answer, max_answer_chars):
        failed.append("answer_too_long")
    if answer_in_question(question, answer):
        failed.append("answer_in_question")
    if is_enumeration(answer) and not asks_counted_set(question) and not _ASKS_FULL_NAME.search(question):
        failed.append("multiple_answers")
    return failed + _wording(question, answer, relation)


def check_wording(question: str, relation: str = "") -> list[str]:
    """The criteria a question's own wording decides, for a question without its answer (the codes
    from ``relative_time`` on, in :data:`REASONS` order); [] passes, ``["empty"]`` for a blank question."""
    return _wording(question, "", relation) if question.strip() else ["empty"]


def _wording(question: str, answer: str, relation: str) -> list[str]:
    failed = []
    if _relative_time_words(question) or (answer and _relative_time_words(answer)):
        failed.append("relative_time")
    if relation and (relation in load_word_list(TIME_VARIANT_RELATIONS)
                     or _word_pattern(RELATIVE_TIME_WORDS).search(relation)):
        failed.append("time_variant_relation")
    if not {"relative_time", "time_variant_relation"} & set(failed) and is_time_variant_question(question):
        failed.append("time_variant_question")
    if asks_for_several(question):
        failed.append("asks_for_several")
    if is_subjective(question):
        failed.append("subjective")
    if has_unnamed_referent(question):
        failed.append("unnamed_referent")
    return failed
