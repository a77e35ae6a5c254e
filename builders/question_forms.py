"""A question read as its parts: the question words, fillers, synonyms and function words of the reviewable
lists (``question_words.tsv``), the kind of answer it asks for (time, place, person, number …) and its content
words (:class:`Former`). The contamination check compares questions by these forms, and the relation-synonym
groups (builders/relation_groups.py) are learned from them."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from filters.normalize import is_cjk, normalize, value_key
from filters.text import segmenter

WORDS = Path(__file__).with_name("question_words.tsv")


ROLES = ("filler", "question", "synonym", "function")


CLASSES = ("time", "place", "person", "number", "reason", "generic")


DIGITS = re.compile(r"\d+")


def _alternation(phrases: Iterable[str]) -> str:
    return "|".join(re.escape(p) for p in sorted(set(phrases), key=lambda p: (-len(p), p)))


@dataclass(frozen=True)
class QuestionWords:
    """The lists of ``question_words.tsv``, normalised as questions are."""

    fillers: dict[str, frozenset[str]]  # start | end | any -> phrases
    questions: dict[str, str]  # phrase -> class
    synonyms: dict[str, str]  # word -> canonical word
    function: frozenset[str]

    @classmethod
    def load(cls, path: Path = WORDS) -> "QuestionWords":
        fillers: dict[str, set[str]] = {"start": set(), "end": set(), "any": set()}
        questions, synonyms, function = {}, {}, set()
        for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3 or parts[1] not in ROLES:
                raise ValueError(f"{path}:{number}: expected <phrase> TAB <role> TAB <value> with a role of {ROLES}")
            phrase, role, value = normalize(parts[0].strip()), parts[1], parts[2].strip()
            if role == "filler":
                if value not in fillers:
                    raise ValueError(f"{path}:{number}: a filler stands at start, end or any, not {value!r}")
                fillers[value].add(phrase)
            elif role == "question":
                if value not in CLASSES:
                    raise ValueError(f"{path}:{number}: question class must be one of {CLASSES}, got {value!r}")
                questions[phrase] = value
            elif role == "synonym":
                synonyms[phrase] = normalize(value)
            else:
                function.add(phrase)
        return cls({k: frozenset(v) for k, v in fillers.items()}, questions, synonyms, frozenset(function))

    def word(self, text: str) -> str:
        """What a word is to the lists: its question class, its canonical word, "-" for a filler or
        function word, or itself. Two words the lists treat as one (哪一年 and 何年) say the same."""
        text = normalize(text)
        if text in self.questions:
            return "?" + self.questions[text]
        text = self.synonyms.get(text, text)
        if text in self.function or any(text in f for f in self.fillers.values()):
            return "-"
        return text


@lru_cache(maxsize=1)
def default_words() -> QuestionWords:
    return QuestionWords.load(WORDS)


def _is_punctuation(ch: str) -> bool:
    return unicodedata.category(ch).startswith(("P", "Z"))


@dataclass(slots=True)
class Form:
    """What the rule compares of one question (see the module docstring)."""

    key: str  # normalised, no punctuation: exact matches
    canon: str  # content words and question classes in order: near matches
    words: dict[str, int]  # content words and how often each occurs
    content: str  # the question without fillers and question phrases, fragments joined by \x1f
    plain: str  # the question without fillers and punctuation: what is embedded
    classes: frozenset[str]
    answer: str  # value_key of the answer, "" when unknown
    head: str = ""  # normalised head, no punctuation
    relation: frozenset[str] = frozenset()  # content words of the relation
    bigrams: frozenset[str] = field(default_factory=frozenset)
    numbers: frozenset[str] = frozenset()  # the question's runs of digits: 1111 and 111 are two entities


class Former:
    """Question -> :class:`Form` with one set of word lists."""

    def __init__(self, words: QuestionWords | None = None):
        self.words = words = words or default_words()
        self._start = re.compile(f"^(?:{_alternation(words.fillers['start'] | words.fillers['any'])})")
        self._end = re.compile(f"(?:{_alternation(words.fillers['end'])})$")
        self._any = re.compile(f"(?:{_alternation(words.fillers['any'])})")
        self._question = re.compile(f"(?:{_alternation(words.questions)})")

    def _clauses(self, text: str) -> list[str]:
        clauses, current = [], []
        for ch in text:
            if _is_punctuation(ch):
                clauses.append("".join(current))
                current = []
            else:
                current.append(ch)
        clauses.append("".join(current))
        out = []
        for clause in clauses:
            while True:
                stripped = self._end.sub("", self._start.sub("", self._any.sub("", clause)))
                if stripped == clause:
                    break
                clause = stripped
            if clause:
                out.append(clause)
        return out

    def _units(self, fragment: str) -> list[str]:
        """Content words of a fragment: synonyms written one way, function words out, a run of single
        characters (not function words) one word."""
        units: list[str] = []
        run: list[str] = []
        words = self.words
        for token in segmenter().cut(fragment, HMM=False):
            token = words.synonyms.get(token, token)
            if token in words.function:
                if run:
                    units.append("".join(run))
                    run = []
                continue
            if len(token) == 1 and is_cjk(token):
                run.append(token)
                continue
            if run:
                units.append("".join(run))
                run = []
            units.append(token)
        if run:
            units.append("".join(run))
        return units

    def form(self, question: str, answer: str = "", head: str = "", relation: str = "") -> Form:
        text = normalize(question)
        key = "".join(ch for ch in text if not _is_punctuation(ch))
        canon: list[str] = []
        units: list[str] = []
        fragments: list[str] = []
        classes: set[str] = set()
        clauses = self._clauses(text)
        for clause in clauses:
            position = 0
            for found in list(self._question.finditer(clause)) + [None]:
                fragment = clause[position:found.start() if found else len(clause)]
                if fragment:
                    fragments.append(fragment)
                    for unit in self._units(fragment):
                        units.append(unit)
                        canon.append(unit)
                if found is not None:
                    kind = self.words.questions[found.group(0)]
                    classes.add(kind)
                    canon.append("?" + kind)
                    position = found.end()
        joined = "\x1f".join(fragments)
        relation_words = frozenset(u for f in self._clauses(normalize(relation)) for u in self._units(f)) \
            if relation else frozenset()
        return Form(key=key, canon=" ".join(canon), words=dict(Counter(units)), content=joined,
                    plain="".join(clauses), classes=frozenset(classes),
                    answer=value_key(answer) if answer and answer.strip() else "",
                    head="".join(ch for ch in normalize(head) if not _is_punctuation(ch)) if head else "",
                    relation=relation_words,
                    bigrams=frozenset(joined[i:i + 2] for i in range(len(joined) - 1)
                                      if "\x1f" not in joined[i:i + 2]) or frozenset(joined),
                    numbers=frozenset(DIGITS.findall(key)))


def classes_agree(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two questions' classes can ask one thing: a generic or missing class agrees with all."""
    a, b = a - {"generic"}, b - {"generic"}
    return not a or not b or bool(a & b)


def numbers_agree(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two questions' numbers can name one entity: those of one all among the other's (a paraphrase
    may drop a year), never 1111 for 111."""
    return a <= b or b <= a
