"""The level of a place: an administrative region (country, province, city, county, township, village) or a site
that is no region (a scenic spot, a building, a river, a mountain), so that a place option is of its gold's level.

Ten options of one kind (CDTP Appendix C.2) means, for places, one level: 「（白福市，著名景点，？）」 takes temples,
towers and lakes, never 中国 or 北仁县; a 出生地 at the city level takes cities, never a province. The level is
read from the value's form (its last unit: 江西省潭关市 is a city, 凤坪古镇 a site, 北仁县 a county), the names
of the provinces (浙江 without its 省 is one) and, where its own page says so, the page's type (a country).
A value whose form says nothing (南鹿, a person's name) has no level and is judged by its type alone.
"""

from __future__ import annotations

import re

from filters.normalize import normalize, value_cache

LEVELS = ("country", "province", "city", "county", "township", "village", "site", "group")  # group: of countries

# Province-level divisions of China by their short names (the bare form of 浙江省, 广西壮族自治区 …).
PROVINCES = frozenset("""北京 天津 上海 重庆 河北 山西 辽宁 吉林 黑龙江 江苏 浙江 安徽 福建 江西 山东 河南 湖北 湖南 广东 海南
四川 贵州 云南 陕西 甘肃 青海 台湾 内蒙古 广西 西藏 宁夏 新疆 香港 澳门""".split())
# Countries whose usual Chinese name does not end in 国.
COUNTRIES = frozenset("""日本 印度 意大利 埃及 俄罗斯 巴西 加拿大 澳大利亚 西班牙 葡萄牙 荷兰 比利时 瑞士 瑞典 挪威 芬兰 丹麦
波兰 希腊 土耳其 伊朗 伊拉克 以色列 沙特阿拉伯 越南 老挝 柬埔寨 新加坡 马来西亚 印度尼西亚 菲律宾 蒙古 朝鲜 巴基斯坦 阿富汗
墨西哥 阿根廷 智利 秘鲁 古巴 南非 尼日利亚 埃塞俄比亚 肯尼亚 新西兰 奥地利 匈牙利 捷克 乌克兰 爱尔兰""".split())

# The last unit of a value and the level it names, longest first (古镇 is a site, not a township).
_SITE = ("风景名胜区", "风景区", "景区", "遗址", "遗迹", "旧址", "故居", "古镇", "古城", "古村", "古街", "古道", "公园",
         "石窟", "石刻", "碑林", "天池", "博物馆", "纪念馆", "云海", "草原", "森林", "峡谷", "湿地", "牌坊", "码头",
         "广场", "大桥", "寺", "庙", "宫", "观", "祠", "塔", "楼", "阁", "亭", "桥", "园", "陵", "墓", "洞", "湖", "山",
         "峰", "岭", "江", "河", "溪", "泉", "谷", "岛", "湾", "瀑布", "长城", "城墙", "书院", "水库")
_REGION = (("特别行政区", "province"), ("自治区", "province"), ("省", "province"), ("自治州", "city"), ("地区", "city"),
           ("盟", "city"), ("市", "city"), ("自治县", "county"), ("县", "county"), ("旗", "county"), ("区", "county"),
           ("乡", "township"), ("镇", "township"), ("街道", "township"), ("村", "village"))
_LATIN = re.compile(r"[A-Za-z0-9]")
# A place name's parts, each up to its administrative unit (美国|弗吉尼亚州|盖特城, 湖北省|白福市).
REGION_PARTS = re.compile(r".+?(?:特别行政区|自治区|自治州|自治县|省|州|市|县|区|国|城|镇|乡|村)")
# Names ending in 国 that name no one country: kingdoms and empires of history (their pages say what they are), and
# groups of countries (协约国, 同盟国, 轴心国: an alliance is no option beside countries).
_NOT_COUNTRIES = ("王国", "帝国")
_GROUPS = ("约国", "盟国", "心国", "诸国", "列国", "各国")


@value_cache
def place_level(value: str) -> str:
    """The level a place's form names (see the module docstring), or "" when its form says nothing."""
    text = normalize(value).strip("《》")
    if len(text) < 2 or _LATIN.search(text):
        return ""
    if text in PROVINCES:
        return "province"
    if text.endswith(_GROUPS):
        return "group"
    if text in COUNTRIES or (text.endswith("国") and not text.endswith(_NOT_COUNTRIES) and len(text) <= 6):
        return "country"
    for suffix in _SITE:
        if text.endswith(suffix) and len(text) > len(suffix):
            return "site"
    for suffix, level in _REGION:
        if text.endswith(suffix) and len(text) > len(suffix):
            return level
    return ""


def last_region(value: str) -> str:
    """The place a name of several regions names, its last part (滕州市 of 山东省枣庄市滕州市 and of 山东省滕州市: one
    city, written with more or fewer of the regions that hold it), or "" for a name of one part."""
    text = normalize(value).strip()
    if not place_level(text):
        return ""
    parts = REGION_PARTS.findall(text)
    for n in range(len(parts), 0, -1):
        rest = text[len("".join(parts[:n])):]
        if len(rest) >= 2 and place_level(rest):
            return rest
    return ""


_UNIT_END = re.compile(r"(?:省|市|区|县)$")
# Countries and provinces whose usual name has no unit, longest first (内蒙古 before 蒙古): 湖北白福, 南非约翰内斯堡.
BARE_REGIONS = tuple(sorted(PROVINCES | COUNTRIES, key=len, reverse=True))
_BARE_COUNTRIES = tuple(name for name in BARE_REGIONS if name in COUNTRIES)


def region_parts(place: str) -> list[str]:
    """A place's name cut into its parts, each up to its unit, and what follows the last (美国|弗吉尼亚州|盖特城,
    湖北省|白福市); [] where no part ends with a unit."""
    parts = REGION_PARTS.findall(place)
    rest = place[len("".join(parts)):]
    return [*parts, rest] if rest and parts else parts


def place_key(value: str) -> str:
    """A place's name with the units of its parts left out (美国纽约布鲁克林 for 美国纽约市布鲁克林区 and for 美国纽约布鲁克林):
    two values of one key, or one whose key begins the other's, may name one place; "" for what is no place."""
    text = normalize(value).strip()
    if not (place_level(text) or REGION_PARTS.match(text) or text.startswith(BARE_REGIONS)):
        return ""
    return "".join(_UNIT_END.sub("", part) or part for part in region_parts(text)) or text


def may_be_same_place(a: str, b: str) -> bool:
    """Whether two place values may name one place, or one holds the other (place_key)."""
    ka, kb = place_key(a), place_key(b)
    return bool(ka and kb) and (ka.startswith(kb) or kb.startswith(ka))


def country_of(place: str) -> str:
    """The country a place's name begins with (波兰 of 波兰华沙, 美国 of 美国纽约市布鲁克林区), or ""."""
    text = normalize(place).strip()
    found = next((name for name in _BARE_COUNTRIES if text.startswith(name)), "")
    if not found:
        first = REGION_PARTS.match(text)
        found = first.group(0) if first and place_level(first.group(0)) == "country" else ""
    return found


def born_abroad(triples) -> bool:
    """Whether the triples' 出生地 names a country that is none of their 国籍 (居里夫人: 波兰华沙, and 法国): 「…是哪个
    国家的人？」 has two right answers then, the country of birth and the one of citizenship."""
    born = {country_of(t.tail) for t in triples if t.relation == "出生地"} - {""}
    nationality = {normalize(t.tail).strip() for t in triples if t.relation == "国籍"}
    return bool(born and nationality and not born & nationality)
