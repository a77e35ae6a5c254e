"""The word lists the criteria read (:mod:`builders.criteria`), and the jieba words of a text they are matched
against.

Each list is a file beside this one (``relative_time_words.txt`` ...: one entry a line, ``#`` starts a comment),
read once (:func:`load_word_list`). An entry counts where it spans whole words of the text
(:func:`word_matches`), outside titles and quotes (:func:`mask_named`). The words are jieba's
(:func:`filters.text.segmenter`, initialised quietly, its global dictionary untouched); the segmentation of a
text is cached. Also here: the patterns both the answer and the question rules read (a title, a Chinese
character, a clause mark).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from filters.normalize import value_cache
from filters.text import segmenter, tagger

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

TITLE = re.compile(r"《[^《》]*》")
# Titles and quoted names are one unit: no word inside them is read as a list or a time word.
NAMED = re.compile(r"《[^《》]*》|“[^“”]*”|「[^「」]*」|『[^『』]*』|‘[^‘’]*’|\"[^\"]*\"|'[^']*'|”[^“”]*“")
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
CLAUSE = re.compile(r"[，,。；;：:！!？?]")


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
def word_pattern(path: Path) -> re.Pattern[str]:
    words = sorted(load_word_list(path), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, words))) if words else re.compile(r"(?!)")


@value_cache  # a question is segmented once for all the rules that read its words
def split_words(text: str) -> tuple[str, ...]:
    return tuple(segmenter().lcut(text, HMM=False))


@value_cache
def word_bounds(text: str) -> tuple[frozenset[int], frozenset[int]]:
    """Offsets where a word of ``text`` starts, and where one ends."""
    starts, ends, offset = set(), set(), 0
    for word in split_words(text):
        starts.add(offset)
        offset += len(word)
        ends.add(offset)
    return frozenset(starts), frozenset(ends)


@value_cache
def tagged_spans(text: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, jieba tag) of each word of ``text``."""
    position, out = 0, []
    for pair in tagger().cut(text, HMM=False):
        out.append((position, position + len(pair.word), pair.flag))
        position += len(pair.word)
    return tuple(out)


@value_cache
def first_two_tagged(text: str) -> tuple[tuple[str, str], ...]:
    """The first two words of ``text`` with their jieba part-of-speech tags."""
    words = []
    for pair in tagger().cut(text, HMM=False):
        words.append((pair.word, pair.flag))
        if len(words) == 2:
            break
    return tuple(words)


def mask_named(text: str) -> str:
    """Titles and quoted names replaced by a placeholder of the same length, so no word inside them counts."""
    return NAMED.sub(lambda m: "□" * len(m.group(0)), text)


def word_matches(path: Path, text: str, edges: str = "both") -> list[tuple[int, str]]:
    """(offset, entry) for each entry of the list in ``text`` that starts a word (``edges="start"``),
    ends one (``"end"``: 首相 in 英国首相), or spans whole words (``"both"``: 现在 in 现在的, not in 出现在)."""
    if not word_pattern(path).search(text):
        return []  # no entry at all: no need to segment
    entries = load_word_list(path)
    lengths = sorted({len(e) for e in entries}, reverse=True)
    starts, ends = word_bounds(text)
    return [(start, text[start:start + n]) for start in range(len(text)) for n in lengths
            if text[start:start + n] in entries and (edges == "end" or start in starts)
            and (edges == "start" or start + n in ends)]


def clause_at(text: str, index: int) -> str:
    """The clause of ``text`` (between ，。；：！？) around ``index``."""
    begin = max((m.end() for m in CLAUSE.finditer(text, 0, index)), default=0)
    end = CLAUSE.search(text, index)
    return text[begin:end.start() if end else len(text)]


@lru_cache(maxsize=1)
def common_names() -> tuple[frozenset[str], frozenset[str]]:
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


@lru_cache(maxsize=1)
def superlatives() -> re.Pattern[str]:
    words = sorted(load_word_list(SUBJECTIVE_WORDS), key=len, reverse=True)
    return re.compile("最(?:" + "|".join(map(re.escape, words)) + ")")
