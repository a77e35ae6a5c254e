"""Relation-synonym groups for the contamination check: which relation phrases name one relation.

Two questions about one entity ask one fact when their relation phrases mean one relation: 建于 and
建造年代, 出生于 and 诞生. The groups are learned, not listed by hand, from the vocabulary the repository
already ships, and kept as a reviewable table (``relation_groups.tsv``: phrase, group, where it came from)
that :class:`RelationGroups` loads. Regenerate it after editing a source:

    .venv/bin/python -m builders.relation_groups            # rewrites builders/relation_groups.tsv
    .venv/bin/python -m builders.relation_groups --check    # exit 1 when the shipped table is stale

Learned from (each line of the table names its source file and line):

* **relation names** (``filters/relation_aliases.tsv``, ``filters/relation_cues.tsv``,
  ``question_templates.tsv``): each canonical relation is a group holding its name, its aliases (出生时间
  for 出生日期) and its name less an aspect word (出生 for 出生日期);
* **aspect words**, group ``-``: the last two characters of at least ``ASPECT_MIN`` relation names (时间,
  日期, 地点) and the words templates ask right after a question word (什么年代, 哪个朝代). They say which
  side of a relation is asked, not which relation: beside a relation word they are ignored;
* **relation cues** (``filters/relation_cues.tsv``, classes expanded): a cue word joins its relation's
  group when it is anchored to the relation's name, sharing a character with the name, an alias or an
  anchored cue of the line (建于, 建造 and 修建 for 始建时间; not 改进 for 发明者, nor 结束 for 时间);
* **question templates** (``question_templates.tsv``, tail templates): the content words of a template,
  anchored in the same way (修建 in 「最早是何时开始修建的」 for 始建时间);
* **word lists** (``question_words.tsv``): a phrase the lists write one way (始建 is 创立) joins the groups
  of its canonical word, as the matcher sees it.

At registration, :func:`learn_from_questions` adds groups from the registered questions themselves: two
of them with one answer and one entity but different relation words tell that those words name one
relation (射程 and 能打多远 of one missile).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from builders.question_forms import Former, QuestionWords, classes_agree
from filters.normalize import is_cjk, normalize
from filters.text import segmenter, tagger

ROOT = Path(__file__).resolve().parents[1]
TABLE = Path(__file__).with_name("relation_groups.tsv")
ALIASES = ROOT / "filters" / "relation_aliases.tsv"
CUES = ROOT / "filters" / "relation_cues.tsv"
TEMPLATES = Path(__file__).with_name("question_templates.tsv")
WORDS = Path(__file__).with_name("question_words.tsv")
ASPECT = "-"  # the group of aspect words
PAGES = ("crawlers/mirror/facts/*.jsonl", "bench/data/real_baike/summaries.jsonl")
TOGETHER_MIN = 2  # relations two cue words must both be listed for to be one group's
ENTITY_MAX_DF = 3  # registered questions a word two of them share may be in to stand for their entity
ASPECT_MIN = 4  # relation names an ending must close to be an aspect word (时间 closes 40, 国家 4, 思想 3)
_PLACEHOLDER = re.compile(r"\{(?:head|sense|tail)\}")


class RelationGroupsError(ValueError):
    """The relation-group table cannot be read; the message names the file, the line and the fix."""


@dataclass(frozen=True)
class Entry:
    phrase: str
    group: str
    source: str


def _rel(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def _lines(path: Path) -> Iterable[tuple[int, list[str]]]:
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield number, line.split("\t")


def _chinese(word: str) -> bool:
    return len(word) >= 2 and all(is_cjk(ch) for ch in word)


def _noun(word: str) -> bool:
    """Whether jieba tags the word a noun or a time word (朝代, 年代; not 命名, 影响)."""
    tags = [flag for _, flag in tagger().cut(word, HMM=False)]
    return len(tags) == 1 and tags[0].startswith(("n", "t"))


def _anchored(seeds: Iterable[str], words: list[str]) -> list[str]:
    """The words reached from the seeds by sharing a character, in order (a closure over the line)."""
    chars = set("".join(seeds))
    kept: list[str] = []
    grew = True
    while grew:
        grew = False
        for word in words:
            if word not in kept and chars & set(word):
                kept.append(word)
                chars |= set(word)
                grew = True
    return [w for w in words if w in kept]


def page_cues() -> dict[str, list[tuple[str, int, float]]]:
    """Cues filters/cues_learned.py learns from the pages the repository ships (PAGES: the mirror's facts and
    real Baike summaries): words standing next to an infobox value of one relation on several pages."""
    import json

    from filters.cues_learned import CueLearner

    learner = CueLearner()
    for name in PAGES:
        for path in sorted(ROOT.glob(name)):
            for line in path.read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                record = json.loads(line)
                text = "\n".join([record.get("summary", "")] + [p for section in record.get("sections", [])
                                                                for p in section.get("paragraphs", [])])
                learner.add(text, [tuple(pair) for pair in record.get("infobox", [])],
                            [record.get("title") or record.get("name") or ""])
    return learner.cues()


def learn(aliases: Path = ALIASES, cues: Path = CUES, templates: Path = TEMPLATES, words: Path = WORDS,
          learned_cues: dict[str, list[tuple[str, int, float]]] | None = None) -> list[Entry]:
    """The table's entries learned from the shipped vocabulary (see the module docstring)."""
    lists = QuestionWords.load(words)
    former = Former(lists)

    def content(text: str) -> list[str]:
        """Content words of a phrase as written (fillers, question words, function words out; 首次 stays 首次:
        the word lists' canonical forms are added below)."""
        out = []
        for clause in former._clauses(normalize(text)):
            for fragment in former._question.split(clause):
                out.extend(w for w in segmenter().cut(fragment, HMM=False) if _chinese(w) and w not in lists.function)
        return out

    def usable(word: str) -> bool:
        return _chinese(word) and lists.word(word) not in ("-",) and not lists.word(word).startswith("?")

    entries: dict[tuple[str, str], str] = {}

    def add(phrase: str, group: str, source: str) -> None:
        phrase = normalize(phrase)
        if phrase and (phrase, group) not in entries:
            entries[(phrase, group)] = source

    # Relation names, their aliases.
    names: dict[str, str] = {}  # relation name -> first source
    alias_of: dict[str, list[str]] = defaultdict(list)
    canonical: dict[str, str] = {}  # alias -> its relation: an alias's lines are its relation's
    for number, parts in _lines(aliases):
        if len(parts) != 2:
            raise RelationGroupsError(f"{aliases}:{number}: expected <alias> TAB <canonical>")
        alias_of[parts[1].strip()].append(parts[0].strip())
        canonical[parts[0].strip()] = parts[1].strip()
        names.setdefault(parts[1].strip(), f"{_rel(aliases)}:{number}")
    cue_lines: dict[str, list[tuple[int, list[str]]]] = defaultdict(list)
    classes: dict[str, list[str]] = {}
    for number, parts in _lines(cues):
        if len(parts) != 2:
            continue  # filters/grounding.py reads and checks this table
        name, tokens = parts[0].strip(), parts[1].split()
        if name.startswith("$"):
            classes[name] = tokens
        else:
            name = canonical.get(name, name)
            cue_lines[name].append((number, tokens))
            names.setdefault(name, f"{_rel(cues)}:{number}")
    template_lines: dict[str, list[tuple[int, str]]] = defaultdict(list)
    aspects: dict[str, str] = {}
    for number, parts in _lines(templates):
        if len(parts) != 3:
            continue  # builders/templates.py reads and checks this table
        relation, ask, template = (p.strip() for p in parts)
        relation = canonical.get(relation, relation)
        names.setdefault(relation, f"{_rel(templates)}:{number}")
        text = _PLACEHOLDER.sub("，", template)
        for found in former._question.finditer(normalize(text)):  # 什么年代, 哪个朝代: the asked aspect
            after = normalize(text)[found.end():]
            noun = re.match(r"(\w{2})(?:的|？|\?|$)", after)
            if ask == "tail" and noun and lists.questions[found.group(0)] == "generic" and len(found.group(0)) > 1 \
                    and usable(noun.group(1)) and _noun(noun.group(1)):
                aspects.setdefault(noun.group(1), f"{_rel(templates)}:{number} (asked after {found.group(0)})")
        if ask == "tail":
            template_lines[relation].append((number, text))

    # Aspect words: the noun of a question phrase (什么年份, 哪个世纪), endings many relation names share.
    for number, parts in _lines(words):
        if len(parts) == 3 and parts[1] == "question":
            phrase = normalize(parts[0].strip())
            for generic in sorted((p for p, c in lists.questions.items() if c == "generic" and len(p) > 1), key=len,
                                  reverse=True):
                noun = phrase[len(generic):]
                if phrase.startswith(generic) and len(noun) == 2 and _noun(noun):
                    aspects.setdefault(noun, f"{_rel(words)}:{number} (the noun of {phrase})")
                    break
    endings: dict[str, set[str]] = defaultdict(set)
    for name in list(names) + [a for group in alias_of.values() for a in group]:
        if len(name) > 2:
            endings[name[-2:]].add(name[:-2])
    for ending, stems in sorted(endings.items()):
        if len(stems) >= ASPECT_MIN and _chinese(ending):
            aspects.setdefault(ending, f"relation names ending in it: {len(stems)}")
    for word, source in sorted(aspects.items()):
        add(word, ASPECT, source)

    def stem(name: str) -> str:
        return name[:-2] if len(name) > 2 and name[-2:] in aspects else ""

    # Modifiers: the first two characters of at least ASPECT_MIN relation names (主要 of 主要作品, 主要成就 ...):
    # they do not say which relation, so they anchor no word (主演 is no word of 主要作品).
    starts: dict[str, set[str]] = defaultdict(set)
    for name in list(names) + [a for group in alias_of.values() for a in group]:
        if len(name) > 2:
            starts[name[:2]].add(name[2:])
    modifiers = {start for start, rests in starts.items() if len(rests) >= ASPECT_MIN and _chinese(start)}

    def core(name: str) -> str:
        """The name less its aspect word and its modifier: what anchors the relation's words."""
        name = stem(name) or name
        return name[2:] if len(name) > 2 and name[:2] in modifiers else name

    # Each relation's candidate words and where each came from: its cue line, its templates, the cues the
    # shipped pages teach (filters/cues_learned.py).
    candidates: dict[str, dict[str, str]] = defaultdict(dict)
    # A class's words ($name: 又名, 别称 ...) stand in many lines for what surrounds a relation, not for it: like
    # a cue learned from pages (作曲家 next to a nationality), such a word must share a character with the
    # relation's own name, never be reached through the line's other words.
    loose: dict[str, dict[str, str]] = defaultdict(dict)
    for relation, lines in cue_lines.items():
        for number, tokens in lines:
            for token in tokens:
                for word in classes.get(token, [token]):
                    word = normalize(word[1:] if word[:1] in "<>" else word)
                    if not word.startswith(("@", "$")) and usable(word):
                        (loose if token in classes else candidates)[relation].setdefault(
                            word, f"{_rel(cues)}:{number}")
    for relation, lines in template_lines.items():
        for number, text in lines:
            for word in content(text):
                if usable(word) and word not in aspects:
                    candidates[relation].setdefault(word, f"{_rel(templates)}:{number}")
    for relation, found in (learned_cues if learned_cues is not None else page_cues()).items():
        relation = canonical.get(relation, relation)
        for cue, support, share in found:
            word = normalize(cue[1:])
            if usable(word) and word not in aspects:
                loose[relation].setdefault(word, f"filters/cues_learned.py over {', '.join(PAGES)} "
                                                 f"({cue}: {support} pages, share {share:.2f})")
    # Two words listed together for two relations or more say one thing (出版 and 刊行 for 出版时间 and
    # 出版社); a pair listed for one relation only may be opposites (发明 and 改进, 开始 and 结束).
    together: dict[tuple[str, str], int] = defaultdict(int)
    for relation in candidates:  # a class's words are listed together wherever it stands: they do not count
        ordered = sorted(candidates[relation])
        for i, a in enumerate(ordered):
            for b in ordered[i + 1:]:
                together[(a, b)] += 1

    for relation in sorted(names):
        own = [relation] + alias_of.get(relation, [])
        for name in own:
            add(name, relation, names[relation] if name == relation else f"{_rel(aliases)} (alias)")
            if _chinese(stem(name)) and usable(stem(name)):
                add(stem(name), relation, f"{names[relation]} (the name less its aspect word)")
        seeds = [core(n) for n in own]
        found = dict(candidates.get(relation, {}))
        anchored = _anchored(seeds, list(found))
        for word, source in loose.get(relation, {}).items():
            if word not in anchored and set(word) & set("".join(seeds)):
                found[word] = source
                anchored.append(word)
            found.setdefault(word, source)
        for word in anchored:
            add(word, relation, found[word])
        for word in found:
            partners = [a for a in anchored if together[tuple(sorted((a, word)))] >= TOGETHER_MIN]
            if word not in anchored and partners:
                add(word, relation, f"{found[word]} (listed with {partners[0]} for "
                                    f"{together[tuple(sorted((partners[0], word)))]} relations)")

    # The word lists write some words one way, and the matcher sees that way: a phrase joins the groups of its
    # canonical word (诞生 those of 出生), and the canonical word joins the phrase's groups only where it has
    # none of its own (第一次 for 首次; not 出生 for 诞生, which $found lists for a founding).
    by_phrase: dict[str, list[str]] = defaultdict(list)
    for (phrase, group) in entries:
        if group != ASPECT:
            by_phrase[phrase].append(group)
    for number, parts in _lines(words):
        if len(parts) == 3 and parts[1] == "synonym":
            phrase, canonical = normalize(parts[0].strip()), normalize(parts[2].strip())
            for group in by_phrase.get(canonical, []):
                add(phrase, group, f"{_rel(words)}:{number}")
            if not by_phrase.get(canonical):
                for group in by_phrase.get(phrase, []):
                    add(canonical, group, f"{_rel(words)}:{number}")
    return [Entry(p, g, s) for (p, g), s in sorted(entries.items(), key=lambda kv: (kv[0][1], kv[0][0]))]


HEADER = """# Relation-synonym groups for the contamination check (builders/relation_groups.py): phrases of one group
# name one relation, so two questions about one entity whose relation phrases share a group ask one fact.
# LEARNED, not hand-listed: regenerate with `.venv/bin/python -m builders.relation_groups` after editing a
# source (the third column names it, file:line). To review: strike a wrong phrase at its source (the cue or
# template line), not here; a hand edit here is lost at the next regeneration.
# Group "-": aspect words (时间, 日期, 年代), ignored beside a relation word of a shared group.
# phrase	group	source
"""


def write(entries: list[Entry], path: Path = TABLE) -> Path:
    path = Path(path)
    path.write_text(HEADER + "".join(f"{e.phrase}\t{e.group}\t{e.source}\n" for e in entries), encoding="utf-8")
    return path


class RelationGroups:
    """The groups of a table, and :meth:`compare` of two questions' relation words."""

    def __init__(self, entries: Iterable[Entry] = ()):
        self.groups: dict[str, set[str]] = defaultdict(set)  # phrase -> groups
        self._of: dict[str, frozenset[str]] = {}
        self._prefixes: dict[str, set[str]] | None = None
        self.aspects: set[str] = set()
        self.sources: dict[tuple[str, str], str] = {}
        for entry in entries:
            self.add(entry)

    def add(self, entry: Entry) -> None:
        phrase = normalize(entry.phrase)
        self._of.clear()
        self._prefixes = None
        if entry.group == ASPECT:
            self.aspects.add(phrase)
        else:
            self.groups[phrase].add(entry.group)
        self.sources.setdefault((phrase, entry.group), entry.source)

    def __len__(self) -> int:
        return len({g for gs in self.groups.values() for g in gs})

    @classmethod
    def load(cls, path: Path = TABLE) -> "RelationGroups":
        entries = []
        path = Path(path)
        if not path.is_file():
            raise RelationGroupsError(f"relation-group table {path} does not exist; "
                                      "regenerate it with `python -m builders.relation_groups`")
        for number, parts in _lines(path):
            if len(parts) != 3 or not all(p.strip() for p in parts):
                raise RelationGroupsError(f"{path}:{number}: expected <phrase> TAB <group> TAB <source>, got "
                                          f"{len(parts)} field(s); regenerate the table with "
                                          "`python -m builders.relation_groups`")
            entries.append(Entry(parts[0].strip(), parts[1].strip(), parts[2].strip()))
        return cls(entries)

    def of(self, word: str) -> frozenset[str]:
        """The groups of one content word: a phrase it is, begins with one character more (始建 of 始建于) or
        begins (建造 of 建造年代). Not any phrase inside it: 大学 says nothing of 北京大学, nor 年份 of 出生年份."""
        cached = self._of.get(word)
        if cached is not None:
            return cached
        if self._prefixes is None:  # the groups of every phrase under each of its beginnings
            self._prefixes = defaultdict(set)
            for phrase, groups in self.groups.items():
                for end in range(2, len(phrase) + 1):
                    self._prefixes[phrase[:end]] |= groups
        found = set(self.groups.get(word, ()))
        if len(word) >= 2:
            found |= self._prefixes.get(word, set())
            if len(word) >= 3:
                found |= self.groups.get(word[:-1], set())
        self._of[word] = frozenset(found)
        return self._of[word]

    def copy(self) -> "RelationGroups":
        other = RelationGroups()
        other._of, other._prefixes = {}, None
        other.groups = defaultdict(set, {p: set(g) for p, g in self.groups.items()})
        other.aspects, other.sources = set(self.aspects), dict(self.sources)
        return other

    def core(self, words: Iterable[str]) -> list[str]:
        """The relation words of a side: not aspect words, nor one character of another word (出 of 出/生于)."""
        words = list(words)
        return [w for w in words if w not in self.aspects
                and not (len(w) == 1 and any(w in other for other in words if other != w))]

    def compare(self, a: Iterable[str], b: Iterable[str]) -> tuple[str, str]:
        """("same", group) when the relation words of two questions (the words only one of them has) name
        one relation: every word of each side not an aspect word is in one shared group, each side having
        one; ("different", "") when each side has one such word, both known, of no shared group; ("unknown", "")
        otherwise (for an LLM to settle)."""
        core_a, core_b = self.core(a), self.core(b)
        if not core_a or not core_b:
            return "unknown", ""
        groups = [self.of(w) for w in core_a + core_b]
        if not all(groups):
            return "unknown", ""
        shared = frozenset.intersection(*groups)
        if shared:
            return "same", min(shared)
        # One known word against another of no shared group (出生, 去世) is another relation; more words may
        # compose one (首播 and 首次 + 播出): unknown.
        return ("different", "") if len(core_a) == len(core_b) == 1 else ("unknown", "")


def learn_from_questions(rows: list[tuple[str, str, str]], forms, index, groups: RelationGroups) -> int:
    """Add to ``groups`` what registered questions tell: two with one answer, sharing their entity and their
    numbers, whose words differ on both sides name one relation with those words. rows: (id, question,
    answer); forms and index: the contamination check's (builders.contamination). Returns groups added."""
    by_answer: dict[str, list[int]] = defaultdict(list)
    for row, form in enumerate(forms):
        if form.answer and len(form.answer) >= 1:
            by_answer[form.answer].append(row)
    added = 0
    for rows_of in by_answer.values():
        if not 1 < len(rows_of) <= 20:  # a common answer (是, 1) ties no entity
            continue
        for i, a in enumerate(rows_of):  # one answer written one way (value_key): 1540辆 and 1540辆
            for b in rows_of[i + 1:]:
                fa, fb = forms[a], forms[b]
                if fa.key == fb.key or fa.numbers != fb.numbers or not classes_agree(fa.classes, fb.classes):
                    continue
                _, _, only_a, only_b, informative = index.overlap(fa, fb)
                core_a = [w for w in groups.core(only_a) if all(is_cjk(ch) for ch in w)]
                core_b = [w for w in groups.core(only_b) if all(is_cjk(ch) for ch in w)]
                if not (informative and core_a and core_b) or groups.compare(only_a, only_b)[0] != "unknown":
                    continue
                # The entity: a word both share that few other questions have (巨浪 of 巨浪-2; not 经脉, which
                # 梁丘穴 and 乳中穴 share). Their relation words are rarer still: each is in one of the two only.
                shared = [w for w in fa.words if w in fb.words and len(w) >= 2]
                if not shared or min(len(index.postings.get(w, ())) for w in shared) > ENTITY_MAX_DF:
                    continue
                name = f"registered:{rows[a][0]}~{rows[b][0]}"
                for word in core_a + core_b:
                    groups.add(Entry(word, name, f"{rows[a][0]} and {rows[b][0]}: one answer, one entity"))
                added += 1
    return added


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Learn the relation-synonym table from the shipped vocabulary.",
                                     epilog="example: .venv/bin/python -m builders.relation_groups --check")
    parser.add_argument("--out", type=Path, default=TABLE, help=f"table to write (default {_rel(TABLE)})")
    parser.add_argument("--check", action="store_true", help="only say whether the table is up to date")
    args = parser.parse_args(argv)
    entries = learn()
    text = HEADER + "".join(f"{e.phrase}\t{e.group}\t{e.source}\n" for e in entries)
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.is_file() else ""
        if current != text:
            print(f"{args.out} is stale; regenerate it with `python -m builders.relation_groups`", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date ({len(entries)} phrases)")
        return 0
    write(entries, args.out)
    groups = RelationGroups(entries)
    print(f"wrote {args.out}: {len(entries)} phrases in {len(groups)} groups, {len(groups.aspects)} aspect words")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
