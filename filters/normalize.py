"""Text normalisation for matching triples against text.

Both the text and each value go through the same steps, and every offset
(mention ends, position index) is counted in the normalised text:

* NFKC (full-width letters and digits to half-width), traditional to simplified
  (OpenCC ``t2s``), Latin letters lower-cased, whitespace removed;
* dates in one form: 1881-09-25, 1881/9/25 and 1881.09.25 become 1881年9月25日, and so
  does 1881年09月25日; unit words of one meaning in one form (公里 is 千米, 公斤 is 千克);
* thousands separators dropped between digit groups: 1,545 becomes 1545.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_SPACE = re.compile(r"\s+")
_DATE = re.compile(r"(?<!\d)(\d{3,4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
# Unit words with one meaning and one length (offsets do not move): 6300公里 is 6300千米.
UNIT_WORDS = {"公里": "千米", "公斤": "千克"}
_UNIT_WORDS = re.compile("|".join(UNIT_WORDS))
_PADDED = re.compile(r"(?<=\d年)0(?=\d月)|(?<=\d月)0(?=\d日)")  # 1959年08月14日 is 1959年8月14日
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
# A year written digit by digit in characters (一八四三年, 二〇一三年) is that year in digits: same length.
_YEAR_IN_CHARACTERS = re.compile(r"(?<![〇零一二三四五六七八九十百千万])([〇零一二三四五六七八九]{4})年")
_CHARACTER_DIGITS = str.maketrans("〇零一二三四五六七八九", "00123456789")


@lru_cache(maxsize=1)
def _t2s():
    import opencc

    return opencc.OpenCC("t2s")


def normalize(text: str) -> str:
    """NFKC, traditional to simplified, no whitespace, lower case, 1881-09-25 as 1881年9月25日, no
    thousands separators."""
    return _normalize_short(text) if len(text) <= _SHORT else _normalize(text)


def normalize_once(text: str) -> str:
    """normalize() for a text that will not come again (a whole document): not cached, so a
    stream of them does not fill the cache that repeated values use."""
    return _normalize(text)


_SHORT = 64

# How many results each per-value cache keeps (these, builders.formats.value_format, builders.criteria_words'
# word splits, filters.grounding's and filters.dedup.field_key): the values met lately, not the crawl's.
# A value repeats within a pair, an item and its options, and the common ones (中国, 男) stay recent; a
# pass over every value of a crawl only fills a cache with entries no later step asks for, each about
# 250 bytes besides its key and result, kept by the run's process from then on. At 65,536 entries (most did),
# the value typing of an 84k-page crawl filled them, where a 10k-page crawl's did not: that crawl's item
# build alone peaked at 802-831 MB in four runs, and at 743 MB with 4,096 entries, with the same items.
CACHE_ENTRIES = 1 << 12
_VALUE_CACHES: list = []


def value_cache(function):
    """``lru_cache(maxsize=CACHE_ENTRIES)``, emptied by :func:`clear_value_caches`."""
    cached = lru_cache(maxsize=CACHE_ENTRIES)(function)
    _VALUE_CACHES.append(cached)
    return cached


def clear_value_caches() -> None:
    """Empty every cache of values (:func:`value_cache`), as a run's stage ends and when a stage has freed
    its models. Its entries are the values met last, so they were made among the objects of what the stage
    built last, and each keeps Python's 1 MiB arena it sits in from going back to the system once the rest
    is freed: after the value typer of an 84k-page crawl was built and deleted, 96 arenas stayed (65 MB of
    them unused), and 30 once the caches were emptied (RSS 229 -> 163 MB)."""
    for cache in _VALUE_CACHES:
        cache.cache_clear()


@value_cache  # infobox values repeat across pairs and are normalised by several filters
def _normalize_short(text: str) -> str:
    return _normalize(text)


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _t2s().convert(text)
    text = _SPACE.sub("", text).lower()
    if not text.isascii():
        # NFKC writes some marks as a space and a combining mark (´ is " ́"): with the space gone, the
        # mark composes with the letter before it (a´ is á), so that normalising again changes nothing.
        text = unicodedata.normalize("NFKC", text)
    text = _YEAR_IN_CHARACTERS.sub(lambda m: m.group(1).translate(_CHARACTER_DIGITS) + "年", text)
    text = _DATE.sub(lambda m: f"{int(m.group(1))}年{int(m.group(2))}月{int(m.group(3))}日", text)
    text = _PADDED.sub("", text)
    text = _UNIT_WORDS.sub(lambda m: UNIT_WORDS[m.group(0)], text)
    return THOUSANDS.sub("", text)


# Runs that normalise on their own: a date or a number with thousands separators (rewritten whole), Latin
# letters and digits, whitespace, Chinese characters (converted phrase by phrase), any other one character.
_RUN = re.compile(r"\d{3,4}[-/.]\d{1,2}[-/.]\d{1,2}|\d+年\d{1,2}月(?:\d{1,2}日)?|\d{1,3}(?:,\d{3})+"
                  r"|[A-Za-z0-9]+|\s+|[\u3400-\u9fff\uf900-\ufaff]+|.", re.S)


def normalize_mapped(text: str) -> tuple[str, list[int], list[int]]:
    """normalize(text) with, for each of its characters, the span [begins[i], ends[i]) of the text it
    came from, so that a span found in the normalised text can be cut from the text as written.

    Runs of the text are normalised one by one; a run whose characters each normalise alone map one to
    one (「（」 is 「(」, ㎡ is m2), others (a date rewritten) map each character to the whole run. Where the
    runs do not add up to the whole text's normalisation (a mark composing across a space), every
    character maps to the whole text."""
    whole = normalize_once(text)
    out: list[str] = []
    begins: list[int] = []
    ends: list[int] = []
    for match in _RUN.finditer(text):
        run, start = match.group(0), match.start()
        normal = normalize(run)
        pieces = [normalize(ch) for ch in run] if len(normal) != len(run) else None
        if pieces is None and len(normal) == len(run):
            out.append(normal)
            begins.extend(range(start, start + len(run)))
            ends.extend(range(start + 1, start + len(run) + 1))
        elif pieces is not None and "".join(pieces) == normal:
            out.append(normal)
            for k, piece in enumerate(pieces):
                begins.extend([start + k] * len(piece))
                ends.extend([start + k + 1] * len(piece))
        else:
            out.append(normal)
            begins.extend([start] * len(normal))
            ends.extend([match.end()] * len(normal))
    if "".join(out) != whole:
        return whole, [0] * len(whole), [len(text)] * len(whole)
    return whole, begins, ends


def is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


_APPROXIMATE = re.compile(r"^(?:约为|大约|约|近|逾|超过)|(?:余|多|左右|以上|前后)$")


_ROUNDED = re.compile(r"[\d十百千万亿][余多](?![少])")  # 3000余米, 1万多人 (not 多少)


def is_approximate(value: str) -> bool:
    """Whether a value is written as an approximation: 约33.76万平方千米, 3000余米, 100米左右."""
    written = normalize(value).strip()
    return bool(_APPROXIMATE.search(written) or _ROUNDED.search(written))


def value_forms(value: str) -> tuple[str, ...]:
    """The normalised ways a page may write ``value``, to find it in a normalised text: as it is, and without
    约 (or 左右 …) or 《》 (value_key's forms, less its removal of all punctuation, which a text keeps)."""
    written = normalize(value)
    bare = _APPROXIMATE.sub("", written.strip("《》〈〉「」“”\"'"))
    return tuple(f for f in dict.fromkeys((written, bare)) if f)


def holds_form(text: str, forms: tuple[str, ...]) -> bool:
    """Whether a normalised text holds one of a value's forms (:func:`value_forms`), a form that starts or ends
    with a Latin letter or a digit only as a whole token: ca (Ca) is not in calcium, fe not in fes2."""
    for form in forms:
        if not form or form not in text:
            continue
        if not (form[0].isascii() and form[0].isalnum()) and not (form[-1].isascii() and form[-1].isalnum()):
            return True
        if re.search(rf"(?<![a-z0-9]){re.escape(form)}(?![a-z0-9])", text):
            return True
    return False


# A dynasty named by its character and 代 or 朝 is one dynasty (明代 is 明朝).
_DYNASTY = re.compile(r"^([夏商周秦汉晋隋唐宋元明清])[代朝]$")


# Options and golds repeat across items; the result is immutable. Bounded by CACHE_ENTRIES: at 2**18 entries,
# the items stage of an 84k-page crawl left 211,454 of them, about 50 MB, held for the rest of the run.
@value_cache
def value_key(value: str) -> str:
    """What makes two written values one value: normalize(), then no punctuation (《》, quotes,
    the middle dot of foreign names), no approximate marker (约960万平方千米 is 960万平方千米), one
    name for a dynasty (明代 is 明朝). Two values with the same key are never a right answer and a
    wrong one of the same question. A key is its own key: removing punctuation can make a unit
    that normalize() rewrites (公、里 is 公里 is 千米), so the steps repeat until nothing changes."""
    key = _key_once(value)
    for _ in range(8):
        again = _key_once(key)
        if again == key:
            break
        key = again
    return key


def _key_once(value: str) -> str:
    text = "".join(ch for ch in normalize(value) if not unicodedata.category(ch).startswith(("P", "Z")))
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)  # a mark after removed punctuation composes (a、´ is á)
    while True:  # every marker, so that a key is its own key (一余余 is 一, as 一余 is)
        bare = _APPROXIMATE.sub("", text)
        if bare == text or not bare:
            break
        text = bare
    return _DYNASTY.sub(r"\1朝", text)
