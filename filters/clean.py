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

import ftfy

from crawlers.parsers.text import clean_text

_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")
_BOILERPLATE = re.compile(r"(?:播报|编辑|展开全部|收起|本词条由[^。]*?提供|本词条缺少[^。]*?。|同义词\s*\S+?一般指\S+)")
_FTFY = dict(normalization="NFC", fix_character_width=False, uncurl_quotes=False, fix_latin_ligatures=False)


def clean(text: str) -> str:
    text = ftfy.fix_text(text, **_FTFY)
    text = html.unescape(_TAG.sub("", text))
    text = _BOILERPLATE.sub("", text)
    return clean_text(text)
