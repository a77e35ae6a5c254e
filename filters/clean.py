"""Text cleaning before any matching: mojibake, leftover markup, boilerplate, whitespace.

Mojibake (UTF-8 read as Latin-1 or cp1252) is repaired with ftfy, configured to
leave Chinese full-width punctuation and quotes as they are. Invisible control and
format characters (soft hyphens, direction marks) are dropped, leftover tags and
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
# Control and format characters (Unicode 14, Python 3.11's: categories Cc and Cf) but whitespace:
# invisible, and a value must match the text with or without them (北\u200e京 is 北京); whitespace controls
# (tab, line breaks) become spaces in clean_text instead. tests/filters/test_clean.py checks the list.
_INVISIBLE_LATIN1 = "\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\xad"
_INVISIBLE_ABOVE = ("\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
                    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438"
                    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f")
INVISIBLE = re.compile(f"[{_INVISIBLE_LATIN1}{_INVISIBLE_ABOVE}]")
# Those above Latin-1 are in no mojibake: they go before ftfy looks for it, so that a zero-width space
# inside mojibake (ä\u200b¸\xad) neither hides it nor changes what ftfy decides on a second pass.
_INVISIBLE_ABOVE_LATIN1 = re.compile(f"[{_INVISIBLE_ABOVE}]")


def repair(text: str) -> str:
    """ftfy's repair; texts it would leave alone (no mojibake, entity or control character: most
    Chinese text) skip it, which makes cleaning several times faster with the same result."""
    if is_bad(text) or _FTFY_TRIGGERS.search(text):
        return ftfy.fix_text(text, **_FTFY)
    return unicodedata.normalize("NFC", text)


def clean(text: str) -> str:
    cleaned = _clean(text)
    if cleaned != text and is_bad(cleaned):
        # What was removed (a citation, a tag) held two halves of mojibake apart (Î[1]“ is Î“, which is Γ):
        # repaired now, so that cleaning twice changes nothing.
        cleaned = _clean(cleaned)
    return cleaned


def _clean(text: str) -> str:
    text = html.unescape(_TAG.sub("", repair(_INVISIBLE_ABOVE_LATIN1.sub("", text))))
    text = INVISIBLE.sub("", text)  # after unescaping: &shy; and &lrm; are invisible too
    text = _BOILERPLATE.sub("", text)
    return clean_text(text)
