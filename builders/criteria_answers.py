"""The criteria an answer decides (:mod:`builders.criteria`): how long it is, whether it lists several items,
whether the question gives it away, whether it is a statement rather than a name or a value, and whether it
answers what is asked. Each ``*_span`` rule returns the text that failed it, "" when it passes.
"""

from __future__ import annotations

import re
import unicodedata

from builders.criteria_words import (CJK, CLAUSE, NAME_HEADS, TITLE, load_word_list, mask_named, split_words,
                                     tagged_spans, word_bounds)
from filters.normalize import normalize

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
# Items set apart by spaces (勤奋  严谨  慎思, 欧洲 美洲 亚洲), numbers too (5 8 12 once glosses are out);
# a label before a value (平假名：ほっかいどう 罗马拼音：Hokkaido).
_SPACED_LIST = re.compile(r"(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])|(?<=\d)\s+(?=\d)")
_PLUS = re.compile(r"(?:(?<=[A-Za-z]{2})|(?<=\d))\s*\+\s*(?=\d)")  # 256MB ROM+128MB RAM, not U+0329
_GLOSSED_VALUES = re.compile(r"[（(][^（）()]*[\u3400-\u9fff][^（）()]*[）)][^（）()\s]+[（(][^（）()]*[\u3400-\u9fff]"
                             r"[^（）()]*[）)]")  # 5（简单）8（普通）12（困难）
_LABELLED = re.compile(r"(?<=[\u3400-\u9fff])[：:](?=.)")
# 等 closing a list, not the 等 of 一等, 中等, 平等, 相等, 甲等 ...
_TRAILING_DENG = re.compile(r"(?<![一二三四五六七八九十头上中下高初平同对均相优劣次特超甲乙丙丁])等(?:地|国|人|等|省|市|处)?$")
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
# A choice offered by the question: 是单峰分布还是多峰分布.
_CHOICE = "还是"
# 姓 asked of a name the question spells out.
_ASKS_SURNAME = re.compile(r"(?:的)?(?:姓|姓氏)(?:是|为|叫)?(?:什么|啥|哪个)")
# Words that make an answer a statement (jieba words inside it), and words that open one.
_STATEMENT_WORDS = frozenset({"是", "将", "把", "被", "用于", "来源于", "源于", "因为", "由于", "可以", "能够", "而得名",
                              "得名", "指", "使", "让", "看作", "称为", "主要用于", "进行", "成立", "负责"})
_STATEMENT_OPENINGS = frozenset({"指", "该", "此", "这", "因为", "由于", "因", "用于", "主要", "什么", "如果"})
# A time asked, and what answers it: a year, a date, an era, a period (汉朝, 春秋时期, 上世纪), a clock time.
_ASKS_TIME = re.compile(r"什么时候|什么时间|何时|哪一?年|何年|哪一?天|哪个?月|几月|几号|何日")
_TIME_VALUE = re.compile(r"\d|年|月|日|世纪|朝|代|时期|时代|年间|初|末|春|夏|秋|冬|季|旬|星期|之际|当天|同年|公元|"
                         r"明|清|汉|唐|宋|元|隋|晋|秦|周(?!围)|今|以前|之前|年前|以后|之后|早期|中期|晚期|后期|前期|上午|下午|凌晨")
# A length of time, which answers 多久, not 什么时候 (考试时间是什么时候 -> 45分钟).
_DURATION = re.compile(r"约?\s*\d+(?:\.\d+)?\s*(?:秒|秒钟|分钟|小时|个小时|天|周|个月)(?:左右)?")
# A place or a person asked, and an answer that is only a date.
_ASKS_PLACE = re.compile(r"哪里|哪儿|什么地方|哪个地方|哪个国家|哪个城市|哪座城市|何地|何处|哪个省")
_ASKS_PERSON = re.compile(r"谁|哪位|哪个人")
_ONLY_DATE = re.compile(r"(?:公元前?)?\s*\d{1,4}\s*年(?:\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*日)?)?"
                        r"|\d{4}[-./]\d{1,2}(?:[-./]\d{1,2})?")
# An answer that says the fact is not known: it answers nothing.
_NO_ANSWER = re.compile(r"不详|未知|尚不明确|尚不清楚|不清楚|不明确|还没有|没有找到|暂无|待定|待考|无从考证")
_ASKS_NUMBER = re.compile(r"多少|几(?![乎何])|多[长高大远重宽深久厚]")
_NUMBER_VALUE = re.compile(r"\d|[〇零一二两三四五六七八九十百千万亿半双单]|[IVXLC]{1,4}\b|无|没有|不|数")


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


def one_name(answer: str) -> bool:
    """Whether a long answer, not a list, is one institution's name (中国科学院…研究所): a name is one answer
    however long."""
    core = answer_core(answer)
    return bool(CJK.match(core)) and not CLAUSE.search(core)\
        and any(core.endswith(h) for h in load_word_list(NAME_HEADS) if len(h) >= 2)


def _joins_one_name(before: str, after: str, heads: frozenset[str]) -> bool:
    """Whether 「before 和 after」 is one name: after ends with a name head that before does not end with."""
    return any(after.endswith(h) for h in heads) and not any(before.endswith(h) for h in heads)


def is_enumeration(answer: str) -> bool:
    """Whether the answer lists several items (see ``multiple_answers`` in the module docstring)."""
    return bool(enumeration_span(answer))


def enumeration_span(answer: str) -> str:
    """The list mark or joining word that makes the answer a list, "" when it is one item."""
    text = TITLE.sub("《》", answer_core(answer))  # 《战争与和平》 is one title
    raw = TITLE.sub("《》", answer.strip())
    found = _PLUS.search(text) or _LIST_MARK.search(text) or _TRAILING_DENG.search(text) or _SPACED_LIST.search(raw)\
        or _LABELLED.search(text) or _GLOSSED_VALUES.search(raw)
    if found:
        return found.group(0)
    parts = text.split("/")
    if len(parts) > 1 and all(len(p.strip()) >= 2 for p in parts) and (
            CJK.search(text) or len(parts) >= 3 and all(len(p.strip()) >= 3 for p in parts)):
        return "/"  # 御儿勇马/东条希, WinXP/Vista/Win7; not a unit (bit/s/Hz)
    text = _NOT_CONJUNCTION.sub(lambda m: "□" * len(m.group(0)), text)
    if not _CONJUNCTION_CHAR.search(text):
        return ""  # no need to segment
    heads = load_word_list(NAME_HEADS)
    offset = 0
    for word in split_words(text):
        if word in _CONJUNCTIONS:
            before, after = text[:offset], text[offset + len(word):]
            if len(before) >= 2 and len(after) >= 2 and (
                    not _joins_one_name(before, after, heads) or _places_either_side(text, offset, len(word))):
                return word
        offset += len(word)
    return ""


def _places_either_side(text: str, offset: int, width: int) -> bool:
    """Whether the words either side of the joining word at ``offset`` are both places (欧洲及亚洲中部: two
    regions, however the second ends)."""
    spans = tagged_spans(text)
    before = next((flag for _, end, flag in spans if end == offset), "")
    after = next((flag for start, _, flag in spans if start == offset + width), "")
    return before == after == "ns"


def _alnum_at(text: str, index: int) -> bool:
    """Whether ``text[index]`` continues a number or code (a letter, a digit, or a decimal point between digits)."""
    if not 0 <= index < len(text):
        return False
    ch = text[index]
    if _ALNUM.match(ch):
        return True
    return ch == "." and index > 0 and index + 1 < len(text) and text[index - 1].isdigit()\
        and text[index + 1].isdigit()


def answer_in_question(question: str, answer: str) -> bool:
    """Whether the question gives the answer away (see ``answer_in_question`` in the module docstring)."""
    return bool(answer_in_question_span(question, answer))


def answer_in_question_span(question: str, answer: str) -> str:
    """The part of the question that gives the answer away, "" when none does."""
    norm_question = normalize(question)
    surname = _ASKS_SURNAME.search(norm_question)
    if surname:  # 毛泽东的姓是什么 -> 毛: the name asked about starts with the answer
        name = normalize(answer_core(answer))
        if name and CJK.match(name) and len(name) <= 2 and re.search(
                rf"{re.escape(name)}[\u3400-\u9fff]", norm_question[:surname.start()]):
            return name
    for candidate in dict.fromkeys((normalize(answer), normalize(answer_core(answer)))):
        if not candidate:
            continue
        single_cjk = len(candidate) == 1 and CJK.match(candidate)
        starts, ends = word_bounds(norm_question) if single_cjk and candidate in norm_question else ((), ())
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
                return candidate
            start = norm_question.find(candidate, start + 1)
    return ""


def sentence_span(answer: str) -> str:
    """The word that makes an answer a statement rather than a name or a value (塔板理论将色谱柱看作…,
    名称来源于…, 指歌唱时…): a clause's verb in an answer of six characters or more."""
    core = answer_core(answer)
    if len(CJK.findall(core)) < 6 or TITLE.fullmatch(core.strip()):
        return ""
    words = split_words(core)
    for n, word in enumerate(words):
        if word in _STATEMENT_WORDS and 0 < n < len(words) - 1 or n == 0 and word in _STATEMENT_OPENINGS\
                or word in ("得名", "而得名") and n > 0:
            return word
    return ""


def mismatch_span(question: str, answer: str) -> str:
    """The ask of a question that its answer does not answer: a time asked (什么时候, 哪一年) and no date or
    time in the answer (国立江苏医学院, 3.5秒), or a number asked (多少, 几) and no number in it (全年无休)."""
    masked = mask_named(question)
    core = answer_core(answer)
    unknown = _NO_ANSWER.search(core)
    if unknown:
        return core
    when = _ASKS_TIME.search(masked)
    if when and (not _TIME_VALUE.search(core) or _DURATION.fullmatch(core.strip())):
        return question[when.start():when.end()]
    many = _ASKS_NUMBER.search(masked)
    if many and not when and not _NUMBER_VALUE.search(core):
        return question[many.start():many.end()]
    if _ONLY_DATE.fullmatch(core.strip()):
        other = _ASKS_PLACE.search(masked) or _ASKS_PERSON.search(masked)
        if other and not when and not many:  # 在哪里发现的 -> 1909年, 被谁发现的 -> 2004年4月30日
            return question[other.start():other.end()]
    return ""
