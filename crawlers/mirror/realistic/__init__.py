"""The realistic profile of the mirror: generated entries that behave like real Baidu Baike pages.

The demo facts table is tidy (short summaries that repeat the infobox verbatim); this profile
is not. ``RealisticCorpus(size, seed)`` generates a small world knowledge graph implicitly by
index and writes each entity's page the way Baike editors do:

* a long tail: 5% famous entries (summaries of 300-600 characters, 10-20 infobox rows,
  referenced by many others), 25% mid (80-250, 5-10 rows) and 70% long-tail entries
  (20-80 characters, 2-5 rows, few inbound references);
* summaries from clause templates with several phrasings per relation: its name (面积为…),
  a cue word (生于, 毕业于, 注入 ...) or a Baike convention (the lifespan parentheses, 字/号/原名/
  又称, 「A人」, an appositive description «唐朝诗人»);
* planted properties at the rates of the module constants below, each labelled in
  ``entry.labels`` (schema in ``_Page.labels``): infobox rows the text never mentions, extra
  facts, paraphrased values, value-only traps, stale rows, false values the text states as well
  (the page wrong throughout; only other sites, crawlers.mirror.web, give the true one), partial
  values, long enumerations, multi-sense titles, citation marks and stray spaces, near duplicates.

Entry ``i`` depends only on (seed, size, i) and is computed in O(1): the index space is cut
into blocks of 100 whose type mix is fixed and whose order is a seeded shuffle, so "the k-th
city" is found without generating anything else, and a reference picks the k-th entity of a
type with a Zipf-like skew. Names depend on (seed, i) alone and are unique per title (a seeded
bijection of the member rank onto each type's name space) up to about 800,000 entries, apart
from the planted multi-sense titles. The first 50 indices are real countries, dynasties and
elements with real facts; generated people are fictional and long dead.

Relations are stated from one side only (a film names its director; the director's page need
not list the film), so the world has no contradicting inverse facts.

Each type belongs to one CDTP domain (DOMAIN below), except people, whose domain follows
their occupation (a poet is humanities_society, an official history_politics ...).

Measured on one core (Python 3.11, the development container): 100,000 entries in 31 s
(0.31 ms each), resident memory flat at about 90 MB (the caches are bounded).

What the first 2,000 entries of seed 0 hold (tests/crawlers/test_realistic.py checks that each
property occurs): of 8,980 infobox values other than 中文名, 50% are supported by the summary
(by name 19%, cue word 17%, convention 15%; 55 in a paraphrased form), 45% never appear, 3.4%
appear only in a clause about something else, 0.8% are contradicted (stale) and 0.8% given only
in part; 51 (0.6%) are planted false, the text stating the same wrong value (50 of them supported
by it); 1,920 extra facts (617 named by their relation) in 1,203 entries, 254 entries with a
named extra fact after the last supported value; 184 enumerations of 4-10 items, 125 of them
only partly in the infobox; 3% of titles shared by 2-3 entries; 0.85% near duplicates; citation
marks or stray spaces in 70% of summaries.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

from crawlers.mirror.facts import Entry

REALISTIC_ID_BASE = 30_000_000
BLOCK = 100  # the index space is cut into blocks of this many entries with a fixed type mix

# --- Planted rates ----------------------------------------------------------------------------
# Set once, a priori, from how Baike pages typically read (not measured on a Baike sample), and
# never tuned to make a filter score come out at a given figure. The shares a corpus ends up
# with are reported in the module docstring.

# Popularity tiers: in every run of 20 members of a type, 1 famous, 5 mid, 14 long-tail
# (Baike's own long tail: most entries are short stubs nobody links to).
TIER_PATTERN = ("famous",) + ("mid",) * 5 + ("long_tail",) * 14
SUMMARY_CHARS = {"famous": (300, 600), "mid": (80, 250), "long_tail": (20, 80)}
INFOBOX_ROWS = {"famous": (10, 20), "mid": (5, 10), "long_tail": (2, 5)}
# A reference goes to a famous entity half the time, as links on real pages cluster on
# well-known entries; within a tier, lower ranks are favoured (u ** REF_SKEW).
REF_TIER_WEIGHTS = (0.5, 0.3, 0.2)
REF_SKEW = 2.0
# An optional fact of base probability p is known with probability p ** FACT_EXPONENT[tier]:
# famous entities are documented fully, long-tail ones sparsely.
FACT_EXPONENT = {"famous": 0.0, "mid": 1.0, "long_tail": 2.0}

# Row fates. CDTP (section 3.2) keeps about half of all infobox triples: the rest are not
# in the text, so a row is stated with probability P_ROW_STATED before the length budget of
# the tier drops more (long-tail summaries state one or two rows at most).
P_ROW_STATED = 0.55
P_ROW_VALUE_ONLY = 0.06    # of rows with a trap phrasing: the value sits in a clause about something else
P_ROW_CONTRADICTED = 0.05  # of date and quantity rows: the infobox value is stale
P_ROW_FALSE = 0.1          # of stated date and quantity rows: the page is wrong, its infobox and its text alike;
                           # the true value is what other sites (crawlers.mirror.web) state, if any does. High
                           # for an encyclopedia, so that a 1,500-entry crawl holds some fifty to measure on.
P_ROW_PARTIAL = 0.2        # of stated full dates and province-qualified places: the text gives only part
P_RELATION_ALIAS = 0.2     # a minority of pages spell a relation differently (出生时间 for 出生日期)
P_PATTERN = 0.7            # a stated row with a Baike convention in the opening uses it
P_SUBJECTLESS_HEAD = 0.05  # pages without a 中文名 row
# Paraphrased values, of the stated rows where the paraphrase applies.
P_DATE_NOTATION = 0.12     # 1881-09-25 or 1881.9.25 for 1881年9月25日
P_NUMERAL = 0.12           # 一八八一年, 一百二十回 for 1881年, 120回
P_UNIT_WORD = 0.2          # 公里 for 千米, 平方公里 for 平方千米, 公斤 for 千克, 摄氏度 for ℃
P_APPROXIMATE = 0.12       # 约960万平方千米 for 960万平方千米
# Facts the text states that the infobox lacks.
P_EXTRA = 0.3              # of the entity's facts without a row
P_EXTRA_TRAILING = 0.5     # an extra fact goes after the infobox facts rather than among them
MAX_EXTRA = {"famous": 5, "mid": 3, "long_tail": 1}
# Enumerations (代表作品, 主要支流, 主演 ...) of 4-10 items.
P_ENUM_STATED = 0.7        # an enumerable row is listed in full in the text
P_ENUM_INFOBOX_ALL = 0.5   # the infobox lists every item; otherwise only the first few
# How a stated row is phrased outside the opening: by a cue word most often, by the relation's
# name often, by a convention (是一位物理学家, 又称…) least.
HOW_WEIGHTS = {"name": 0.35, "cue": 0.5, "pattern": 0.15}
P_OPENING_EXTRA = 0.5      # an opening convention states a fact that has no row (an extra fact, not named)
P_MERGE = 0.4              # the first body sentence continues the opening sentence after a comma
P_SUBJECT = 0.5            # a body sentence repeats its subject (他, 该河, the name) rather than dropping it
# Noise in the summary string (the project's cleaner removes it).
P_CITATION = 0.25          # a citation mark after a sentence ([3], [4-6])
P_STRAY_SPACE = 0.2        # an entry with one or two stray spaces
# Multi-sense titles and near duplicates, per block of 100 entries.
HOMONYM_GROUPS = ((2, 0.2), (3, 0.5), (4, 0.3))  # about 3 shared titles per ~97 titles: ~3%
# Who shares a title: two people (pp), three people (ppp), a person and a town named after the
# same words (pl), two towns (ll), a novel and the film of it (bf).
HOMONYM_KINDS = (("pp", 0.55), ("ppp", 0.1), ("pl", 0.15), ("ll", 0.1), ("bf", 0.1))
NEAR_DUPLICATES_PER_BLOCK = 1  # 1% of entries are lightly edited copies of an earlier one
RELATED_LINKS = 3              # uniform "related entries" links in the sections keep every page reachable

# --- The type mix -------------------------------------------------------------------------------

BLOCK_MIX = (("person", 34), ("city", 6), ("place", 6), ("river", 4), ("mountain", 3), ("lake", 2),
             ("book", 5), ("film", 3), ("work", 6), ("company", 6), ("university", 3), ("organisation", 3),
             ("plant", 4), ("animal", 4), ("species", 2), ("compound", 3), ("event", 4), ("treaty", 2))
COUNT = dict(BLOCK_MIX)
TYPE_CODE = {t: n for n, t in enumerate(["country", "dynasty", "element", *COUNT])}
DOMAIN = {
    "city": "history_politics", "place": "history_politics", "river": "nature_environment",
    "mountain": "nature_environment", "lake": "nature_environment", "book": "humanities_society",
    "film": "humanities_society", "work": "humanities_society", "company": "technology_economics",
    "university": "humanities_society", "organisation": "technology_economics",
    "plant": "nature_environment", "animal": "nature_environment", "species": "nature_environment",
    "compound": "nature_environment", "event": "history_politics", "treaty": "history_politics",
    "country": "history_politics", "dynasty": "history_politics", "element": "nature_environment",
}
FAMILY = {"person": "person", "city": "geo", "place": "geo", "river": "geo", "mountain": "geo", "lake": "geo",
          "book": "work", "film": "work", "work": "work", "company": "org", "university": "org",
          "organisation": "org", "plant": "nature", "animal": "nature", "species": "nature",
          "compound": "nature", "element": "nature", "event": "history", "treaty": "history",
          "country": "history", "dynasty": "history"}

# --- Real facts: countries, dynasties, elements -------------------------------------------------

COUNTRIES = (
    ("中国", "China", "亚洲东部", {"全称": "中华人民共和国", "首都": "北京", "官方语言": "汉语", "货币": "人民币",
     "面积": "约960万平方千米", "国歌": "《义勇军进行曲》", "国庆日": "10月1日", "政体": "人民代表大会制度",
     "主要河流": "长江、黄河"}),
    ("日本", "Japan", "亚洲东部", {"全称": "日本国", "首都": "东京", "官方语言": "日语", "货币": "日元",
     "面积": "约37.8万平方千米", "国歌": "《君之代》", "政体": "君主立宪制", "主要河流": "信浓川"}),
    ("法国", "France", "欧洲西部", {"全称": "法兰西共和国", "首都": "巴黎", "官方语言": "法语", "货币": "欧元",
     "面积": "约55万平方千米", "国歌": "《马赛曲》", "国庆日": "7月14日", "政体": "半总统制",
     "主要河流": "卢瓦尔河、塞纳河"}),
    ("英国", "United Kingdom", "欧洲西部", {"全称": "大不列颠及北爱尔兰联合王国", "首都": "伦敦", "官方语言": "英语",
     "货币": "英镑", "面积": "约24.4万平方千米", "政体": "君主立宪制", "主要河流": "泰晤士河"}),
    ("德国", "Germany", "欧洲中部", {"全称": "德意志联邦共和国", "首都": "柏林", "官方语言": "德语", "货币": "欧元",
     "面积": "约35.8万平方千米", "国歌": "《德意志之歌》", "国庆日": "10月3日", "政体": "联邦议会共和制",
     "主要河流": "莱茵河"}),
    ("意大利", "Italy", "欧洲南部", {"全称": "意大利共和国", "首都": "罗马", "官方语言": "意大利语", "货币": "欧元",
     "面积": "约30.1万平方千米", "国庆日": "6月2日", "政体": "议会共和制", "主要河流": "波河"}),
    ("俄罗斯", "Russia", "欧亚大陆北部", {"全称": "俄罗斯联邦", "首都": "莫斯科", "官方语言": "俄语", "货币": "卢布",
     "面积": "约1709.8万平方千米", "国庆日": "6月12日", "主要河流": "伏尔加河"}),
    ("美国", "United States", "北美洲中部", {"全称": "美利坚合众国", "首都": "华盛顿哥伦比亚特区", "官方语言": "英语",
     "货币": "美元", "面积": "约937万平方千米", "国歌": "《星光灿烂的旗帜》", "国庆日": "7月4日",
     "政体": "总统共和制", "主要河流": "密西西比河"}),
    ("印度", "India", "亚洲南部", {"全称": "印度共和国", "首都": "新德里", "官方语言": "印地语、英语", "货币": "印度卢比",
     "面积": "约298万平方千米", "国歌": "《人民的意志》", "国庆日": "1月26日", "政体": "议会共和制",
     "主要河流": "恒河"}),
    ("埃及", "Egypt", "非洲东北部", {"全称": "阿拉伯埃及共和国", "首都": "开罗", "官方语言": "阿拉伯语", "货币": "埃及镑",
     "面积": "约100.1万平方千米", "国庆日": "7月23日", "主要河流": "尼罗河"}),
    ("巴西", "Brazil", "南美洲东部", {"全称": "巴西联邦共和国", "首都": "巴西利亚", "官方语言": "葡萄牙语",
     "货币": "雷亚尔", "面积": "约851.5万平方千米", "国庆日": "9月7日", "主要河流": "亚马孙河"}),
    ("加拿大", "Canada", "北美洲北部", {"首都": "渥太华", "官方语言": "英语、法语", "货币": "加拿大元",
     "面积": "约998万平方千米", "国庆日": "7月1日", "政体": "联邦议会制", "主要河流": "圣劳伦斯河"}),
    ("西班牙", "Spain", "欧洲西南部", {"全称": "西班牙王国", "首都": "马德里", "官方语言": "西班牙语", "货币": "欧元",
     "面积": "约50.6万平方千米", "国庆日": "10月12日", "政体": "君主立宪制", "主要河流": "塔霍河"}),
)

# (name, English, start year, end year, facts); negative years are BC. Person eras use the years.
DYNASTIES = (
    ("商朝", "Shang Dynasty", -1600, -1046, {"存在时间": "约公元前1600年—公元前1046年", "都城": "亳、殷",
     "建立者": "商汤", "末代君主": "帝辛", "下一朝代": "西周", "文字": "甲骨文"}),
    ("西周", "Western Zhou", -1046, -771, {"存在时间": "公元前1046年—公元前771年", "都城": "镐京",
     "建立者": "周武王", "末代君主": "周幽王", "上一时期": "商朝", "下一时期": "春秋时期"}),
    ("春秋时期", "Spring and Autumn period", -770, -476, {"存在时间": "公元前770年—公元前476年",
     "上一时期": "西周", "下一时期": "战国时期"}),
    ("战国时期", "Warring States period", -475, -221, {"存在时间": "公元前475年—公元前221年",
     "上一时期": "春秋时期", "下一朝代": "秦朝"}),
    ("秦朝", "Qin Dynasty", -221, -207, {"存在时间": "公元前221年—公元前207年", "都城": "咸阳", "建立者": "秦始皇",
     "上一时期": "战国时期", "下一朝代": "西汉", "货币": "半两钱", "文字": "小篆", "地方制度": "郡县制",
     "主要民族": "华夏族"}),
    ("西汉", "Western Han", -202, 8, {"存在时间": "公元前202年—8年", "都城": "长安", "建立者": "刘邦",
     "上一时期": "秦朝", "下一朝代": "新朝", "货币": "五铢钱", "主要民族": "汉族"}),
    ("东汉", "Eastern Han", 25, 220, {"存在时间": "25年—220年", "都城": "洛阳", "建立者": "刘秀",
     "末代君主": "汉献帝", "下一朝代": "三国", "货币": "五铢钱", "主要民族": "汉族"}),
    ("三国", "Three Kingdoms", 220, 280, {"存在时间": "220年—280年", "上一时期": "东汉", "下一朝代": "西晋"}),
    ("西晋", "Western Jin", 266, 316, {"存在时间": "266年—316年", "都城": "洛阳", "建立者": "司马炎",
     "末代君主": "晋愍帝", "上一时期": "三国", "下一朝代": "东晋"}),
    ("东晋", "Eastern Jin", 317, 420, {"存在时间": "317年—420年", "都城": "建康", "建立者": "司马睿",
     "末代君主": "晋恭帝", "上一时期": "西晋"}),
    ("隋朝", "Sui Dynasty", 581, 618, {"存在时间": "581年—618年", "都城": "大兴", "建立者": "杨坚",
     "下一朝代": "唐朝", "地方制度": "州县两级制", "货币": "五铢钱"}),
    ("唐朝", "Tang Dynasty", 618, 907, {"存在时间": "618年—907年", "都城": "长安", "建立者": "李渊",
     "末代君主": "唐哀帝", "上一时期": "隋朝", "下一朝代": "后梁", "货币": "开元通宝", "文字": "汉字",
     "主要民族": "汉族"}),
    ("北宋", "Northern Song", 960, 1127, {"存在时间": "960年—1127年", "都城": "开封", "建立者": "赵匡胤",
     "末代君主": "宋钦宗", "上一时期": "五代十国", "下一朝代": "南宋", "货币": "铜钱、交子", "主要民族": "汉族"}),
    ("南宋", "Southern Song", 1127, 1279, {"存在时间": "1127年—1279年", "都城": "临安", "建立者": "赵构",
     "末代君主": "宋帝昺", "上一时期": "北宋", "下一朝代": "元朝", "货币": "会子", "主要民族": "汉族"}),
    ("元朝", "Yuan Dynasty", 1271, 1368, {"存在时间": "1271年—1368年", "都城": "大都", "建立者": "忽必烈",
     "末代君主": "元顺帝", "下一朝代": "明朝", "地方制度": "行省制度", "主要民族": "蒙古族、汉族",
     "官方语言": "蒙古语、汉语", "货币": "交钞"}),
    ("明朝", "Ming Dynasty", 1368, 1644, {"存在时间": "1368年—1644年", "都城": "南京、北京", "建立者": "朱元璋",
     "末代君主": "崇祯帝", "上一时期": "元朝", "下一朝代": "清朝", "货币": "大明宝钞、铜钱", "文字": "汉字",
     "主要民族": "汉族"}),
    ("清朝", "Qing Dynasty", 1636, 1912, {"存在时间": "1636年—1912年", "都城": "盛京、北京", "建立者": "皇太极",
     "末代君主": "宣统帝", "上一时期": "明朝", "下一朝代": "中华民国", "官方语言": "满语、汉语",
     "主要民族": "满族、汉族", "货币": "银两、铜钱"}),
)
ERA_WORD = {"商朝": "商代", "西周": "西周", "春秋时期": "春秋时期", "战国时期": "战国时期", "秦朝": "秦代",
            "西汉": "西汉", "东汉": "东汉", "三国": "三国时期", "西晋": "西晋", "东晋": "东晋", "隋朝": "隋代",
            "唐朝": "唐代", "北宋": "北宋", "南宋": "南宋", "元朝": "元代", "明朝": "明代", "清朝": "清代"}
# Eras generated people live in, with weights (Baike's historical figures cluster in Tang, Song, Ming, Qing).
PERSON_ERAS = (("春秋时期", 3), ("战国时期", 4), ("秦朝", 1), ("西汉", 4), ("东汉", 4), ("三国", 3), ("西晋", 1),
               ("东晋", 2), ("隋朝", 1), ("唐朝", 10), ("北宋", 7), ("南宋", 6), ("元朝", 4), ("明朝", 10),
               ("清朝", 12))

ELEMENTS = (
    (1, "H", "氢", "Hydrogen", "1.008", "非金属元素"), (2, "He", "氦", "Helium", "4.0026", "稀有气体"),
    (6, "C", "碳", "Carbon", "12.011", "非金属元素"), (7, "N", "氮", "Nitrogen", "14.007", "非金属元素"),
    (8, "O", "氧", "Oxygen", "15.999", "非金属元素"), (11, "Na", "钠", "Sodium", "22.990", "碱金属"),
    (12, "Mg", "镁", "Magnesium", "24.305", "碱土金属"), (13, "Al", "铝", "Aluminium", "26.982", "金属元素"),
    (14, "Si", "硅", "Silicon", "28.085", "类金属"), (16, "S", "硫", "Sulfur", "32.06", "非金属元素"),
    (17, "Cl", "氯", "Chlorine", "35.45", "卤族元素"), (19, "K", "钾", "Potassium", "39.098", "碱金属"),
    (20, "Ca", "钙", "Calcium", "40.078", "碱土金属"), (26, "Fe", "铁", "Iron", "55.845", "过渡金属"),
    (29, "Cu", "铜", "Copper", "63.546", "过渡金属"), (30, "Zn", "锌", "Zinc", "65.38", "过渡金属"),
    (47, "Ag", "银", "Silver", "107.87", "过渡金属"), (79, "Au", "金", "Gold", "196.97", "过渡金属"),
    (80, "Hg", "汞", "Mercury", "200.59", "过渡金属"), (82, "Pb", "铅", "Lead", "207.2", "金属元素"),
)

# The fixed entities take the first indices: countries, then dynasties, then elements.
FIXED = ([("country", c[0]) for c in COUNTRIES] + [("dynasty", d[0]) for d in DYNASTIES]
         + [("element", e[2]) for e in ELEMENTS])
N_FIXED = len(FIXED)
FIXED_INDEX = {name: i for i, (_, name) in enumerate(FIXED)}

PROVINCES = ("河北省", "山西省", "辽宁省", "吉林省", "黑龙江省", "江苏省", "浙江省", "安徽省", "福建省", "江西省",
             "山东省", "河南省", "湖北省", "湖南省", "广东省", "海南省", "四川省", "贵州省", "云南省", "陕西省",
             "甘肃省", "青海省")
N_PROV = len(PROVINCES)
DIRECTIONS = ("东部", "西部", "南部", "北部", "中部", "东南部", "东北部", "西南部", "西北部")
CLIMATES = ("亚热带季风气候", "温带季风气候", "温带大陆性气候", "高原山地气候", "中亚热带湿润气候")
SEAS = ("东海", "南海", "黄海", "渤海")
RIVER_SYSTEMS = ("长江", "黄河", "珠江", "淮河", "海河", "辽河", "松花江", "钱塘江", "闽江")
RANGES = ("秦岭", "太行山脉", "武夷山脉", "南岭", "大别山", "巫山", "横断山脉", "祁连山脉", "长白山脉", "燕山",
          "大巴山", "雪峰山", "罗霄山脉", "武陵山脉", "吕梁山脉")


def _pool(text: str) -> tuple[tuple[str, str], ...]:
    """'王wang 李li' -> (('王', 'wang'), ('李', 'li'))."""
    out = []
    for token in text.split():
        cut = next(n for n, ch in enumerate(token) if ch.isascii())
        out.append((token[:cut], token[cut:]))
    return tuple(out)


SURNAMES = _pool(
    "王wang 李li 张zhang 刘liu 陈chen 杨yang 黄huang 赵zhao 吴wu 周zhou 徐xu 孙sun 马ma 朱zhu 胡hu 郭guo "
    "何he 高gao 林lin 罗luo 郑zheng 梁liang 谢xie 宋song 唐tang 许xu 韩han 冯feng 邓deng 曹cao 彭peng "
    "曾zeng 萧xiao 田tian 董dong 袁yuan 潘pan 蒋jiang 蔡cai 余yu 杜du 叶ye 程cheng 苏su 魏wei 丁ding "
    "任ren 沈shen 姚yao 卢lu 姜jiang 崔cui 钟zhong 谭tan 陆lu 汪wang 范fan 金jin 石shi 廖liao 贾jia "
    "夏xia 韦wei 方fang 白bai 邹zou 孟meng 熊xiong 秦qin 邱qiu 江jiang 尹yin 薛xue 段duan 雷lei 侯hou "
    "龙long 史shi 陶tao 黎li 贺he 顾gu 毛mao 郝hao 龚gong 邵shao 万wan 钱qian 严yan 武wu 戴dai 孔kong "
    "汤tang 欧阳ouyang 司马sima")
# No given-name character ends a river or mountain name (江, 山), so no person shares a title with one.
GIVEN = _pool(
    "文wen 武wu 德de 仁ren 义yi 礼li 智zhi 信xin 忠zhong 孝xiao 安an 平ping 宁ning 康kang 泰tai 福fu "
    "寿shou 明ming 光guang 辉hui 华hua 英ying 杰jie 俊jun 秀xiu 兰lan 梅mei 竹zhu 菊ju 松song 柏bai "
    "川chuan 海hai 涛tao 波bo 云yun 雨yu 雪xue 霞xia 春chun 秋qiu 晨chen 曦xi 鹏peng 飞fei "
    "翔xiang 鸿hong 志zhi 远yuan 博bo 达da 方fang 正zheng 清qing 源yuan 泉quan 之zhi 甫fu 卿qing "
    "贤xian 良liang 善shan 敬jing 谦qian 恒heng 瑞rui 祥xiang 嘉jia 锦jin 绍shao 廷ting 宗zong 承cheng "
    "继ji 允yun 若ruo 静jing 婉wan 淑shu 慧hui 琳lin 瑶yao 璋zhang 琦qi 衡heng 逸yi 然ran 彦yan 昭zhao "
    "启qi 济ji 鼎ding 铭ming 钧jun 晓xiao 立li 国guo 建jian 振zhen 树shu 荣rong 耀yao 炳bing 焕huan")
FEMALE_CHARS = set("兰梅秀霞婉淑慧琳瑶静雪春晓英菊")
PLACE_CHARS = _pool(
    "安an 平ping 宁ning 和he 兴xing 隆long 丰feng 泰tai 昌chang 永yong 新xin 清qing 源yuan 华hua 阳yang "
    "江jiang 石shi 青qing 白bai 云yun 南nan 北bei 东dong 西xi 溪xi 桥qiao 林lin 松song 柳liu 梅mei 桃tao "
    "金jin 银yin 铜tong 龙long 凤feng 鹤he 鹿lu 马ma 牛niu 虎hu 岭ling 峰feng 泉quan 潭tan 湾wan 沙sha "
    "港gang 关guan 城cheng 庄zhuang 坪ping 塘tang 陵ling 岩yan 谷gu 洲zhou 浦pu 宝bao 德de 嘉jia 福fu "
    "瑞rui 富fu 盛sheng 广guang 远yuan 定ding 通tong 会hui 乐le 崇chong 仁ren 延yan 大da 高gao 上shang "
    "双shuang 三san 五wu 九jiu 黄huang 红hong 翠cui 灵ling 仙xian 章zhang 怀huai 临lin 武wu")
N_PLACE = len(PLACE_CHARS)

BOOK_WORDS = ("江湖 山河 青云 烟雨 长夜 故园 风雪 星河 白鹿 红尘 沧海 浮生 寒山 孤城 大地 明月 归途 暗流 铁血 丝路 "
              "金陵 长安 北国 南渡 春秋 秋水 落花 残阳 远山 古道 渔舟 夜航 晚钟 霜天 孤帆 野火 黄沙 碧海 苍山 云梦 "
              "松风 竹影 梅雪 兰亭 桃源 柳岸 荷塘 秋声 冬雪 春雷 江南 塞北 关山 边关 长河 大漠 草原 渔村 山村 小城").split()
BOOK_SUFFIXES = "记 传 录 志 梦 谣 赋 集 纪事 往事 笔记 杂谈 演义 外史".split()
FILM_SUFFIXES = "风云 岁月 传奇 之恋 行动 密令 少年 天下 归来 故事 人生 旧梦".split()
POEM_VERBS = "登 送 寄 望 题 忆 咏 过 宿 别".split()
POEM_NOUNS = "楼 亭 寺 台 阁 江 山 月".split()
CI_TUNES = "水调歌头 念奴娇 满江红 浣溪沙 蝶恋花 临江仙 西江月 菩萨蛮 清平乐 如梦令".split()
INDUSTRIES = (("科技", "Technology"), ("电子", "Electronics"), ("药业", "Pharmaceutical"), ("重工", "Heavy Industry"),
              ("食品", "Food"), ("传媒", "Media"), ("化工", "Chemical"), ("纺织", "Textile"), ("机械", "Machinery"),
              ("能源", "Energy"), ("物流", "Logistics"), ("建材", "Building Materials"))
BUSINESS = {"科技": "软件开发、信息技术服务、系统集成、数据处理、智能硬件", "电子": "电子元器件、集成电路、显示面板、传感器、消费电子",
            "药业": "化学药品、中成药、医疗器械、原料药、保健食品", "重工": "工程机械、矿山设备、起重设备、港口机械、钢结构",
            "食品": "乳制品、饮料、休闲食品、调味品、粮油加工", "传媒": "影视制作、广告发布、出版发行、网络视听、演艺经纪",
            "化工": "精细化工、化肥、农药、涂料、合成材料", "纺织": "棉纺织、印染、服装、家用纺织品、化学纤维",
            "机械": "数控机床、农业机械、通用设备、汽车零部件、液压件", "能源": "火力发电、风力发电、光伏发电、煤炭开采、输配电",
            "物流": "仓储、货物运输、快递、供应链管理、冷链物流", "建材": "水泥、玻璃、陶瓷、新型墙体材料、防水材料"}
UNIVERSITY_KINDS = (("理工大学", "University of Technology", "理工类"), ("师范大学", "Normal University", "师范类"),
                    ("农业大学", "Agricultural University", "农林类"), ("医科大学", "Medical University", "医药类"),
                    ("财经大学", "University of Finance and Economics", "财经类"), ("大学", "University", "综合类"),
                    ("师范学院", "Normal College", "师范类"), ("科技大学", "University of Science and Technology", "理工类"))
ORG_KINDS = (("学会", "Society", "社会团体"), ("协会", "Association", "社会团体"), ("研究院", "Academy", "事业单位"),
             ("研究所", "Institute", "事业单位"), ("基金会", "Foundation", "非营利组织"), ("博物馆", "Museum", "事业单位"),
             ("科学院", "Academy of Sciences", "学术机构"), ("图书馆", "Library", "事业单位"))
ORG_FIELDS = ("地方史", "植物", "水利", "文物", "农业", "地质", "民俗", "中医药")
EVENT_KINDS = (("之战", "战役"), ("起义", "农民起义"), ("之变", "政变"), ("会战", "战役"), ("变法", "政治改革"),
               ("会盟", "会盟"), ("之役", "战役"))
TREATY_KINDS = ("条约", "和约", "盟约", "协定")
# Plant bases: name, 科, 属, 目, 纲, 门, Latin genus.
PLANT_BASES = (("杜鹃", "杜鹃花科", "杜鹃花属", "杜鹃花目", "双子叶植物纲", "被子植物门", "Rhododendron"),
               ("山茶", "山茶科", "山茶属", "杜鹃花目", "双子叶植物纲", "被子植物门", "Camellia"),
               ("冷杉", "松科", "冷杉属", "松杉目", "松杉纲", "裸子植物门", "Abies"),
               ("木兰", "木兰科", "木兰属", "木兰目", "双子叶植物纲", "被子植物门", "Magnolia"),
               ("报春", "报春花科", "报春花属", "报春花目", "双子叶植物纲", "被子植物门", "Primula"),
               ("紫堇", "罂粟科", "紫堇属", "罂粟目", "双子叶植物纲", "被子植物门", "Corydalis"),
               ("槭", "无患子科", "槭属", "无患子目", "双子叶植物纲", "被子植物门", "Acer"),
               ("百合", "百合科", "百合属", "百合目", "单子叶植物纲", "被子植物门", "Lilium"),
               ("龙胆", "龙胆科", "龙胆属", "龙胆目", "双子叶植物纲", "被子植物门", "Gentiana"),
               ("绣线菊", "蔷薇科", "绣线菊属", "蔷薇目", "双子叶植物纲", "被子植物门", "Spiraea"),
               ("荚蒾", "五福花科", "荚蒾属", "川续断目", "双子叶植物纲", "被子植物门", "Viburnum"),
               ("柳", "杨柳科", "柳属", "杨柳目", "双子叶植物纲", "被子植物门", "Salix"))
ANIMAL_BASES = (("长尾雉", "雉科", "长尾雉属", "鸡形目", "鸟纲", "Syrmaticus"),
                ("噪鹛", "噪鹛科", "噪鹛属", "雀形目", "鸟纲", "Garrulax"),
                ("林蛙", "蛙科", "蛙属", "无尾目", "两栖纲", "Rana"),
                ("小鲵", "小鲵科", "小鲵属", "有尾目", "两栖纲", "Hynobius"),
                ("竹鼠", "鼹形鼠科", "竹鼠属", "啮齿目", "哺乳纲", "Rhizomys"),
                ("麂", "鹿科", "麂属", "偶蹄目", "哺乳纲", "Muntiacus"),
                ("猕猴", "猴科", "猕猴属", "灵长目", "哺乳纲", "Macaca"),
                ("锦蛇", "游蛇科", "锦蛇属", "有鳞目", "爬行纲", "Elaphe"),
                ("裂腹鱼", "鲤科", "裂腹鱼属", "鲤形目", "辐鳍鱼纲", "Schizothorax"),
                ("歌鸲", "鹟科", "歌鸲属", "雀形目", "鸟纲", "Luscinia"),
                ("鼯鼠", "松鼠科", "鼯鼠属", "啮齿目", "哺乳纲", "Petaurista"))
INSECT_BASES = (("凤蝶", "凤蝶科", "凤蝶属", "鳞翅目", "Papilio"), ("天牛", "天牛科", "天牛属", "鞘翅目", "Cerambyx"),
                ("蜻", "蜻科", "蜻属", "蜻蜓目", "Libellula"), ("螳", "螳科", "螳属", "螳螂目", "Mantis"),
                ("萤", "萤科", "萤属", "鞘翅目", "Luciola"))
LATIN_EPITHETS = ("sinensis", "grandiflora", "longicauda", "purpurea", "montana", "alpina", "minor", "major",
                  "orientalis", "maculata", "rubra", "alba", "tenuis", "robusta", "elegans", "silvestris")
# Compound bases: name, atom counts; substituents: name, atoms added, hydrogens replaced.
COMPOUND_BASES = (("苯", {"C": 6, "H": 6}), ("苯酚", {"C": 6, "H": 6, "O": 1}), ("苯胺", {"C": 6, "H": 7, "N": 1}),
                  ("苯甲酸", {"C": 7, "H": 6, "O": 2}), ("吡啶", {"C": 5, "H": 5, "N": 1}), ("甲苯", {"C": 7, "H": 8}),
                  ("苯甲醛", {"C": 7, "H": 6, "O": 1}), ("萘", {"C": 10, "H": 8}), ("吲哚", {"C": 8, "H": 7, "N": 1}),
                  ("喹啉", {"C": 9, "H": 7, "N": 1}), ("呋喃", {"C": 4, "H": 4, "O": 1}),
                  ("噻吩", {"C": 4, "H": 4, "S": 1}), ("苯甲醚", {"C": 7, "H": 8, "O": 1}),
                  ("苯乙酮", {"C": 8, "H": 8, "O": 1}), ("联苯", {"C": 12, "H": 10}))
SUBSTITUENTS = (("甲基", {"C": 1, "H": 3}), ("氯", {"Cl": 1}), ("硝基", {"N": 1, "O": 2}), ("氨基", {"N": 1, "H": 2}),
                ("羟基", {"O": 1, "H": 1}), ("甲氧基", {"C": 1, "H": 3, "O": 1}), ("乙基", {"C": 2, "H": 5}),
                ("氟", {"F": 1}), ("溴", {"Br": 1}), ("乙酰基", {"C": 2, "H": 3, "O": 1}),
                ("羧基", {"C": 1, "O": 2, "H": 1}), ("氰基", {"C": 1, "N": 1}))
ATOMIC_MASS = {"C": 12.011, "H": 1.008, "N": 14.007, "O": 15.999, "S": 32.06, "Cl": 35.45, "F": 18.998, "Br": 79.904}
APPEARANCES = ("白色结晶性粉末", "无色液体", "淡黄色针状晶体", "无色至淡黄色液体", "白色固体", "黄色结晶", "浅棕色油状液体")

# Person kinds: ancient or modern, CDTP domain, occupations, weight.
PERSON_KINDS = {
    "official": (True, "history_politics", ("政治家", "官员", "改革家", "文学家"), 14),
    "general": (True, "history_politics", ("军事家", "将领", "政治家"), 8),
    "poet": (True, "humanities_society", ("诗人", "词人", "文学家", "书法家"), 12),
    "scholar": (True, "humanities_society", ("思想家", "学者", "史学家", "教育家", "经学家"), 8),
    "painter": (True, "humanities_society", ("画家", "书法家", "诗人"), 5),
    "physician": (True, "technology_economics", ("医学家", "药学家"), 3),
    "writer": (False, "humanities_society", ("作家", "文学家", "翻译家", "诗人", "散文家"), 10),
    "scientist": (False, "technology_economics", ("物理学家", "化学家", "数学家", "天文学家"), 9),
    "engineer": (False, "technology_economics", ("工程师", "桥梁专家", "水利专家", "机械工程专家"), 5),
    "entrepreneur": (False, "technology_economics", ("企业家", "实业家", "慈善家"), 5),
    "artist": (False, "humanities_society", ("画家", "书法家", "作曲家", "音乐家"), 6),
    "actor": (False, "humanities_society", ("演员", "表演艺术家", "导演"), 5),
    "director": (False, "humanities_society", ("导演", "编剧", "演员"), 3),
    "naturalist": (False, "nature_environment", ("植物学家", "地质学家", "动物学家", "生态学家"), 3),
    "revolutionary": (False, "history_politics", ("革命家", "政治家", "外交家", "军事家"), 4),
}
ACHIEVEMENTS = {
    "official": ("整顿吏治", "兴修水利", "推行新法", "赈济灾民", "编纂典籍", "改革赋税"),
    "general": ("平定叛乱", "抵御外侮", "收复失地", "整训军队", "修筑边塞"),
    "poet": ("开创一代诗风", "整理地方文献", "提携后进诗人"),
    "scholar": ("创办书院", "注解经典", "开创学派", "校勘古籍"),
    "painter": ("开创画派", "整理前代画论"),
    "physician": ("编撰医书", "推广种痘", "整理验方"),
    "writer": ("开创乡土文学", "翻译外国名著", "创办文学刊物"),
    "scientist": ("提出新的理论模型", "主持重大科研项目", "培养大批科研人才", "创建重点实验室"),
    "engineer": ("主持修建大桥", "设计大型水利工程", "改进机车制造工艺"),
    "entrepreneur": ("创办实业", "捐资兴学", "引进先进设备"),
    "artist": ("创立画派", "整理民间音乐", "创作大量作品"),
    "actor": ("塑造多个经典角色", "推动戏剧改革"),
    "director": ("开创纪实风格", "培养青年演员"),
    "naturalist": ("发现多个新物种", "主持野外科学考察", "编写地方植物志"),
    "revolutionary": ("参与创建地方组织", "领导地方起义", "参与外交谈判"),
}
OFFICES = ("户部尚书", "礼部侍郎", "翰林学士", "太守", "节度使", "知府", "御史大夫", "参知政事", "刺史", "兵部尚书")
TITLES_OF_NOBILITY = ("侯", "公", "伯")
POSTHUMOUS = ("文正", "文忠", "忠武", "文襄", "武穆", "忠烈", "文定", "文恭", "忠毅", "文简")
HAO_SUFFIXES = ("居士", "先生", "山人", "道人", "散人", "老人")
ETHNIC = (("汉族", 85), ("满族", 4), ("回族", 4), ("蒙古族", 3), ("壮族", 2), ("苗族", 2))
ZODIAC = ((1, 20, "摩羯座"), (2, 19, "水瓶座"), (3, 21, "双鱼座"), (4, 20, "白羊座"), (5, 21, "金牛座"),
          (6, 22, "双子座"), (7, 23, "巨蟹座"), (8, 23, "狮子座"), (9, 23, "处女座"), (10, 24, "天秤座"),
          (11, 23, "天蝎座"), (12, 22, "射手座"))
BOOK_GENRES_ANCIENT = ("章回体长篇小说", "笔记小说", "诗集", "文集", "史书", "游记")
BOOK_GENRES_MODERN = ("长篇小说", "中篇小说", "散文集", "短篇小说集", "诗集", "报告文学")
POEM_FORMS = (("五言绝句", 20), ("七言绝句", 28), ("五言律诗", 40), ("七言律诗", 56), ("古体诗", 0), ("乐府诗", 0))
POEM_WORDS = ("秋风", "明月", "孤舟", "寒山", "落日", "春水", "归雁", "夜雨", "青山", "白云", "长河", "古道", "残灯", "霜林")
POEM_VERBS_IN_LINE = ("照", "落", "送", "入", "满", "映", "隔", "绕", "生", "尽")
FILM_GENRES = ("剧情", "历史", "战争", "爱情", "喜剧", "传记", "家庭", "武侠", "悬疑", "动作")
TV_CHANNELS = ("中央电视台", "湖南卫视", "浙江卫视", "江苏卫视", "北京卫视")
PUBLISHERS = ("出版社", "书局", "书店", "印书馆")
PERIODICALS = ("月刊", "日报", "周刊", "文学", "晨报")
UNIVERSITY_TAGS = ("双一流", "211工程", "省部共建高校", "博士学位授予单位", "卓越工程师教育培养计划")
ENTERPRISE_KINDS = ("民营企业", "国有企业", "股份有限公司", "中外合资企业", "有限责任公司")
EXCHANGES = ("上海证券交易所", "深圳证券交易所", "香港联合交易所")
SIGHT_SUFFIXES = ("寺", "塔", "古镇", "公园", "楼", "桥", "祠", "书院", "故居", "古城墙")
MOUNTAIN_SIGHTS = ("寺", "观", "瀑布", "石窟", "古道", "天池", "云海", "洞")
SCENIC_LEVELS = ("国家5A级旅游景区", "国家4A级旅游景区", "国家3A级旅游景区")
LAKE_KINDS = ("淡水湖", "咸水湖", "构造湖", "堰塞湖", "火山口湖", "冰碛湖")
PROTECTION_PLANT = ("国家一级保护植物", "国家二级保护植物", "近危", "无危")
PROTECTION_ANIMAL = ("国家一级保护野生动物", "国家二级保护野生动物", "近危", "无危")
MEDICINAL_PARTS = ("根", "叶", "花", "果实", "树皮", "全草")
EFFECTS = ("清热解毒", "活血化瘀", "止咳平喘", "祛风除湿", "消肿止痛", "健脾和胃", "安神益智", "凉血止血")
DRUG_CLASSES = ("解热镇痛药", "抗菌药", "抗疟药", "局部麻醉药", "抗氧化剂")
EVENT_RESULTS = ("起义军失败", "双方议和", "守军获胜", "改革中途而废", "联军获胜", "叛军被平定")
EVENT_MEANINGS = ("加速了当时政权的衰落", "巩固了边疆的统治", "推动了地方制度的变革", "缓和了当时的社会矛盾")
TREATY_TERMS = ("割地", "赔偿军费", "开放通商口岸", "划定边界", "互派使节", "减免关税", "释放俘虏")
TREATY_NATURES = ("不平等条约", "和约", "边界条约", "通商条约")

# Traditional or variant forms: a near duplicate's title spelling (華夏 for 华夏).
_VARIANT = dict(zip(
    "华国东龙长云兴丰宁阳凤飞乐书庆丽红兰鸣钟陈刘张赵吴孙郑杨马许冯邓萧叶苏卢蒋韩贾钱汤顾龚谭严罗谢宝伟义达贤远"
    "进礼卫鹏鸿涛铭锦门关桥楼阁县镇乡岭湾汉广济记传录诗梦谣赋杂条约协会学电药业纺织机师范农医财经术战变鹤银铜"
    "凤庄坝沟辉轩鹃胆绣线荚鹛鲵猕鱼鸲萤联羟酰湖岩",
    "華國東龍長雲興豐寧陽鳳飛樂書慶麗紅蘭鳴鍾陳劉張趙吳孫鄭楊馬許馮鄧蕭葉蘇盧蔣韓賈錢湯顧龔譚嚴羅謝寶偉義達賢遠"
    "進禮衛鵬鴻濤銘錦門關橋樓閣縣鎮鄉嶺灣漢廣濟記傳錄詩夢謠賦雜條約協會學電藥業紡織機師範農醫財經術戰變鶴銀銅"
    "鳳莊壩溝輝軒鵑膽繡線莢鶥鯢獼魚鴝螢聯羥醯湖巖"))
_FULLWIDTH = str.maketrans("0123456789-", "０１２３４５６７８９－")

# --- How the text states a relation ------------------------------------------------------------
# relation: (phrasings by name, by cue word, by a Baike convention). "{v}" is the value; a
# phrasing that starts with 其 or with the value takes no sentence subject.
PHRASES = {
    "外文名": ("外文名为{v}|英文名{v}", "", ""),
    "别名": ("别名{v}", "", "又名{v}|又称{v}|别称{v}"),
    "本名": ("本名{v}", "", "原名{v}"),
    "字": ("", "", "字{v}"),
    "所处时代": ("", "生活于{v}|活跃于{v}", ""),
    "民族": ("民族为{v}", "", ""),
    "国籍": ("国籍为{v}", "", ""),
    "出生日期": ("出生日期为{v}", "生于{v}|{v}出生|出生于{v}", ""),
    "逝世日期": ("逝世日期为{v}", "卒于{v}|于{v}逝世|于{v}病逝|{v}去世", ""),
    "出生地": ("出生地为{v}", "出生于{v}|生于{v}", ""),
    "逝世地": ("逝世地为{v}", "病逝于{v}|卒于{v}|在{v}逝世", ""),
    "籍贯": ("籍贯{v}|其籍贯为{v}", "", ""),
    "祖籍": ("祖籍{v}", "", ""),
    "毕业院校": ("毕业院校为{v}", "毕业于{v}|早年就读于{v}", ""),
    "工作单位": ("工作单位为{v}", "任职于{v}|长期供职于{v}", ""),
    "职业": ("", "", "是一位{v}"),
    "职务": ("职务为{v}", "曾任{v}|担任{v}", ""),
    "代表作品": ("代表作品有{v}", "著有{v}|代表作有{v}", ""),
    "主要成就": ("主要成就包括{v}", "曾{v}", ""),
    "作品集": ("作品集有{v}", "有{v}传世", ""),
    "父亲": ("父亲{v}|其父亲为{v}", "其父{v}|其父为{v}|系{v}之子", ""),
    "配偶": ("配偶为{v}", "与{v}结为夫妻|与{v}结婚", ""),
    "官职": ("官职为{v}", "官至{v}|曾任{v}", ""),
    "封爵": ("", "受封{v}|获封{v}", ""),
    "谥号": ("谥号{v}|死后谥号{v}", "死后谥{v}", ""),
    "陵墓": ("陵墓为{v}", "死后葬于{v}", ""),
    "星座": ("星座为{v}", "", ""),
    "所属国家": ("所属国家为{v}", "", ""),
    "所属地区": ("所属地区为{v}", "隶属于{v}", ""),
    "行政区类别": ("行政区类别为{v}", "", "是一个{v}"),
    "面积": ("面积{v}|总面积为{v}|面积为{v}", "", ""),
    "地理位置": ("", "位于{v}|地处{v}", ""),
    "市花": ("市花为{v}", "", ""),
    "著名景点": ("著名景点有{v}", "境内有{v}等名胜", ""),
    "称号": ("称号为{v}", "素有“{v}”之称|被誉为“{v}”", ""),
    "气候类型": ("气候类型为{v}", "属{v}", ""),
    "主要河流": ("主要河流有{v}", "境内有{v}流过", ""),
    "最高峰": ("最高峰为{v}", "境内最高处为{v}", ""),
    "发源地": ("发源地为{v}", "发源于{v}|源出{v}", ""),
    "注入": ("", "注入{v}|最终汇入{v}|流入{v}", ""),
    "全长": ("全长{v}|干流全长{v}", "", ""),
    "流域面积": ("流域面积{v}|流域面积为{v}", "", ""),
    "主要支流": ("主要支流有{v}", "较大的支流有{v}", ""),
    "流经省区": ("流经省区包括{v}", "流经{v}", ""),
    "主要湖泊": ("主要湖泊有{v}", "沿途有{v}等湖泊", ""),
    "所属水系": ("所属水系为{v}", "属{v}水系", ""),
    "入海口": ("入海口位于{v}", "在{v}入海", ""),
    "海拔": ("海拔{v}|主峰海拔{v}", "", ""),
    "所属山系": ("所属山系为{v}", "属{v}", ""),
    "所属山脉": ("所属山脉为{v}", "属{v}|是{v}的一部分", ""),
    "主峰": ("主峰为{v}", "最高处为{v}", ""),
    "景区级别": ("景区级别为{v}", "", "是{v}"),
    "保护区": ("保护区为{v}", "境内设有{v}", ""),
    "列入时间": ("列入时间为{v}", "于{v}被列为国家级风景名胜区", ""),
    "湖泊类型": ("湖泊类型为{v}", "属{v}", "是一个{v}"),
    "平均水深": ("平均水深{v}", "", ""),
    "最大深度": ("最大深度{v}", "最深处达{v}", ""),
    "湖面海拔": ("湖面海拔{v}", "", ""),
    "主要入湖河流": ("主要入湖河流有{v}", "有{v}等河流注入", ""),
    "出湖口": ("出湖口为{v}", "湖水经{v}流出", ""),
    "作者": ("作者是{v}|作者为{v}", "由{v}创作|为{v}所著", ""),
    "创作年代": ("创作年代为{v}", "成书于{v}|创作于{v}", ""),
    "文学体裁": ("文学体裁为{v}", "", "是一部{v}"),
    "篇幅": ("篇幅为{v}", "全书共{v}", ""),
    "字数": ("字数为{v}", "全书{v}|共{v}", ""),
    "出版时间": ("出版时间为{v}", "于{v}出版|{v}首次出版", ""),
    "出版社": ("出版社为{v}", "由{v}出版", ""),
    "主要人物": ("主要人物有{v}", "书中人物有{v}", ""),
    "地位": ("", "被视为{v}", "是{v}"),
    "故事背景": ("故事背景为{v}", "以{v}为背景", ""),
    "首发刊物": ("首发刊物为{v}", "最初发表于{v}|最初连载于{v}", ""),
    "导演": ("导演为{v}", "由{v}执导", ""),
    "编剧": ("编剧为{v}", "由{v}编剧", ""),
    "主演": ("主演有{v}", "由{v}主演", ""),
    "上映时间": ("上映时间为{v}", "于{v}上映|{v}在中国大陆上映", ""),
    "制片地区": ("制片地区为{v}", "", ""),
    "类型": ("类型为{v}", "", ""),
    "出品公司": ("出品公司为{v}", "由{v}出品", ""),
    "对白语言": ("对白语言为{v}", "", ""),
    "色彩": ("色彩为{v}", "", ""),
    "原著": ("原著为{v}", "改编自{v}的同名小说", ""),
    "音乐": ("音乐由{v}创作", "配乐由{v}完成", ""),
    "集数": ("集数为{v}", "全剧共{v}", ""),
    "首播时间": ("首播时间为{v}", "于{v}首播", ""),
    "首播平台": ("首播平台为{v}", "在{v}首播", ""),
    "作品出处": ("作品出处为{v}", "收录于{v}|出自{v}", ""),
    "创作时间": ("创作时间为{v}", "作于{v}|写于{v}", ""),
    "创作地点": ("创作地点为{v}", "写于{v}", ""),
    "名句": ("名句有“{v}”", "诗中“{v}”一句广为传诵", ""),
    "简称": ("简称{v}", "", ""),
    "创立时间": ("创立时间为{v}|成立时间为{v}", "成立于{v}|创立于{v}|创办于{v}", ""),
    "创始人": ("创始人为{v}", "由{v}创办|由{v}创立", ""),
    "总部地点": ("总部地点为{v}", "总部位于{v}|总部设在{v}", ""),
    "企业性质": ("企业性质为{v}", "", "是一家{v}"),
    "经营范围": ("经营范围包括{v}", "主要从事{v}|业务涵盖{v}", ""),
    "代表产品": ("代表产品有{v}", "旗下产品包括{v}", ""),
    "上市地点": ("上市地点为{v}", "在{v}上市", ""),
    "上市时间": ("上市时间为{v}", "于{v}上市", ""),
    "股票代码": ("股票代码为{v}", "", ""),
    "所在地": ("所在地为{v}", "位于{v}|坐落于{v}", ""),
    "主管部门": ("主管部门为{v}", "由{v}主管|隶属于{v}", ""),
    "属性": ("", "入选{v}", ""),
    "前身": ("其前身是{v}|前身为{v}", "", ""),
    "院校代码": ("院校代码为{v}", "", ""),
    "校址": ("校址位于{v}", "学校坐落于{v}", ""),
    "类别": ("类别为{v}", "", ""),
    "机构性质": ("机构性质为{v}", "", "是一家{v}"),
    "性质": ("性质为{v}", "", "是一个{v}"),
    "首任院长": ("首任院长为{v}", "首任负责人为{v}", ""),
    "拉丁学名": ("拉丁学名为{v}", "", "学名{v}"),
    "界": ("", "隶属于{v}", ""),
    "门": ("", "隶属于{v}", ""),
    "纲": ("", "隶属于{v}", ""),
    "目": ("", "属于{v}", ""),
    "科": ("", "属于{v}", ""),
    "属": ("", "为{v}的一种", ""),
    "分布区域": ("分布区域包括{v}", "分布于{v}|主要分布在{v}", ""),
    "原产地": ("原产地为{v}", "原产于{v}", ""),
    "花期": ("花期{v}|花期为{v}", "", ""),
    "果期": ("果期{v}", "", ""),
    "保护级别": ("保护级别为{v}", "被列为{v}", ""),
    "药用部位": ("药用部位为{v}", "以{v}入药", ""),
    "功效": ("功效为{v}", "具有{v}等作用", ""),
    "化学式": ("化学式为{v}|分子式为{v}", "", ""),
    "分子量": ("分子量为{v}|相对分子质量为{v}", "", ""),
    "熔点": ("熔点为{v}|熔点{v}", "", ""),
    "沸点": ("沸点为{v}|沸点{v}", "", ""),
    "密度": ("密度为{v}", "", ""),
    "外观": ("外观为{v}", "常温下为{v}", "是一种{v}"),
    "CAS登录号": ("CAS登录号为{v}", "", ""),
    "来源": ("来源为{v}", "可从{v}中提取", ""),
    "发现者": ("发现者为{v}", "由{v}首次合成|最早由{v}发现", ""),
    "发现时间": ("发现时间为{v}", "于{v}首次被合成", ""),
    "药物类别": ("药物类别为{v}", "", "是一种{v}"),
    "时间": ("时间为{v}", "发生于{v}|爆发于{v}", ""),
    "地点": ("地点为{v}", "发生在{v}|主战场在{v}", ""),
    "参战方": ("参战方为{v}", "交战双方为{v}", ""),
    "结果": ("结果是{v}", "最终{v}", ""),
    "领导者": ("领导者为{v}", "由{v}领导", ""),
    "发动者": ("发动者为{v}", "由{v}发动", ""),
    "历史意义": ("历史意义在于{v}", "", ""),
    "影响": ("其影响在于{v}", "此事{v}", ""),
    "条约": ("战后签订的条约为{v}", "战后双方签订了{v}", ""),
    "签订时间": ("签订时间为{v}", "于{v}签订|签订于{v}", ""),
    "签订地点": ("签订地点为{v}", "在{v}签署", ""),
    "签约双方": ("签约双方为{v}", "由{v}签订", ""),
    "签约代表": ("签约代表为{v}", "{v}作为代表签字", ""),
    "主要内容": ("主要内容包括{v}", "规定了{v}等事项", ""),
    "赔款": ("赔款{v}", "规定赔偿{v}", ""),
    "全称": ("全称{v}|全称为{v}", "", ""),
    "首都": ("首都为{v}|首都{v}", "定都{v}", ""),
    "官方语言": ("官方语言为{v}", "通用{v}", ""),
    "货币": ("货币为{v}|法定货币为{v}", "通行{v}", ""),
    "国歌": ("国歌为{v}", "", ""),
    "国庆日": ("国庆日为{v}", "", ""),
    "政体": ("政体为{v}", "实行{v}", ""),
    "存在时间": ("存在时间为{v}", "", ""),
    "都城": ("都城为{v}", "定都{v}|建都于{v}", ""),
    "建立者": ("建立者为{v}", "由{v}建立|为{v}所建", ""),
    "下一朝代": ("下一朝代为{v}", "后为{v}所取代", ""),
    "下一时期": ("下一时期为{v}", "其后进入{v}", ""),
    "上一时期": ("上一时期为{v}", "上承{v}", ""),
    "末代君主": ("末代君主为{v}", "", ""),
    "文字": ("通行文字为{v}", "", ""),
    "地方制度": ("地方制度为{v}", "推行{v}", ""),
    "主要民族": ("主要民族为{v}", "", ""),
    "元素符号": ("元素符号为{v}|元素符号{v}", "化学符号为{v}", ""),
    "原子序数": ("原子序数为{v}", "", ""),
    "相对原子质量": ("相对原子质量为{v}", "", ""),
    "元素类别": ("元素类别为{v}", "", "是一种{v}"),
}
# Other names a page may give a relation (filters/relation_aliases.tsv lists them); each alias
# is used on a minority of pages (P_RELATION_ALIAS).
ALIASES = {
    "出生日期": ("出生时间", "出生年月", "生日"), "逝世日期": ("逝世时间", "去世日期", "去世时间"),
    "外文名": ("英文名", "外文名称"), "别名": ("别称", "又名"), "代表作品": ("代表作", "主要作品"),
    "创立时间": ("成立时间", "创建时间", "创办时间"), "总部地点": ("总部", "总部所在地"),
    "所属国家": ("所属国", "国家"), "全长": ("长度", "总长度"), "化学式": ("分子式", "化学分子式"),
    "分子量": ("相对分子质量",),
}
# Clauses that mention a value without stating the row's relation ("value only" traps), by
# the value's kind and the head's family ("*": any family).
TRAPS = {
    ("place", "person"): "晚年曾移居{v}|早年曾在{v}求学|曾游历{v}",
    ("place", "org"): "在{v}设有分支机构",
    ("place", "geo"): "与{v}相距不远",
    ("place", "work"): "曾在{v}一带流传",
    ("place", "history"): "消息很快传到{v}",
    ("place", "nature"): "在{v}也有栽培记录",
    ("date", "person"): "{v}，其家族迁居他乡",
    ("date", "*"): "{v}前后，当地遭遇大水",
    ("person", "person"): "曾与{v}交游|{v}曾为其作传",
    ("person", "*"): "{v}曾撰文介绍",
    ("dynasty", "person"): "其作品多取材于{v}史事",
    ("dynasty", "*"): "当地保存有不少{v}时期的遗迹",
    ("country", "person"): "在{v}学界颇有声望",
    ("country", "*"): "受到{v}各界的关注",
    ("occupation", "person"): "其子亦为{v}",
    ("org", "person"): "曾在{v}讲学|曾访问{v}",
}
# Sentences that state no fact: they pad summaries to their length and push the last fact
# away from the end, as real summaries do. Some use a relation's word (FILLER_RELATIONS below). A leading
# "^" marks a sentence that takes no subject; the others read as 他…, 该河…, or bare.
FILLERS = {
    "person": ("自幼聪颖好学", "^少时家境贫寒", "为人正直", "一生勤于著述", "在当地颇有声望", "^其事迹见于地方志",
               "^生平事迹散见于各类笔记", "晚年潜心治学", "与同时代的学者多有往来", "^后人对其推崇备至",
               "早年曾随父辗转各地", "一生清贫自守", "^其生平至今仍有不少争议", "是当地有名的人物",
               "^其学问文章为时人所重", "交游广泛，门生众多", "治学严谨，著述宏富", "^一生经历坎坷，屡遭挫折",
               "对后辈多有提携", "^关于其早年经历，史料记载不多", "性格刚直，不喜逢迎", "^其言行多为后人所称道"),
    "settlement": ("境内地形以丘陵为主", "历史上曾多次更名", "自古为交通要道", "物产丰富", "民风淳朴", "交通便利",
                   "近年来旅游业发展较快", "境内植被覆盖率较高", "辖区内村落众多", "素以农业为主", "工业基础较好",
                   "文化底蕴深厚", "商贸往来频繁", "城镇化水平逐年提高", "人文景观众多", "四季分明，雨量充沛",
                   "^当地特产远销周边地区", "是周边地区重要的商品集散地", "^境内保存有多处古建筑",
                   "^每逢节庆，当地都会举行传统民俗活动", "教育事业发展较快", "近年来基础设施不断完善"),
    "water": ("水量丰沛", "沿岸土地肥沃", "是当地重要的水源地", "水质良好", "汛期多集中在夏季", "两岸风景秀丽",
              "鱼类资源丰富", "冬季水位较低", "兼有灌溉和航运之利", "流域内人口稠密", "水生植物种类繁多",
              "历史上曾多次泛滥", "沿岸分布着众多村镇", "是候鸟的重要栖息地", "近年来生态治理成效明显",
              "^民间流传着不少相关传说", "^每年春季，两岸花开似锦", "对当地的农业生产十分重要",
              "^历代文人多有诗文题咏", "^近年来当地加强了水环境保护", "水流平缓，适宜泛舟", "^沿岸遗存有古渡口多处"),
    "mountain": ("山势雄伟", "峰峦叠嶂", "植被茂密", "山间多清泉飞瀑", "四季景色各异", "是登山爱好者的常去之地",
                 "山上古迹众多", "自古为文人墨客所称道", "山中动植物资源丰富", "常年云雾缭绕", "登顶可远眺群山",
                 "山路崎岖", "山脚下分布着多处村落", "每年吸引大量游客", "^相传古时曾有隐士在此修行",
                 "^当地流传着许多神话传说", "^山中寺观历史悠久，香火旺盛", "^每逢秋季，满山红叶，景色宜人",
                 "岩石以花岗岩为主", "是重要的生态屏障", "^近年来当地修建了登山步道", "^历代文人多有题刻"),
    "work": ("问世后广受好评", "语言质朴自然", "情节曲折动人", "曾多次再版", "在读者中流传甚广", "风格清新自然",
             "对后世创作有一定启发", "曾被改编为多种艺术形式", "意境深远", "结构严谨", "^研究者众多",
             "至今仍为人所称道", "描写细腻生动", "具有浓郁的乡土气息", "反映了当时的社会风貌", "被选入多种选本",
             "^历代评论家对此多有论述", "通过细腻的笔触展现了人物的内心世界", "^作品问世后曾引起较大争议",
             "在海内外均有一定读者", "^其艺术手法为后人所借鉴", "对研究当时的社会生活具有参考价值"),
    "org": ("发展迅速", "拥有一支高水平的人才队伍", "注重科研与技术创新", "积极开展对外交流与合作",
            "在业内具有较高知名度", "近年来规模不断扩大", "设有多个下属机构", "坚持以人为本的理念",
            "多次获得省级表彰", "与多所高校建立了合作关系", "注重人才培养", "服务地方经济社会发展",
            "办公条件不断改善", "承担了多项重点项目", "管理制度较为完善", "社会声誉良好",
            "^经过多年发展，已形成较为完整的体系", "积极履行社会责任", "注重信息化建设",
            "^近年来先后获得多项荣誉", "在区域发展中发挥着重要作用", "重视国际合作与交流"),
    "living": ("喜温暖湿润的环境", "适应性较强", "野外数量较为稀少", "具有较高的观赏价值", "具有一定的研究价值",
               "常见于山地林缘", "野外种群数量呈下降趋势", "对环境变化较为敏感", "在当地较为常见",
               "^早期文献中已有记载", "多生活于海拔较高的地区", "繁殖期多在春夏之交", "形态较为独特",
               "与近缘种区别明显", "栖息地受到一定威胁", "^已有人工繁育的尝试", "^近年来相关调查工作不断深入",
               "在生态系统中具有重要作用", "^民间对其有多种称呼", "^有关其习性的研究尚不充分",
               "对生长环境要求较高", "^人类活动对其生存造成了一定影响"),
    "chemical": ("在工业上有广泛应用", "常用作有机合成的中间体", "性质较为稳定", "需密封避光保存",
                 "^相关研究仍在进行", "可通过多种方法制备", "在实验室中较为常见", "对皮肤和眼睛有一定刺激性",
                 "遇明火可能燃烧", "难溶于水", "易溶于乙醇等有机溶剂", "在医药领域有一定用途", "储存时应远离火源",
                 "工业上可大规模生产", "在自然界中分布较广", "^使用时需注意防护", "^其结构已通过多种光谱方法确认",
                 "在农药和染料工业中也有应用", "^操作时应在通风橱中进行", "化学性质较为活泼",
                 "^废弃物应按规定妥善处理", "^有关其毒理的研究仍较有限"),
    "event": ("^此事在史书中多有记载", "对当时的政治格局产生了深远作用", "至今仍为史学界所关注",
              "^相关史料较为丰富", "^后世对此褒贬不一", "是研究当时社会的重要线索", "^留下了大量文物遗存",
              "^民间流传着许多相关故事", "^史家对此多有论述", "^其经过在地方志中亦有记述", "成为后世文学创作的题材",
              "^近代以来研究成果颇多", "^相关遗址已得到保护", "^其细节至今仍有争议", "对周边地区也有波及",
              "^当时的文献记载较为简略", "^事后朝廷对有关人员进行了处置", "^这一时期社会动荡，民生艰难",
              "^事件前后，各方势力此消彼长", "^后世多以此为鉴", "^有关人物的功过至今众说纷纭",
              "^当地至今仍保留着相关的纪念建筑"),
    "country": ("历史悠久", "文化灿烂", "人口众多", "在漫长的历史发展过程中形成了独具特色的文化传统",
                "境内地形复杂多样，自然资源丰富", "交通网络较为发达", "工业体系较为完整", "旅游资源十分丰富",
                "是联合国会员国之一", "与世界上许多国家建立了外交关系", "^国内各地区之间发展水平存在一定差异",
                "高等教育较为发达", "^近年来经济保持增长", "重视科学技术的发展", "是世界上重要的经济体之一",
                "^境内名胜古迹众多", "文学艺术成就突出", "^其饮食文化颇具特色", "对外贸易活跃",
                "^体育事业发展较快", "拥有多处世界遗产", "城市化水平较高", "^各地方言差异较大",
                "^近代以来社会经历了深刻变革", "在国际事务中发挥着重要作用"),
    "dynasty": ("疆域辽阔", "政治制度较为完备", "经济文化较为繁荣", "对外交流频繁", "科学技术取得了许多成就",
                "文学艺术成就突出", "农业生产较为发达", "商业贸易较为兴盛", "城市规模不断扩大",
                "对周边地区产生了深远作用", "^史料记载较为丰富", "^后世对其研究成果丰硕",
                "^这一时期涌现出许多著名的思想家、文学家和艺术家", "手工业和商业都有较大发展",
                "^其典章制度对后世产生了深远作用", "^考古发现为研究这一时期提供了大量实物资料",
                "^各地之间的经济联系日益密切", "^社会风俗在这一时期发生了明显变化", "^后期政治日益腐败",
                "^末年各地起义不断", "^统治者重视农业生产", "^这一时期人口有较大增长", "^思想文化领域十分活跃",
                "^对外贸易通过陆路和海路展开", "^其兴衰为后世提供了借鉴"),
}
# Fillers that do say something of the entity by a relation's name, in that relation's sense (结构严谨 is
# about the work's 结构): the labels mark them as named statements. The others that hold a relation's
# word use it in another sense (「造成了一定影响」, 「许多国家」, 「曾在此任职」) and name no relation.
FILLER_RELATIONS = {
    "^当地特产远销周边地区": ("特产",), "^民间流传着不少相关传说": ("相关传说",), "^当地流传着许多神话传说": ("神话传说",),
    "结构严谨": ("结构",), "多生活于海拔较高的地区": ("海拔",), "性质较为稳定": ("性质",),
    "在医药领域有一定用途": ("用途",), "^其结构已通过多种光谱方法确认": ("结构",), "化学性质较为活泼": ("性质",),
    "是联合国会员国之一": ("会员国",), "拥有多处世界遗产": ("世界遗产",), "政治制度较为完备": ("政治制度",),
    "^其结构与{compound}相近": ("结构",), "与{event}并称": ("并称",),
}
# Sentences that name other entries (with links) but state none of the entry's relations.
LINK_FILLERS = {
    "person": ("与{person}齐名", "早年曾师从{person}", "与{person}、{person}交往甚密", "^其学说为{person}等人所继承",
               "曾为{book}作序", "^其生平见于{book}", "与{person}有书信往来"),
    "settlement": ("与{city}相邻", "与{city}、{city}往来密切", "^{person}曾在此居住", "^{event}的部分战事发生于此",
                   "距{city}不远"),
    "water": ("沿岸有{city}等城市", "与{river}相距不远", "^{person}曾在此泛舟", "^{work}即描写此地景色"),
    "mountain": ("与{mountain}遥遥相望", "^{city}的居民常来此登高", "^{person}曾游历于此", "^山中有{plant}分布"),
    "work": ("与{book}风格相近", "^{person}曾撰文评论此作", "曾被{person}誉为佳作", "与{work}齐名"),
    "org": ("与{university}建立了合作关系", "与{company}有业务往来", "曾与{organisation}联合开展研究",
            "^{person}曾在此任职"),
    "living": ("常与{plant}伴生", "与{animal}亲缘关系较近", "^{mountain}一带较为常见", "^{person}曾对其进行过研究"),
    "chemical": ("可由{compound}经多步反应制得", "^其结构与{compound}相近", "^{person}曾研究其合成方法"),
    "event": ("与{event}并称", "^{person}曾著文论及此事", "^{city}至今保留有相关遗迹", "^史书{book}对此有详细记载"),
    "country": (),
    "dynasty": (),
}
_LINK_SLOT = re.compile(r"\{([a-z]+)\}")
FILLER_FAMILY = {"person": "person", "city": "settlement", "place": "settlement", "river": "water", "lake": "water",
                 "mountain": "mountain", "book": "work", "film": "work", "work": "work", "company": "org",
                 "university": "org", "organisation": "org", "plant": "living", "animal": "living",
                 "species": "living", "compound": "chemical", "element": "chemical", "event": "event",
                 "treaty": "event", "country": "country", "dynasty": "dynasty"}
SUBJECTS = {"city": "该市", "river": "该河", "mountain": "该山", "lake": "该湖", "book": "该书", "film": "该片",
            "work": "该作品", "company": "该公司", "university": "该校", "organisation": "该机构", "plant": "该种",
            "animal": "该种", "species": "该种", "compound": "该化合物", "element": "该元素", "event": "该事件",
            "treaty": "该条约", "country": "该国", "dynasty": "该朝", "period": "这一时期"}
SECTIONS = {
    "person": ("人物生平", "主要成就", "人物作品", "人物评价", "后世纪念"),
    "city": ("历史沿革", "行政区划", "地理环境", "经济发展", "旅游资源"),
    "place": ("历史沿革", "地理环境", "经济发展", "社会事业"),
    "river": ("水系概况", "水文特征", "流域概况", "开发利用"),
    "mountain": ("地理环境", "自然资源", "旅游景点", "历史文化"),
    "lake": ("地理环境", "水文特征", "生态环境", "旅游开发"),
    "book": ("创作背景", "内容简介", "人物介绍", "作品评价", "版本情况"),
    "film": ("剧情简介", "演职员表", "制作发行", "影片评价"),
    "work": ("作品原文", "创作背景", "作品鉴赏", "后世评价"),
    "company": ("发展历程", "主营业务", "企业文化", "社会责任"),
    "university": ("学校历史", "办学条件", "学科建设", "合作交流"),
    "organisation": ("历史沿革", "机构设置", "主要职能", "对外交流"),
    "plant": ("形态特征", "生长习性", "分布范围", "主要价值"),
    "animal": ("形态特征", "栖息环境", "生活习性", "种群现状"),
    "species": ("形态特征", "栖息环境", "生活习性", "种群现状"),
    "compound": ("理化性质", "制备方法", "主要用途", "安全信息"),
    "element": ("发现历史", "理化性质", "主要用途"),
    "event": ("历史背景", "事件经过", "事件结果", "历史评价"),
    "treaty": ("签订背景", "条约内容", "历史评价"),
    "country": ("历史", "地理", "政治", "经济", "文化"),
    "dynasty": ("历史沿革", "政治制度", "经济文化", "疆域"),
}


@dataclass(slots=True, frozen=True)
class _Template:
    """One phrasing: text before and after the value; whether a sentence subject may precede it."""

    before: str
    after: str
    subject: bool


def _parse(text: str, subject: bool = True) -> tuple[_Template, ...]:
    out = []
    for phrase in filter(None, text.split("|")):
        before, _, after = phrase.partition("{v}")
        out.append(_Template(before, after, subject and not phrase.startswith(("其", "{v}"))))
    return tuple(out)


# A phrasing by the relation's name reads as a bare clause (面积为…), never 他面积为….
_TEMPLATES = {rel: (_parse(name, False), _parse(cue), _parse(pattern))
              for rel, (name, cue, pattern) in PHRASES.items()}
_TRAPS = {key: _parse(text) for key, text in TRAPS.items()}
HOWS = ("name", "cue", "pattern")
# Every name a relation goes by in the text: the extra-fact "named" test looks for these.
_NAMES = {rel: (rel, *ALIASES.get(rel, ())) for rel in PHRASES}

# --- Small helpers ------------------------------------------------------------------------------

_MASK = (1 << 64) - 1
# Salts keep the random streams of one entity's parts independent of each other.
_S_PLAN, _S_TIER, _S_CORE, _S_NAMER, _S_FACTS, _S_ENTRY, _S_BIRTH, _S_DUP, _S_LAYOUT, _S_RELATED, \
    _S_SECTIONS, _S_TOWN, _S_AUTHOR, _S_FALSE = range(1, 15)


def _mix(*parts: int) -> int:
    """A 64-bit hash of a few integers (splitmix64 rounds), stable across runs and platforms."""
    x = 0x9E3779B97F4A7C15
    for part in parts:
        x = ((x ^ (part & _MASK)) * 0xBF58476D1CE4E5B9) & _MASK
        x ^= x >> 29
        x = (x * 0x94D049BB133111EB) & _MASK
        x ^= x >> 32
    return x


def _weighted(rng: random.Random, pairs) -> object:
    total = sum(w for _, w in pairs)
    point = rng.random() * total
    for item, weight in pairs:
        point -= weight
        if point < 0:
            return item
    return pairs[-1][0]


def _v(text: str) -> tuple:
    """A value with no link."""
    return (text, None, 0, 0)


def _lv(title: str, before: str = "", after: str = "", shown: str | None = None) -> tuple:
    """A value that links ``title``, shown as ``shown`` between ``before`` and ``after``."""
    shown = title if shown is None else shown
    return (before + shown + after, title, len(before), len(shown))


def _markup(val: tuple, linked: set[str] | None) -> str:
    """The value in the mirror's link markup; a title already linked in this part stays plain."""
    text, title, at, n = val
    if title is None or (linked is not None and title in linked):
        return text
    if linked is not None:
        linked.add(title)
    shown = text[at:at + n]
    inner = f"[[{title}]]" if shown == title else f"[[{title}|{shown}]]"
    return text[:at] + inner + text[at + n:]


def _latin(syllables: list[str]) -> str:
    """Pinyin run together as in 外文名: Anping, Xi'an."""
    out = syllables[0].capitalize()
    for syl in syllables[1:]:
        out += ("'" if syl[0] in "aeo" else "") + syl
    return out


def _variant(name: str) -> str:
    """The traditional (or full-width) spelling of a title, for near duplicates; the same length."""
    out = "".join(_VARIANT.get(ch, ch) for ch in name)
    return out if out != name else name.translate(_FULLWIDTH)


_CN_DIGITS = "〇一二三四五六七八九"


def _cn_number(n: int) -> str:
    """120 -> 一百二十, 305 -> 三百零五 (below 10,000)."""
    if n == 0:
        return "零"
    units = ((1000, "千"), (100, "百"), (10, "十"))
    out, zero = "", False
    for size, word in units:
        digit, n = divmod(n, size)
        if digit:
            if zero:
                out += "零"
                zero = False
            out += ("" if (size == 10 and digit == 1 and not out) else "一二三四五六七八九"[digit - 1]) + word
        elif out:
            zero = True
    if n:
        out += ("零" if zero else "") + "一二三四五六七八九"[n - 1]
    return out


def _year_text(year: int) -> str:
    return f"公元前{-year}年" if year < 0 else f"{year}年"


_FULL_DATE = re.compile(r"^(\d{3,4})年(\d{1,2})月(\d{1,2})日$")
_MONTH_DATE = re.compile(r"^(\d{3,4})年(\d{1,2})月$")
_YEAR = re.compile(r"^(公元前)?(\d{1,4})年$")
_QTY = re.compile(r"^(约)?(\d+(?:\.\d+)?)(万)?(平方千米|千米|米|千克|℃|g/cm³|万字)$")
_COUNT = re.compile(r"^(\d+)(回|章|集|篇|字|首|卷)$")
_UNIT_WORDS = {"平方千米": "平方公里", "千米": "公里", "千克": "公斤", "℃": "摄氏度"}


class _Namer:
    """A seeded bijection from member ranks onto a mixed-radix name space: distinct ranks, distinct names."""

    __slots__ = ("radixes", "size", "a", "c", "tables")

    def __init__(self, radixes: tuple[int, ...], rng: random.Random):
        self.radixes = radixes
        self.size = math.prod(radixes)
        a = rng.randrange(1, self.size) if self.size > 1 else 1
        while math.gcd(a, self.size) != 1:
            a += 1
        self.a, self.c = a, rng.randrange(self.size)
        self.tables = tuple(tuple(rng.sample(range(r), r)) for r in radixes)

    def digits(self, x: int) -> list[int]:
        v = (self.a * (x % self.size) + self.c) % self.size
        out, carry = [], 0
        for radix, table in zip(self.radixes, self.tables):
            v, d = divmod(v, radix)
            d = table[(d + carry) % radix]
            carry += d * 7 + 1  # each digit is shifted by the ones before it: still a bijection
            out.append(d)
        return out


# --- Records ------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Plan:
    """One block of 100 indices: the type at each position and the shared titles planted in it."""

    types: tuple[str, ...]
    ranks: tuple[int, ...]                       # rank of each position among its type in the block
    positions: dict[str, tuple[int, ...]]        # type -> its positions, ascending
    leader_of: dict[int, int]                    # follower position -> position whose title it takes
    group_of: dict[int, tuple[int, ...]]         # member position -> every position sharing the title
    dup: int                                     # the near-duplicate slot, -1 for none


@dataclass(slots=True)
class _Core:
    """What other entries need to know about an entity: cheap, and independent of the corpus size."""

    index: int
    type: str
    k: int                    # rank among the entities of its type
    name: str
    latin: str                # romanised name for 外文名 ("" when none)
    tier: str
    province: int = -1        # geography: index into PROVINCES
    kind: str = ""            # person kind, 镇/乡/县, 诗/词, film/tv, an index into a name table ...
    attrs: tuple = ()         # type-specific cheap attributes (occupations, genre ...)
    gender: str = ""
    era: str = ""             # people of the past: their dynasty
    born: int = 0
    died: int = 0
    leader: int = -1          # multi-sense follower: the index whose title it shares
    source: int = -1          # near duplicate: the index it copies


@dataclass(slots=True)
class _Fact:
    rel: str                  # canonical relation name
    vals: list                # single values, each (text, linked title, link start, link length)
    kind: str                 # date, qty, count, place, person, dynasty, country, occupation, org, work, name, text
    enum: bool = False        # an enumeration the text may list in full


@dataclass(slots=True)
class _Item:
    """One single value of an infobox row and what the summary does with it."""

    relation: str             # as shown on the page
    rel: str                  # canonical
    value: str
    fate: str = "absent"      # absent, stated, value_only, contradicted, partial, head, reserve
    how: str | None = None    # for stated: name, cue, pattern, or "opening" until the opening takes it
    form: str | None = None
    mark: int = -1
    true_value: str | None = None  # a planted false value: the true one (P_ROW_FALSE)


@dataclass(slots=True)
class _Row:
    shown: str
    fact: _Fact
    vals: list
    items: list


@dataclass(slots=True)
class _Extra:
    rel: str
    value: str
    mark: int
    named: bool


@dataclass(slots=True)
class _Enum:
    rel: str
    items: list
    marks: list
    in_infobox: list


@dataclass(slots=True)
class _Clause:
    pieces: list              # plain strings and (value, mark) mentions
    subject: bool             # a sentence subject may precede it
    size: int
    text: str
    glue: bool = False        # follows the previous clause without a comma (X是…)
    filler: bool = False      # states no fact of the entry
    names: tuple = ()         # for a filler: relations it speaks of by name (FILLER_RELATIONS)


@dataclass(slots=True)
class _Unit:
    """A sentence of the summary."""

    clauses: list
    subject: str
    size: int
    join_next: bool = False   # ends with ， and runs into the next sentence


# --- The corpus ---------------------------------------------------------------------------------


class RealisticCorpus:
    """Entries 0..size-1 of a generated Baike-like corpus; entry i depends only on (seed, size, i)."""

    def __init__(self, size: int, seed: int = 0):
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"size must be a positive integer, got {size!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        self.size = size
        self.seed = seed
        # Caches bound to this corpus: plans and cores are asked for again and again by references.
        self._plan = lru_cache(maxsize=4096)(self._make_plan)
        self._core = lru_cache(maxsize=1 << 15)(self._make_core)
        self._tier_slots = lru_cache(maxsize=1 << 14)(self._make_tier_slots)
        self._namers = self._make_namers()
        self.members = {t: self._count(t) for t in COUNT}

    # -- public ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return self.size

    def entry(self, i: int) -> Entry:
        if not 0 <= i < self.size:
            raise IndexError(f"entry {i} is outside the corpus (size {self.size})")
        source = self._dup_source(i)
        if source >= 0:
            return self._near_duplicate(i, source)
        return self._compose(self._core(i))

    def take(self, n: int) -> Iterator[Entry]:
        """Entries 0..n-1."""
        if not 0 <= n <= self.size:
            raise ValueError(f"n must be in [0, {self.size}], got {n}")
        for i in range(n):
            yield self.entry(i)

    def seeds(self, k: int) -> list[str]:
        """Titles of k famous entries, the most linked first: good starting points for a crawl."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        titles: list[str] = []
        # 中国 and the great dynasties are the most linked entries (every place, every person of the past).
        fixed = [i for i, (_, name) in enumerate(FIXED) if name in ("中国", "唐朝", "明朝", "清朝", "北宋")]
        candidates = [i for i in fixed if i < self.size and self._core(i).tier == "famous"]
        order = ("person", "city", "book", "river", "company", "university", "mountain", "work", "lake",
                 "film", "organisation", "place", "event", "plant", "animal", "compound", "species", "treaty")
        for group in range(0, 1 + self.size // 20):
            for t in order:
                if group * 20 < self.members[t]:
                    k_famous = group * 20 + self._tier_slots(t, group)["famous"][0]
                    if k_famous < self.members[t]:
                        candidates.append(self._index(t, k_famous))
            if len(candidates) >= 3 * k:
                break
        # A small corpus may hold fewer famous entries than asked for: then the others, famous first.
        rest = sorted(range(min(self.size, 40 * k)), key=lambda i: (self._core(i).tier != "famous", i))
        for index in candidates + rest:
            title = self._core(index).name
            if self._dup_source(index) < 0 and title not in titles:
                titles.append(title)
            if len(titles) == k:
                break
        return titles

    # -- layout: blocks, members, tiers ---------------------------------------------------------

    def _rng(self, *parts: int) -> random.Random:
        return random.Random(_mix(self.seed, *parts))

    def _make_plan(self, block: int) -> _Plan:
        rng = self._rng(_S_PLAN, block)
        types = [t for t, n in BLOCK_MIX for _ in range(n)]
        rng.shuffle(types)
        positions: dict[str, list[int]] = {}
        ranks = []
        for pos, t in enumerate(types):
            at = positions.setdefault(t, [])
            ranks.append(len(at))
            at.append(pos)
        free = set(range(BLOCK))
        leader_of, group_of = {}, {}
        for _ in range(_weighted(rng, HOMONYM_GROUPS)):
            kind = _weighted(rng, HOMONYM_KINDS)
            need = {"pp": ("person", "person"), "ppp": ("person",) * 3, "pl": ("person", "place"),
                    "ll": ("place", "place"), "bf": ("book", "film")}[kind]
            chosen: list[int] = []
            for t in need:
                options = [p for p in positions[t] if p in free and p not in chosen]
                if kind == "pl" and t == "person":
                    # a town can share only a two-character name: persons whose rank gives one
                    options = [p for p in options if (block * COUNT["person"] + ranks[p]) % 4 == 0]
                if not options:
                    break
                chosen.append(rng.choice(options))
            if len(chosen) < len(need):
                continue
            free.difference_update(chosen)
            for p in chosen:
                group_of[p] = tuple(chosen)
            for p in chosen[1:]:
                leader_of[p] = chosen[0]
        dup = rng.choice(sorted(free)) if NEAR_DUPLICATES_PER_BLOCK else -1
        return _Plan(tuple(types), tuple(ranks), {t: tuple(p) for t, p in positions.items()},
                     leader_of, group_of, dup)

    def _where(self, i: int) -> tuple[str, int, _Plan, int]:
        block, pos = divmod(i - N_FIXED, BLOCK)
        plan = self._plan(block)
        t = plan.types[pos]
        return t, block * COUNT[t] + plan.ranks[pos], plan, pos

    def _index(self, t: str, k: int) -> int:
        block, r = divmod(k, COUNT[t])
        return N_FIXED + block * BLOCK + self._plan(block).positions[t][r]

    def _count(self, t: str) -> int:
        """How many entities of type t the corpus holds."""
        if self.size <= N_FIXED:
            return 0
        full, rest = divmod(self.size - N_FIXED, BLOCK)
        n = full * COUNT[t]
        if rest:
            n += sum(1 for p in self._plan(full).positions[t] if p < rest)
        return n

    def _make_tier_slots(self, t: str, group: int) -> dict[str, list[int]]:
        order = self._rng(_S_TIER, TYPE_CODE[t], group).sample(range(20), 20)
        slots: dict[str, list[int]] = {"famous": [], "mid": [], "long_tail": []}
        for r, p in enumerate(order):
            slots[TIER_PATTERN[p]].append(r)
        slots["by_rank"] = [TIER_PATTERN[p] for p in order]
        return slots

    def _tier(self, t: str, k: int) -> str:
        group, r = divmod(k, 20)
        return self._tier_slots(t, group)["by_rank"][r]

    def _pick(self, t: str, rng: random.Random, exclude: int = -1, province: int = -1,
              pred=None, tries: int = 6) -> int:
        """Another entity of type t, skewed to the famous; -1 when the corpus has none that fits."""
        n = self.members.get(t, 0)
        if n == 0:
            return -1
        for _ in range(tries):
            if province >= 0:
                m = (n - province + N_PROV - 1) // N_PROV
                if m <= 0:
                    return -1
                k = int(m * rng.random() ** REF_SKEW) * N_PROV + province
            else:
                tier = _weighted(rng, (("famous", REF_TIER_WEIGHTS[0]), ("mid", REF_TIER_WEIGHTS[1]),
                                       ("long_tail", REF_TIER_WEIGHTS[2])))
                group = int(((n + 19) // 20) * rng.random() ** REF_SKEW)
                k = group * 20 + rng.choice(self._tier_slots(t, group)[tier])
                if k >= n:
                    k = int(n * rng.random())
            j = self._index(t, k)
            _, _, plan, pos = self._where(j)
            if pos == plan.dup:
                continue  # pages link the original, not its near duplicate
            if j != exclude and (pred is None or pred(self._core(j))):
                return j
        return -1

    # -- names ------------------------------------------------------------------------------------

    def _make_namers(self) -> dict[str, tuple[_Namer, ...]]:
        rng = self._rng(_S_NAMER)
        s, g, p = len(SURNAMES), len(GIVEN), N_PLACE
        spaces = {
            "person1": ((s, g),), "person2": ((s, g, g),),
            "city": ((p, p - 1), (p, p - 1, p)), "place": ((p, p - 1, 3), (p, p - 1, p, 3)),
            "river": ((p, p - 1, 3), (p, p - 1, p, 3)), "mountain": ((p, p - 1, 2), (p, p - 1, p, 2)),
            "lake": ((p, p - 1), (p, p - 1, p)), "film": ((p, p - 1, len(FILM_SUFFIXES)),),
            "company": ((p, p - 1, len(INDUSTRIES), 2),), "university": ((p, p - 1, len(UNIVERSITY_KINDS)),),
            "organisation": ((p, p - 1, len(ORG_FIELDS), len(ORG_KINDS)),),
            "event": ((p, p - 1, len(EVENT_KINDS)),), "treaty": ((p, p - 1, len(TREATY_KINDS)),),
            "plant": ((p, p - 1, len(PLANT_BASES)),), "animal": ((p, p - 1, len(ANIMAL_BASES)),),
            "species": ((p, p - 1, len(INSECT_BASES)),),
            "work": ((p, p - 1, len(POEM_VERBS), len(POEM_NOUNS), 2),),
            "book": ((len(BOOK_WORDS), len(BOOK_WORDS) - 1, len(BOOK_SUFFIXES)),),
            "compound": ((4, 3, len(SUBSTITUENTS), len(SUBSTITUENTS), len(COMPOUND_BASES)),),
        }
        return {key: tuple(_Namer(radixes, rng) for radixes in options) for key, options in spaces.items()}

    def _digits(self, key: str, x: int) -> list[int]:
        namers = self._namers[key]
        for namer in namers[:-1]:
            if x < namer.size:
                return namer.digits(x)
            x -= namer.size
        return namers[-1].digits(x)

    @staticmethod
    def _stem(d: list[int], three: bool) -> tuple[str, list[str]]:
        first = PLACE_CHARS[d[0]]
        second = PLACE_CHARS[d[1] + (d[1] >= d[0])]
        chars = [first, second] + ([PLACE_CHARS[d[2]]] if three else [])
        return "".join(c for c, _ in chars), [py for _, py in chars]

    def _base_name(self, t: str, k: int) -> tuple[str, str, str]:
        """(name, romanised name, kind) of the k-th entity of type t, from (seed, k) alone."""
        if t == "person":
            single_room = len(SURNAMES) * len(GIVEN)
            if k % 4 == 0 and k // 4 < single_room:  # a quarter of people have one-character given names
                sur, g1 = self._digits("person1", k // 4)
                given = [GIVEN[g1]]
            else:
                room = self._namers["person2"][0].size
                # overflowing one-character names take two-character ones from the top of the space
                x = k - k // 4 - 1 if k % 4 else room - 1 - (k // 4 - single_room)
                sur, g1, g2 = self._digits("person2", x)
                given = [GIVEN[g1], GIVEN[g2]]
            surname, sur_py = SURNAMES[sur]
            name = surname + "".join(c for c, _ in given)
            return name, f"{sur_py.capitalize()} {_latin([py for _, py in given])}", ""
        if t == "book":
            a, b, s = self._digits("book", k)
            return BOOK_WORDS[a] + BOOK_WORDS[b + (b >= a)] + BOOK_SUFFIXES[s], "", ""
        if t == "compound":
            l1, l2, s1, s2, base = self._digits("compound", k)
            locants = (2, 3, 4, 5)  # positions every base ring has
            first, second = locants[l1], [x for x in locants if x != locants[l1]][l2]
            name = f"{first}-{SUBSTITUENTS[s1][0]}-{second}-{SUBSTITUENTS[s2][0]}{COMPOUND_BASES[base][0]}"
            return name, "", f"{s1},{s2},{base}"
        d = self._digits(t, k)
        three = t in ("city", "place", "river", "mountain", "lake") and len(d) == len(self._namers[t][-1].radixes) \
            and k >= self._namers[t][0].size
        stem, syllables = self._stem(d, three)
        rest = d[3:] if three else d[2:]
        latin = _latin(syllables)
        if t == "city":
            return stem + "市", f"{latin} City", ""
        if t == "place":
            suffix = "镇乡县"[rest[0]]
            return stem + suffix, f"{latin} " + ("Town", "Township", "County")[rest[0]], suffix
        if t == "river":
            return stem + "河江溪"[rest[0]], f"{latin} " + ("River", "River", "Creek")[rest[0]], ""
        if t == "mountain":
            return stem + "山岭"[rest[0]], (f"Mount {latin}", f"{latin} Ridge")[rest[0]], ""
        if t == "lake":
            return stem + "湖", f"{latin} Lake", ""
        if t == "film":
            return stem + FILM_SUFFIXES[rest[0]], "", ""
        if t == "company":
            industry, legal = rest
            name = stem + INDUSTRIES[industry][0] + ("有限公司", "股份有限公司")[legal]
            return name, f"{latin} {INDUSTRIES[industry][1]} Co., Ltd.", str(industry)
        if t == "university":
            kind = UNIVERSITY_KINDS[rest[0]]
            return stem + kind[0], f"{latin} {kind[1]}", str(rest[0])
        if t == "organisation":
            field_, kind = rest
            return stem + ORG_FIELDS[field_] + ORG_KINDS[kind][0], "", f"{field_},{kind}"
        if t == "event":
            return stem + EVENT_KINDS[rest[0]][0], "", str(rest[0])
        if t == "treaty":
            return stem + TREATY_KINDS[rest[0]], "", str(rest[0])
        if t == "plant":
            return stem + PLANT_BASES[rest[0]][0], "", str(rest[0])
        if t == "animal":
            return stem + ANIMAL_BASES[rest[0]][0], "", str(rest[0])
        if t == "species":
            return stem + INSECT_BASES[rest[0]][0], "", str(rest[0])
        if t == "work":
            verb, noun, form = rest
            base = POEM_VERBS[verb] + stem + POEM_NOUNS[noun]
            if form:
                return CI_TUNES[(d[0] + d[1]) % len(CI_TUNES)] + "·" + base, "", "词"
            return base, "", "诗"
        raise ValueError(f"no names for type {t!r}")

    # -- cores --------------------------------------------------------------------------------------

    def _dup_source(self, i: int) -> int:
        """The earlier entry that entry i copies, or -1 (i is not the block's near-duplicate slot).

        The slot of block b copies a member of its type from block b // 2, from the half of
        that block's members chosen by b's parity: distinct slots never copy the same entry.
        """
        if i < N_FIXED:
            return -1
        t, k, plan, pos = self._where(i)
        if pos != plan.dup:
            return -1
        block = (i - N_FIXED) // BLOCK
        half = max(1, COUNT[t] // 2)
        base = (block // 2) * COUNT[t] + (block % 2) * half
        start = _mix(self.seed, _S_DUP, i) % half
        for step in range(half):
            ks = base + (start + step) % half
            if ks >= k:
                continue
            source = self._index(t, ks)
            _, _, splan, spos = self._where(source)
            if spos == splan.dup or spos in splan.group_of:
                continue
            name = self._base_name(t, ks)[0]
            if _variant(name) != name:
                return source
        return -1

    def _make_core(self, i: int) -> _Core:
        if i < N_FIXED:
            return self._fixed_core(i)
        source = self._dup_source(i)
        if source >= 0:
            c = self._core(source)
            return _Core(i, c.type, c.k, _variant(c.name), c.latin, c.tier, c.province, c.kind, c.attrs,
                         c.gender, c.era, c.born, c.died, -1, source)
        t, k, plan, pos = self._where(i)
        name, latin, kind = self._base_name(t, k)
        c = _Core(i, t, k, name, latin, self._tier(t, k), kind=kind)
        leader_pos = plan.leader_of.get(pos)
        if leader_pos is not None:
            c.leader = i - pos + leader_pos
            lead = self._core(c.leader)
            c.name = lead.name
            c.latin = lead.latin if lead.type == t else ""
        rng = self._rng(_S_CORE, i)
        if t in ("city", "river", "mountain", "lake"):
            c.province = k % N_PROV
        if t == "person":
            self._person_core(c, rng)
        elif t == "city":
            c.attrs = (_weighted(rng, (("地级市", 70), ("县级市", 25), ("副省级市", 5))),)
        elif t == "film":
            c.kind = "tv" if rng.random() < 0.3 else "film"
            c.attrs = (_weighted(rng, (("中国大陆", 85), ("中国香港", 8), ("中国台湾", 7))), rng.choice(FILM_GENRES))
        elif t == "book":
            c.attrs = (rng.random(),)  # picks the genre once the author's era is known
        return c

    def _person_core(self, c: _Core, rng: random.Random) -> None:
        kind = _weighted(rng, [(k, v[3]) for k, v in PERSON_KINDS.items()])
        ancient, _, occupations, _ = PERSON_KINDS[kind]
        c.kind = kind
        c.gender = "女" if any(ch in FEMALE_CHARS for ch in c.name[1:]) else "男"
        first = occupations[0] if rng.random() < 0.5 else rng.choice(occupations)
        others = [o for o in occupations if o != first]
        rng.shuffle(others)
        count = {"famous": 3, "mid": 2, "long_tail": 1}[c.tier]
        c.attrs = (first, *others[:rng.randint(0, count - 1)])
        if ancient:
            era = _weighted(rng, PERSON_ERAS)
            start, end = next((d[2], d[3]) for d in DYNASTIES if d[0] == era)
            born = rng.randint(start - 30, max(start - 29, end - 25))
            died = born + rng.randint(30, 85)
            c.era = era
        else:
            born = rng.randint(1840, 1960)
            died = min(born + rng.randint(40, 95), 2020)
        c.born, c.died = (born if born else -1), (died if died else 1)

    def _fixed_core(self, i: int) -> _Core:
        t, name = FIXED[i]
        facts = len(self._fixed_facts(i))
        tier = "famous" if facts >= INFOBOX_ROWS["famous"][0] + 1 else "mid"
        if t == "country":
            return _Core(i, t, i, name, COUNTRIES[i][1], tier)
        if t == "dynasty":
            d = DYNASTIES[i - len(COUNTRIES)]
            return _Core(i, t, i, name, d[1], tier, era=name, born=d[2], died=d[3])
        e = ELEMENTS[i - len(COUNTRIES) - len(DYNASTIES)]
        return _Core(i, t, i, name, e[3], tier)

    def _fixed_ref(self, name: str) -> tuple:
        """A value naming a fixed entity: linked when the corpus holds it."""
        index = FIXED_INDEX.get(name, -1)
        return _lv(name) if 0 <= index < self.size else _v(name)

    def _ref(self, j: int, before: str = "", after: str = "") -> tuple:
        return _lv(self._core(j).name, before, after)

    def _layout(self, i: int) -> str:
        # About one entry in four is served in Baidu's older layout, as a crawl meets both.
        return "baidu_legacy" if _mix(self.seed, _S_LAYOUT, i) % 4 == 0 else "baidu"

    # -- the world's facts about an entity --------------------------------------------------------

    def _birth_city(self, owner: int) -> int:
        """The city where person ``owner`` was born (a same-name follower reuses its leader's)."""
        return self._pick("city", self._rng(_S_BIRTH, owner))

    def _town_city(self, c: _Core) -> int:
        """The city a town belongs to; a town named after a person lies in that person's birth city."""
        if c.leader >= 0 and self._core(c.leader).type == "person":
            return self._birth_city(c.leader)
        return self._pick("city", self._rng(_S_TOWN, c.index))

    def _author(self, c: _Core) -> int:
        """The author of a book or poem, or the director of a film; -1 when none fits."""
        owner = c.source if c.source >= 0 else c.index
        rng = self._rng(_S_AUTHOR, owner)
        if c.type == "work":
            return self._pick("person", rng, pred=lambda p: bool(p.era) and p.kind in
                              ("poet", "official", "scholar", "painter"), tries=8)
        if c.type == "book":
            return self._pick("person", rng, pred=lambda p: p.kind in ("writer", "scholar", "poet", "official"),
                              tries=8)
        if c.type == "film":
            return self._pick("person", rng, pred=lambda p: p.kind in ("director", "actor", "writer", "artist"),
                              tries=8)
        if c.type in ("event", "treaty"):
            kinds = ("official", "general") if c.type == "treaty" else ("official", "general", "scholar", "poet")
            return self._pick("person", rng, pred=lambda p: bool(p.era) and p.kind in kinds, tries=8)
        return -1

    def _fake_person(self, rng: random.Random, surname: str | None = None) -> str:
        """A person name that is no entry of the corpus (a father, a character in a novel)."""
        surname = surname or rng.choice(SURNAMES)[0]
        return surname + "".join(rng.choice(GIVEN)[0] for _ in range(rng.choice((1, 2, 2))))

    def _fake_stem(self, rng: random.Random) -> str:
        a, b = rng.sample(range(N_PLACE), 2)
        return PLACE_CHARS[a][0] + PLACE_CHARS[b][0]

    def _count_items(self, tier: str, rng: random.Random) -> int:
        return {"famous": rng.randint(5, 10), "mid": rng.randint(4, 7), "long_tail": rng.randint(1, 3)}[tier]

    def _facts(self, c: _Core) -> list[_Fact]:
        if c.index < N_FIXED:
            return self._fixed_facts(c.index)
        # An entity sparsely documented by chance is documented again more fully, so that every
        # entry has the infobox rows its tier asks for.
        facts: list[_Fact] = []
        for attempt, exponent in enumerate((FACT_EXPONENT[c.tier], 0.5, 0.0)):
            facts = self._facts_once(c, exponent, attempt)
            if len(facts) >= INFOBOX_ROWS[c.tier][0]:
                break
        return facts

    def _facts_once(self, c: _Core, exponent: float, attempt: int) -> list[_Fact]:
        rng = self._rng(_S_FACTS, c.index, attempt)
        facts: list[_Fact] = [_Fact("中文名", [_v(c.name)], "name")]

        def has(p: float) -> bool:
            # Famous entities are documented fully, long-tail ones sparsely.
            return rng.random() < p ** exponent

        def add(rel: str, vals: list, kind: str, enum: bool = False) -> None:
            if vals:
                facts.append(_Fact(rel, vals, kind, enum and len(vals) >= 4))

        getattr(self, f"_facts_{c.type}")(c, rng, has, add)
        return facts

    def _place_val(self, j: int, rng: random.Random, qualify: float) -> tuple:
        """A city, sometimes qualified by its province (浙江省安平市)."""
        c = self._core(j)
        if c.province >= 0 and rng.random() < qualify:
            return _lv(c.name, PROVINCES[c.province])
        return _lv(c.name)

    def _native_val(self, j: int) -> tuple:
        """籍贯 the Baike way: province without 省 and the city without 市 (浙江安平)."""
        c = self._core(j)
        return _lv(c.name, PROVINCES[c.province][:-1], shown=c.name[:-1])

    def _date(self, year: int, rng: random.Random, day: float) -> str:
        if year < 0 or rng.random() >= day:
            return _year_text(year)
        month = rng.randint(1, 12)
        return f"{year}年{month}月{rng.randint(1, 28)}日"

    def _facts_person(self, c: _Core, rng, has, add) -> None:
        ancient = bool(c.era)
        if c.latin and has(0.8):
            add("外文名", [_v(c.latin)], "name")
        if has(0.5):
            alias = self._fake_stem(rng) + rng.choice(HAO_SUFFIXES) if ancient else \
                "".join(rng.choice(GIVEN)[0] for _ in range(2))
            add("别名", [_v(alias)], "name")
        if has(0.2):
            add("本名", [_v(self._fake_person(rng, c.name[0]))], "name")
        if ancient and has(0.6):
            add("字", [_v(rng.choice(GIVEN)[0] + rng.choice(GIVEN)[0])], "name")
        if ancient:
            add("所处时代", [self._fixed_ref(c.era)], "dynasty")
        else:
            add("国籍", [self._fixed_ref("中国")], "country")
        if has(0.6):
            add("民族", [_v(_weighted(rng, ETHNIC))], "text")
        owner = c.leader if c.leader >= 0 and self._core(c.leader).type == "person" else c.index
        birth_city = self._birth_city(owner)  # a same-name person shares the birth city (overlapping values)
        if birth_city >= 0:
            add("出生地", [self._place_val(birth_city, rng, 0.5)], "place")
            if has(0.5):
                native = birth_city if rng.random() < 0.6 else self._pick("city", rng)
                if native >= 0:
                    add("籍贯", [self._native_val(native)], "place")
        day = 0.0 if ancient else 0.7
        birth_text = self._date(c.born, rng, day)
        add("出生日期", [_v(birth_text)], "date")
        add("逝世日期", [_v(self._date(c.died, rng, day))], "date")
        if has(0.5):
            death_city = birth_city if rng.random() < 0.3 else self._pick("city", rng)
            if death_city >= 0:
                add("逝世地", [self._ref(death_city)], "place")
        if not ancient and has(0.7):
            school = self._pick("university", rng)
            if school >= 0:
                add("毕业院校", [self._ref(school)], "org")
        add("职业", [_v(o) for o in c.attrs], "occupation")
        if not ancient and has(0.5):
            work = self._pick(rng.choice(("organisation", "university", "company")), rng)
            if work >= 0:
                add("工作单位", [self._ref(work)], "org")
                if has(0.4):
                    # the post alone: with the unit's name in it, 职务 would also state 工作单位
                    post = {"university": ("校长", "教授", "副校长"), "company": ("董事长", "总工程师", "总经理")}
                    add("职务", [_v(rng.choice(post.get(self._core(work).type, ("研究员", "所长", "理事长"))))], "text")
        if c.kind in ("official", "general"):
            if has(0.7):
                add("官职", [_v(rng.choice(OFFICES))], "text")
            if has(0.4):
                add("封爵", [_v(self._fake_stem(rng) + rng.choice(TITLES_OF_NOBILITY))], "text")
            if has(0.5):
                add("谥号", [_v(rng.choice(POSTHUMOUS))], "text")
        if has(0.6):
            pool = list(ACHIEVEMENTS[c.kind])
            rng.shuffle(pool)
            add("主要成就", [_v(a) for a in pool[:rng.randint(1, min(3, len(pool)))]], "text")
        if c.kind != "entrepreneur" and has(0.8):
            n = self._count_items(c.tier, rng)
            add("代表作品", [_v(f"《{self._work_title(c.kind, rng)}》") for _ in range(n)], "work", enum=True)
        if c.kind in ("poet", "writer") and has(0.3):
            add("作品集", [_v(f"《{c.name}{rng.choice(('集', '全集', '文集', '诗集'))}》")], "work")
        if has(0.3):
            add("父亲", [_v(self._fake_person(rng, c.name[0]))], "person")
        if has(0.3):
            add("配偶", [_v(self._fake_person(rng))], "person")
        if ancient and has(0.3):
            add("陵墓", [_v(f"{c.name}墓")], "text")
        full = _FULL_DATE.match(birth_text)
        if full and has(0.6):
            month, day_ = int(full.group(2)), int(full.group(3))
            sign = next((z for m, d, z in ZODIAC if (month, day_) < (m, d)), "摩羯座")
            add("星座", [_v(sign)], "text")
        if has(0.15):
            ancestral = self._pick("city", rng)
            if ancestral >= 0:
                add("祖籍", [self._native_val(ancestral)], "place")

    def _work_title(self, kind: str, rng: random.Random) -> str:
        """A title for a person's work that has no entry of its own."""
        if kind in ("poet", "official", "painter") and rng.random() < 0.7:
            return rng.choice(POEM_VERBS) + self._fake_stem(rng) + rng.choice(POEM_NOUNS)
        if kind in ("actor", "director"):
            return self._fake_stem(rng) + rng.choice(FILM_SUFFIXES)
        if kind in ("scientist", "engineer", "naturalist"):
            return self._fake_stem(rng) + rng.choice(("地区植被研究", "水文研究", "地质志", "植物志", "工程技术研究",
                                                      "物理学讲义", "数学原理"))
        if kind in ("painter", "artist"):
            return self._fake_stem(rng) + rng.choice(("山水图", "秋景图", "组曲", "交响曲", "春晓图"))
        a, b = rng.sample(BOOK_WORDS, 2)
        return a + b + rng.choice(BOOK_SUFFIXES)

    def _facts_city(self, c: _Core, rng, has, add) -> None:
        province = PROVINCES[c.province]
        if has(0.8):
            add("外文名", [_v(c.latin)], "name")
        if has(0.4):
            add("别名", [_v(c.name[0] + rng.choice("州城阳"))], "name")
        add("所属国家", [self._fixed_ref("中国")], "country")
        add("所属地区", [_v(province)], "text")
        add("行政区类别", [_v(c.attrs[0])], "text")
        low, high = {"地级市": (3000, 20000), "副省级市": (8000, 25000)}.get(c.attrs[0], (800, 3000))
        area = rng.randint(low, high)
        add("面积", [_v(f"{area}.{rng.randint(1, 99):02d}平方千米" if rng.random() < 0.5 else f"{area}平方千米")], "qty")
        add("地理位置", [_v(province + rng.choice(DIRECTIONS))], "text")
        if has(0.5):
            flower = self._pick("plant", rng)
            if flower >= 0:
                add("市花", [self._ref(flower)], "text")
        if has(0.8):
            n = self._count_items(c.tier, rng)
            sights = []
            for t in ("mountain", "lake"):
                j = self._pick(t, rng, province=c.province)
                if j >= 0 and rng.random() < 0.6:
                    sights.append(self._ref(j))
            seen = {s[0] for s in sights}
            while len(sights) < n:
                sight = self._fake_stem(rng) + rng.choice(SIGHT_SUFFIXES)
                if sight not in seen:
                    seen.add(sight)
                    sights.append(_v(sight))
            add("著名景点", sights[:n], "text", enum=True)
        if has(0.3):
            add("称号", [_v(rng.choice(("丝绸", "瓷器", "温泉", "桃花", "石刻", "茶叶", "荷花", "龙舟"))
                           + rng.choice(("之城", "之乡")))], "text")
        if has(0.6):
            add("气候类型", [_v(rng.choice(CLIMATES))], "text")
        if has(0.6):
            rivers = {j for j in (self._pick("river", rng, province=c.province) for _ in range(3)) if j >= 0}
            add("主要河流", [self._ref(j) for j in sorted(rivers)], "text")

    def _facts_place(self, c: _Core, rng, has, add) -> None:
        city = self._town_city(c)
        province = self._core(city).province if city >= 0 else _mix(self.seed, c.index) % N_PROV
        if c.latin and has(0.6):
            add("外文名", [_v(c.latin)], "name")
        if city >= 0:
            add("所属地区", [_lv(self._core(city).name, PROVINCES[province])], "place")
        else:
            add("所属地区", [_v(PROVINCES[province])], "text")
        add("行政区类别", [_v(c.kind or "镇")], "text")
        if has(0.5):
            add("所属国家", [self._fixed_ref("中国")], "country")
        low, high = (500, 3000) if c.kind == "县" else (20, 300)
        add("面积", [_v(f"{rng.randint(low, high)}平方千米")], "qty")
        where = _lv(self._core(city).name, after=rng.choice(DIRECTIONS)) if city >= 0 else \
            _v(PROVINCES[province] + rng.choice(DIRECTIONS))
        add("地理位置", [where], "text")
        if has(0.5):
            n = self._count_items(c.tier, rng)
            add("著名景点", [_v(self._fake_stem(rng) + s) for s in rng.sample(SIGHT_SUFFIXES, min(n, 8))],
                "text", enum=True)
        if has(0.4):
            river = self._pick("river", rng, province=province)
            if river >= 0:
                add("主要河流", [self._ref(river)], "text")
        if has(0.4):
            add("气候类型", [_v(rng.choice(CLIMATES))], "text")
        if has(0.4):
            peak = self._pick("mountain", rng, province=province)
            if peak >= 0:
                add("最高峰", [self._ref(peak)], "text")
        if has(0.2):
            add("别名", [_v(self._fake_stem(rng))], "name")

    def _facts_river(self, c: _Core, rng, has, add) -> None:
        province = PROVINCES[c.province]
        if has(0.8):
            add("外文名", [_v(c.latin)], "name")
        if has(0.3):
            add("别名", [_v(c.name[:2] + "水")], "name")
        add("所属国家", [self._fixed_ref("中国")], "country")
        source = self._pick("mountain", rng, province=c.province)
        add("发源地", [self._ref(source) if source >= 0 else _v(province + rng.choice(DIRECTIONS) + "山区")], "place")
        roll = rng.random()
        mouth = -1
        if roll < 0.4:
            mouth = self._pick("lake", rng, province=c.province)
        elif roll < 0.7:
            mouth = self._pick("river", rng, exclude=c.index, province=c.province)
        sea = mouth < 0
        add("注入", [self._ref(mouth) if mouth >= 0 else _v(rng.choice(SEAS))], "place")
        length = {"famous": (600, 3000), "mid": (150, 800), "long_tail": (20, 200)}[c.tier]
        km = rng.randint(*length)
        add("全长", [_v(("约" if rng.random() < 0.2 else "") + f"{km}千米")], "qty")
        if has(0.7):
            basin = km * rng.randint(15, 60)
            add("流域面积", [_v(f"约{basin / 10000:.1f}万平方千米" if basin >= 10000 else f"{basin}平方千米")], "qty")
        if has(0.7):
            n = self._count_items(c.tier, rng)
            tributaries = {self._fake_stem(rng) + rng.choice("河溪江水") for _ in range(n)}
            add("主要支流", [_v(t) for t in sorted(tributaries)], "text", enum=True)
        if has(0.6):
            others = [p[:-1] for p in rng.sample(PROVINCES, rng.randint(0, 3)) if p != province]
            add("流经省区", [_v(province[:-1])] + [_v(p) for p in others], "text")
        if has(0.3):
            lake = self._pick("lake", rng, province=c.province)
            if lake >= 0:
                add("主要湖泊", [self._ref(lake)], "text")
        if has(0.5):
            add("所属水系", [_v(rng.choice(RIVER_SYSTEMS))], "text")
        if sea and has(0.5):
            city = self._pick("city", rng, province=c.province)
            if city >= 0:
                add("入海口", [_lv(self._core(city).name, province)], "place")

    def _facts_mountain(self, c: _Core, rng, has, add) -> None:
        province = PROVINCES[c.province]
        if has(0.8):
            add("外文名", [_v(c.latin)], "name")
        if has(0.3):
            add("别名", [_v(self._fake_stem(rng) + "山")], "name")
        add("所属国家", [self._fixed_ref("中国")], "country")
        height = rng.randint(*{"famous": (1500, 5000), "mid": (800, 3000), "long_tail": (300, 2000)}[c.tier])
        add("海拔", [_v(f"{height}.{rng.randint(1, 9)}米" if rng.random() < 0.5 else f"{height}米")], "qty")
        if has(0.8):
            add(rng.choice(("所属山系", "所属山脉")), [_v(rng.choice(RANGES))], "text")
        if has(0.6):
            add("主峰", [_v(self._fake_stem(rng) + rng.choice("峰顶"))], "text")
        add("地理位置", [_v(province + rng.choice(DIRECTIONS))], "text")
        if has(0.5):
            add("景区级别", [_v(rng.choice(SCENIC_LEVELS))], "text")
        if has(0.3):
            add("保护区", [_v(c.name + rng.choice(("国家级自然保护区", "省级自然保护区")))], "text")
        if has(0.3):
            add("列入时间", [_v(f"{rng.randint(1982, 2018)}年")], "date")
        if has(0.6):
            n = self._count_items(c.tier, rng)
            add("著名景点", [_v(self._fake_stem(rng) + s) for s in rng.sample(MOUNTAIN_SIGHTS, min(n, 8))],
                "text", enum=True)
        if has(0.4):
            add("气候类型", [_v(rng.choice(CLIMATES))], "text")

    def _facts_lake(self, c: _Core, rng, has, add) -> None:
        if has(0.8):
            add("外文名", [_v(c.latin)], "name")
        if has(0.3):
            add("别名", [_v(c.name[:2] + rng.choice(("泊", "淀", "海子")))], "name")
        add("所属国家", [self._fixed_ref("中国")], "country")
        add("面积", [_v(f"{rng.randint(5, 3000)}.{rng.randint(1, 9)}平方千米")], "qty")
        if has(0.8):
            add("湖泊类型", [_v(rng.choice(LAKE_KINDS))], "text")
        average = rng.randint(10, 300) / 10
        if has(0.5):
            add("平均水深", [_v(f"{average}米")], "qty")
        if has(0.5):
            add("最大深度", [_v(f"{round(average * rng.uniform(1.5, 4), 1)}米")], "qty")
        if has(0.5):
            add("湖面海拔", [_v(f"{rng.randint(10, 3500)}米")], "qty")
        if has(0.6):
            river = self._pick("river", rng, province=c.province)
            add("所属水系", [self._ref(river) if river >= 0 else _v(rng.choice(RIVER_SYSTEMS))], "text")
        if has(0.6):
            n = self._count_items(c.tier, rng)
            inflows = {self._fake_stem(rng) + rng.choice("河溪水") for _ in range(n)}
            add("主要入湖河流", [_v(x) for x in sorted(inflows)], "text", enum=True)
        if has(0.4):
            add("出湖口", [_v(self._fake_stem(rng) + "口")], "text")
        if has(0.4):
            add("气候类型", [_v(rng.choice(CLIMATES))], "text")
        if has(0.4):
            add("景区级别", [_v(rng.choice(SCENIC_LEVELS))], "text")

    def _era_word(self, person: int, rng: random.Random) -> str:
        if person >= 0 and self._core(person).era:
            return ERA_WORD[self._core(person).era]
        if person >= 0:
            decade = (self._core(person).born + 35) // 10 * 10
            return f"20世纪{decade % 100}年代" if decade >= 1900 else f"19世纪{decade % 100}年代"
        return ERA_WORD[_weighted(rng, PERSON_ERAS)]

    def _book_genre(self, c: _Core) -> str:
        author = self._author(c)
        ancient = author < 0 or bool(self._core(author).era)
        pool = BOOK_GENRES_ANCIENT if ancient else BOOK_GENRES_MODERN
        return pool[int(c.attrs[0] * len(pool))] if c.attrs else pool[0]

    def _facts_book(self, c: _Core, rng, has, add) -> None:
        author = self._author(c)
        if has(0.2):
            a, b = rng.sample(BOOK_WORDS, 2)
            add("别名", [_v(a + b + rng.choice(BOOK_SUFFIXES))], "name")
        add("作者", [self._ref(author) if author >= 0 else _v(self._fake_person(rng))], "person")
        add("创作年代", [_v(self._era_word(author, rng))], "text")
        genre = self._book_genre(c)
        add("文学体裁", [_v(genre)], "text")
        modern = author >= 0 and not self._core(author).era
        if has(0.6):
            add("篇幅", [_v(f"{rng.randint(40, 120)}回" if "章回" in genre else f"{rng.randint(10, 60)}章")], "count")
        if has(0.5):
            add("字数", [_v(("约" if rng.random() < 0.5 else "") + f"{rng.randint(5, 80)}万字")], "qty")
        if modern and has(0.7):
            a = self._core(author)
            add("出版时间", [_v(f"{rng.randint(a.born + 25, max(a.born + 25, a.died))}年")], "date")
        if modern and has(0.5):
            add("出版社", [_v(self._fake_stem(rng) + rng.choice(PUBLISHERS))], "text")
        if has(0.6):
            n = self._count_items(c.tier, rng)
            characters = {self._fake_person(rng) for _ in range(n)}
            add("主要人物", [_v(x) for x in sorted(characters)], "person", enum=True)
        if has(0.3):
            add("地位", [_v(rng.choice(("中国现代文学的重要作品之一", "明清小说的重要作品之一", "地方文学的代表性作品")))],
                "text")
        if has(0.4):
            add("故事背景", [_v(rng.choice(("民国时期的江南小城", "清朝末年", "明朝中叶", "北宋末年", "抗战时期的山村")))],
                "text")
        if modern and has(0.3):
            add("首发刊物", [_v(f"《{self._fake_stem(rng)}{rng.choice(PERIODICALS)}》")], "text")

    def _facts_film(self, c: _Core, rng, has, add) -> None:
        director = self._author(c)
        add("导演", [self._ref(director) if director >= 0 else _v(self._fake_person(rng))], "person")
        actor = lambda p: not p.era and p.kind in ("actor", "director", "artist")  # noqa: E731
        if has(0.6):
            writer = self._pick("person", rng, pred=lambda p: p.kind in ("writer", "director"), tries=6)
            add("编剧", [self._ref(writer) if writer >= 0 else _v(self._fake_person(rng))], "person")
        if has(0.9):
            n = self._count_items(c.tier, rng)
            cast, seen = [], set()
            for _ in range(n):
                j = self._pick("person", rng, pred=actor, tries=4)
                val = self._ref(j) if j >= 0 else _v(self._fake_person(rng))
                if val[0] not in seen:
                    seen.add(val[0])
                    cast.append(val)
            add("主演", cast, "person", enum=True)
        base = self._core(director).born + 30 if director >= 0 and not self._core(director).era else 1950
        year = max(1930, min(rng.randint(base, base + 35), 2015))
        if c.kind == "tv":
            add("首播时间", [_v(self._date(year, rng, 0.4))], "date")
        else:
            add("上映时间", [_v(self._date(year, rng, 0.7))], "date")
        region, genre = c.attrs
        if has(0.7):
            add("制片地区", [_v(region)], "text")
        if has(0.7):
            genres = [genre] + ([g for g in [rng.choice(FILM_GENRES)] if g != genre] if rng.random() < 0.5 else [])
            add("类型", [_v(g) for g in genres], "text")
        if has(0.6):
            studio = self._pick("company", rng)
            if studio >= 0:
                add("出品公司", [self._ref(studio)], "org")
        if has(0.4):
            add("对白语言", [_v("粤语" if region == "中国香港" else "普通话")], "text")
        if has(0.3):
            add("色彩", [_v("黑白" if year < 1965 else "彩色")], "text")
        if c.leader >= 0 and self._core(c.leader).type == "book":
            # a film of the same name as a novel is its adaptation: the novel's author is the 原著
            novel_author = self._author(self._core(c.leader))
            if novel_author >= 0:
                add("原著", [self._ref(novel_author)], "person")
        if has(0.3):
            composer = self._pick("person", rng, pred=lambda p: p.kind == "artist", tries=4)
            if composer >= 0:
                add("音乐", [self._ref(composer)], "person")
        if c.kind == "tv":
            add("集数", [_v(f"{rng.randint(20, 60)}集")], "count")
            if has(0.7):
                add("首播平台", [_v(rng.choice(TV_CHANNELS))], "text")

    def _facts_work(self, c: _Core, rng, has, add) -> None:
        author = self._author(c)
        add("作者", [self._ref(author) if author >= 0 else _v(self._fake_person(rng))], "person")
        add("创作年代", [_v(self._era_word(author, rng))], "text")
        form, chars = ("词", 0) if c.kind == "词" else POEM_FORMS[_mix(self.seed, c.index, 7) % len(POEM_FORMS)]
        add("文学体裁", [_v(form)], "text")
        if has(0.5):
            add("作品出处", [_v(f"《{self._fake_stem(rng)}集》")], "work")
        if has(0.4):
            if author >= 0:
                a = self._core(author)
                year = rng.randint(a.born + 20, max(a.born + 20, a.died))
            else:
                year = rng.randint(618, 1900)
            add("创作时间", [_v(_year_text(year or 1))], "date")
        if has(0.3):
            city = self._pick("city", rng)
            if city >= 0:
                add("创作地点", [self._ref(city)], "place")
        if has(0.5):
            size = 7 if "七言" in form else 5
            words = rng.sample(POEM_WORDS, 2)
            line = words[0] + rng.choice(POEM_VERBS_IN_LINE) + words[1] + ("" if size == 5 else rng.choice(POEM_WORDS))
            add("名句", [_v(line[:size])], "text")
        if chars and has(0.4):
            add("字数", [_v(f"{chars}字")], "count")
        if has(0.2):
            add("别名", [_v(self._fake_stem(rng) + rng.choice(POEM_NOUNS) + "诗")], "name")
        if has(0.2):
            era = ERA_WORD.get(self._core(author).era, "古代") if author >= 0 else "古代"
            kind = rng.choice(("山水诗", "咏物诗", "边塞诗", "送别诗", "怀古诗"))
            add("地位", [_v(f"{era}{kind}名篇之一")], "text")

    def _facts_company(self, c: _Core, rng, has, add) -> None:
        industry = int(c.kind)
        if has(0.6):
            add("外文名", [_v(c.latin)], "name")
        if has(0.6):
            add("简称", [_v(c.name[:2] + INDUSTRIES[industry][0])], "name")
        founded = rng.randint(1978, 2015)
        add("创立时间", [_v(self._date(founded, rng, 0.5))], "date")
        if has(0.8):
            founders = set()
            for _ in range(rng.choice((1, 1, 2, 3))):
                j = self._pick("person", rng, pred=lambda p: not p.era and p.kind in
                               ("entrepreneur", "engineer", "scientist"), tries=6)
                if j >= 0:
                    founders.add(j)
            add("创始人", [self._ref(j) for j in sorted(founders)], "person")
        if has(0.9):
            city = self._pick("city", rng)
            if city >= 0:
                add("总部地点", [self._place_val(city, rng, 0.5)], "place")
        if has(0.6):
            add("企业性质", [_v(rng.choice(ENTERPRISE_KINDS))], "text")
        if has(0.5):
            scope = BUSINESS[INDUSTRIES[industry][0]].split("、")
            add("经营范围", [_v(x) for x in scope[:rng.randint(3, 5)]], "text", enum=True)
        if has(0.4):
            product = {"科技": "智能终端", "电子": "传感器", "药业": "胶囊", "重工": "挖掘机", "食品": "乳饮料",
                       "传媒": "纪录片", "化工": "涂料", "纺织": "面料", "机械": "数控机床", "能源": "光伏组件",
                       "物流": "冷链服务", "建材": "陶瓷砖"}[INDUSTRIES[industry][0]]
            n = self._count_items(c.tier, rng)
            names = {self._fake_stem(rng) + "牌" + product for _ in range(n)}
            add("代表产品", [_v(x) for x in sorted(names)], "text", enum=True)
        if has(0.3):
            listed = rng.randint(founded + 3, 2020)
            add("上市地点", [_v(rng.choice(EXCHANGES))], "text")
            add("上市时间", [_v(self._date(listed, rng, 0.8))], "date")
            add("股票代码", [_v(f"{rng.choice(('600', '000', '300', '002'))}{rng.randint(0, 999):03d}")], "text")

    def _facts_university(self, c: _Core, rng, has, add) -> None:
        name, _, category = UNIVERSITY_KINDS[int(c.kind)]
        if has(0.6):
            add("外文名", [_v(c.latin)], "name")
        if has(0.6):
            short = {"理工大学": "理工", "师范大学": "师大", "农业大学": "农大", "医科大学": "医大", "财经大学": "财大",
                     "大学": "大", "师范学院": "师院", "科技大学": "科大"}[name]
            add("简称", [_v(c.name[:2] + short)], "name")
        add("创立时间", [_v(self._date(rng.randint(1898, 1985), rng, 0.2))], "date")
        city = self._pick("city", rng)
        if city >= 0 and has(0.9):
            add("所在地", [self._place_val(city, rng, 0.4)], "place")
        province = PROVINCES[self._core(city).province] if city >= 0 else rng.choice(PROVINCES)
        if has(0.6):
            add("主管部门", [_v(rng.choice(("教育部", province + "人民政府", province + "教育厅")))], "text")
        if has(0.5):
            add("属性", [_v(x) for x in rng.sample(UNIVERSITY_TAGS, rng.randint(1, 3))], "text")
        if has(0.4):
            add("前身", [_v(c.name[:2] + rng.choice(("专科学校", "学堂", "书院", "师范学校")))], "text")
        if has(0.5):
            add("院校代码", [_v(f"1{rng.randint(0, 9999):04d}")], "text")
        if city >= 0 and has(0.4):
            # a district and street, not the city: the address would otherwise also state 所在地
            add("校址", [_v(f"{self._fake_stem(rng)}区{self._fake_stem(rng)}路{rng.randint(1, 300)}号")], "text")
        if has(0.7):
            add("类别", [_v(category)], "text")

    def _facts_organisation(self, c: _Core, rng, has, add) -> None:
        field_, kind = (int(x) for x in c.kind.split(","))
        if has(0.4):
            add("外文名", [_v(f"{c.name[:2]} {ORG_KINDS[kind][1]}")], "name")
        add("创立时间", [_v(self._date(rng.randint(1950, 2010), rng, 0.3))], "date")
        city = self._pick("city", rng)
        if city >= 0 and has(0.8):
            add("总部地点", [self._ref(city)], "place")
        if has(0.6):
            add("机构性质", [_v(ORG_KINDS[kind][2])], "text")
        if has(0.4):
            add("性质", [_v({"社会团体": "学术性社会团体", "事业单位": "公益性事业单位"}.get(ORG_KINDS[kind][2], "非营利机构"))],
                "text")
        province = PROVINCES[self._core(city).province] if city >= 0 else rng.choice(PROVINCES)
        if has(0.5):
            add("主管部门", [_v(rng.choice((province + "科学技术协会", "中国科学技术协会", province + "人民政府")))], "text")
        if ORG_KINDS[kind][0] in ("研究院", "科学院", "研究所") and has(0.4):
            head = self._pick("person", rng, pred=lambda p: not p.era and p.kind in ("scientist", "naturalist"), tries=6)
            if head >= 0:
                add("首任院长", [self._ref(head)], "person")
        if has(0.3):
            add("前身", [_v(c.name[:2] + ORG_FIELDS[field_] + "工作站")], "text")
        if has(0.4):
            add("简称", [_v(c.name[:2] + ORG_KINDS[kind][0][-1])], "name")
        if has(0.3):
            add("主要成就", [_v(x) for x in rng.sample(("承担多项国家级科研项目", "出版学术专著多部", "建成专业数据库",
                                                        "培养专业人才数百人", "举办全国性学术会议"), 2)], "text")

    def _taxonomy(self, add, rng, has, kingdom: str, phylum: str, cls: str, order: str, family: str, genus: str):
        for rel, value, p in (("界", kingdom, 0.6), ("门", phylum, 0.6), ("纲", cls, 0.6), ("目", order, 0.6),
                              ("科", family, 0.9), ("属", genus, 0.9)):
            if has(p):
                add(rel, [_v(value)], "text")

    def _latin_name(self, genus: str, c: _Core, rng: random.Random) -> str:
        if rng.random() < 0.5:
            syllables = [py for ch in c.name[:2] for pc, py in PLACE_CHARS if pc == ch][:2]
            return f"{genus} {''.join(syllables)}ensis"
        return f"{genus} {rng.choice(LATIN_EPITHETS)}"

    def _facts_plant(self, c: _Core, rng, has, add) -> None:
        name, family, genus, order, cls, phylum, latin_genus = PLANT_BASES[int(c.kind)]
        if has(0.8):
            add("拉丁学名", [_v(self._latin_name(latin_genus, c, rng))], "name")
        if has(0.4):
            add("别名", [_v(self._fake_stem(rng) + name)], "name")
        self._taxonomy(add, rng, has, "植物界", phylum, cls, order, family, genus)
        if has(0.7):
            n = self._count_items(c.tier, rng)
            add("分布区域", [_v(p[:-1]) for p in rng.sample(PROVINCES, n)], "text", enum=True)
        if has(0.3):
            add("原产地", [self._fixed_ref("中国")], "country")
        first = rng.randint(2, 8)
        if has(0.6):
            add("花期", [_v(f"{first}—{first + rng.randint(1, 2)}月")], "text")
        if has(0.5):
            second = min(first + rng.randint(3, 4), 11)
            add("果期", [_v(f"{second}—{second + 1}月")], "text")
        if has(0.4):
            add("保护级别", [_v(rng.choice(PROTECTION_PLANT))], "text")
        if has(0.3):
            add("药用部位", [_v(rng.choice(MEDICINAL_PARTS))], "text")
            add("功效", [_v(x) for x in rng.sample(EFFECTS, rng.randint(2, 4))], "text")

    def _facts_animal(self, c: _Core, rng, has, add) -> None:
        name, family, genus, order, cls, latin_genus = ANIMAL_BASES[int(c.kind)]
        if has(0.8):
            add("拉丁学名", [_v(self._latin_name(latin_genus, c, rng))], "name")
        if has(0.4):
            add("别名", [_v(self._fake_stem(rng) + name)], "name")
        self._taxonomy(add, rng, has, "动物界", "脊索动物门", cls, order, family, genus)
        if has(0.7):
            n = self._count_items(c.tier, rng)
            add("分布区域", [_v(p[:-1]) for p in rng.sample(PROVINCES, n)], "text", enum=True)
        if has(0.5):
            add("保护级别", [_v(rng.choice(PROTECTION_ANIMAL))], "text")

    def _facts_species(self, c: _Core, rng, has, add) -> None:
        name, family, genus, order, latin_genus = INSECT_BASES[int(c.kind)]
        if has(0.7):
            add("拉丁学名", [_v(self._latin_name(latin_genus, c, rng))], "name")
        if has(0.3):
            add("别名", [_v(self._fake_stem(rng) + name)], "name")
        self._taxonomy(add, rng, has, "动物界", "节肢动物门", "昆虫纲", order, family, genus)
        if has(0.6):
            n = self._count_items(c.tier, rng)
            add("分布区域", [_v(p[:-1]) for p in rng.sample(PROVINCES, n)], "text", enum=True)

    def _facts_compound(self, c: _Core, rng, has, add) -> None:
        s1, s2, base = (int(x) for x in c.kind.split(","))
        atoms = dict(COMPOUND_BASES[base][1])
        for sub in (s1, s2):
            atoms["H"] = atoms.get("H", 0) - 1
            for element, n in SUBSTITUENTS[sub][1].items():
                atoms[element] = atoms.get(element, 0) + n
        order = ["C", "H"] + sorted(e for e in atoms if e not in ("C", "H"))
        formula = "".join(f"{e}{atoms[e] if atoms[e] > 1 else ''}" for e in order if atoms.get(e, 0) > 0)
        mass = sum(ATOMIC_MASS[e] * n for e, n in atoms.items() if n > 0)
        if has(0.3):
            add("别名", [_v(SUBSTITUENTS[s1][0] + SUBSTITUENTS[s2][0] + COMPOUND_BASES[base][0])], "name")
        add("化学式", [_v(formula)], "text")
        if has(0.8):
            add("分子量", [_v(f"{mass:.2f}")], "text")
        melt = rng.randint(-500, 2500) / 10
        if has(0.6):
            add("熔点", [_v(f"{melt}℃")], "qty")
        if has(0.6):
            add("沸点", [_v(f"{round(melt + rng.randint(500, 2500) / 10, 1)}℃")], "qty")
        if has(0.5):
            add("密度", [_v(f"{rng.randint(850, 1900) / 1000:.3f}g/cm³")], "qty")
        if has(0.7):
            add("外观", [_v(rng.choice(APPEARANCES))], "text")
        if has(0.7):
            body = str(rng.randint(100, 99999))
            mid = f"{rng.randint(0, 99):02d}"
            digits = (body + mid)[::-1]
            check = sum((n + 1) * int(d) for n, d in enumerate(digits)) % 10
            add("CAS登录号", [_v(f"{body}-{mid}-{check}")], "text")
        if has(0.2):
            plant = self._pick("plant", rng)
            if plant >= 0:
                add("来源", [self._ref(plant)], "text")
        if has(0.3):
            finder = self._pick("person", rng, pred=lambda p: not p.era and p.kind in
                                ("scientist", "naturalist", "engineer"), tries=6)
            if finder >= 0:
                f = self._core(finder)
                add("发现者", [self._ref(finder)], "person")
                add("发现时间", [_v(f"{rng.randint(f.born + 25, max(f.born + 25, f.died))}年")], "date")
        if has(0.2):
            add("药物类别", [_v(rng.choice(DRUG_CLASSES))], "text")

    def _facts_event(self, c: _Core, rng, has, add) -> None:
        leader = self._author(c)
        kind_word = EVENT_KINDS[int(c.kind)][1]
        era = self._core(leader).era if leader >= 0 else _weighted(rng, PERSON_ERAS)
        if leader >= 0:
            a = self._core(leader)
            year = rng.randint(a.born + 20, max(a.born + 20, min(a.died, a.born + 60)))
        else:
            start, end = next((d[2], d[3]) for d in DYNASTIES if d[0] == era)
            year = rng.randint(start, end)
        add("时间", [_v(_year_text(year or 1))], "date")
        if has(0.8):
            city = self._pick("city", rng)
            if city >= 0:
                add("地点", [self._ref(city)], "place")
        if has(0.7):
            add("所处时代", [self._fixed_ref(era)], "dynasty")
        if kind_word == "战役" and has(0.6):
            add("参战方", [_v(self._fake_stem(rng) + "军"), _v(self._fake_stem(rng) + "军")], "text")
        if has(0.7):
            people = [self._ref(leader)] if leader >= 0 else []
            for _ in range(self._count_items(c.tier, rng) - len(people)):
                j = self._pick("person", rng, pred=lambda p: p.era == era, tries=3)
                val = self._ref(j) if j >= 0 else _v(self._fake_person(rng))
                if val[0] not in {p[0] for p in people}:
                    people.append(val)
            add("主要人物", people, "person", enum=True)
        if leader >= 0 and has(0.7):
            add("发动者" if kind_word == "政变" else "领导者", [self._ref(leader)], "person")
        if has(0.6):
            add("结果", [_v(rng.choice(EVENT_RESULTS))], "text")
        if has(0.3):
            add("历史意义", [_v(rng.choice(EVENT_MEANINGS))], "text")
        if has(0.3):
            add("影响", [_v(rng.choice(EVENT_MEANINGS))], "text")
        if has(0.2):
            treaty = self._pick("treaty", rng)
            if treaty >= 0:
                add("条约", [self._ref(treaty, "《", "》")], "work")

    def _facts_treaty(self, c: _Core, rng, has, add) -> None:
        envoy = self._author(c)
        era = self._core(envoy).era if envoy >= 0 else _weighted(rng, PERSON_ERAS)
        if envoy >= 0:
            a = self._core(envoy)
            year = rng.randint(a.born + 25, max(a.born + 25, a.died))
        else:
            start, end = next((d[2], d[3]) for d in DYNASTIES if d[0] == era)
            year = rng.randint(start, end)
        add("签订时间", [_v(_year_text(year or 1))], "date")
        if has(0.8):
            city = self._pick("city", rng)
            if city >= 0:
                add("签订地点", [self._ref(city)], "place")
        if has(0.8):
            add("签约双方", [self._fixed_ref(era), _v(self._fake_stem(rng) + rng.choice(("部", "国")))], "text")
        if envoy >= 0 and has(0.6):
            other = self._pick("person", rng, exclude=envoy, pred=lambda p: p.era == era, tries=3)
            add("签约代表", [self._ref(envoy)] + ([self._ref(other)] if other >= 0 else []), "person")
        if has(0.7):
            add("性质", [_v(rng.choice(TREATY_NATURES))], "text")
        if has(0.6):
            n = min(self._count_items(c.tier, rng), len(TREATY_TERMS))
            add("主要内容", [_v(x) for x in rng.sample(TREATY_TERMS, n)], "text", enum=True)
        if has(0.3):
            add("赔款", [_v(f"白银{rng.randint(10, 900)}万两")], "qty")
        if has(0.5):
            add("所处时代", [self._fixed_ref(era)], "dynasty")
        if has(0.3):
            add("历史意义", [_v(rng.choice(EVENT_MEANINGS))], "text")
        if has(0.3):
            add("影响", [_v(rng.choice(("两国边境由此安定多年", "此后双方贸易往来增多", "加重了当地百姓的负担")))], "text")

    def _fixed_facts(self, i: int) -> list[_Fact]:
        t, name = FIXED[i]
        facts = [_Fact("中文名", [_v(name)], "name")]
        if t == "country":
            _, english, _, table = COUNTRIES[i]
            facts.append(_Fact("外文名", [_v(english)], "name"))
            for rel, value in table.items():
                kind = "qty" if rel == "面积" else "text"
                facts.append(_Fact(rel, [_v(x) for x in value.split("、")], kind))
        elif t == "dynasty":
            _, english, _, _, table = DYNASTIES[i - len(COUNTRIES)]
            facts.append(_Fact("外文名", [_v(english)], "name"))
            for rel, value in table.items():
                vals = [self._fixed_ref(x) if x in FIXED_INDEX else _v(x) for x in value.split("、")]
                facts.append(_Fact(rel, vals, "dynasty" if rel in ("上一时期", "下一时期", "下一朝代") else "text"))
        else:
            number, symbol, _, english, mass, category = ELEMENTS[i - len(COUNTRIES) - len(DYNASTIES)]
            facts += [_Fact("外文名", [_v(english)], "name"), _Fact("元素符号", [_v(symbol)], "text"),
                      _Fact("原子序数", [_v(str(number))], "text"), _Fact("相对原子质量", [_v(mass)], "text"),
                      _Fact("元素类别", [_v(category)], "text")]
        return facts

    # -- writing the page ---------------------------------------------------------------------------

    def _compose(self, c: _Core) -> Entry:
        page = _Page(self, c, self._facts(c))
        page.plan_rows()
        opening = page.opening()
        body = page.body()
        units = page.fit(opening, body)
        summary, clean, noise = page.assemble(units)
        labels = page.labels(clean, noise)
        infobox = [(row.shown, "、".join(_markup(v, set()) for v in row.vals)) for row in page.rows]
        return Entry(
            title=c.name, sense=self._sense(c), domain=self._domain(c), type=c.type, summary=summary,
            infobox=infobox, sections=self._sections(c, page.facts), baidu_id=REALISTIC_ID_BASE + c.index,
            sogou_id=REALISTIC_ID_BASE + c.index, layout=self._layout(c.index), labels=labels)

    def _domain(self, c: _Core) -> str:
        return PERSON_KINDS[c.kind][1] if c.type == "person" else DOMAIN[c.type]

    def _base_sense(self, c: _Core) -> str:
        t = c.type
        if t == "person":
            era = ERA_WORD[c.era] if c.era else ("中国近代" if c.born < 1900 else "中国现代")
            return era + c.attrs[0]
        if t == "city":
            return f"{PROVINCES[c.province]}下辖{c.attrs[0]}"
        if t == "place":
            city = self._town_city(c)
            if city >= 0:
                town = self._core(city)
                return f"{PROVINCES[town.province]}{town.name}下辖{c.kind or '镇'}"
            return f"{PROVINCES[_mix(self.seed, c.index) % N_PROV]}下辖{c.kind or '镇'}"
        if t in ("river", "mountain", "lake"):
            return PROVINCES[c.province] + {"river": "境内河流", "mountain": "境内山峰", "lake": "境内湖泊"}[t]
        if t in ("book", "work"):
            author = self._author(c)
            era = self._era_word(author, self._rng(_S_AUTHOR, c.index, 1))
            name = self._core(author).name if author >= 0 else ""
            genre = self._book_genre(c) if t == "book" else ("词" if c.kind == "词" else "诗歌")
            return f"{era}{name}创作的{genre}"
        if t == "film":
            return f"{c.attrs[0]}{c.attrs[1]}片" if c.kind == "film" else f"{c.attrs[0]}{c.attrs[1]}电视剧"
        if t == "company":
            return f"中国{INDUSTRIES[int(c.kind)][0]}企业"
        if t == "university":
            return f"中国{UNIVERSITY_KINDS[int(c.kind)][2]}高等院校"
        if t == "organisation":
            field_, kind = (int(x) for x in c.kind.split(","))
            return f"从事{ORG_FIELDS[field_]}研究的{ORG_KINDS[kind][2]}"
        if t == "plant":
            return PLANT_BASES[int(c.kind)][1] + "植物"
        if t == "animal":
            return ANIMAL_BASES[int(c.kind)][1] + "动物"
        if t == "species":
            return INSECT_BASES[int(c.kind)][1] + "昆虫"
        if t == "compound":
            return "有机化合物"
        if t in ("event", "treaty"):
            lead = self._author(c)
            era = ERA_WORD.get(self._core(lead).era, "古代") if lead >= 0 else "古代"
            return era + (EVENT_KINDS[int(c.kind)][1] if t == "event" else "条约")
        if t == "country":
            return f"位于{COUNTRIES[c.index][2]}的国家"
        if t == "dynasty":
            return "中国历史时期" if c.name.endswith("时期") else "中国历史朝代"
        return f"第{ELEMENTS[c.index - len(COUNTRIES) - len(DYNASTIES)][0]}号化学元素"

    def _sense(self, c: _Core) -> str:
        """The Baike subtitle; entries sharing a title get different ones."""
        if c.source >= 0:
            return self._sense(self._core(c.source))
        base = self._base_sense(c)
        if c.index < N_FIXED:
            return base
        _, _, plan, pos = self._where(c.index)
        earlier = [p for p in plan.group_of.get(pos, ()) if p < pos]
        taken = {self._sense(self._core(c.index - pos + p)) for p in earlier}
        if base not in taken:
            return base
        if c.type == "person":
            return f"{_year_text(c.born)}出生的{base}"
        return base.replace("下辖", DIRECTIONS[pos % len(DIRECTIONS)] + "的", 1) if "下辖" in base else base + "之一"

    def _near_duplicate(self, i: int, source: int) -> Entry:
        """A lightly edited copy of an earlier entry: another title spelling and a punctuation change."""
        original = self._compose(self._core(source))
        labels = _copy_labels(original.labels)
        old, new = original.title, self._core(i).name
        at = 1 if original.type in ("book", "film", "work") else 0
        summary, clean = original.summary, labels["clean_summary"]
        raw_at = summary.find(old)  # the opening names the entry first (a stray space may precede it)
        if clean[at:at + len(old)] == old and raw_at >= 0:
            summary = summary[:raw_at] + new + summary[raw_at + len(old):]
            clean = clean[:at] + new + clean[at + len(old):]
        spans = [r["span"] for r in labels["rows"] if r["span"]] + [x["span"] for x in labels["extra_facts"]] \
            + [e["span"] for e in labels["enumerations"]]
        commas = [n for n, ch in enumerate(clean) if ch == "，" and not any(s <= n < e for s, e in spans)]
        if commas:
            which = self._rng(_S_DUP, i, 1).randrange(len(commas))
            at_clean = commas[which]
            raw_commas = [n for n, ch in enumerate(summary) if ch == "，"]
            at_raw = raw_commas[clean[:at_clean].count("，")]
            clean = clean[:at_clean] + "；" + clean[at_clean + 1:]
            summary = summary[:at_raw] + "；" + summary[at_raw + 1:]
        labels["clean_summary"] = clean
        for row in labels["rows"]:
            if row["relation"] == "中文名" and row["value"] == old:
                row["value"] = new
            elif row["how"] == "value_only" and clean[row["span"][0]:row["span"][1]] != row["value"]:
                row.update(supported=False, how="absent", form=None, span=None)  # the edit removed the trap
        labels["facts"] = [[r, new if r == "中文名" and v == old else v] for r, v in labels["facts"]]
        labels.update(index=i, near_duplicate_of=source, senses=1)
        infobox = [(n, new if n == "中文名" and v == old else v) for n, v in original.infobox]
        return Entry(title=new, sense=original.sense, domain=original.domain, type=original.type,
                     summary=summary, infobox=infobox, sections=original.sections,
                     baidu_id=REALISTIC_ID_BASE + i, sogou_id=REALISTIC_ID_BASE + i, layout=self._layout(i),
                     labels=labels)

    def _senses(self, i: int) -> int:
        """How many entries of the corpus share entry i's title."""
        if i < N_FIXED:
            return 1
        _, _, plan, pos = self._where(i)
        group = plan.group_of.get(pos, ())
        return max(1, sum(1 for p in group if i - pos + p < self.size))

    def _sections(self, c: _Core, facts: list[_Fact]) -> list[tuple[str, list[str]]]:
        """2-5 sections restating the facts (the true values), with links; the last one names related entries."""
        rng = self._rng(_S_SECTIONS, c.index)
        headings = SECTIONS[c.type]
        low, high = {"famous": (3, 5), "mid": (2, 4), "long_tail": (2, 3)}[c.tier]
        count = min(len(headings), rng.randint(low, high))
        stated = [f for f in facts if f.rel not in ("中文名", "外文名")]
        per = max(1, math.ceil(len(stated) / count))
        fillers = list(FILLERS[FILLER_FAMILY[c.type]])
        rng.shuffle(fillers)
        subject = _pronoun(c) if c.type == "person" else SUBJECTS.get(c.type, "该地")
        sections = []
        for n, heading in enumerate(headings[:count]):
            chunk = stated[n * per:(n + 1) * per]
            linked: set[str] = set()
            sentences = []
            for fact in chunk:
                templates = next((ts for ts in (_TEMPLATES[fact.rel][1], _TEMPLATES[fact.rel][0],
                                                _TEMPLATES[fact.rel][2]) if ts), ())
                if not templates:
                    continue
                tpl = templates[0]
                lead = (c.name if not sentences else subject) if tpl.subject else ""
                values = "、".join(_markup(v, linked) for v in fact.vals)
                sentences.append(f"{lead}{tpl.before}{values}{tpl.after}。")
            if fillers:
                filler = fillers.pop()
                sentences.append(f"{'' if filler.startswith('^') else subject}{filler.lstrip('^')}。")
            count_paragraphs = min(len(sentences), rng.randint(1, 3))
            cuts = sorted(rng.sample(range(1, len(sentences)), count_paragraphs - 1))
            bounds = list(zip([0] + cuts, cuts + [len(sentences)]))
            sections.append((heading, ["".join(sentences[a:b]) for a, b in bounds]))
        related = []
        rng_related = self._rng(_S_RELATED, c.index)
        for _ in range(RELATED_LINKS * 2):
            j = int(self.size * rng_related.random())
            title = self._core(j).name
            if j != c.index and title != c.name and title not in related:
                related.append(title)
            if len(related) == RELATED_LINKS:
                break
        if related:
            links = "、".join(f"[[{t}]]" for t in related)
            sections[-1][1][-1] += f"相关词条有{links}等。"
        return sections


def _pronoun(c: _Core) -> str:
    return "她" if c.gender == "女" else "他"


def _copy_labels(labels: dict) -> dict:
    """A copy of a labels dict deep enough to edit (lists of dicts and lists)."""
    out = {}
    for key, value in labels.items():
        if isinstance(value, list):
            out[key] = [dict(x) if isinstance(x, dict) else list(x) if isinstance(x, list) else x for x in value]
        else:
            out[key] = value
    return out


# Relations a type's opening sentence can state by a Baike convention.
OPENING = {
    "person": {"出生日期", "逝世日期", "本名", "字", "别名", "籍贯", "出生地", "民族", "国籍", "所处时代", "职业"},
    "city": {"所属地区", "行政区类别", "所属国家", "别名"}, "place": {"所属地区", "行政区类别"},
    "river": {"所属国家", "别名"}, "mountain": {"所属山系", "所属山脉", "别名"}, "lake": {"所属国家", "湖泊类型", "别名"},
    "book": {"作者", "创作年代", "文学体裁", "别名"}, "film": {"导演", "制片地区", "类型"},
    "work": {"作者", "创作年代", "文学体裁"}, "company": {"简称", "企业性质"}, "university": {"简称", "类别"},
    "organisation": {"机构性质"}, "plant": {"拉丁学名", "科", "属", "别名"}, "animal": {"拉丁学名", "科", "属", "别名"},
    "species": {"拉丁学名", "科", "属", "别名"}, "compound": {"外观", "别名"}, "element": {"元素类别"},
    "event": {"所处时代", "时间"}, "treaty": {"签订时间", "性质"}, "country": {"全称"}, "dynasty": {"存在时间"},
}
_HEAD = "head"


def _trap_templates(kind: str, family: str) -> tuple[_Template, ...]:
    return _TRAPS.get((kind, family)) or _TRAPS.get((kind, "*")) or ()


def _form(val: tuple, kind: str, rng: random.Random) -> tuple[tuple, str]:
    """The value as the text gives it: verbatim, or paraphrased (another date notation, numerals ...)."""
    text = val[0]
    if kind == "date":
        full = _FULL_DATE.match(text)
        if full and rng.random() < P_DATE_NOTATION:
            y, m, d = (int(x) for x in full.groups())
            return _v(f"{y}-{m:02d}-{d:02d}" if rng.random() < 0.5 else f"{y}.{m}.{d}"), "date_notation"
        year = _YEAR.match(text)
        if year and not year.group(1) and len(year.group(2)) == 4 and rng.random() < P_NUMERAL:
            return _v("".join(_CN_DIGITS[int(ch)] for ch in year.group(2)) + "年"), "numeral"
    elif kind == "count":
        count = _COUNT.match(text)
        if count and rng.random() < P_NUMERAL:
            return _v(_cn_number(int(count.group(1))) + count.group(2)), "numeral"
    elif kind == "qty":
        qty = _QTY.match(text)
        if qty:
            roll = rng.random()
            if qty.group(4) in _UNIT_WORDS and roll < P_UNIT_WORD:
                return _v(text[:qty.start(4)] + _UNIT_WORDS[qty.group(4)]), "unit_word"
            if not qty.group(1) and roll >= 1 - P_APPROXIMATE:
                return _v("约" + text), "approximate"
    return val, "verbatim"


def _partial(val: tuple, kind: str) -> tuple | None:
    """Part of the value: the year of a full date, the city of 浙江省安平市."""
    text, title, at, n = val
    if kind == "date":
        match = _FULL_DATE.match(text) or _MONTH_DATE.match(text)
        return _v(match.group(1) + "年") if match else None
    if kind == "place" and title is not None and at > 0 and at + n == len(text):
        return _lv(title, shown=text[at:])  # the part after the province, as the page shows it
    return None


def _stale(val: tuple, kind: str, rng: random.Random) -> tuple | None:
    """An outdated or wrong version of the value (another year, another quantity)."""
    text = val[0]
    if kind == "date":
        full = _FULL_DATE.match(text)
        if full:
            return _v(f"{int(full.group(1)) + rng.choice((-3, -2, -1, 1, 2, 3))}年{full.group(2)}月{full.group(3)}日")
        year = _YEAR.match(text)
        if year:
            shift = rng.choice((-5, -3, -2, -1, 1, 2, 3, 5))
            value = (-int(year.group(2)) if year.group(1) else int(year.group(2))) + shift
            return _v(_year_text(value)) if value not in (0, -1 if year.group(1) else 0) else None
        return None
    if kind == "qty":
        qty = _QTY.match(text)
        if not qty:
            return None
        number = qty.group(2)
        decimals = len(number.split(".")[1]) if "." in number else 0
        factor = rng.choice((0.8, 0.85, 0.9, 1.1, 1.15, 1.2, 1.25))
        new = f"{float(number) * factor:.{decimals}f}"
        return None if new == number else _v(text[:qty.start(2)] + new + text[qty.end(2):])
    if kind == "count":
        count = _COUNT.match(text)
        if count:
            n = int(count.group(1))
            return _v(f"{n + max(1, n // 10) * rng.choice((-1, 1))}{count.group(2)}") if n > 2 else None
    return None


def _find(text: str, value: str) -> tuple[int, int] | None:
    """The first mention of value in text that is not part of a longer number or Latin word."""
    if not value:
        return None
    start = text.find(value)
    while start != -1:
        end = start + len(value)
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        inside_number = (value[0].isdigit() and (before.isdigit() or before == ".")) or \
            (value[-1].isdigit() and (after.isdigit() or (after == "." and text[end + 1:end + 2].isdigit())))
        inside_word = (value[0].isascii() and value[0].isalnum() and before.isascii() and before.isalnum()) or \
            (value[-1].isascii() and value[-1].isalnum() and after.isascii() and after.isalnum())
        if not inside_number and not inside_word:
            return start, end
        start = text.find(value, start + 1)
    return None


def _size(clauses: list[_Clause], subject: str) -> int:
    """Length of a sentence: subject, clauses, the commas between them and the final 。."""
    return len(subject) + sum(c.size + (0 if k == 0 or c.glue else 1) for k, c in enumerate(clauses)) + 1


def _clause(*parts, subject: bool = False) -> _Clause:
    """A clause from plain strings and lists of mentions (a list is joined with 、)."""
    pieces: list = []
    for part in parts:
        if isinstance(part, str):
            if part:
                pieces.append(part)
            continue
        for n, mention in enumerate(part or ()):
            if n:
                pieces.append("、")
            pieces.append(mention)
    text = "".join(p if isinstance(p, str) else p[0][0] for p in pieces)
    return _Clause(pieces, subject, len(text), text)


class _Page:
    """One entry while its summary is written: the infobox plan, the mentions and what they support."""

    __slots__ = ("corpus", "c", "rng", "facts", "rows", "row_rel", "by_rel", "marks", "spans", "extras", "enums",
                 "ren", "family", "used", "n_extra", "extra_wish", "reserve", "named_marks", "filler_spans")

    def __init__(self, corpus: RealisticCorpus, c: _Core, facts: list[_Fact]):
        self.corpus, self.c, self.facts = corpus, c, facts
        self.rng = corpus._rng(_S_ENTRY, c.index)
        self.rows: list[_Row] = []
        self.row_rel: dict[str, _Row] = {}
        self.by_rel = {f.rel: f for f in facts}
        self.marks: list = []            # mark -> the _Item, _Extra or _HEAD it mentions
        self.spans: list = []
        self.extras: list[_Extra] = []
        self.enums: list[_Enum] = []
        self.ren: list[int] = []         # marks of 「A人」 mentions (籍贯 and 出生地 both)
        self.family = FAMILY[c.type]
        self.used: set[str] = set()      # relations the text has dealt with
        self.n_extra = 0
        self.extra_wish: dict[str, bool] = {}
        self.reserve: list[_Clause] = []  # rows left out, stated only if the summary is too short for its tier

    def mark(self, target) -> int:
        self.marks.append(target)
        return len(self.marks) - 1

    # -- the infobox --------------------------------------------------------------------------------

    def plan_rows(self) -> None:
        rng, c = self.rng, self.c
        low, high = INFOBOX_ROWS[c.tier]
        wanted = rng.randint(low, high)
        others = self.facts[1:]
        head = self.facts[0] if len(others) < low or rng.random() >= P_SUBJECTLESS_HEAD else None
        # Infoboxes keep a type's usual order, but which rows a page has varies.
        ranked = sorted(range(len(others)), key=lambda k: k + rng.random() * 6)
        chosen = sorted(ranked[:wanted - (1 if head else 0)])
        for fact in ([head] if head else []) + [others[k] for k in chosen]:
            shown = fact.rel
            if fact.rel in ALIASES and rng.random() < P_RELATION_ALIAS:
                shown = rng.choice(ALIASES[fact.rel])
            vals = list(fact.vals)
            fate, how = "absent", None
            if fact.rel == "中文名":
                fate = "head"
            elif fact.enum:
                if rng.random() >= P_ENUM_INFOBOX_ALL:
                    vals = vals[:rng.randint(2, len(vals) - 1)]
                if rng.random() < P_ENUM_STATED:
                    fate, how = "stated", self.how(fact.rel, body_only=True)
            elif len(vals) > 1:
                if rng.random() < P_ROW_STATED:
                    fate, how = "stated", self.how(fact.rel)
            else:
                roll = rng.random()
                traps = _trap_templates(fact.kind, self.family)
                stale = _stale(vals[0], fact.kind, rng) if fact.kind in ("date", "qty", "count") else None
                if traps and roll < P_ROW_VALUE_ONLY:
                    fate = "value_only"
                elif stale and roll < P_ROW_VALUE_ONLY + P_ROW_CONTRADICTED:
                    fate, vals = "contradicted", [stale]
                elif rng.random() < P_ROW_STATED:
                    fate, how = "stated", self.how(fact.rel)
                    if _partial(vals[0], fact.kind) and rng.random() < P_ROW_PARTIAL:
                        fate, how = "partial", None
            if fate == "stated" and how is None:
                fate = "absent"
            true_value = None
            # Its own stream: planting false values leaves every other choice of the page as it was.
            wrong = self.corpus._rng(_S_FALSE, c.index, len(self.rows))
            if fate == "stated" and len(vals) == 1 and fact.kind in ("date", "qty", "count") \
                    and wrong.random() < P_ROW_FALSE:
                false = _stale(vals[0], fact.kind, wrong)
                if false is not None:
                    true_value, vals = vals[0][0], [false]
            row = _Row(shown, fact, vals, [_Item(shown, fact.rel, v[0], fate, how, true_value=true_value)
                                           for v in vals])
            self.rows.append(row)
            self.row_rel[fact.rel] = row

    def how(self, rel: str, body_only: bool = False) -> str | None:
        """How the text states a relation: the opening's convention, or a body phrasing (name/cue/pattern)."""
        opening = not body_only and rel in OPENING[self.c.type]
        if opening and self.rng.random() < P_PATTERN:
            return "opening"
        options = [(h, HOW_WEIGHTS[h]) for h, ts in zip(HOWS, _TEMPLATES.get(rel, ((), (), ()))) if ts]
        if not options:
            return "opening" if opening else None
        return _weighted(self.rng, options)

    # -- the opening sentence ----------------------------------------------------------------------

    def can(self, rel: str) -> bool:
        row = self.row_rel.get(rel)
        if row is not None:
            return rel not in self.used and row.items[0].fate == "stated" and row.items[0].how == "opening"
        if rel not in self.by_rel or rel in self.used or self.n_extra >= MAX_EXTRA[self.c.tier]:
            return False
        if rel not in self.extra_wish:
            self.extra_wish[rel] = self.rng.random() < P_OPENING_EXTRA
        return self.extra_wish[rel]

    def take(self, rel: str, how: str = "pattern", checked: bool = False) -> list | None:
        """Mentions of a relation's values for the opening, or None when the opening should not state it.

        checked: the caller has already asked can() for this relation (and for its partners).
        """
        if not (checked or self.can(rel)):
            return None
        self.used.add(rel)
        row = self.row_rel.get(rel)
        if row is not None:
            out = []
            for item, val in zip(row.items, row.vals):
                item.how, item.form, item.mark = how, "verbatim", self.mark(item)
                out.append((val, item.mark))
            return out
        self.n_extra += 1
        out = []
        for val in self.by_rel[rel].vals:
            extra = _Extra(rel, val[0], -1, False)
            extra.mark = self.mark(extra)
            self.extras.append(extra)
            out.append((val, extra.mark))
        return out

    def opening(self) -> list[_Clause]:
        c = self.c
        row = self.row_rel.get("中文名")
        mark = self.mark(row.items[0] if row else _HEAD)
        if row:
            row.items[0].mark = mark
        head = [(_v(c.name), mark)]
        first = ["《", head, "》"] if c.type in ("book", "film", "work") else [head]
        clauses = getattr(self, f"_open_{c.type}")(first)
        if len(clauses) > 1 and clauses[1].text.startswith(("是", "发生于")):
            clauses[1].glue = True  # 「X是…」 takes no comma after the name
        return clauses

    def _open_person(self, first: list) -> list[_Clause]:
        c, rng = self.c, self.rng
        parts = list(first)
        extras_needed = sum(1 for rel in ("出生日期", "逝世日期") if rel not in self.row_rel)
        if self.can("出生日期") and self.can("逝世日期") and \
                self.n_extra + extras_needed <= MAX_EXTRA[c.tier]:
            parts += ["（", self.take("出生日期", checked=True), "—", self.take("逝世日期", checked=True), "）"]
        clauses = [_clause(*parts)]
        for rel, word in (("本名", rng.choice(("原名", "本名"))), ("字", "字"), ("别名", "号" if c.era else "又名")):
            got = self.take(rel)
            if got:
                clauses.append(_clause(word, got))
        native = self.take("籍贯") or self.take("出生地")
        if native:
            self.ren.append(native[0][1])
            clauses.append(_clause(native, "人"))
        ethnic = self.take("民族")
        if ethnic:
            clauses.append(_clause(ethnic))
        where = self.take("所处时代") if c.era else self.take("国籍")
        jobs = self.take("职业")
        modern = "" if c.era else ("近代" if c.born < 1900 else "现代")
        if jobs:
            fame = "著名" if c.tier == "famous" and rng.random() < 0.5 else ""
            clauses.append(_clause(where or [], modern if where else "", fame, jobs))
        elif where:
            clauses.append(_clause(where, modern, "人物"))
        elif rng.random() < 0.5:
            clauses.append(_clause(c.gender))
        return clauses

    def _open_city(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("古称", alias))
        country, region, kind = self.take("所属国家"), self.take("所属地区"), self.take("行政区类别")
        if region:
            clauses.append(_clause("是", country or [], region, "下辖的", kind or "城市"))
        elif country or kind:
            clauses.append(_clause("是", country or [], "的一座" if country else "一座", kind or "城市"))
        return clauses

    def _open_place(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        region, kind = self.take("所属地区"), self.take("行政区类别")
        if region:
            clauses.append(_clause("是", region, "下辖的", kind or "乡镇"))
        elif kind:
            clauses.append(_clause("是一个", kind))
        return clauses

    def _open_river(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("又称", alias))
        country = self.take("所属国家")
        clauses.append(_clause("是", country, "境内的一条河流") if country else _clause("是一条河流"))
        return clauses

    def _open_mountain(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("又称", alias))
        chain = self.take("所属山系") or self.take("所属山脉")
        if chain:
            clauses.append(_clause("是", chain, "的主要山峰之一"))
        return clauses

    def _open_lake(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("又称", alias))
        country, kind = self.take("所属国家"), self.take("湖泊类型")
        if country:
            clauses.append(_clause("是", country, "的一个", kind or "湖泊"))
        elif kind:
            clauses.append(_clause("是一个", kind))
        return clauses

    def _open_book(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("又名《", alias, "》"))
        era, author, genre = self.take("创作年代"), self.take("作者", "cue"), self.take("文学体裁")
        if author:
            clauses.append(_clause("是", era or [], author, "创作的", genre or "作品"))
        elif genre or era:
            clauses.append(_clause("是一部", era or [], genre or "作品"))
        return clauses

    def _open_film(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        director, region, genre = self.take("导演", "cue"), self.take("制片地区"), self.take("类型")
        kind = "电视剧" if self.c.kind == "tv" else "电影"
        if director:
            clauses.append(_clause("是由", director, "执导的", region or [], genre or [], kind))
        elif region or genre:
            clauses.append(_clause("是一部", region or [], genre or [], kind))
        return clauses

    def _open_work(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        ci = self.c.kind == "词"
        era, author, form = self.take("创作年代"), self.take("作者", "cue"), self.take("文学体裁")
        if author:
            clauses.append(_clause("是", era or [], "词人" if ci else "诗人", author,
                                   *(["创作的一首", form] if form else ["创作的作品"])))
        elif form:
            clauses.append(_clause("是一首", era or [], form))
        return clauses

    def _open_company(self, first: list) -> list[_Clause]:
        short = self.take("简称")
        clauses = [_clause(*first, *(["（简称", short, "）"] if short else []))]
        nature = self.take("企业性质")
        clauses.append(_clause("是一家", nature) if nature else
                       _clause("是一家", INDUSTRIES[int(self.c.kind)][0], "企业"))
        return clauses

    def _open_university(self, first: list) -> list[_Clause]:
        short = self.take("简称")
        clauses = [_clause(*first, *(["（简称", short, "）"] if short else []))]
        category = self.take("类别")
        clauses.append(_clause("是一所", category or [], "高等院校"))
        return clauses

    def _open_organisation(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        nature = self.take("机构性质")
        if nature:
            clauses.append(_clause("是一家", nature))
        return clauses

    def _open_plant(self, first: list) -> list[_Clause]:
        latin = self.take("拉丁学名")
        clauses = [_clause(*first, *(["（学名：", latin, "）"] if latin else []))]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("又名", alias))
        family, genus = self.take("科"), self.take("属")
        word = {"plant": "植物", "animal": "动物", "species": "昆虫"}[self.c.type]
        if family or genus:
            clauses.append(_clause("是", family or [], genus or [], "的", word))
        return clauses

    _open_animal = _open_plant
    _open_species = _open_plant

    def _open_compound(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("又称", alias))
        look = self.take("外观")
        clauses.append(_clause("是一种", look) if look else _clause("是一种有机化合物"))
        return clauses

    def _open_element(self, first: list) -> list[_Clause]:
        category = self.take("元素类别")
        return [_clause(*first), _clause("是一种", category) if category else _clause("是一种化学元素")]

    def _open_event(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        time = self.take("时间", "cue")
        if time:
            clauses.append(_clause("发生于", time))
        era = self.take("所处时代")
        kind = EVENT_KINDS[int(self.c.kind)][1]
        clauses.append(_clause("是", era or [], "时期的一次" if era else "一次", kind))
        return clauses

    def _open_treaty(self, first: list) -> list[_Clause]:
        time, nature = self.take("签订时间", "cue"), self.take("性质")
        when = [time, "签订的"] if time else []
        return [_clause(*first), _clause("是", *when, "一项", nature or "条约")]

    def _open_country(self, first: list) -> list[_Clause]:
        full = self.take("全称")
        head = _clause(*first, *(["（", full, "）"] if full else []))
        return [head, _clause("是位于", COUNTRIES[self.c.index][2], "的国家")]

    def _open_dynasty(self, first: list) -> list[_Clause]:
        span = self.take("存在时间")
        head = _clause(*first, *(["（", span, "）"] if span else []))
        return [head, _clause("是中国历史上的一个", "时期" if self.c.name.endswith("时期") else "朝代")]

    # -- the body -------------------------------------------------------------------------------------

    def _phrase(self, rel: str, how: str, mentions: list, enum: bool = False) -> _Clause:
        tpl = self.rng.choice(_TEMPLATES[rel][HOWS.index(how)])
        pieces: list = [tpl.before] if tpl.before else []
        closing_deng = tpl.after.startswith("等")
        with_he = enum and not closing_deng and self.rng.random() < 0.5
        for n, mention in enumerate(mentions):
            if n:
                pieces.append("和" if with_he and n == len(mentions) - 1 else "、")
            pieces.append(mention)
        if enum and not closing_deng and not with_he and len(mentions) >= 3:
            pieces.append("等")
        if tpl.after:
            pieces.append(tpl.after)
        text = "".join(p if isinstance(p, str) else p[0][0] for p in pieces)
        return _Clause(pieces, tpl.subject, len(text), text)

    def _enumeration(self, fact: _Fact, row: _Row | None, how: str) -> _Clause:
        """The full list in the text (代表作有《A》、《B》、《C》和《D》等); the infobox may hold only some items."""
        items = {item.value: item for item in row.items} if row else {}
        mentions, flags = [], []
        for val in fact.vals:
            item = items.get(val[0])
            if item is not None:
                item.how, item.form, item.mark = how, "verbatim", self.mark(item)
                mark = item.mark
            else:
                extra = _Extra(fact.rel, val[0], -1, False)
                mark = extra.mark = self.mark(extra)
                self.extras.append(extra)
            mentions.append((val, mark))
            flags.append(item is not None)
        self.enums.append(_Enum(fact.rel, [v[0] for v in fact.vals], [m for _, m in mentions], flags))
        return self._phrase(fact.rel, how, mentions, enum=True)

    def body(self) -> list[_Clause]:
        rng = self.rng
        clauses: list[_Clause] = []
        for row in self.rows:
            rel, kind = row.fact.rel, row.fact.kind
            if rel == "中文名" or rel in self.used:
                continue
            first = row.items[0]
            if first.fate in ("stated", "partial", "contradicted"):
                how = first.how if first.how in HOWS else self.how(rel, body_only=True)
                if how is None:
                    continue
                if first.fate == "stated" and row.fact.enum:
                    clauses.append(self._enumeration(row.fact, row, how))
                elif first.fate == "stated":
                    mentions = []
                    for item, val in zip(row.items, row.vals):
                        shown, form = _form(val, kind, rng) if len(row.items) == 1 else (val, "verbatim")
                        item.how, item.form, item.mark = how, form, self.mark(item)
                        mentions.append((shown, item.mark))
                    clauses.append(self._phrase(rel, how, mentions))
                else:
                    true = row.fact.vals[0] if first.fate == "contradicted" else _partial(row.vals[0], kind)
                    first.mark = self.mark(first)
                    clauses.append(self._phrase(rel, how, [(true, first.mark)]))
            elif first.fate == "absent" and not row.fact.enum:
                how = self.how(rel, body_only=True)
                if how is not None:
                    mentions = []
                    for item, val in zip(row.items, row.vals):
                        item.fate, item.how, item.form, item.mark = "reserve", how, "verbatim", self.mark(item)
                        mentions.append((val, item.mark))
                    self.reserve.append(self._phrase(rel, how, mentions))
                continue
            elif first.fate == "value_only":
                tpl = rng.choice(_trap_templates(kind, self.family))
                first.mark = self.mark(first)
                text = tpl.before + row.vals[0][0] + tpl.after
                clauses.append(_Clause([p for p in (tpl.before, (row.vals[0], first.mark), tpl.after) if p],
                                       tpl.subject, len(text), text))
            else:
                continue
            self.used.add(rel)
        trailing: list[_Clause] = []
        for fact in self.facts[1:]:
            if self.n_extra >= MAX_EXTRA[self.c.tier]:
                break
            if fact.rel in self.used or fact.rel in self.row_rel or rng.random() >= P_EXTRA:
                continue
            how = self.how(fact.rel, body_only=True)
            if how is None:
                continue
            self.used.add(fact.rel)
            self.n_extra += 1
            if fact.enum:
                clause = self._enumeration(fact, None, how)
            else:
                mentions = []
                for val in fact.vals:
                    extra = _Extra(fact.rel, val[0], -1, False)
                    extra.mark = self.mark(extra)
                    self.extras.append(extra)
                    mentions.append((val, extra.mark))
                clause = self._phrase(fact.rel, how, mentions)
            if rng.random() < P_EXTRA_TRAILING:
                trailing.append(clause)
            else:
                clauses.insert(rng.randint(0, len(clauses)), clause)
        return clauses + trailing

    # -- length and assembly --------------------------------------------------------------------------

    def subject(self) -> str:
        c = self.c
        if self.rng.random() < 0.3:
            return f"《{c.name}》" if c.type in ("book", "film", "work") else c.name
        if c.type == "person":
            return _pronoun(c)
        if c.type == "place":
            return "该" + (c.kind or "镇")
        if c.type == "film" and c.kind == "tv":
            return "该剧"
        if c.type == "dynasty" and c.name.endswith("时期"):
            return SUBJECTS["period"]
        return SUBJECTS[c.type]

    def filler(self, template: str) -> _Clause | None:
        """A filler clause; {type} slots become links to other entries (None when the corpus has none)."""
        pieces: list = []
        text = template.lstrip("^")
        at = 0
        for match in _LINK_SLOT.finditer(text):
            j = self.corpus._pick(match.group(1), self.rng, exclude=self.c.index)
            if j < 0 or self.corpus._core(j).name == self.c.name:
                return None
            if match.start() > at:
                pieces.append(text[at:match.start()])
            quoted = self.corpus._core(j).type in ("book", "film", "work")
            pieces.append((self.corpus._ref(j, "《", "》") if quoted else self.corpus._ref(j), None))
            at = match.end()
        if at < len(text):
            pieces.append(text[at:])
        plain = "".join(p if isinstance(p, str) else p[0][0] for p in pieces)
        return _Clause(pieces, False, len(plain), plain, filler=True, names=FILLER_RELATIONS.get(template, ()))

    def fit(self, opening: list[_Clause], body: list[_Clause]) -> list[_Unit]:
        """Sentences whose total length falls in the tier's range: facts that do not fit are left out."""
        rng = self.rng
        low, high = SUMMARY_CHARS[self.c.tier]
        # Lengths within a tier cluster at the short end, with a tail of long summaries.
        target = low + int((high - low) * rng.random() ** 2)
        while len(opening) > 1 and _size(opening, "") > high - 2:
            opening.pop()  # its facts stay in the infobox only
        head = _Unit(opening, "", _size(opening, ""))
        units, at = [], 0
        while at < len(body):
            group = body[at:at + rng.choice((1, 1, 2, 2, 3))]
            at += len(group)
            subject = self.subject() if group[0].subject and rng.random() < P_SUBJECT else ""
            units.append(_Unit(group, subject, _size(group, subject)))
        length = head.size
        kept = [False] * len(units)
        for k, unit in enumerate(units):
            if length + unit.size <= target:
                kept[k], length = True, length + unit.size
        for k, unit in enumerate(units):
            if not kept[k] and length < low and length + unit.size <= high:
                kept[k], length = True, length + unit.size
        out = [u for k, u in enumerate(units) if kept[k]]
        family = FILLER_FAMILY[self.c.type]
        fillers = list(FILLERS[family]) + list(LINK_FILLERS[family])
        rng.shuffle(fillers)
        while length < target and fillers:
            # one to three filler clauses make a sentence: 该河水量丰沛，两岸风景秀丽。
            clauses: list[_Clause] = []
            subject = ""
            for _ in range(rng.choice((1, 2, 2, 3))):
                room = high - length - _size(clauses, subject) - (1 if clauses else 0)
                pick = next((f for f in fillers if len(_LINK_SLOT.sub("某某某", f.lstrip("^"))) + 1 <= room), None)
                if pick is None:
                    break
                fillers.remove(pick)
                clause = self.filler(pick)
                if clause is None or clause.size + (1 if clauses else 1) > room:
                    continue
                if not clauses and not pick.startswith("^") and rng.random() < P_SUBJECT:
                    subject = self.subject()
                    if _size([clause], subject) > high - length:
                        subject = ""
                clauses.append(clause)
            if not clauses:
                break
            unit = _Unit(clauses, subject, _size(clauses, subject))
            out.insert(rng.randint(0, len(out)), unit)
            length += unit.size
        for clause in self.reserve:
            # a famous entry whose fillers ran out states more of its rows
            if length >= low:
                break
            unit = _Unit([clause], "", _size([clause], ""))
            if length + unit.size <= high:
                out.insert(rng.randint(0, len(out)), unit)
                length += unit.size
        if out and rng.random() < P_MERGE and length - len(out[0].subject) >= low:
            head.join_next = True
            length -= len(out[0].subject)
            out[0].size -= len(out[0].subject)
            out[0].subject = ""
        return [head] + out

    def assemble(self, units: list[_Unit]) -> tuple[str, str, list[str]]:
        """The summary string (with link markup and noise) and the clean text its spans refer to."""
        rng = self.rng
        raw: list[str] = []
        clean: list[str] = []
        noise: list[str] = []
        self.spans = [None] * len(self.marks)
        self.named_marks: dict[int, bool] = {}
        self.filler_spans: list[list[int]] = []
        linked: set[str] = set()
        pos = 0
        for unit in units:
            if unit.subject:
                raw.append(unit.subject)
                clean.append(unit.subject)
                pos += len(unit.subject)
            for k, clause in enumerate(unit.clauses):
                if k and not clause.glue:
                    raw.append("，")
                    clean.append("，")
                    pos += 1
                frame = "".join(p for p in clause.pieces if isinstance(p, str))
                clause_start = pos
                for piece in clause.pieces:
                    if isinstance(piece, str):
                        raw.append(piece)
                        clean.append(piece)
                        pos += len(piece)
                        continue
                    val, mark = piece
                    raw.append(_markup(val, linked))
                    clean.append(val[0])
                    pos += len(val[0])
                    if mark is None:
                        continue  # a filler's link: no fact of this entry
                    self.spans[mark] = (pos - len(val[0]), pos)
                    target = self.marks[mark]
                    if isinstance(target, (_Extra, _Item)):
                        # named: the clause words (not the values) name the relation or an alias of it
                        named = any(name in frame for name in _NAMES.get(target.rel, (target.rel,)))
                        if isinstance(target, _Extra):
                            target.named = named
                        else:
                            self.named_marks[mark] = named
                if clause.filler:
                    self.filler_spans.append({"span": [clause_start, pos], "names": list(clause.names)})
            end = "，" if unit.join_next else "。"
            raw.append(end)
            clean.append(end)
            pos += 1
            if end == "。" and rng.random() < P_CITATION:
                first = rng.randint(1, 12)
                cite = f"[{first}]" if rng.random() < 0.8 else f"[{first}-{first + rng.randint(1, 3)}]"
                raw.append(cite)
                noise.append(cite)
        if rng.random() < P_STRAY_SPACE:
            for _ in range(rng.randint(1, 2)):
                space = rng.choice((" ", "\u3000"))
                raw.insert(rng.randint(1, len(raw) - 1), space)
                noise.append(space)
        return "".join(raw), "".join(clean), noise

    # -- labels ---------------------------------------------------------------------------------------

    def labels(self, clean: str, noise: list[str]) -> dict:
        spans = self.spans
        ren = [spans[m] for m in self.ren if spans[m]]
        rows = []
        for row in self.rows:
            for item in row.items:
                span = spans[item.mark] if item.mark >= 0 else None
                # named: the clause of the mention names the relation (what the trailing-relation rule reads)
                label = {"relation": item.relation, "value": item.value, "supported": False, "how": "absent",
                         "form": None, "span": None, "named": bool(span) and self.named_marks.get(item.mark, False),
                         # a planted false value: the page states it, other sites give true_value
                         "false": item.true_value is not None, "true_value": item.true_value}
                if span and item.fate in ("head", "stated", "reserve"):
                    label.update(supported=True, how="pattern" if item.fate == "head" else item.how,
                                 form=item.form or "verbatim", span=list(span))
                elif span and item.fate in ("value_only", "contradicted", "partial"):
                    label.update(how=item.fate, span=list(span))
                else:
                    # 「浙江安平人」 states 籍贯 and 出生地 alike when the two rows hold the same value
                    co = next((s for s in ren if item.rel in ("籍贯", "出生地") and clean[s[0]:s[1]] == item.value), None)
                    found = co or _find(clean, item.value)
                    if co:
                        label.update(supported=True, how="pattern", form="verbatim", span=list(co))
                    elif found:
                        label.update(how="value_only", span=list(found))
                rows.append(label)
        supported_ends = [r["span"][1] for r in rows if r["supported"]]
        last = max(supported_ends) if supported_ends else None
        extras = sorted((e for e in self.extras if spans[e.mark]), key=lambda e: spans[e.mark])
        trailing: list[str] = []
        for extra in extras:
            if extra.named and (last is None or spans[extra.mark][0] >= last) and extra.rel not in trailing:
                trailing.append(extra.rel)
        enums = []
        for enum in self.enums:
            if all(spans[m] for m in enum.marks):
                enums.append({"relation": enum.rel, "items": list(enum.items),
                              "span": [spans[enum.marks[0]][0], spans[enum.marks[-1]][1]],
                              "in_infobox": list(enum.in_infobox)})
        return {
            "profile": "realistic", "seed": self.corpus.seed, "index": self.c.index, "tier": self.c.tier,
            "clean_summary": clean, "noise": noise, "rows": rows,
            "extra_facts": [{"relation": e.rel, "value": e.value, "span": list(spans[e.mark]), "named": e.named}
                            for e in extras],
            "enumerations": enums, "last_supported_end": last, "trailing_named_relations": trailing,
            # sentences that state no fact of the entry (「与某某、某某交往甚密」), their lists no row gives, and
            # the relations a few of them speak of by name (「性质较为稳定」)
            "fillers": self.filler_spans,
            "facts": [[f.rel, v[0]] for f in self.facts for v in f.vals],
            "senses": self.corpus._senses(self.c.index), "near_duplicate_of": None,
        }
