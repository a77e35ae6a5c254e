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

Word lists are matched against jieba words (:func:`filters.text.segmenter`, initialised
quietly, its global dictionary untouched); the segmentation of a text is cached.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

from filters.normalize import normalize, value_cache
from filters.text import segmenter, tagger

REASONS = ("empty", "answer_too_long", "answer_in_question", "multiple_answers", "relative_time",
           "time_variant_relation", "time_variant_question", "asks_for_several", "subjective", "unnamed_referent",
           "underspecified_subject", "one_of_many", "explanatory", "kb_debris", "no_reference_point",
           "answer_type_mismatch")
_HERE = Path(__file__).parent
RELATIVE_TIME_WORDS = _HERE / "relative_time_words.txt"
TIME_VARIANT_RELATIONS = _HERE / "time_variant_relations.txt"
TIME_ANCHOR_WORDS = _HERE / "time_anchor_words.txt"
SEVERAL_ANSWERS_WORDS = _HERE / "several_answers_words.txt"
SUBJECTIVE_WORDS = _HERE / "subjective_words.txt"
REFERRING_WORDS = _HERE / "referring_words.txt"
NAME_HEADS = _HERE / "name_heads.txt"
EXPLANATORY_WORDS = _HERE / "explanatory_words.txt"
MULTI_VALUED_WORDS = _HERE / "multi_valued_words.txt"
UNDERSPECIFIED_NAMES = _HERE / "underspecified_names.txt"

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
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_CLAUSE = re.compile(r"[，,。；;：:！!？?]")
# An explicit date, or a release number, which fixes a moment as a date does (1.7.0的pytorch).
_DATE = re.compile(r"\d{3,4}\s*年|\d{1,2}\s*月|\d{1,2}\s*世纪|\d{2,4}\s*年代|[（(]\d{3,4}[）)]|\d{4}-\d{1,2}|公元"
                   r"|\d+\.\d+\.\d+")
_ASKS = re.compile(r"什么|哪|谁|何|多少|几")
# An answer that is still going on (2010年6月-), or a count as of a day (截至2019年7月): both change.
_OPEN_RANGE = re.compile(r"(?<=[\d年月日])\s*[-—–~～至]\s*(?:今)?$")
_AS_OF = re.compile(r"截至|截止|至今|迄今")
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
# A full name is one name, whatever it joins: 独立验证及确认 is the 全称 of IV&V.
_ASKS_FULL_NAME = re.compile(r"全称|全名")
# A choice offered by the question: 是单峰分布还是多峰分布.
_CHOICE = "还是"
# Words before the subject that refer to nothing: 请问, 那么.
_LEAD_IN = re.compile(r"^(?:请问|那么)?[，,\s]*")
# The polite openings that come before a question's subject: 请问, 你知道, 有谁知道, 我很好奇.
_OPENING = re.compile(r"(?:请问|那么|我想问|想问|问一下)?[，,\s]*(?:(?:你|您|大家|有谁|谁|有人|有没有人)(?:能|可以)?"
                      r"(?:知道|了解|清楚|晓得|记得|告诉我)|我(?:很|挺)?(?:想知道|好奇|想了解|想问)|请告诉我)?[，,\s]*")
_POLITE_WHO = re.compile(r"(?:能|可以)?(?:知道|了解|清楚|晓得|记得|告诉)")
# 姓 asked of a name the question spells out.
_ASKS_SURNAME = re.compile(r"(?:的)?(?:姓|姓氏)(?:是|为|叫)?(?:什么|啥|哪个)")
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
    return tuple(segmenter().lcut(text, HMM=False))


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
    return bool(_enumeration_span(answer))


def _enumeration_span(answer: str) -> str:
    """The list mark or joining word that makes the answer a list, "" when it is one item."""
    text = _TITLE.sub("《》", answer_core(answer))  # 《战争与和平》 is one title
    raw = _TITLE.sub("《》", answer.strip())
    found = _PLUS.search(text) or _LIST_MARK.search(text) or _TRAILING_DENG.search(text) or _SPACED_LIST.search(raw) \
        or _LABELLED.search(text) or _GLOSSED_VALUES.search(raw)
    if found:
        return found.group(0)
    parts = text.split("/")
    if len(parts) > 1 and all(len(p.strip()) >= 2 for p in parts) and (
            _CJK.search(text) or len(parts) >= 3 and all(len(p.strip()) >= 3 for p in parts)):
        return "/"  # 御儿勇马/东条希, WinXP/Vista/Win7; not a unit (bit/s/Hz)
    text = _NOT_CONJUNCTION.sub(lambda m: "□" * len(m.group(0)), text)
    if not _CONJUNCTION_CHAR.search(text):
        return ""  # no need to segment
    heads = load_word_list(NAME_HEADS)
    offset = 0
    for word in _words(text):
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
    spans = _tagged_spans(text)
    before = next((flag for _, end, flag in spans if end == offset), "")
    after = next((flag for start, _, flag in spans if start == offset + width), "")
    return before == after == "ns"


@value_cache
def _tagged_spans(text: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, jieba tag) of each word of ``text``."""
    position, out = 0, []
    for pair in tagger().cut(text, HMM=False):
        out.append((position, position + len(pair.word), pair.flag))
        position += len(pair.word)
    return tuple(out)


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
    return bool(_answer_in_question_span(question, answer))


def _answer_in_question_span(question: str, answer: str) -> str:
    """The part of the question that gives the answer away, "" when none does."""
    norm_question = normalize(question)
    surname = _ASKS_SURNAME.search(norm_question)
    if surname:  # 毛泽东的姓是什么 -> 毛: the name asked about starts with the answer
        name = normalize(answer_core(answer))
        if name and _CJK.match(name) and len(name) <= 2 and re.search(
                rf"{re.escape(name)}[\u3400-\u9fff]", norm_question[:surname.start()]):
            return name
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
                return candidate
            start = norm_question.find(candidate, start + 1)
    return ""


def _relative_time_words(text: str) -> list[str]:
    """The relative-time words of ``text`` (whole words, outside titles and quotes, in undated clauses)."""
    masked = _mask_named(text)
    return [word for start, word in _word_matches(RELATIVE_TIME_WORDS, masked)
            if not _DATE.search(_clause_at(masked, start))]


def is_time_variant_question(question: str) -> bool:
    """Whether the question asks about a time-variant relation with nothing that fixes its moment."""
    return bool(_time_variant_span(question))


def _time_variant_span(question: str) -> str:
    """The time-variant relation the question asks for, with its ask (首席执行官是谁), or ""."""
    masked = _mask_named(question).upper()  # CEO and ceo alike (the list writes Latin names in capitals)
    if _DATE.search(masked) or _word_pattern(TIME_ANCHOR_WORDS).search(masked):
        return ""
    for start, word in _word_matches(TIME_VARIANT_RELATIONS, masked, "end"):
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
    return bool(_several_span(question))


def _several_span(question: str) -> str:
    masked = _mask_named(question)
    for start, word in _word_matches(SEVERAL_ANSWERS_WORDS, masked, "start"):
        if masked.startswith("的", start + len(word)):
            continue  # 列出的第20个: describes what was listed, asks for one of it
        if word == "分别" and asks_counted_set(question):
            continue
        if word == "有谁" and _POLITE_WHO.match(masked, start + len(word)):
            continue  # 有谁知道…: a polite opening, not a question about several people
        return word
    return ""


@lru_cache(maxsize=1)
def _superlatives() -> re.Pattern[str]:
    words = sorted(load_word_list(SUBJECTIVE_WORDS), key=len, reverse=True)
    return re.compile("最(?:" + "|".join(map(re.escape, words)) + ")")


def is_subjective(question: str) -> bool:
    """Whether the question asks for a judgement (see ``subjective`` in the module docstring)."""
    return bool(_subjective_span(question))


def _subjective_span(question: str) -> str:
    masked = _mask_named(question)
    opinion = _OPINION.search(masked)
    if opinion:  # 如何评价, 你认为, 应该先学哪种…比较好, 主题是什么
        return question[opinion.start():opinion.end()]
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
            return m.group(0)
    return ""


def has_unnamed_referent(question: str) -> bool:
    """Whether the question's subject is only a pronoun or demonstrative (see ``unnamed_referent``)."""
    return bool(_unnamed_span(question))


def _unnamed_span(question: str) -> str:
    if _NAMED.search(question) or _LATIN_WORD.search(question):
        return ""
    text = _LEAD_IN.sub("", question.strip())
    referring = load_word_list(REFERRING_WORDS)
    if not text or text[0] not in referring and not any(text.startswith(w) for w in referring):
        return ""  # no need to segment
    first = _words(text)[0]
    return first if (first in referring or first[0] in referring) and _opens_with_pronoun(text) else ""


@value_cache
def _tagged(text: str) -> tuple[tuple[str, str], ...]:
    """The first two words of ``text`` with their jieba part-of-speech tags."""
    words = []
    for pair in tagger().cut(text, HMM=False):
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


def _lead_in_end(masked: str) -> int:
    """Where the question proper starts, after a polite opening (请问, 你知道, 有谁知道, 我想知道)."""
    found = _OPENING.match(masked)
    return found.end() if found else 0


@lru_cache(maxsize=1)
def _names() -> tuple[frozenset[str], frozenset[str]]:
    """(surnames, common given names) of ``underspecified_names.txt``."""
    sections: dict[str, set[str]] = {}
    current = None
    for number, line in enumerate(UNDERSPECIFIED_NAMES.read_text(encoding="utf-8").splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        if text.startswith("["):
            current = sections.setdefault(text.strip("[]"), set())
        elif current is None:
            raise ValueError(f"{UNDERSPECIFIED_NAMES}:{number}: names before a [surnames] or [given] header")
        else:
            current.update(text.split())
    return frozenset(sections.get("surnames", ())), frozenset(sections.get("given", ()))


def _underspecified_span(question: str, senses: Mapping[str, Sequence[str]] | None = None) -> str:
    """The subject that names no one in particular: a common given name alone or after a surname, or a person
    known only by a generic title (赵戬老师), with nothing else said of them; a bare lower-case Latin word
    (max, swag); a title the crawl gives to several entries, asked without what tells them apart."""
    masked = _mask_named(question)
    start = _lead_in_end(masked)
    rest = masked[start:]
    handle = _HANDLE.match(rest)
    if handle:
        return handle.group(1)
    storm = _STORM.search(masked)
    if storm and not _DATE.search(masked) and not re.search(r"\d{4}|第\d+号", masked):
        return storm.group(0)  # 台风丹娜丝: storm names are used again and again
    title = _TITLE.search(question)
    if senses:
        shared = _shared_title(question, rest, senses)
        if shared:
            return shared
    if not rest or title or _DATE.search(rest) or _LATIN_WORD.search(rest):
        return ""
    words = list(_words(rest))
    run = 0  # an unknown name comes out of the segmenter one character at a time: 刘 晓 华
    while run < min(4, len(words)) and len(words[run]) == 1 and _CJK.match(words[run]) \
            and words[run] not in _FUNCTION_CHARS:
        run += 1
    if run >= 2:
        words[:run] = ["".join(words[:run])]
    first = words[0]
    if len(words) > 1 and len(words[1]) == 1 and _CJK.match(words[1]) and words[1] not in _FUNCTION_CHARS:
        return ""  # 马兰 戈 尼: the start of a longer name
    surnames, given = _names()
    common = first in given and len(first) == 2 or (
        2 <= len(first) <= 3 and first[0] in surnames and first[1:] in given)
    generic_title = len(words) > 1 and words[1] in _PERSON_TITLES and 2 <= len(first) <= 3 and first[0] in surnames
    if not (common or generic_title):
        return ""
    said = "".join(words[2 if generic_title else 1:])
    if len(_CJK.findall(said)) > 10 or _tagged_names(said):  # more is said of them than a bare question does
        return ""  # something else named: a place, an organisation, a work
    return first + (words[1] if generic_title else "")


def _shared_title(question: str, rest: str, senses: Mapping[str, Sequence[str]]) -> str:
    """The question's subject when it is a title that several entries share (``senses``: title -> the labels
    that tell them apart) and the question says nothing that one of those labels says."""
    titles = [m.group(0)[1:-1] for m in _TITLE.finditer(question)]
    titles += [rest[:n] for n in range(min(len(rest), 40), 1, -1) if n == len(rest) or rest[n] in _AFTER_SUBJECT]
    for title in titles:
        labels = senses.get(title)
        if labels is None:
            continue
        said = question.replace(title, "□")
        cues = {w for label in labels for w in _words(label) if len(w) >= 2 and w not in _GENERIC_SENSE_WORDS}
        return "" if any(cue in said for cue in cues) or _SENSE_CUE.search(said) else title
    return ""


def _tagged_names(text: str) -> list[str]:
    """The words of ``text`` that jieba tags as proper names (places, organisations, other names), not people."""
    return [text[start:end] for start, end, flag in _tagged_spans(text)
            if flag in ("ns", "nt", "nz") and end - start > 1]


def _one_of_many_span(question: str) -> str:
    """The relation word of a question that asks for one of several values without saying which
    (万安公主的孙子是谁, 下设了哪个机构)."""
    masked = _mask_named(question)
    for start, word in _word_matches(MULTI_VALUED_WORDS, masked, "end"):
        clause = _clause_at(masked, start)
        offset = masked.find(clause, max(0, start - len(clause)))
        end = start - offset + len(word)
        ask = _ASK_ONE.search(clause, end) or _YES_NO_ASK.match(clause, end)
        before = clause[:start - offset]
        if ask is None or ask.start() - end > 2 or before.count("的") > 1 or "□" in before or _NARROWED.search(before) \
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


def _explanatory_span(question: str) -> str:
    """What makes the question ask for an explanation: a word of ``explanatory_words.txt`` asked without a
    type (名称由来是什么, 机构职能是什么, 我想知道X的简介), a how or why (怎么制作, 为什么), or a
    meaning (是什么意思, 何意)."""
    masked = _mask_named(question)
    meaning = _MEANING.search(masked)
    if meaning:
        return question[meaning.start():meaning.end()]
    for start, word in _word_matches(EXPLANATORY_WORDS, masked, "end"):
        clause = _clause_at(masked, start)
        offset = masked.find(clause, max(0, start - len(clause)))
        before, after = clause[:start - offset], clause[start - offset + len(word):]
        after = _PARTICLES.sub("", after)
        subject = before[_lead_in_end(before):]
        if len(subject) > 14:
            continue  # a description before 的方法是什么 asks for the method's name
        if (after and after != "的" and _GENERIC_ASK.fullmatch(after)) or (not after and not _ASKS.search(masked)) \
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
    if how and not _ASKS.search(_clause_at(masked, how.start()).replace(how.group(0), "")):
        return question[how.start():how.end()]
    return ""


def _kb_debris_span(question: str, answer: str) -> str:
    """A question about a knowledge base's layout rather than the world: its list ordinals (第二条解释, 解释1)
    or an answer that is a section name (概述)."""
    found = _DEBRIS_ASK.search(_mask_named(question))
    if found:
        return question[found.start():found.end()]
    core = answer_core(answer).strip() if answer else ""
    return core if core in _SECTION_NAMES else ""


def _reference_span(question: str) -> str:
    """A distance to a place the question does not name (离火车站有多远), or a rank with no field to rank in."""
    masked = _mask_named(question)
    if _DISTANCE.search(masked):
        for m in _GENERIC_PLACE.finditer(masked):
            before = masked[:m.start()]
            if not before or before.endswith(("离", "距", "距离", "到", "与", "和", "的")) or _CLAUSE.match(before[-1]):
                return m.group(0)
    rank = _RANK.search(masked)
    if rank and not _RANK_FIELD.search(masked) and not _DIMENSION.search(masked[max(0, rank.start() - 3):rank.start()]):
        return rank.group(0)
    return ""


def _sentence_span(answer: str) -> str:
    """The word that makes an answer a statement rather than a name or a value (塔板理论将色谱柱看作…,
    名称来源于…, 指歌唱时…): a clause's verb in an answer of six characters or more."""
    core = answer_core(answer)
    if len(_CJK.findall(core)) < 6 or _TITLE.fullmatch(core.strip()):
        return ""
    words = _words(core)
    for n, word in enumerate(words):
        if word in _STATEMENT_WORDS and 0 < n < len(words) - 1 or n == 0 and word in _STATEMENT_OPENINGS \
                or word in ("得名", "而得名") and n > 0:
            return word
    return ""


def _mismatch_span(question: str, answer: str) -> str:
    """The ask of a question that its answer does not answer: a time asked (什么时候, 哪一年) and no date or
    time in the answer (国立江苏医学院, 3.5秒), or a number asked (多少, 几) and no number in it (全年无休)."""
    masked = _mask_named(question)
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
    listed = _enumeration_span(answer)
    if not answer_budget_ok(answer, max_answer_chars) and (listed or not _one_name(answer)):
        failed.append(Failure("answer_too_long", answer_core(answer), "answer"))
    given_away = _answer_in_question_span(question, answer)
    if given_away:
        failed.append(Failure("answer_in_question", given_away, "question"))
    if listed and not asks_counted_set(question) and not _ASKS_FULL_NAME.search(question):
        failed.append(Failure("multiple_answers", listed, "answer"))
    failed += _wording(question, answer, relation, senses)
    if not any(f.reason == "explanatory" for f in failed):
        sentence = _sentence_span(answer)
        if sentence:
            failed.append(Failure("explanatory", sentence, "answer"))
    mismatch = _mismatch_span(question, answer)
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


def _one_name(answer: str) -> bool:
    """Whether a long answer, not a list, is one institution's name (中国科学院…研究所): a name is one answer
    however long."""
    core = answer_core(answer)
    return bool(_CJK.match(core)) and not _CLAUSE.search(core) \
        and any(core.endswith(h) for h in load_word_list(NAME_HEADS) if len(h) >= 2)


def _wording(question: str, answer: str, relation: str,
             senses: Mapping[str, Sequence[str]] | None = None) -> list[Failure]:
    failed = []
    relative = _relative_time_words(question)
    if relative:
        failed.append(Failure("relative_time", relative[0], "question"))
    elif answer:
        # 2010年6月-: still going on; 2篇（截至2019年7月）: a count as of a day, which has changed since
        found = _relative_time_words(answer) or [m.group(0) for m in (_OPEN_RANGE.search(answer.strip()),
                                                                       _AS_OF.search(answer)) if m]
        if found:
            failed.append(Failure("relative_time", found[0], "answer"))
    if relation and (relation in load_word_list(TIME_VARIANT_RELATIONS)
                     or _word_pattern(RELATIVE_TIME_WORDS).search(relation)):
        failed.append(Failure("time_variant_relation", relation, "relation"))
    if not {"relative_time", "time_variant_relation"} & {f.reason for f in failed}:
        span = _time_variant_span(question)
        if span:
            failed.append(Failure("time_variant_question", span, "question"))
    for reason, rule in (("asks_for_several", _several_span), ("subjective", _subjective_span),
                         ("unnamed_referent", _unnamed_span)):
        span = rule(question)
        if span:
            failed.append(Failure(reason, span, "question"))
    span = _underspecified_span(question, senses)
    if span:
        failed.append(Failure("underspecified_subject", span, "question"))
    if not any(f.reason == "asks_for_several" for f in failed):
        span = _one_of_many_span(question)
        if span:
            failed.append(Failure("one_of_many", span, "question"))
    span = _explanatory_span(question)
    if span:
        failed.append(Failure("explanatory", span, "question"))
    span = _kb_debris_span(question, answer)
    if span:
        failed.append(Failure("kb_debris", span, "answer" if span == answer_core(answer).strip() and span not in
                              question else "question"))
    span = _reference_span(question)
    if span:
        failed.append(Failure("no_reference_point", span, "question"))
    return failed
