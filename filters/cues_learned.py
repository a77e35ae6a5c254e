"""Relation cues learned from the crawl itself (distant supervision).

The reviewable cue table (``relation_cues.tsv``) lists by hand how texts express a relation. A crawl
teaches more: where a page's text writes the value of one of its infobox rows, the words standing right
next to it are, across many pages, how that relation is said (全长 before a length, 古称 before an old
name, 作品 after an era). For each relation and each word found right before (``<word``) or right after
(``>word``) its values:

* support: on how many pages the word stands there, next to a value of the relation;
* share: of all the times the word stands next to a value of any relation, the share this relation has;
  a word next to values of many relations (在, 于, 为) says nothing of one.

A word is kept as the relation's cue when its support is at least ``min_pages`` and its share at least
``min_share``. Words are jieba's, two characters or more (a one-character word joins the word beside it:
作于 from 作 and 于); a copula, a colon or a quote may stand between the word and the value, as in the cue
table's adjacent cues. The learned table is written beside the reviewable one (``write_learned``) in its
format, with each cue's support and share in a comment, so a person can move a good cue into the table or
strike a bad one; the grounding merges both (filters.grounding.RelationCues).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Iterable

from filters.normalize import is_cjk, normalize
from filters.text import AlignedText, segmenter

# What may stand between a cue and the value (the cue table's adjacent cues allow the same).
BETWEEN = frozenset("“”\"'‘’「」『』:：为是")
# Words that stand next to values of every kind; never a cue of one relation.
STOPWORDS = frozenset({"其中", "以及", "并且", "同时", "之一", "他们", "我们", "这个", "一个", "主要", "已经", "成为",
                       "作为", "以上", "以下", "左右", "其他", "等等", "以来", "之后", "之前", "当时", "因此", "其后"})
REJECTED = Path(__file__).with_name("cues_rejected.txt")


def rejected_words(path: Path = REJECTED) -> frozenset[str]:
    """Words reviewed and struck from learned cues (cues_rejected.txt): next to a value, they never say its
    relation by themselves (移居 before a place says no birthplace)."""
    words = set()
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        words.update(line.split())
    return frozenset(words)
MIN_PAGES = 3
MIN_SHARE = 0.6


def _all(text: str, needle: str) -> list[int]:
    out, at = [], text.find(needle)
    while at != -1:
        out.append(at)
        at = text.find(needle, at + 1)
    return out


def _chinese(word: str) -> bool:
    return bool(word) and all(is_cjk(ch) for ch in word)


def contexts(text: str, start: int, end: int, ending: dict[int, int], starting: dict[int, int]) -> list[str]:
    """The cue candidates around text[start:end]: ``<w`` for the word before it, ``>w`` for the word after it.

    ending, starting: the text's jieba words, by where they end (-> their start) and start (-> their end)."""
    found = []
    before = start
    while before > 0 and text[before - 1] in BETWEEN and start - before < 2:
        before -= 1
    if before in ending:
        a, b = ending[before], before
        if b - a == 1 and a in ending and _chinese(text[ending[a]:a]):  # one character: with the word before it
            a = ending[a]                                                   # (作 + 于)
        word = text[a:b]
        if len(word) >= 2 and word not in STOPWORDS and _chinese(word):
            found.append("<" + word)
    after = end + 1 if text[end:end + 1] == "的" else end
    if after in starting:
        a, b = after, starting[after]
        if b - a == 1 and b in starting and _chinese(text[b:starting[b]]):
            b = starting[b]
        word = text[a:b]
        if len(word) >= 2 and word not in STOPWORDS and _chinese(word):
            found.append(">" + word)
    return found


class CueLearner:
    """Counts, page by page, the words next to infobox values; ``cues()`` gives what is kept."""

    def __init__(self, min_pages: int = MIN_PAGES, min_share: float = MIN_SHARE):
        if min_pages < 1 or not 0 < min_share <= 1:
            raise ValueError("min_pages must be >= 1 and min_share in (0, 1]")
        self.min_pages, self.min_share = min_pages, min_share
        self.by_relation: dict[str, Counter] = defaultdict(Counter)
        self.pages = 0
        self.rejected = rejected_words()

    def add(self, text: str, facts: Iterable[tuple[str, str]], names: Iterable[str] = ()) -> None:
        """One page: its text, its (relation, value) rows and the entity's names (a value restating one is no
        fact: 中文名's)."""
        aligned = AlignedText(text)
        normal = aligned.text
        if not normal:
            return
        self.pages += 1
        ending, starting, at = {}, {}, 0
        for word in segmenter().cut(normal, HMM=False):
            ending[at + len(word)], starting[at] = at, at + len(word)
            at += len(word)
        seen: set[tuple[str, str]] = set()
        own = {normalize(n) for n in names if n}
        for relation, value in facts:
            needle = normalize(value)
            if len(needle) < 2 or needle in own:
                continue
            inside = [(a, a + len(n)) for n in own if len(n) > len(needle) and needle in n
                      for a in _all(normal, n)]
            start = normal.find(needle)
            while start != -1:
                end = start + len(needle)
                if not aligned.inside_number(start, end, needle) and aligned.standalone(start, end, needle) \
                        and not any(a <= start and end <= b for a, b in inside):
                    for cue in contexts(normal, start, end, ending, starting):
                        seen.add((relation, cue))
                start = normal.find(needle, start + 1)
        for relation, cue in seen:
            self.by_relation[relation][cue] += 1

    def cues(self) -> dict[str, list[tuple[str, int, float]]]:
        """relation -> [(cue, support, share)], best supported first."""
        total: Counter = Counter()
        for counts in self.by_relation.values():
            total.update(counts)
        out: dict[str, list[tuple[str, int, float]]] = {}
        for relation, counts in sorted(self.by_relation.items()):
            kept = [(cue, n, n / total[cue]) for cue, n in counts.items()
                    if n >= self.min_pages and n / total[cue] >= self.min_share
                    and normalize(cue[1:]) != normalize(relation) and cue[1:] not in self.rejected]
            if kept:
                out[relation] = sorted(kept, key=lambda x: (-x[1], x[0]))
        return out


def write_learned(cues: dict[str, list[tuple[str, int, float]]], path: Path, pages: int) -> Path:
    """The learned cues in the cue table's format, each line's cues with their support and share."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"# Relation cues learned from {pages} pages of the crawl (filters/cues_learned.py): a word kept right",
             "# before (<) or after (>) the relation's values on at least "
             f"{MIN_PAGES} pages, mostly next to this relation's.",
             "# Same format as filters/relation_cues.tsv; move a good cue there, or drop a bad one there with its",
             "# relation's line. The comment above each line: each cue's support (pages) and share.", ""]
    for relation, found in cues.items():
        lines.append("# " + " ".join(f"{c}:{n}:{share:.2f}" for c, n, share in found))
        lines.append(f"{relation}\t" + " ".join(c for c, _, _ in found))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def as_table(cues: dict[str, list[tuple[str, int, float]]]) -> dict[str, list[str]]:
    """relation -> cue tokens, the form AlignmentRules keeps."""
    return {relation: [c for c, _, _ in found] for relation, found in cues.items()}
