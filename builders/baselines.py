"""An offline panel of baselines that answer without knowing the entity: an item one of them solves is easy.

Chinese SimpleQA (section 3.2) keeps the questions that strong models get wrong. Offline there is no model,
but a question that a rule answers from the question's own words or from the crawl's priors is easy for
any model too. Four baselines, each a guess from what the question gives:

* **pinyin**: the entity's name transliterated (pypinyin): 秦宁鸿's 外文名 is Qin Ninghong, 青海湖's Qinghai
  Lake; for a question that gives a Latin name and asks whose it is, the option whose pinyin it is (the whole
  name spelled out before a part of it: Yin Guangyuan is 尹光远's, not 韦源's).
* **in_name**: the answer inside the entity's name or title, or the value the titles that share a part of
  the name have: 湾溪报春 → 报春花科 (two characters of the answer are in the name), 陈景润 → 陈氏定理 (the
  surname and 氏), 《浣溪沙·登永仙月》 → 词 (the other titles of the 浣溪沙 tune are 词), 凤坪螳 → 节肢动物门 (the
  other titles ending in 螳 are); for a question that gives a value and asks the entity, the option whose name
  shares two characters with the value (黄辉墓 → 黄辉).
* **relation_mode**: the relation's most frequent value in the crawl (国籍 → 中国).
* **type_prior**: the most frequent value of the answer's type over every relation (a dynasty → 唐朝).

Priors leave the item's own entity out (its value, which the crawl holds, is counted one less), so a value
that only the entity itself has is never its own prior; a tie goes to the first value in code point order.
A baseline *solves* a short-answer or cloze item when its guess is the answer (as value keys), a
multiple-choice item when its guess is the gold (an option of the gold's kind) and no other option fits it
as well. The item's provenance records ``easy_by`` (which baselines); the flow keeps
the easy share of each config under ``items.easy_max_share`` (flows.items.easy_budget_drops).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Iterable, Sequence

from filters.normalize import is_cjk, value_key

BASELINES = ("pinyin", "in_name", "relation_mode", "type_prior")
DESCRIPTION = ("offline baselines, no model: pinyin of the entity's name; the answer inside the name or the "
               "value of titles sharing part of it; the relation's most frequent value; the most frequent value "
               "of the answer's type")
NEIGHBOURS_MIN = 2  # other titles sharing the name's part that must agree before it is a guess
PLACE_LETTERS = 4  # the pinyin of a place name's two characters in a Latin epithet (furui of furuiensis)
STEM_LETTERS = 4  # a shorter pinyin (an, li, yu) turns up inside unrelated Latin words
PRIOR_MIN = 2  # other entities that must have a value before it is a prior (one is a coincidence)
# A character pair in this share of the crawl's titles (and in GENERIC_MIN or more) names a kind of thing (大学,
# 银行, 空间): sharing it gives nothing away. 1% is our choice: a surname or a place name is rarer.
GENERIC_SHARE, GENERIC_MIN = 0.01, 3
_LATIN = re.compile(r"[^a-z]")
_TITLE_MARKS = str.maketrans("", "", "《》〈〉「」『』“”\"'")


def pinyin_letters(text: str) -> str:
    """The Chinese characters of ``text`` in toneless pinyin, letters only (秦宁鸿 → qinninghong)."""
    from pypinyin import lazy_pinyin

    return "".join(lazy_pinyin("".join(ch for ch in text if is_cjk(ch)))).lower()


def latin_letters(text: str) -> str:
    return _LATIN.sub("", text.lower())


def transliterates(name: str, latin: str) -> bool:
    """Whether the Latin ``latin`` is the pinyin of ``name``, or holds the pinyin of all of it but its first or
    last character, in STEM_LETTERS letters or more (青海湖 → Qinghai Lake, 北宋 → Northern Song, 唐朝 → Tang
    Dynasty: the generic character translated), or is a binomial whose epithet is the pinyin of the name's
    first two characters (福瑞百合 → Lilium furuiensis)."""
    letters, name = latin_letters(latin), name.translate(_TITLE_MARKS)
    cjk = "".join(ch for ch in name if is_cjk(ch))
    if not letters or not cjk:
        return False
    if letters == pinyin_letters(cjk):
        return True
    stems = (pinyin_letters(cjk[:-1]), pinyin_letters(cjk[1:])) if len(cjk) >= 2 else ()
    if any(len(stem) >= STEM_LETTERS and stem in letters for stem in stems):
        return True
    # a species named for a place: 福瑞百合 → Lilium furuiensis, its first two characters in the epithet
    place = pinyin_letters(cjk[:2]) if len(cjk) >= 3 else ""
    return len(place) >= PLACE_LETTERS and re.search(rf"(?<![a-z]){place}(?:ensis|ense|ica|icus|ana|anus)",
                                                     latin.lower()) is not None


def _bare(name: str) -> str:
    return name.translate(_TITLE_MARKS).strip()


def shares_two_chars(name: str, answer: str, generic: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether two consecutive Chinese characters of the answer occur in the name (报春 of 报春花科 in 湾溪报春),
    other than a ``generic`` pair (大学 of 北京大学 in 京师大学堂 says what kind of thing, not which)."""
    name, answer = value_key(_bare(name)) or _bare(name), value_key(answer) or answer
    return any(is_cjk(answer[i]) and is_cjk(answer[i + 1]) and answer[i:i + 2] in name
               and answer[i:i + 2] not in generic for i in range(len(answer) - 1))


def _pairs(text: str) -> set[str]:
    return {text[i:i + 2] for i in range(len(text) - 1) if is_cjk(text[i]) and is_cjk(text[i + 1])}


def name_parts(title: str) -> list[str]:
    """The parts of a title that other titles share when they are of a kind: the tune before ·
    (《浣溪沙·登永仙月》 → 浣溪沙), a title in 《》 with a · at all (《水调歌头·明月几时有》, the crawl's only
    水调歌头, is still a 词 like the other 《X·Y》), and the last two characters of a title of three or more
    (湾溪报春 → 报春)."""
    bare = _bare(title)
    parts = []
    if "·" in bare:  # the tune, then the form: a title 《X·Y》 is a 词 whatever its tune
        parts += ["pre:" + bare.split("·", 1)[0], "dot:" + ("《》" if title.startswith("《") else "")]
    cjk = "".join(ch for ch in bare if is_cjk(ch))
    if len(cjk) >= 3:
        parts.append("suf:" + cjk[-2:])
    if len(cjk) >= 2:  # the last character names a kind (凤坪螳, 宁石螳: mantises, so arthropods)
        parts.append("end:" + cjk[-1])
    return parts


def names_by_surname(head: str, answer: str) -> bool:
    """Whether the answer names the entity by its surname and 氏 (陈氏定理 for 陈景润, 欧阳氏 for 欧阳修)."""
    cjk = "".join(ch for ch in _bare(head) if is_cjk(ch))
    return len(cjk) >= 2 and any(f"{cjk[:n]}氏" in answer for n in (1, 2) if len(cjk) > n)


def _head_pairs() -> set[str]:
    """The character pairs of the heads of institutions' names (builders/name_heads.txt: 大学, 公司, 研究所)."""
    from builders.criteria import NAME_HEADS, load_word_list

    return {p for head in load_word_list(NAME_HEADS) for p in _pairs(head)}


class _Top:
    """The two most frequent values of a key, with their counts: a prior that can leave one entity out."""

    __slots__ = ("counts",)

    def __init__(self, counts: Counter):
        self.counts = counts

    def guess(self, own: str = "") -> str | None:
        """The most frequent value once the entity's own value ``own`` (a value key) is counted one less."""
        best, best_n = None, 0
        for value, n in self.counts.most_common(3):
            n -= value == own
            if n > best_n or (n == best_n and best is not None and value < best):
                best, best_n = value, n
        return best if best_n >= PRIOR_MIN else None


class BaselinePanel:
    """The four baselines over one crawl's facts: (head, relation, tail, type key) rows."""

    def __init__(self, facts: Iterable[tuple[str, str, str, str]]):
        relation: dict[str, Counter] = defaultdict(Counter)
        typed: dict[str, Counter] = defaultdict(Counter)
        parts: dict[tuple[str, str], Counter] = defaultdict(Counter)
        seen: set[tuple[str, str, str]] = set()
        titles: set[str] = set()
        pairs: Counter = Counter()
        for head, rel, tail, type_key in facts:
            if head not in titles:
                titles.add(head)
                pairs.update(_pairs(value_key(_bare(head)) or _bare(head)))
            key = value_key(tail)
            if not key or (head, rel, key) in seen:
                continue
            seen.add((head, rel, key))
            relation[rel][key] += 1
            if type_key:
                typed[type_key][key] += 1
            for part in name_parts(head):
                parts[(rel, part)][key] += 1
        # only the top few of each count are read: keep those, not every value of a hub relation
        self.relation = {r: _Top(Counter(dict(c.most_common(3)))) for r, c in relation.items()}
        self.typed = {t: _Top(Counter(dict(c.most_common(3)))) for t, c in typed.items()}
        self.parts = {k: Counter(dict(c.most_common(3))) for k, c in parts.items()
                      if sum(c.values()) > NEIGHBOURS_MIN}
        least = max(GENERIC_MIN, GENERIC_SHARE * len(titles))
        self.generic = frozenset({p for p, n in pairs.items() if n >= least} | _head_pairs())

    def _neighbours(self, head: str, relation: str, own: str) -> str | None:
        """The value the other titles sharing a part of the name agree on (at least NEIGHBOURS_MIN, a majority)."""
        for part in name_parts(head):
            counts = self.parts.get((relation, part))
            if not counts:
                continue
            total = sum(counts.values()) - bool(own in counts)
            for value, n in counts.most_common(3):
                n -= value == own
                if n >= NEIGHBOURS_MIN and 2 * n > total:
                    return value
        return None

    def solved_by(self, head: str, relation: str, answer: str, type_key: str = "", asked: str = "tail",
                  given: str = "", options: Sequence[str] = ()) -> list[str]:
        """The baselines that answer the item: ``head`` the entity, ``answer`` the gold; ``asked`` head when the
        question gives the value ``given`` and asks the entity; ``options`` a multiple-choice item's."""
        if asked == "head":
            return self._head_solved(given, answer, options)
        key = value_key(answer)
        guesses = {
            "pinyin": answer if transliterates(head, answer) else None,
            "in_name": answer if shares_two_chars(head, answer, self.generic) or names_by_surname(head, answer)
            else self._neighbours(head, relation, key),
            "relation_mode": self.relation[relation].guess(key) if relation in self.relation else None,
            "type_prior": self.typed[type_key].guess(key) if type_key in self.typed else None,
        }
        solved = []
        for name, guess in guesses.items():
            if guess is None or value_key(guess) != key:
                continue
            if name == "in_name" and options and sum(shares_two_chars(head, o, self.generic)
                                                     or names_by_surname(head, o) for o in options) > 1:
                continue  # other options share the name as well: no pick among them
            solved.append(name)
        return solved

    def _head_solved(self, given: str, answer: str, options: Sequence[str]) -> list[str]:
        """Which baselines pick the entity a question asks by its value: the option the value transliterates,
        the option whose name shares two characters with the value; each only where one option fits."""
        solved = []
        candidates = options or [answer]
        for name, fits in (("pinyin", lambda o: transliterates(o, given)),
                           ("in_name", lambda o: shares_two_chars(given, o, self.generic))):
            hits = [o for o in candidates if fits(o)]
            if name == "pinyin":  # the whole name spelled out beats a part of it (尹光远 over 韦源 for Yin Guangyuan)
                whole = [o for o in hits if latin_letters(given) == pinyin_letters(_bare(o))]
                hits = whole or hits
            if len(hits) == 1 and value_key(hits[0]) == value_key(answer):
                solved.append(name)
        return solved
