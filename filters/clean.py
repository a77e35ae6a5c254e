"""Text cleaning before any matching: mojibake, leftover markup, boilerplate, whitespace.

Mojibake (UTF-8 read as Latin-1 or cp1252) is repaired with ftfy, configured to
leave Chinese full-width punctuation and quotes as they are. Leftover tags and
character references are removed, page-control words that leaked into the text
(播报, 编辑, 展开全部 ...) and citation marks are dropped, and whitespace between
Chinese characters is removed.
"""

from __future__ import annotations

import html
import re
import unicodedata

import ftfy
from ftfy.badness import is_bad

from crawlers.parsers.text import clean_text

_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")
_BOILERPLATE = re.compile(r"(?:播报|编辑|展开全部|收起|本词条由[^。]*?提供|本词条缺少[^。]*?。|同义词\s*\S+?一般指\S+)")
_FTFY = dict(normalization="NFC", fix_character_width=False, uncurl_quotes=False, fix_latin_ligatures=False)
# What ftfy's other fixes act on: HTML entities, terminal escapes, control characters, line separators.
_FTFY_TRIGGERS = re.compile("[&\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffd]")


def repair(text: str) -> str:
    """ftfy's repair; texts it would leave alone (no mojibake, entity or control character: most
    Chinese text) skip it, which makes cleaning several times faster with the same result."""
    if is_bad(text) or _FTFY_TRIGGERS.search(text):
        return ftfy.fix_text(text, **_FTFY)
    return unicodedata.normalize("NFC", text)


def clean(text: str) -> str:
    text = repair(text)
    text = html.unescape(_TAG.sub("", text))
    text = _BOILERPLATE.sub("", text)
    return clean_text(text)
