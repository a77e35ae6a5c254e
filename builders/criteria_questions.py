"""The criteria a question's own wording decides (:mod:`builders.criteria`): time words and time-variant asks,
several things or a judgement asked, a subject that names no one in particular, one of many values asked as if
one, an explanation, a knowledge base's layout, no reference point. Each ``*_span`` rule returns the text that
failed it, "" when it passes.
"""

from __future__ import annotations

import re
from typing import Mapping, Sequence

from builders.criteria_answers import answer_core
from builders.criteria_words import (CJK, CLAUSE, EXPLANATORY_WORDS, MULTI_VALUED_WORDS, NAMED, REFERRING_WORDS,
                                     RELATIVE_TIME_WORDS, SEVERAL_ANSWERS_WORDS, TIME_ANCHOR_WORDS,
                                     TIME_VARIANT_RELATIONS, TITLE, clause_at, common_names, first_two_tagged,
                                     load_word_list, mask_named, split_words, superlatives, tagged_spans, word_matches,
                                     word_pattern)

_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# An explicit date, or a release number, which fixes a moment as a date does (1.7.0的pytorch).
_DATE = re.compile(r"\d{3,4}\s*年|\d{1,2}\s*月|\d{1,2}\s*世纪|\d{2,4}\s*年代|[（(]\d{3,4}[）)]|\d{4}-\d{1,2}|公元"
                   r"|\d+\.\d+\.\d+")
_ASKS = re.compile(r"什么|哪|谁|何|多少|几")
# A relation word at the end of the question, after an ask before it: 谁是X公司的法人代表.
_ENDS_QUESTION = re.compile(r"的?[吗呢啊呀？?。]*$")
# What follows a relation word that is itself the thing asked: 首席执行官是谁, 人口是多少, 人口最多的.
_ASKS_VALUE = re.compile(r"的?(?:总数|数量|人数|数)?(?:一共|总共|共)?(?:约|大约)?(?:是|为|有|达|约为|叫|叫做|名叫)?"
                         r"(?:谁|多少|几|哪|什么|最多|最少|最高|最低|最大|最小)")
# An award or a poll: 最佳导演奖 and a chart's 最受欢迎男歌手 name a prize, whose winner is a fact.
_AWARD = re.compile(r"奖|榜|评选|票选|称号|获|当选|电影节")
# A counted set: 哪两种, 由哪三部分组成, 两种密钥分别是什么, 三种理论是什么 — its members are one answer.
_COUNT = r"[两二三四五六七八九十]+|\d+"
_CLASSIFIER = r"[个种类位项部本首座家所条名支件门篇幅组对]"
_COUNTED_SET = re.compile(rf"哪(?:{_COUNT}){_CLASSIFIER}|(?<!第)(?:{_COUNT}){_CLASSIFIER}[^，。；？?]*?(?:分别|什么|哪|谁)")
# Words before the subject that refer to nothing: 请问, 那么.
_LEAD_IN = re.compile(r"^(?:请问|那么)?[，,\s]*")
# The polite openings that come before a question's subject: 请问, 你知道, 有谁知道, 我很好奇.
_OPENING = re.compile(r"(?:请问|那么|我想问|想问|问一下)?[，,\s]*(?:(?:你|您|大家|有谁|谁|有人|有没有人)(?:能|可以)?"
                      r"(?:知道|了解|清楚|晓得|记得|告诉我)|我(?:很|挺)?(?:想知道|好奇|想了解|想问)|请告诉我)?[，,\s]*")
_POLITE_WHO = re.compile(r"(?:能|可以)?(?:知道|了解|清楚|晓得|记得|告诉)")
# A bare lower-case Latin word as the subject: a handle (max, swag), not a name that says what it is.
_HANDLE = re.compile(r"([a-z]{1,6}|[a-z]+(?: [a-z]+)+)(?=[的是])")
# What a question adds to a name that the crawl gives to several entries: a sense in brackets, a kind.
_SENSE_CUE = re.compile(r"[（(][^）)]+[）)]")
# A named typhoon: the Western Pacific lists of names are used again every few years, so a name alone is
# several storms.
_STORM = re.compile(r"(?:超强台风|强台风|台风|强热带风暴|热带风暴)[\u3400-\u9fff·]{2,6}")
# One-character words that end a name the segmenter cut into characters (王 伟 是).
_FUNCTION_CHARS = frozenset("是的在于有从为和与及了把被将向对给以由属叫")
# What follows a subject at the start of a question (南澳岛的, 天堂凹是, 4次元之龙在哪): not more of a name.
_AFTER_SUBJECT = frozenset("的是有在于从为属怎如什哪谁几多和与由被用叫共主到离距呢吗啊吧？?，,。 ")
# Words of sense labels that tell no entry from another (中国, 人物, 作品).
_GENERIC_SENSE_WORDS = frozenset({"中国", "人物", "作品", "角色", "中的", "一种", "一个", "名称", "汉语", "词语", "汉字",
                                  "地名", "名词", "术语", "用语", "概念", "同名", "出版", "图书", "之一", "登场"})
# Generic titles that stand in for what a person is known for.
_PERSON_TITLES = frozenset({"老师", "医生", "教授", "先生", "女士", "同学", "师傅", "大夫", "博士", "讲师", "主任"})
# Asking for an opinion: 如何评价, 怎样看待, 你认为, 应该先学哪种…比较好, 主题是什么, 值得一看吗.
_OPINION = re.compile(r"(?:如何|怎样|怎么|怎么样)(?:评价|看待|理解|认识|评论)|看法|你(?:认为|觉得|怎么看)|您(?:认为|觉得)|"
                      r"应该[^，。？?]{0,12}(?:比较好|更好|最好|好呢|好)|哪[个种款家所][^，。？?]{0,8}(?:比较好|更好)|"
                      r"(?:什么时候|何时|哪里|哪个|哪种|哪家|哪款)[^，。？?]{0,10}(?:比较好|最好|最合适|最佳|合适)|"
                      r"好不好|值不值得|值得[^，。？?]{0,6}吗|(?<!曲)(?<!歌)主题(?:思想)?(?:是什么|是啥|为何)|中心思想|"
                      r"(?:什么|何)(?:启示|启发)|读后感|感想")
# An ask for one thing.
_ASK_ONE = re.compile(r"什么|啥|谁|哪(?!些|几)|何")
# What singles one value out of several: an order, uniqueness, a first or a count.
_SINGLED_OUT = re.compile(r"唯一|最|第[一二三四五六七八九十\d]|首|长子|长女|次子|次女|幼子|独子|独女|大儿子|小儿子|大女儿|"
                          r"小女儿|最早|最后|最先|最初|全部|所有|全称|初代|原名|前身|哪[两二三四五六七八九十]")
# 你知道X的适应症吗: the relation word, then only 吗, asks for its value.
_YES_NO_ASK = re.compile(r"(?=[吗呢]+$)")
# A verb that says which one is meant: 饰演江洋的演员, 被称为豪华者的成员.
_NARROWED = re.compile(r"饰演|扮演|配音|演唱|担任|称为|名为|叫做|获得|发现|发明|提出")
_COUNT_ASKED = re.compile(r"[几多少]+(?:个|位|名|人|家|所|种|项|支)?$|有几|有多少|多少个|几个|几位|几名")
_TRAILING_FILLER = re.compile(r"(?:是什么|是谁|是啥|叫什么|名字|名称|呢|啊|呀|吗|嘛|哇|的)+$")
# A bare ask after an explanatory word: 是什么, 是啥, 为何, 指什么.
_GENERIC_ASK = re.compile(r"(?:是|为|指|有|讲|说)?(?:什么|啥|何|怎样|如何|怎么样)?(?:意思|内容|东西)?的?")
_WHAT_IS = re.compile(r".*(?:什么是|何为|何谓)")
_MEANING = re.compile(r"(?:是什么意思|什么意思|何意|何解|是指什么|指的是什么|意思是什么|是何含义|有何含义|有何意义|"
                      r"怎么来的|怎么形成的|如何形成|由何而来|从何而来)(?=[吗呢啊呀？?。！!]*$)")
_PARTICLES = re.compile(r"[呢啊呀吗嘛哇]+$")
# A description asked for with nothing typed: 容量如何, 是怎样的, 关于什么.
_BARE_HOW = re.compile(r"(?:如何|怎么样|是怎样的|是怎么样的|是什么样的|怎样|关于什么(?:的)?|涉及什么|是关于什么的\w{0,4})"
                       r"(?=[吗呢啊呀？?。]*$)")
# 什么是X, or (after 你知道, 请问) X是什么, with nothing else asked: a definition.
_DEFINITION = re.compile(r"^(?:什么是[^的，,]{1,12}|[^的，,是]{1,12}是什么(?:东西)?)(?=[吗呢啊呀？?。]*$)")
# How and why, asked of a procedure or a cause; not of a form (怎么读, 怎么拼, 怎么称呼, 怎么打出来).
_HOW = re.compile(r"(?:怎么|如何|怎样)(?!读|念|写|拼|称呼|称|叫|说|翻译|译|打|输入|发音|样的)"
                  r"(?:制作|做|用|使用|保存|储存|存放|治疗|养|种植|培养|食用|吃|搭配|计算|实现|运作|防治|预防|处理|"
                  r"办理|申请|鉴别|选择|安装|清洗|烹饪|烹调|加工|冲泡|饲养|繁殖|栽培|护理|调理)|"
                  r"(?<![名称叫改作封译成命定视认拟更列为])为什么(?=[^？?。]*?[会要能不没被叫称在有是])")
# KB layout: list ordinals of an entry's definitions (第二条解释, 解释1) and section names.
_DEBRIS_ASK = re.compile(r"(?:的?第[一二三四五六七八九十\d]+(?:条|种解释|个解释|项解释|个义项|种意思)(?:解释)?"
                         r"(?:是什么|是啥|是|为|说的是什么|讲的是什么|说了什么|讲了什么)?"
                         r"|(?:解释|释义|义项)\s*[0-9一二三四五六七八九](?:是什么|是啥)?)(?=[吗呢啊呀？?。]*$)")
_SECTION_NAMES = frozenset({"概述", "简介", "基本信息", "基本资料", "目录", "释义", "注释", "参考资料", "相关词条",
                            "其他", "其它", "概况", "简述", "基本概况", "历史沿革", "定义", "基本内容", "词条"})
# Distances: an ask, and a place of a kind rather than a name (离火车站有多远).
_DISTANCE = re.compile(r"多远|距离|相距|远近|路程|多少公里|多少千米|多少米")
_GENERIC_PLACE = re.compile(r"火车站|高铁站|汽车站|客运站|地铁站|机场|码头|港口|市中心|市区|城区|县城|市政府|"
                            r"高速(?:公路)?(?:出口|入口)?|景区|海边|海滩|车站")
# Rankings: a field to rank in (在全国, 世界, 中, 榜) or a measured dimension (面积排名) makes them a fact.
_RANK = re.compile(r"排名(?:是|为)?(?:第几|多少|怎么样|如何|几)|排名(?=[吗呢啊？?]*$)|排第几|位列第几|排行第几")
_RANK_FIELD = re.compile(r"全国|全球|世界|亚洲|欧洲|全省|全市|省内|国内|中国|[在于][^，。？?]{1,12}(?:中|内|里|上)|之中|"
                         r"榜|名单|联赛|赛季|届|\d+个")
_DIMENSION = re.compile(r"面积|长度|高度|体积|质量|亮度|深度|直径|半径|周长|海拔|星等")
_COUNT_ASK = re.compile(r"(?:有|共有)?多少(?:个|名|位|人|家)?$")
# jieba's tags for proper names: a person, a place, an organisation, another name.
_NAME_TAGS = frozenset({"nr", "nrfg", "nrt", "ns", "nt", "nz"})


def asks_counted_set(question: str) -> bool:
    """Whether the question asks for a set of a stated size (哪两种, 三种理论是什么)."""
    return bool(_COUNTED_SET.search(mask_named(question)))


def relative_time_words(text: str) -> list[str]:
    """The relative-time words of ``text`` (whole words, outside titles and quotes, in undated clauses)."""
    masked = mask_named(text)
    return [word for start, word in word_matches(RELATIVE_TIME_WORDS, masked)
            if not _DATE.search(clause_at(masked, start))]


def is_time_variant_question(question: str) -> bool:
    """Whether the question asks about a time-variant relation with nothing that fixes its moment."""
    return bool(time_variant_span(question))


def time_variant_span(question: str) -> str:
    """The time-variant relation the question asks for, with its ask (首席执行官是谁), or ""."""
    masked = mask_named(question).upper()  # CEO and ceo alike (the list writes Latin names in capitals)
    if _DATE.search(masked) or word_pattern(TIME_ANCHOR_WORDS).search(masked):
        return ""
    for start, word in word_matches(TIME_VARIANT_RELATIONS, masked, "end"):
        if word.endswith("排名") and _DIMENSION.search(masked[max(0, start - 3):start]):
            continue  # 面积排名: a measured rank among a fixed set (the 88 constellations) does not change
        asked = _ASKS_VALUE.match(masked, start + len(word))
        if asked and "最" in asked.group(0) and _DIMENSION.fullmatch(word):
            continue  # 海拔最高的首都: which one is highest holds however often the heights are measured again
        if asked:
            return question[start:asked.end()]
        if _ENDS_QUESTION.match(masked, start + len(word)) and _ASKS.search(masked[:start]):
            return question[start:start + len(word)]  # 谁是X公司的法人代表
        before = _COUNT_ASK.search(masked[max(0, start - 5):start])
        if before:  # 有多少专职院士, 多少名员工
            return question[start - len(before.group(0)):start + len(word)]
    return ""


def asks_for_several(question: str) -> bool:
    """Whether the question asks for several things (see ``asks_for_several`` in the module docstring)."""
    return bool(several_span(question))


def several_span(question: str) -> str:
    masked = mask_named(question)
    for start, word in word_matches(SEVERAL_ANSWERS_WORDS, masked, "start"):
        if masked.startswith("的", start + len(word)):
            continue  # 列出的第20个: describes what was listed, asks for one of it
        if word == "分别" and asks_counted_set(question):
            continue
        if word == "有谁" and _POLITE_WHO.match(masked, start + len(word)):
            continue  # 有谁知道…: a polite opening, not a question about several people
        return word
    return ""


def is_subjective(question: str) -> bool:
    """Whether the question asks for a judgement (see ``subjective`` in the module docstring)."""
    return bool(subjective_span(question))


def subjective_span(question: str) -> str:
    masked = mask_named(question)
    opinion = _OPINION.search(masked)
    if opinion:  # 如何评价, 你认为, 应该先学哪种…比较好, 主题是什么
        return question[opinion.start():opinion.end()]
    for m in superlatives().finditer(masked):
        clause = clause_at(masked, m.start())
        if not _ASKS.search(clause) or _AWARD.search(clause):
            continue
        after = masked[m.end():]
        said_of_asked = "哪" in clause[:clause.find(m.group(0))]  # 哪种语言最适合初学者
        modifies_asked = re.match(r"[^，。；？?的]{0,4}的[^，。；？?]*", after)  # 最美的湖泊是哪一个
        if modifies_asked and "之一" in modifies_asked.group(0):
            continue  # 最著名的壁画室之一: describes the subject
        if said_of_asked or modifies_asked:
            return m.group(0)
    return ""


def has_unnamed_referent(question: str) -> bool:
    """Whether the question's subject is only a pronoun or demonstrative (see ``unnamed_referent``)."""
    return bool(unnamed_span(question))


def unnamed_span(question: str) -> str:
    if NAMED.search(question) or _LATIN_WORD.search(question):
        return ""
    text = _LEAD_IN.sub("", question.strip())
    referring = load_word_list(REFERRING_WORDS)
    if not text or text[0] not in referring and not any(text.startswith(w) for w in referring):
        return ""  # no need to segment
    first = split_words(text)[0]
    return first if (first in referring or first[0] in referring) and _opens_with_pronoun(text) else ""


def _opens_with_pronoun(text: str) -> bool:
    """Whether ``text`` opens with a pronoun (jieba r, rz: 该书, 这部, 此人; not 那不勒斯) that is not
    the first character of a name (他加禄语: the next word is tagged a name)."""
    tagged = first_two_tagged(text)
    if not tagged or not tagged[0][1].startswith("r"):
        return False
    return len(tagged) < 2 or tagged[1][1] not in _NAME_TAGS


def _lead_in_end(masked: str) -> int:
    """Where the question proper starts, after a polite opening (请问, 你知道, 有谁知道, 我想知道)."""
    found = _OPENING.match(masked)
    return found.end() if found else 0


def underspecified_span(question: str, senses: Mapping[str, Sequence[str]] | None = None) -> str:
    """The subject that names no one in particular: a common given name alone or after a surname, or a person
    known only by a generic title (赵戬老师), with nothing else said of them; a bare lower-case Latin word
    (max, swag); a title the crawl gives to several entries, asked without what tells them apart."""
    masked = mask_named(question)
    start = _lead_in_end(masked)
    rest = masked[start:]
    handle = _HANDLE.match(rest)
    if handle:
        return handle.group(1)
    storm = _STORM.search(masked)
    if storm and not _DATE.search(masked) and not re.search(r"\d{4}|第\d+号", masked):
        return storm.group(0)  # 台风丹娜丝: storm names are used again and again
    title = TITLE.search(question)
    if senses:
        shared = _shared_title(question, rest, senses)
        if shared:
            return shared
    if not rest or title or _DATE.search(rest) or _LATIN_WORD.search(rest):
        return ""
    words = list(split_words(rest))
    run = 0  # an unknown name comes out of the segmenter one character at a time: 刘 晓 华
    while run < min(4, len(words)) and len(words[run]) == 1 and CJK.match(words[run])\
            and words[run] not in _FUNCTION_CHARS:
        run += 1
    if run >= 2:
        words[:run] = ["".join(words[:run])]
    first = words[0]
    if len(words) > 1 and len(words[1]) == 1 and CJK.match(words[1]) and words[1] not in _FUNCTION_CHARS:
        return ""  # 马兰 戈 尼: the start of a longer name
    surnames, given = common_names()
    common = first in given and len(first) == 2 or (
        2 <= len(first) <= 3 and first[0] in surnames and first[1:] in given)
    generic_title = len(words) > 1 and words[1] in _PERSON_TITLES and 2 <= len(first) <= 3 and first[0] in surnames
    if not (common or generic_title):
        return ""
    said = "".join(words[2 if generic_title else 1:])
    if len(CJK.findall(said)) > 10 or _tagged_names(said):  # more is said of them than a bare question does
        return ""  # something else named: a place, an organisation, a work
    return first + (words[1] if generic_title else "")


def _shared_title(question: str, rest: str, senses: Mapping[str, Sequence[str]]) -> str:
    """The question's subject when it is a title that several entries share (``senses``: title -> the labels
    that tell them apart) and the question says nothing that one of those labels says."""
    titles = [m.group(0)[1:-1] for m in TITLE.finditer(question)]
    titles += [rest[:n] for n in range(min(len(rest), 40), 1, -1) if n == len(rest) or rest[n] in _AFTER_SUBJECT]
    for title in titles:
        labels = senses.get(title)
        if labels is None:
            continue
        said = question.replace(title, "□")
        cues = {w for label in labels for w in split_words(label) if len(w) >= 2 and w not in _GENERIC_SENSE_WORDS}
        return "" if any(cue in said for cue in cues) or _SENSE_CUE.search(said) else title
    return ""


def _tagged_names(text: str) -> list[str]:
    """The words of ``text`` that jieba tags as proper names (places, organisations, other names), not people."""
    return [text[start:end] for start, end, flag in tagged_spans(text)
            if flag in ("ns", "nt", "nz") and end - start > 1]


def one_of_many_span(question: str) -> str:
    """The relation word of a question that asks for one of several values without saying which
    (万安公主的孙子是谁, 下设了哪个机构)."""
    masked = mask_named(question)
    for start, word in word_matches(MULTI_VALUED_WORDS, masked, "end"):
        clause = clause_at(masked, start)
        offset = masked.find(clause, max(0, start - len(clause)))
        end = start - offset + len(word)
        ask = _ASK_ONE.search(clause, end) or _YES_NO_ASK.match(clause, end)
        before = clause[:start - offset]
        if ask is None or ask.start() - end > 2 or before.count("的") > 1 or "□" in before or _NARROWED.search(before)\
                or len(before[_lead_in_end(before):]) > 18:
            continue  # the word is not what is asked (哪部作品获得了…), or the subject is narrowed (含有的属于菊科的成分)
        if _SINGLED_OUT.search(clause) or _DATE.search(clause) or asks_counted_set(clause):
            continue
        if _COUNT_ASKED.search(clause):
            continue  # 有几个儿子: asks a number, which is one
        after = _TRAILING_FILLER.sub("", clause[ask.end():])
        if len(after) <= 3:  # nothing after the ask narrows it (哪个机构, 是谁啊)
            return word
    return ""


def explanatory_span(question: str) -> str:
    """What makes the question ask for an explanation: a word of ``explanatory_words.txt`` asked without a
    type (名称由来是什么, 机构职能是什么, 我想知道X的简介), a how or why (怎么制作, 为什么), or a
    meaning (是什么意思, 何意)."""
    masked = mask_named(question)
    meaning = _MEANING.search(masked)
    if meaning:
        return question[meaning.start():meaning.end()]
    for start, word in word_matches(EXPLANATORY_WORDS, masked, "end"):
        clause = clause_at(masked, start)
        offset = masked.find(clause, max(0, start - len(clause)))
        before, after = clause[:start - offset], clause[start - offset + len(word):]
        after = _PARTICLES.sub("", after)
        subject = before[_lead_in_end(before):]
        if len(subject) > 14:
            continue  # a description before 的方法是什么 asks for the method's name
        if (after and after != "的" and _GENERIC_ASK.fullmatch(after)) or (not after and not _ASKS.search(masked))\
                or (not after and _WHAT_IS.match(before)):
            return word
    opening = _lead_in_end(masked)
    definition = _DEFINITION.search(masked[opening:])
    if definition and (opening or definition.group(0).startswith("什么是")):  # 你知道X是什么吗, 什么是X
        return definition.group(0)
    bare = _BARE_HOW.search(masked)
    if bare:
        return question[bare.start():bare.end()]
    how = _HOW.search(masked)
    if how and not _ASKS.search(clause_at(masked, how.start()).replace(how.group(0), "")):
        return question[how.start():how.end()]
    return ""


def kb_debris_span(question: str, answer: str) -> str:
    """A question about a knowledge base's layout rather than the world: its list ordinals (第二条解释, 解释1)
    or an answer that is a section name (概述)."""
    found = _DEBRIS_ASK.search(mask_named(question))
    if found:
        return question[found.start():found.end()]
    core = answer_core(answer).strip() if answer else ""
    return core if core in _SECTION_NAMES else ""


def reference_span(question: str) -> str:
    """A distance to a place the question does not name (离火车站有多远), or a rank with no field to rank in."""
    masked = mask_named(question)
    if _DISTANCE.search(masked):
        for m in _GENERIC_PLACE.finditer(masked):
            before = masked[:m.start()]
            if not before or before.endswith(("离", "距", "距离", "到", "与", "和", "的")) or CLAUSE.match(before[-1]):
                return m.group(0)
    rank = _RANK.search(masked)
    if rank and not _RANK_FIELD.search(masked) and not _DIMENSION.search(masked[max(0, rank.start() - 3):rank.start()]):
        return rank.group(0)
    return ""
