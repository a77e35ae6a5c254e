"""The contamination check: new questions against a question database (Chinese SimpleQA's step).

The database holds the questions of earlier releases and of any benchmark files the user
registers (CSV with a ``question``, ``problem`` or ``prompt`` column, or JSON lines with such
a key; an ``answer`` column or key is read too: Chinese SimpleQA's files, simple-evals CSVs).
Two questions are compared by what they ask, not by their wording:

* **Forms.** Both are normalised (:func:`filters.normalize.normalize`: NFKC, so full and half
  width are one; OpenCC t2s; lower case; no spaces) and lose their punctuation; fillers go
  (请问 at a clause's start, 吗 at its end), interrogative phrases become their class (哪一年
  and 何时 ask a time) and words of one meaning are written one way (诞生 is 出生); the lists
  are in ``question_words.tsv``. What is left, cut by jieba, are the *content words*; a run of
  single characters (jieba's cut of a name it does not know) is one word. Words weigh their
  inverse document frequency among the registered questions.
* **Blocking.** The registered questions are indexed by content word (a word in more than
  ``max_df`` of them proposes none) and by MinHash LSH over character bigrams of their
  content; a new question is judged against its best few candidates only (embedding
  similarity too), never against every registered question.
* **The rule: entity, relation, answer.** The words two questions share stand for the entity;
  the words only one of them has are its relation. A word counts as shared when the other
  question holds it as text (jieba cuts a reordered clause differently). Question classes
  that disagree (哪一年 and 哪里) never match, nor do questions whose numbers disagree (1111 and
  111: the numbers of one must all be among the other's). Relation words are compared with the
  learned relation-synonym groups (:mod:`builders.relation_groups`, ``relation_groups.tsv``, with
  what the registered questions teach on top): words of one group name one relation (建于 and
  建造年代), one known word against another of no shared group another (出生 and 去世), and words
  in no group leave the pair undecided. Then, best first:

  - ``exact``: the same text once normalised and without punctuation;
  - ``near``: the same canonical form (fillers, question phrases, synonyms), or character
    bigram similarity of at least ``minhash_threshold`` with words left over on one side only;
  - ``paraphrase``: the same content words in any order, whatever the answers (one question
    asked twice); or one question's words all in the other, with agreeing answers or weighing at
    least ``paraphrase_min`` of both (a filler the lists do not know), or holding besides only
    aspect words of the groups (年份 in 成立年份是哪一年);
  - ``same_fact``: each question has words the other lacks, but the answers agree, the entity
    is shared (a new item's head, when its question names it, appears in the registered one; a
    bare question shares an informative word and each question's rarest word, the first of those
    tied, a word no registered question has left out of the new one's) and the shared words weigh at least
    ``same_fact_min`` (a question sharing less asks the fact differently enough: what a rewrite
    aims at); without an answer, an item whose head and relation words all appear in the
    registered question; never when the relation words are known to name two relations;
  - ``synonym``: each question has words the other lacks, all of one relation-synonym group (or
    aspect words: 时间, 年代), the answers not disagreeing and an informative word shared;
  - ``embedding``: cosine similarity of at least ``embedding_min``;
  - ``llm``: with a ``judge`` (an LLM client), an undecided pair (relation words in no group, the
    answers not disagreeing, an informative word shared, at least ``judge_min`` of the weight
    shared) is put to it, the best such candidate per question; it says whether they ask one fact.

  Words left over on both sides without agreeing answers or a shared group are a different fact
  (签订 and 废除, 出生 and 去世) unless the judge says otherwise: no match, however similar the characters or embeddings. Answers that disagree
  also stop a match on words left over on one side. A new question without an answer
  (question-only mode) is matched on its words alone.

A match keeps the registered question it hit, its kind and a similarity, so a reviewer can see
why. With an LLM, :class:`ContaminationRewriter` rewrites a matched question as Chinese SimpleQA
does and keeps the rewrite only when it no longer matches.
"""

from __future__ import annotations

import csv
import heapq
import json
import math
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from filters.dedup import MinHasher, lsh_bands
from filters.embeddings import Embedder
from filters.normalize import is_cjk, normalize, value_key
from filters.text import segmenter
from builders.relation_groups import RelationGroups, learn_from_questions
from schemas.jsonl import JSONLinesError, read_jsonl

QUESTION_KEYS = ("question", "problem", "prompt")
ANSWER_KEYS = ("answer",)
WORDS = Path(__file__).with_name("question_words.tsv")
PROMPTS = Path(__file__).with_name("prompts")
ROLES = ("filler", "question", "synonym", "function")
CLASSES = ("time", "place", "person", "number", "reason", "generic")
_DIGITS = re.compile(r"\d+")
UNDECIDED = "undecided"  # a pair no rule settles: the LLM judge's, when there is one
KINDS = ("exact", "near", "paraphrase", "same_fact", "synonym", "embedding", "llm")  # best first


class ContaminationError(ValueError):
    """A registered question file cannot be read; the message names it and the fix."""


@dataclass(frozen=True)
class Match:
    item_id: str
    matched_id: str
    matched_question: str
    kind: str  # one of KINDS
    similarity: float
    matched_answer: str = ""


@dataclass(frozen=True)
class NewQuestion:
    """A question to check; answer, head (entity) and relation when known."""

    id: str
    question: str
    answer: str = ""
    head: str = ""
    relation: str = ""


def read_question_file(path: Path, answers: bool = False) -> Iterator[tuple[str, ...]]:
    """(id, question) from a CSV or JSON-lines benchmark file, or with ``answers`` (id, question,
    answer), the answer "" when the file has none; ids are "<file name>:<row>"."""
    path = Path(path)
    if not path.is_file():
        raise ContaminationError(f"question file {path} does not exist; fix items.contamination_files")
    name = path.name
    if path.suffix.lower() == ".csv":
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            try:
                key = next((k for k in QUESTION_KEYS if k in (reader.fieldnames or [])), None)
                if key is None:
                    raise ContaminationError(f"{path}: no column named {' or '.join(QUESTION_KEYS)} in the header "
                                             f"{reader.fieldnames}; rename the question column")
                answer_key = next((k for k in ANSWER_KEYS if k in (reader.fieldnames or [])), None)
                for row_number, row in enumerate(reader, 2):
                    if row.get(key):
                        found = (f"{name}:{row_number}", row[key])
                        yield found + ((row.get(answer_key) or "",) if answers else ())
            except UnicodeDecodeError as exc:  # decoded in blocks: the line is not known
                raise ContaminationError(f"{path}: not UTF-8 (byte 0x{exc.object[exc.start]:02x}); "
                                         "save the file as UTF-8") from None
            except csv.Error as exc:  # a field over the csv module's size limit
                raise ContaminationError(f"{path}: not CSV after line {reader.line_num} ({exc})") from None
        return
    if path.suffix.lower() in (".jsonl", ".json"):
        try:
            for line_number, record in read_jsonl(path, hint="one object per line is expected"):
                question = next((record[k] for k in QUESTION_KEYS if k in record), None)
                if question:
                    answer = next((record[k] for k in ANSWER_KEYS if k in record), None)
                    found = (f"{name}:{line_number}", str(question))
                    yield found + (("" if answer is None else str(answer),) if answers else ())
        except JSONLinesError as exc:
            raise ContaminationError(str(exc)) from None
        return
    raise ContaminationError(f"{path}: unknown file type {path.suffix!r}; register a .csv or .jsonl file")


# -- forms ---------------------------------------------------------------------------------


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


@lru_cache(maxsize=1)
def default_relation_groups() -> RelationGroups:
    return RelationGroups.load()


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
                    numbers=frozenset(_DIGITS.findall(key)))


def classes_agree(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two questions' classes can ask one thing: a generic or missing class agrees with all."""
    a, b = a - {"generic"}, b - {"generic"}
    return not a or not b or bool(a & b)




def numbers_agree(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two questions' numbers can name one entity: those of one all among the other's (a paraphrase
    may drop a year), never 1111 for 111."""
    return a <= b or b <= a


def answers_agree(a: str, b: str) -> bool | None:
    """Whether two answer keys (value_key) name one value: equal, the same numbers, or one inside the
    other (1842 and 1842年8月29日); None when either is unknown."""
    if not a or not b:
        return None
    if a == b:
        return True
    digits_a, digits_b = _DIGITS.findall(a), _DIGITS.findall(b)
    if digits_a and digits_a == digits_b:
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= 2 and short in long


# -- the database ------------------------------------------------------------------------------


def _entry(item: Any) -> NewQuestion:
    if isinstance(item, NewQuestion):
        return item
    if len(item) not in (2, 3):
        raise ValueError(f"a question is (id, question) or (id, question, answer), got {item!r}")
    return NewQuestion(str(item[0]), str(item[1]), str(item[2] or "") if len(item) == 3 else "")


class QuestionDatabase:
    """Registered questions, and :meth:`matches` of new ones against them (see the module docstring).

    minhash_threshold: character bigram similarity of a near match; embedding_min: cosine of an
    embedding match; paraphrase_min: the weight shared by a question whose words all occur in the
    other; same_fact_min: the weight two questions of one fact with agreeing answers share (a rewrite
    sharing less asks differently enough); max_df: the share of registered questions above which a
    word (and one in more than 50) proposes no candidates; candidates: how many word-index and how
    many LSH candidates are judged per question; relation_groups: the relation-synonym groups
    (default: builders/relation_groups.tsv), to which the registered questions' own are added; judge: an
    LLM client (verifiers.llm.LLMClient) that settles undecided pairs, counted in ``judge_counts``;
    judge_min: the weight an undecided pair must share to be asked. bench/contamination_bench.py
    measures the defaults on Chinese SimpleQA's 3,000 questions.
    """

    def __init__(self, embedder: Embedder | None, minhash_threshold: float = 0.7, embedding_min: float = 0.95,
                 paraphrase_min: float = 0.75, same_fact_min: float = 0.5, max_df: float = 0.02,
                 candidates: int = 10, words: QuestionWords | None = None,
                 relation_groups: RelationGroups | None = None, judge=None, judge_min: float = 0.3):
        for name, value in (("minhash_threshold", minhash_threshold), ("paraphrase_min", paraphrase_min),
                            ("same_fact_min", same_fact_min), ("max_df", max_df)):
            if not 0 < value < 1:
                raise ValueError(f"{name} must be in (0, 1), got {value}")
        if not 0 < embedding_min <= 1:
            raise ValueError(f"embedding_min must be in (0, 1], got {embedding_min}")
        if candidates < 1:
            raise ValueError(f"candidates must be at least 1, got {candidates}")
        if not 0 <= judge_min < 1:
            raise ValueError(f"judge_min must be in [0, 1), got {judge_min}")
        self.embedder = embedder
        self.minhash_threshold, self.embedding_min = minhash_threshold, embedding_min
        self.paraphrase_min, self.same_fact_min, self.max_df = paraphrase_min, same_fact_min, max_df
        self.candidates = candidates
        self.former = Former(words)
        # The shipped groups, and on top those the registered questions teach (learned in _build).
        self.relation_groups = (relation_groups or default_relation_groups()).copy()
        self._shipped_groups = self.relation_groups.copy()
        self.judge, self.judge_min = judge, judge_min
        self.judge_counts = {"asked": 0, "same": 0, "different": 0, "failed": 0}
        self.learned_groups = 0
        self.ids: list[str] = []
        self.questions: list[str] = []
        self.answers: list[str] = []
        self._forms: list[Form] = []
        self._index: _Index | None = None
        self._vectors: np.ndarray | None = None

    def add(self, questions: Iterable[tuple[str, str] | tuple[str, str, str] | NewQuestion]) -> int:
        """Register (id, question) or (id, question, answer) entries; returns how many."""
        before = len(self.ids)
        for item in questions:
            entry = _entry(item)
            self.ids.append(entry.id)
            self.questions.append(entry.question)
            self.answers.append(entry.answer)
            self._forms.append(self.former.form(entry.question, entry.answer))
        self._index, self._vectors = None, None
        return len(self.ids) - before

    def __len__(self) -> int:
        return len(self.ids)

    def check(self, items: Iterable[Any]) -> dict[str, Match]:
        """item_id -> the best database question it matches, for the items that match one."""
        return {item: found[0] for item, found in self.matches(items, limit=1).items()}

    def matches(self, items: Iterable[Any], limit: int = 3) -> dict[str, list[Match]]:
        """item id -> the registered questions it matches, best first (kind, then similarity), at most
        ``limit``; items are (id, question), (id, question, answer) or :class:`NewQuestion` (an empty
        answer checks the question alone)."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        entries = [_entry(i) for i in items]
        if not self.ids or not entries:
            return {}
        index = self._build()
        out: dict[str, list[Match]] = {}
        undecided: list[tuple[NewQuestion, tuple[float, int]]] = []
        for start in range(0, len(entries), 1_000):  # a chunk's forms and vectors at a time
            chunk = entries[start:start + 1_000]
            forms = [self.former.form(e.question, e.answer, e.head, e.relation) for e in chunk]
            bands = index.band_keys([f.content for f in forms])
            vectors = self.embedder.encode([f.plain for f in forms]) if self.embedder is not None else None
            for n, (entry, form) in enumerate(zip(chunk, forms, strict=True)):
                rows = index.candidates(form, bands[n], self.candidates)
                # Embedding similarity only to the candidates: blocking, not all pairs.
                cosines = (self._registered_vectors()[rows] @ vectors[n]).tolist() \
                    if vectors is not None and rows else [None] * len(rows)
                found, unsettled = [], []
                for row, cosine in zip(rows, cosines, strict=True):
                    verdict = self._judge(form, self._forms[row], index, cosine)
                    if verdict is not None and verdict[0] == UNDECIDED:
                        unsettled.append((verdict[1], row))
                    elif verdict is not None:
                        found.append(Match(entry.id, self.ids[row], self.questions[row], verdict[0],
                                           round(verdict[1], 6), self.answers[row]))
                if found:
                    found.sort(key=lambda m: (KINDS.index(m.kind), -m.similarity, m.matched_id))
                    out[entry.id] = found[:limit]
                elif unsettled:  # the best undecided candidate, for the LLM when there is one
                    undecided.append((entry, max(unsettled, key=lambda u: (u[0], -u[1]))))
        if self.judge is not None and undecided:
            for match in self._ask_judge(undecided):
                out[match.item_id] = [match]
        return out

    def _ask_judge(self, undecided: list[tuple[NewQuestion, tuple[float, int]]]) -> list[Match]:
        """The LLM's verdict on each undecided pair: a match of kind "llm" where it says one fact."""
        from verifiers.llm import Prompt

        def validate(data: Any) -> str:
            return "" if isinstance(data, dict) and isinstance(data.get("same_fact"), bool) \
                else 'expected {"same_fact": true or false}'

        prompt = Prompt.load(PROMPTS / "contamination_judge.txt")
        requests = [prompt.messages(question=entry.question, answer=entry.answer or "（未给出）",
                                    matched=self.questions[row], matched_answer=self.answers[row] or "（未给出）")
                    for entry, (_, row) in undecided]
        self.judge_counts["asked"] += len(requests)
        out = []
        for (entry, (similarity, row)), result in zip(undecided, self.judge.map("contamination_judge", requests,
                                                                                 validate), strict=True):
            if not result.ok:
                self.judge_counts["failed"] += 1
            elif result.data["same_fact"]:
                self.judge_counts["same"] += 1
                out.append(Match(entry.id, self.ids[row], self.questions[row], "llm", round(similarity, 6),
                                 self.answers[row]))
            else:
                self.judge_counts["different"] += 1
        return out

    def _build(self) -> "_Index":
        if self._index is None:
            self._index = _Index(self._forms, self.max_df)
            # What the registered questions teach, on top of the shipped groups (rebuilt with the index).
            self.relation_groups = self._shipped_groups.copy()
            self.learned_groups = learn_from_questions(list(zip(self.ids, self.questions, self.answers)),
                                                       self._forms, self._index, self.relation_groups)
        return self._index

    def _registered_vectors(self) -> np.ndarray:
        if self._vectors is None:
            self._vectors = self.embedder.encode([f.plain for f in self._forms])
        return self._vectors

    def _judge(self, new: Form, old: Form, index: "_Index", cosine: float | None) -> tuple[str, float] | None:
        """(kind, similarity) when ``new`` asks what ``old`` asks, else None (the rule of the module docstring)."""
        if new.key == old.key:
            return "exact", 1.0
        if not classes_agree(new.classes, old.classes) or not numbers_agree(new.numbers, old.numbers):
            return None
        if new.canon == old.canon:
            return "near", 1.0
        agree = answers_agree(new.answer, old.answer)
        shared, total, only_new, only_old, informative = index.overlap(new, old)
        similarity = shared / total if total else 0.0
        if only_new and only_old:  # another wording of the relation, or another relation
            # The entity: the item's head when its question names it (下列哪位人物… asks for the head), else
            # an informative shared word.
            named = bool(new.head) and new.head in new.key
            # Without a head, the rarest word of each question stands for its entity: both must be shared
            # (梁丘穴 and 乳中穴 on one meridian, one answer, are two facts). Of the new question, a word no
            # registered question has is left out: it may be its entity or a relation word (撰写者 for 作者), and
            # the registered question's rarest word, its entity, must be shared anyway.
            # Of words tied for the rarest, the first in the question: the entity comes before its relation
            # (乳中穴属于哪个经脉系统, 东风-41的射程是多少).
            seen = [w for w in new.words if w in index.postings] or list(new.words)
            entity = (new.head in old.key) if named else informative and all(
                max(words, key=lambda w: (index.weight(w), -words.index(w))) not in only
                for words, only in ((seen, only_new), (list(old.words), only_old)) if words)
            # The words left over are the relation's: one group of the learned table is one relation (建于 and
            # 建造年代); known words of no shared group are another (出生 and 去世: a treaty signed and annulled
            # in one year is two facts, agreeing answers or not); others are the LLM's to settle.
            relation, _ = self.relation_groups.compare(only_new, only_old)
            if relation == "different":
                return None
            if agree and entity and similarity >= self.same_fact_min:
                return "same_fact", similarity
            if agree is None and named and entity and new.relation \
                    and all(w in old.words or w in old.content for w in new.relation):
                return "same_fact", similarity
            if agree is False or not informative:
                return None
            if relation == "same":
                return "synonym", similarity
            if relation == "unknown" and similarity >= self.judge_min:
                return UNDECIDED, similarity
            return None
        if not only_new and not only_old:
            return "paraphrase", similarity
        # Words left over on one side only, all aspect words or cut fragments (年份 in 成立年份是哪一年): the same ask.
        if agree is not False and not self.relation_groups.core(only_new or only_old):
            return "paraphrase", similarity
        if agree is False:
            return None
        if agree or similarity >= self.paraphrase_min:  # one holds all the other's words
            return "paraphrase", similarity
        bigrams = len(new.bigrams & old.bigrams) / len(new.bigrams | old.bigrams) if new.bigrams else 0.0
        if bigrams >= self.minhash_threshold:
            return "near", bigrams
        if cosine is not None and cosine >= self.embedding_min:
            return "embedding", cosine
        return None


class _Index:
    """Blocking over the registered forms: exact keys, canonical forms, an inverted index of content
    words and MinHash LSH bands over character bigrams."""

    def __init__(self, forms: list[Form], max_df: float, num_perm: int = 64, lsh_threshold: float = 0.5):
        self.size = len(forms)
        self.by_key: dict[str, list[int]] = defaultdict(list)
        self.postings: dict[str, list[int]] = defaultdict(list)
        for row, form in enumerate(forms):
            self.by_key[form.key].append(row)
            self.by_key["\x00" + form.canon].append(row)
            for word in form.words:
                self.postings[word].append(row)
        self.max_postings = max(50, int(max_df * self.size))
        log_size = math.log(self.size + 1)
        self.idf = {word: log_size - math.log(len(rows) + 1) + 1.0 for word, rows in self.postings.items()}
        self.unseen = log_size + 1.0
        self.hasher = MinHasher(num_perm, "char", n=2, seed=7)
        self.bands, self.rows = lsh_bands(lsh_threshold, num_perm)
        self.buckets: dict[bytes, list[int]] = defaultdict(list)
        for row, keys in enumerate(self.band_keys([f.content for f in forms])):
            for key in keys:
                self.buckets[key].append(row)

    def weight(self, word: str) -> float:
        return self.idf.get(word, self.unseen)

    def informative(self, word: str) -> bool:
        return len(word) >= 2 and len(self.postings.get(word, ())) <= self.max_postings

    def band_keys(self, texts: Sequence[str]) -> list[list[bytes]]:
        """LSH band keys of each text (its MinHash signature over character bigrams, band by band)."""
        signatures = self.hasher.sign([t or "\x1f" for t in texts]) if texts else np.zeros((0, 1), np.uint32)
        width = self.rows * 4
        data = np.ascontiguousarray(signatures[:, :self.bands * self.rows]).tobytes()
        stride = signatures.shape[1] * 4 if len(signatures) else 0
        return [[bytes([band]) + data[row * stride + band * width:row * stride + (band + 1) * width]
                 for band in range(self.bands)] for row in range(len(signatures))]

    def candidates(self, form: Form, bands: list[bytes], top: int) -> list[int]:
        """Registered rows worth judging: the same key or canonical form, the best ``top`` by shared
        word weight and the ``top`` sharing most LSH bands."""
        chosen = dict.fromkeys(self.by_key.get(form.key, []) + self.by_key.get("\x00" + form.canon, []))
        scores: dict[int, float] = defaultdict(float)
        idf = self.idf
        for word in form.words:
            rows = self.postings.get(word)
            if rows and len(rows) <= self.max_postings:
                weight = idf[word]
                for row in rows:
                    scores[row] += weight
        chosen.update(dict.fromkeys(heapq.nlargest(top, scores, key=lambda r: (scores[r], -r))))
        # A bucket of a common shape (X的Y是什么) can be large; its first rows stand for it.
        hits = Counter(row for key in bands for row in self.buckets.get(key, ())[:4 * top])
        chosen.update(dict.fromkeys(heapq.nlargest(top, hits, key=lambda r: (hits[r], -r))))
        return list(chosen)

    def overlap(self, new: Form, old: Form) -> tuple[float, float, list[str], list[str], bool]:
        """(shared weight, total weight, words only new has, words only old has, whether an informative
        word is shared), counting repeated words. A word one side has more often than the other is
        shared when the other holds it as often as text (jieba cuts a reordered clause differently),
        counting it inside longer words too (人口 in 人口学家)."""
        shared = total = 0.0
        only: tuple[list[str], list[str]] = ([], [])
        informative = False
        for side, (this, other) in enumerate(((new, old), (old, new))):
            for word, count in this.words.items():
                both = min(count, other.words.get(word, 0))
                weight = self.weight(word)
                if side == 0 and both:
                    shared += 2 * both * weight
                    total += 2 * both * weight
                    informative = informative or self.informative(word)
                extra = count - both
                if not extra:
                    continue
                total += extra * weight
                if other.content.count(word) >= max(count, this.content.count(word)):
                    shared += extra * weight
                    informative = informative or (side == 0 and self.informative(word))
                else:
                    only[side].append(word)
        return shared, total, only[0], only[1], informative


# -- rewriting a matched question -----------------------------------------------------------------


@dataclass(frozen=True)
class Rewritten:
    question: str
    original_question: str
    match: Match
    llm: str

    def provenance(self) -> dict:
        return {"original_question": self.original_question, "matched_id": self.match.matched_id,
                "matched_question": self.match.matched_question, "kind": self.match.kind,
                "similarity": self.match.similarity, "llm": self.llm}


class ContaminationRewriter:
    """A matched question rewritten by an LLM to ask the same fact in other words, as Chinese SimpleQA
    does with questions too close to public ones. The rewrite is kept only when it names the entity
    (the head), passes the criteria rules (the answer not in it, among them) and no longer matches the
    database; else the item stays matched."""

    def __init__(self, llm, database: QuestionDatabase, max_answer_chars: int = 20):
        from verifiers.llm import Prompt

        self.llm, self.database, self.max_answer_chars = llm, database, max_answer_chars
        self.prompt = Prompt.load(PROMPTS / "contamination_rewrite.txt")
        self.counts = {"asked": 0, "rewritten": 0, "still_matched": 0, "rejected": 0, "failed": 0}

    def rewrite(self, matched: list[tuple[NewQuestion, Match]]) -> dict[str, Rewritten]:
        """item id -> its kept rewrite, for the matched items whose rewrite passed."""
        from builders.criteria import check_question

        def validate(data: Any) -> str:
            return "" if isinstance(data, dict) and isinstance(data.get("question"), str) and data["question"].strip() \
                else 'expected {"question": "..."}'

        self.counts["asked"] += len(matched)
        results = self.llm.map("contamination_rewrite", [self.prompt.messages(
            question=item.question, head=item.head or "（未给出）", relation=item.relation or "（未给出）",
            answer=item.answer or "（未给出）", matched=match.matched_question) for item, match in matched], validate)
        proposed: dict[str, tuple[NewQuestion, Match]] = {}
        for (item, match), result in zip(matched, results, strict=True):
            if not result.ok:
                self.counts["failed"] += 1
                continue
            text = result.data["question"].strip()
            names = bool(item.head) and normalize(item.head) in normalize(text)
            if not names or check_question(text, item.answer, item.relation,
                                           max(self.max_answer_chars, len(item.answer))):
                self.counts["rejected"] += 1
                continue
            proposed[item.id] = (NewQuestion(item.id, text, item.answer, item.head, item.relation), match)
        still = self.database.matches([new for new, _ in proposed.values()], limit=1)
        originals = {item.id: item.question for item, _ in matched}
        out: dict[str, Rewritten] = {}
        for item_id, (new, match) in proposed.items():
            if item_id in still:
                self.counts["still_matched"] += 1
                continue
            out[item_id] = Rewritten(new.question, originals[item_id], match, self.llm.settings.model)
            self.counts["rewritten"] += 1
        return out


def apply_rewrites(items: Iterable[Any], rewrites: dict[str, Rewritten]) -> Iterator[Any]:
    """Items with their kept rewrites: the new question, and the original under the provenance's
    ``contamination_rewrite``."""
    for item in items:
        rewritten = rewrites.get(item.item_id)
        if rewritten is not None:
            provenance = json.loads(item.provenance)
            provenance["contamination_rewrite"] = rewritten.provenance()
            item.question = rewritten.question
            item.provenance = json.dumps(provenance, ensure_ascii=False, sort_keys=True)
        yield item
