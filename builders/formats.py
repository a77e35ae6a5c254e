"""What kind of value an answer is, so that distractors share the gold's format.

CDTP (Appendix C.2) picks distractors with entity-type consistency: the ten options
of an item look alike (ten formulas C10H16O2 ... , ten birth years 1680 ... 1689), so
no option can be ruled out by its form alone. :func:`value_format` gives each value
a kind, and :func:`compatible` says whether a candidate may stand next to a gold.

Kinds (in the order they are tried; the first that fits wins):

* ``title``    a quoted work: 《史记》
* ``date``     a calendar date, full or partial: 1881年9月25日, 1998年11月, 7月23日, 5月
* ``period``   a span of years or dates: 1405年—1433年, 公元前770年—公元前476年, 3—4月
* ``year``     a year: 1881年, 公元前259年, 701年 (a bare 3-4 digit number counts when
               the relation names a time, e.g. 出生日期 1680)
* ``quantity`` a number with a unit: 6300余千米, 约960万平方千米, -259.16℃, 0.0899 g/L, 120回
* ``number``   a bare number: 1.008, 18, 1～2
* ``formula``  a chemical formula: H2O, NaCl, CaSO4·2H2O, H₂SO₄
* ``code``     an identifier: CAS 1333-74-0, stock code 00700, CNY, WTO, .py
* ``latin``    mostly Latin-script text: Yangtze River, Ailuropoda melanoleuca (its words counted: an
               option of one word beside a name of four stands out)
* ``person``   a name, when the relation holds persons (:data:`PERSON_RELATIONS`)
* ``text``     anything else (places, dynasties, descriptions, enumerations)

A ``text`` spanning two named times or places (西周初年至春秋中叶) has ``span`` set, as a range of numbers has.

``period`` is not in the original brief: a span next to single years is told apart
at a glance, so spans get spans.

``unit`` refines a kind, and :func:`compatible` requires it to match:

* quantity: the unit as written, NFKC-normalised (``g/cm³`` -> ``g/cm3``, ``°C`` -> ``℃``).
  Different unit words (千米, km, 公里) stay different: an option in another notation
  stands out just as an option in another kind does.
* number: ``integer`` or ``decimal`` (an atomic number 30 is no option beside atomic masses 65.38 and 32.06).
* text: ``honour`` for an award or a title received (诺贝尔生理学或医学奖, 共和国勋章), no option beside a deed
  (创立华为) as a deed is none beside it.
* date and period: the precision, ``年月日``, ``年月``, ``月日``, ``月``, ``年`` or ``世纪``
  (a day-precise gold gets day-precise options).
* formula: ``element`` for a lone element symbol (H, Na) so symbols get symbols.

``magnitude`` is the numeric value of quantities and numbers (scaled by 万/亿, approximate
markers 约/余/多/以上/左右 ignored, the first end of a range) and the signed year of
years (公元前259年 -> -259).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from filters.normalize import THOUSANDS, value_cache

KINDS = ("date", "period", "year", "quantity", "number", "formula", "code", "title", "latin", "person", "text")

# Two quantities are at a similar magnitude when the larger absolute value is at most
# this many times the smaller (absolute values below 1 count as 1, so 0℃ and -0.43℃
# sit with small values). 30 is our choice, not a paper's: about one and a half orders
# of magnitude, so 约55万平方千米 and 约960万平方千米 may share an item but 9.82平方千米 may not.
MAGNITUDE_FACTOR = 30.0
YEAR_SPAN = 500.0  # years further apart than this make an option easy to rule out

# Relations whose values are people (canonical names, after filters/relation_aliases.tsv).
# Included: creators, family, founders, leaders and office holders, cast and crew, and
# groups of named people (代表人物, 主要人物 of a work). Left out on purpose: the entity's
# own names (本名, 字, 号, 别名, 全名), whose options should be other names of that kind,
# and 领导人/成员 style relations that often hold organisations.
PERSON_RELATIONS = frozenset({
    # authors and creators
    "作者", "主要作者", "编者", "主编", "协修", "原著作者", "作词", "作曲", "编曲", "音乐", "演唱者", "歌手",
    "设计者", "金字塔设计者", "发明者", "早期发明者", "活字印刷发明者", "发现者", "命名者", "改进者",
    "主要改进者", "主要改良者", "主要培育者", "修建者", "开拓者", "合作者", "理论奠基者", "主要奠基者",
    "液体火箭先驱", "火箭法进献者", "总工程师", "技术负责人", "首席科学家",
    # founders and rulers
    "创始人", "创立者", "创办人", "建立者", "领导者", "主持者", "推行者", "派遣者", "发动者", "支持者",
    "末代皇帝", "末代君主", "主要皇帝", "主要君主", "主要指挥官", "平叛将领", "签约代表",
    # office holders
    "首任院长", "首任行长", "首任校长", "著名校长", "首席执行官", "董事长", "总裁", "总经理", "法定代表人",
    "校长", "院长", "主席",
    # family and teachers
    "父亲", "母亲", "配偶", "丈夫", "妻子", "儿子", "女儿", "子女", "祖父", "祖母", "兄弟", "姐妹",
    "老师", "师从", "学生", "弟子", "继任者", "前任", "后任",
    # film, television, stage
    "导演", "总导演", "编剧", "主演", "制片人", "监制", "配音",
    # people in works, movements and missions
    "代表人物", "主要人物", "代表思想家", "著名诗人", "航天员",
})

# Relations whose values are chemical formulas or element symbols, so CO and C count as formulas.
FORMULA_RELATIONS = frozenset({"化学式", "分子式", "化学分子式", "元素符号"})

_ELEMENTS = frozenset("""
H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr
Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb
Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr
Rf Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og
""".split())

# A relation naming a time: a bare 3-4 digit number there is a year (出生日期 1680).
_TIME_RELATION = re.compile(r"(?:时间|日期|年份|年代|年间|年|日)$")
# A relation naming a duration: X年 there is an amount of years (公转周期 约76年, 记载年数 242年).
_DURATION_RELATION = re.compile(r"周期|年数|年龄|历史|时长|持续|存续|寿命|年限|期限|工期|任期|历时|跨度")
# A relation naming an identifier: digits there are a code (院校代码 10001, 电话区号 010).
_CODE_RELATION = re.compile(r"代码|编码|编号|代号|号码|区号|邮编|邮政编码|登录号|ISBN|ISSN|CAS", re.I)

# Superscript exponents must be read before NFKC turns 10²⁴ into 1024.
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SCI = re.compile(r"\s*[×xX*]\s*10(?:\^\s*([-+]?\d+)|([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))")

_APPROX = r"(?:约为|大约|约|近|逾|超过|可超过|可达|达)?"
_BC = r"(?:公元前|前|公元)?"
_DATE = re.compile(rf"^约?(?P<era>{_BC})(?P<y>\d{{1,4}})年(?P<m>\d{{1,2}})月(?:(?P<d>\d{{1,2}})日)?(?:前后|左右)?$")
_ISO_DATE = re.compile(r"^(?P<y>\d{3,4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})$")
_MONTH_DAY = re.compile(r"^(?P<m>\d{1,2})月(?:(?P<d>\d{1,2})日)?$")
_YEAR = re.compile(rf"^约?(?P<era>{_BC})(?P<y>\d{{1,4}})年(?:前后|左右)?$")
_END = rf"约?{_BC}\d{{1,4}}年(?:\d{{1,2}}月(?:\d{{1,2}}日)?)?|\d{{1,2}}世纪"
_DASH = r"\s*(?:[—–\-~〜]+|至|到)\s*"
_PERIOD = re.compile(rf"^(?P<a>{_END}){_DASH}(?:{_END}|\d{{1,2}}月(?:\d{{1,2}}日)?|\d{{1,2}}日)(?:之间)?$")
_MONTH_PERIOD = re.compile(rf"^\d{{1,2}}月?{_DASH}\d{{1,2}}月$")

_NUM = r"\d+(?:\.\d+)?(?:e[-+]?\d+)?"
_MULT = r"(?:万亿|千万|百万|十万|万|亿)"
_CJK_UNIT = r"[\u4e00-\u9fff]{1,6}?(?:/[\u4e00-\u9fff]{1,4})?"
_LATIN_UNIT = r"[A-Za-zμΩ]{1,4}\d?(?:/[A-Za-z]{1,4}\d?)?"
_SYMBOL_UNIT = r"°C|[℃℉%‰°′″]"
_QUANTITY = re.compile(rf"""^{_APPROX}
    (?P<sign>[-−])?(?P<num>{_NUM})(?:余|多)?(?P<mult>{_MULT})?(?:余|多)?
    (?:{_DASH}[-−]?{_NUM}(?:余|多)?{_MULT}?(?:余|多)?)?
    \s*(?P<unit>{_SYMBOL_UNIT}|{_LATIN_UNIT}|{_CJK_UNIT})?
    (?:以上|以下|左右|上下)?$""", re.X)
_NUMBER_RANGE = re.compile(rf"\d\s*(?:[—–\-~〜]+|至|到)\s*[-−]?\d")
_SCALE = {"万": 1e4, "十万": 1e5, "百万": 1e6, "千万": 1e7, "亿": 1e8, "万亿": 1e12}

_TITLE = re.compile(r"^《[^《》]+》$")
_FORMULA = re.compile(r"^\d*(?:[A-Z][a-z]?\d*|\((?:[A-Z][a-z]?\d*)+\)\d*|[·•∙]\d*)+$")
_ELEMENT_TOKEN = re.compile(r"[A-Z][a-z]?")
_SINGLE_ELEMENT = re.compile(r"^([A-Z][a-z]?)(\d*)$")
_CODES = (
    re.compile(r"^\d{2,7}-\d{2}-\d$"),                       # CAS registry number
    re.compile(r"^(?=.{2,12}$)[A-Z][A-Z0-9]*(?:[-_/][A-Z0-9]+)*$"),  # CNY, WTO, CR400AF, TCP/IP
    re.compile(r"^\d+(?:-\d+){2,}$"),                        # ISBN-like digit groups
    re.compile(r"^\+\d{1,4}(?:-\d+)*$"),                     # calling code +44
    re.compile(r"^\.[A-Za-z0-9]{1,8}$"),                     # file extension .py
    re.compile(r"^[a-z]{2,3}-[A-Z]{2}$"),                    # language tag zh-CN
)
_CODE_SHAPE = re.compile(r"^[0-9A-Za-z][0-9A-Za-z\-+./]*$")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f]")


@dataclass(frozen=True)
class ValueFormat:
    """The kind of a value; unit and magnitude as described in the module docstring."""

    kind: str
    unit: str = ""
    magnitude: float | None = None
    span: bool = False  # a number or quantity given as a range (5.5～6.5, 10~20米)


def _precision(text: str) -> str:
    if "世纪" in text:
        return "世纪"
    if "日" in text:
        return "年月日" if "年" in text else "月日"
    if "月" in text:
        return "年月" if "年" in text else "月"
    return "年"


def _valid_month_day(month: str | None, day: str | None) -> bool:
    return (month is None or 1 <= int(month) <= 12) and (day is None or 1 <= int(day) <= 31)


def _formula(value: str, relation: str) -> ValueFormat | None:
    if not _FORMULA.match(value):
        return None
    symbols = _ELEMENT_TOKEN.findall(value)
    if not symbols or any(s not in _ELEMENTS for s in symbols):
        return None
    named = relation in FORMULA_RELATIONS
    single = _SINGLE_ELEMENT.match(value)
    if single:
        digits = single.group(2)
        if not digits:
            return ValueFormat("formula", "element") if named else None
        # O3, S8, H2 are formulas; C919 and B52 are model numbers unless the relation says otherwise.
        return ValueFormat("formula") if named or (len(digits) == 1 and digits != "1") else None
    if named or any(c.isdigit() or c.islower() or c == "(" for c in value):
        return ValueFormat("formula")
    return None  # all capitals, no digits: CNY, UN, BTC are codes


def _latin(value: str) -> bool:
    if _CJK.search(value):
        return False
    letters = len(_LATIN_LETTER.findall(value))
    visible = sum(1 for c in value if not c.isspace())
    return letters >= 2 and letters * 2 >= visible


def _classify(value: str, relation: str) -> ValueFormat:
    value = _SCI.sub(lambda m: "e" + (m.group(1) or m.group(2).translate(_SUPERSCRIPTS)), value.strip())
    value = THOUSANDS.sub("", unicodedata.normalize("NFKC", value)).strip()
    if not value:
        return ValueFormat("text")
    if _TITLE.match(value):
        return ValueFormat("title")

    m = _DATE.match(value) or _ISO_DATE.match(value)
    if m and _valid_month_day(m.group("m"), m.group("d")):
        year = float(m.group("y")) * (-1 if "era" in m.groupdict() and "前" in (m.group("era") or "") else 1)
        return ValueFormat("date", "年月日" if m.group("d") else "年月", year)
    m = _MONTH_DAY.match(value)
    if m and _valid_month_day(m.group("m"), m.group("d")):
        return ValueFormat("date", "月日" if m.group("d") else "月")
    m = _PERIOD.match(value)
    if m:
        return ValueFormat("period", _precision(m.group("a")))
    if _MONTH_PERIOD.match(value):
        return ValueFormat("period", "月")

    duration = bool(_DURATION_RELATION.search(relation))
    m = _YEAR.match(value)
    if m and not duration:
        year = int(m.group("y"))
        return ValueFormat("year", magnitude=float(-year if "前" in m.group("era") else year))

    if _CODE_RELATION.search(relation) and _CODE_SHAPE.match(value):
        return ValueFormat("code")
    m = _QUANTITY.match(value)
    if m:
        if value[0] == "0" and len(value) > 1 and value[1].isdigit():
            return ValueFormat("code")  # 010, 00700: leading zeros make identifiers
        magnitude = float(m.group("num")) * _SCALE.get(m.group("mult") or "", 1.0)
        if m.group("sign"):
            magnitude = -magnitude
        unit = m.group("unit")
        if unit and unit[0] in "年月日" and len(unit) > 1:
            return ValueFormat("text")  # 220年曹丕代汉, 60年代: a time with words, not an amount
        span = bool(_NUMBER_RANGE.search(value))
        if unit:
            return ValueFormat("quantity", "℃" if unit == "°C" else unit, magnitude, span)
        if (not duration and _TIME_RELATION.search(relation) and m.group("num").isdigit()
                and 3 <= len(m.group("num")) <= 4 and value == m.group("num")):
            return ValueFormat("year", magnitude=magnitude)
        # an integer and a decimal are numbers of different kinds (an atomic number and an atomic mass)
        return ValueFormat("number", "decimal" if "." in m.group("num") else "integer", magnitude, span)

    found = _formula(value, relation)
    if found:
        return found
    if any(p.match(value) for p in _CODES):
        return ValueFormat("code")
    if _latin(value):
        return ValueFormat("latin", magnitude=float(len(value.split())))
    return ValueFormat("text", "honour" if _HONOUR.search(value) and not _FOUNDING.match(value) else "",
                       span=bool(_TEXT_SPAN.search(value)))


# An award or a title a person received (诺贝尔生理学或医学奖, 两弹一星功勋奖章, 共和国勋章): no option beside a deed
# (创立华为, 虎门销烟), nor a deed beside one; founding a prize (设立诺贝尔奖) is a deed.
_HONOUR = re.compile(r"(?:奖|奖章|勋章|奖牌|金牌|银牌|铜牌|称号|杰出贡献科学家|人民艺术家|人民科学家|人民英雄|劳动模范)$")
# A span of two named times or places (西周初年至春秋中叶): no option beside single ones (清代), as a range of numbers.
_TEXT_SPAN = re.compile(r"[\u4e00-\u9fff]{2}至[\u4e00-\u9fff]{2}")
_FOUNDING = re.compile(r"(?:设立|创立|创办|设置|建立|发起)")


# Values repeat across items and pools; the result is immutable. Bounded as value_key's cache is
# (filters.normalize.CACHE_ENTRIES): an entry holds about 250 bytes besides its value.
@value_cache
def value_format(value: str, relation: str = "", *,
                 person_relations: frozenset[str] = PERSON_RELATIONS) -> ValueFormat:
    """The format of ``value`` as the tail of ``relation``; see the module docstring.

    A value of a person-valued relation is a ``person`` unless it reads as a date,
    year, period, number, quantity, formula, code or title.
    """
    found = _classify(value, relation)
    if found.kind in ("text", "latin") and relation in person_relations:
        return ValueFormat("person")
    return found


def compatible(gold: ValueFormat, candidate: ValueFormat) -> bool:
    """Whether ``candidate`` may be an option next to ``gold``.

    Same kind and same unit; quantities and numbers also within :data:`MAGNITUDE_FACTOR` of each
    other; years of the same era within :data:`YEAR_SPAN` years. A date gold gets dates of
    its precision, never years.
    """
    if gold.kind != candidate.kind or gold.unit != candidate.unit or gold.span != candidate.span:
        return False  # a range beside single values stands out as another kind does
    if gold.kind == "latin" and gold.magnitude is not None and candidate.magnitude is not None:
        return abs(gold.magnitude - candidate.magnitude) <= 1  # words: Jr. is no full name beside four
    if gold.kind in ("year", "date") and gold.magnitude is not None and candidate.magnitude is not None:
        # the same era and within YEAR_SPAN years: 1947 gets neither 57 nor 公元前313
        return (gold.magnitude < 0) == (candidate.magnitude < 0) and \
            abs(gold.magnitude - candidate.magnitude) <= YEAR_SPAN
    if gold.kind in ("quantity", "number") and gold.magnitude is not None and candidate.magnitude is not None:
        a, b = max(abs(gold.magnitude), 1.0), max(abs(candidate.magnitude), 1.0)
        return max(a, b) <= MAGNITUDE_FACTOR * min(a, b)
    return True


# Words that introduce another name (又称, 亦名): a value that begins with one is a piece of a sentence the page's row
# cut off (《又称蒋琬》 for 社稷之器's 出处), no name of anything.
_FRAGMENT = re.compile(r"^[《“\"]?(?:又称|又名|亦称|亦名|也称|也叫|或称|别称|俗称|简称)")


def fragment(value: str) -> bool:
    """Whether the value is a piece of a sentence, not a name (《又称蒋琬》): no answer and no option."""
    return bool(_FRAGMENT.match(value.strip()))
