"""Text cleaning shared by every page parser."""

from __future__ import annotations

import re
import unicodedata

# Citation marks as the sites print them: [1], [1-3], [2,5], [注 1], [a].
CITATION = re.compile(r"\[(?:\d+(?:[\-–,，]\d+)*|注\s*\d+|[a-z])\]")
# Whitespace, including the padding the sites use inside infobox names.
SPACES = re.compile(r"[\s\u00a0\u3000\u200b\u200c\u200d\u2060\ufeff]+")
# Labels of edit and audio controls that sit inside headings and paragraphs.
CONTROL_WORDS = ("播报", "编辑", "讨论", "上传视频", "[编辑]")
# Characters between CJK text that are layout, not content.
_CJK = r"\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef"
_SPACE_BETWEEN_CJK = re.compile(rf"(?<=[{_CJK}])\s+(?=[{_CJK}])")


def clean_text(text: str) -> str:
    """Collapse whitespace, drop citation marks and zero-width characters."""
    while True:  # a mark inside brackets ("[[1]1]") shows once the inner one is gone
        stripped = CITATION.sub("", text)
        if stripped == text:
            break
        text = stripped
    text = SPACES.sub(" ", text).strip()
    return _SPACE_BETWEEN_CJK.sub("", text)


_SPACE_NOT_BETWEEN_LATIN = re.compile(r"(?<![A-Za-z0-9]) | (?![A-Za-z0-9])")


# Marks that open a sub-row of an infobox (zh-Wikipedia's " • 行政机构" under 政府).
_NAME_BULLETS = "•·・▪◦‧"


def clean_name(text: str) -> str:
    """An infobox name without padding: '中 文 名' -> '中文名', while 'Python 3发布时间' keeps its space;
    a sub-row's bullet goes too: ' • 行政机构' -> '行政机构'."""
    # A sub-row's marks (bullets, dashes) and the spaces among them all go: ' •  • ', '• - 行政机构'.
    text = SPACES.sub(" ", CITATION.sub("", text)).strip().lstrip(_NAME_BULLETS + "-–— ")
    return _SPACE_NOT_BETWEEN_LATIN.sub("", text).rstrip("：:")


_SEPARATORS = re.compile(r"[、，,；;／/\n]")
_UNIT_AFTER_SLASH = re.compile(r"[A-Za-zµμ°℃%\u4e00-\u9fff]{1,3}[23²³]?")


def _unit_slash(before: list[str], after: str) -> bool:
    """A slash inside a unit (0.0899 g/L, 100千米/小时, 2.7 g/cm3), not between two values."""
    following = _SEPARATORS.split(after, maxsplit=1)[0].strip()
    return any(ch.isdigit() for ch in before) and bool(_UNIT_AFTER_SLASH.fullmatch(following))


_CLOSES = {"《": "》", "（": "）)", "(": ")）"}  # full- and half-width brackets are mixed in real cells


def split_values(value: str, link_texts: list[str] | None = None) -> list[str]:
    """Split one infobox cell into its single values, keeping their order.

    Cells join values with 、，；/ or, on Baidu, with line breaks between links;
    titles in 《》 are never split inside.
    """
    value = value.strip()
    if not value:
        return []
    parts: list[str] = []
    open_marks: list[str] = []  # the brackets open here, innermost last; only a matching mark closes one
    current = []
    for index, ch in enumerate(value):
        if ch in _CLOSES:
            open_marks.append(_CLOSES[ch])
        elif any(ch in marks for marks in open_marks):
            # The innermost bracket this mark closes, and any left open inside it: 《（》 ends the title.
            while ch not in open_marks.pop():
                pass
        if not open_marks and ch in "、，,；;／/\n":
            # _unit_slash reads at most a unit's few characters after the slash.
            if ch in "／/" and _unit_slash(current, value[index + 1:index + 17]):
                current.append(ch)
                continue
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    values = [p.strip() for p in parts if p.strip()]
    if len(values) == 1 and link_texts and len(link_texts) > 1:
        joined = "".join(link_texts)
        if SPACES.sub("", value) == SPACES.sub("", joined):
            return [t.strip() for t in link_texts if t.strip()]
    return values


def nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)
