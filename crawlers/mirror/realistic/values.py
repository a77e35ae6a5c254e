"""A value as the world holds it (its text and an optional link), its link markup, and the
notations of years, dates, counts and quantities (Chinese numerals among them)."""

from __future__ import annotations

import re


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
