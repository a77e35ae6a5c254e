"""Value families: values of which one being a right answer makes another right too, so that no multiple-choice
item offers a second right answer (歌德 is a 作家, and a 诗人 too; 张衡 a 天文学家, and a 科学家).

The family of a value, for a relation, is:

* the value itself and its other names (``same_as``: 史学家 and 历史学家);
* the tree it stands in (``is_a``): from the top of each tree the value is a kind of, every kind below it (诗人 ⊂
  作家 ⊂ 文学家: a 诗人 gold keeps out 作家 and 文学家, which its entity is too, and 小说家 and 剧作家, which one who
  writes often is as well: 歌德 is a 作家, a 诗人 and a 小说家; 物理学家 ⊂ 科学家 ⊂ 学者 keeps out 数学家, 哲学家 and
  史学家: 牛顿 was a 数学家 and a natural 哲学家);
* the kinds it is and the kinds of it (``kind_of``), for kinds that exclude each other: 章回体长篇小说 ⊂ 长篇小说 ⊂ 小说
  keeps out 长篇小说 and 小说 for a 章回体长篇小说 gold, and 章回体历史演义小说 for a 长篇小说 one, but not 中篇小说, its
  sibling, which no 长篇小说 is (nor, by the compound rule, any other kind of an ancestor);
* the values that describe one entity together (``near``) and their trees: written in the reviewable table, or
  learned from the
  crawl for a relation that takes several values per entity (builders.graph.Graph.multi_valued): two values are
  near when entities have both (in an infobox, or listed together in a page's text, 「思想家、政治家」) on at least
  ``NEAR_MIN_ENTITIES`` entities or on at least ``NEAR_MIN_SHARE`` of the entities of the rarer one.

The table (``value_families.tsv``) is seeded by hand; each run writes it with what it learned to
``rules/value_families.tsv`` in its work directory, and the audit learns the same from the crawl the release came
from.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from filters.normalize import value_key

TABLE = Path(__file__).with_name("value_families.tsv")
LINKS = ("is_a", "kind_of", "same_as", "near")
# Two values are near for a relation when they describe at least this many entities together, or at least this
# share of the entities of the rarer one (our choice: one entity in five is more than chance for descriptions
# drawn from a few dozen values; a pair of values no page gives together is never near).
NEAR_MIN_ENTITIES = 2
NEAR_MIN_SHARE = 0.2


class FamilyTableError(ValueError):
    """The value families table is malformed; the message names the file and the line."""


@dataclass(frozen=True)
class Link:
    value: str
    link: str
    other: str
    source: str
    relation: str = ""  # for a learned near link: the relation whose values they are ("" for every relation)


def load_table(path: Path | None = None) -> list[Link]:
    """The links of a families table (``value<TAB>link<TAB>other<TAB>source[<TAB>relation]``)."""
    path = Path(path) if path is not None else TABLE
    links: list[Link] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) not in (4, 5) or not cells[0].strip() or not cells[2].strip():
            raise FamilyTableError(f"{path}:{number}: expected value<TAB>link<TAB>other<TAB>source, got {line!r}")
        if cells[1] not in LINKS:
            raise FamilyTableError(f"{path}:{number}: link {cells[1]!r} is not one of {', '.join(LINKS)}")
        links.append(Link(cells[0].strip(), cells[1], cells[2].strip(), cells[3].strip(),
                          cells[4].strip() if len(cells) == 5 else ""))
    return links


@dataclass
class Families:
    """The family of each value (see the module docstring), from a table's links and the ones a crawl teaches."""

    links: list[Link] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._same: dict[str, set[str]] = defaultdict(set)
        self._up: dict[str, set[str]] = defaultdict(set)
        self._down: dict[str, set[str]] = defaultdict(set)
        self._kind_up: dict[str, set[str]] = defaultdict(set)  # kind_of: value -> the kinds it is
        self._kind_down: dict[str, set[str]] = defaultdict(set)
        self._near: dict[tuple[str, str], set[str]] = defaultdict(set)  # (relation or "", value key) -> near keys
        for link in self.links:
            self._add(link)
        self._known = {*self._same, *self._up, *self._down, *self._kind_up, *self._kind_down,
                       *(k for _, k in self._near)}
        self._cache: dict[tuple[str, str], frozenset[str]] = {}

    @classmethod
    def load(cls, path: Path | None = None, learned: Iterable[Link] = ()) -> "Families":
        return cls([*load_table(path), *learned])

    def _add(self, link: Link) -> None:
        a, b = value_key(link.value), value_key(link.other)
        if not a or not b or a == b:
            return
        if link.link == "same_as":
            self._same[a].add(b)
            self._same[b].add(a)
        elif link.link == "is_a":
            self._up[a].add(b)
            self._down[b].add(a)
        elif link.link == "kind_of":
            self._kind_up[a].add(b)
            self._kind_down[b].add(a)
        else:
            self._near[(link.relation, a)].add(b)
            self._near[(link.relation, b)].add(a)

    def _head(self, key: str) -> str:
        """The longest value of the links that ends ``key`` (a Chinese compound is a kind of its last word: 核物理学家
        of 物理学家, 杂剧作家 of 作家), or ""."""
        for start in range(1, len(key) - 1):
            if key[start:] in self._known:
                return key[start:]
        return ""

    def names(self, value: str) -> frozenset[str]:
        """Value keys of the value's names: itself and its same_as, followed."""
        return frozenset(self._names(value_key(value)))

    def _names(self, key: str) -> set[str]:
        """The key and its other names (same_as, followed)."""
        found, todo = {key}, [key]
        while todo:
            for other in self._same.get(todo.pop(), ()):
                if other not in found:
                    found.add(other)
                    todo.append(other)
        return found

    def _walk(self, keys: set[str], step: dict[str, set[str]]) -> set[str]:
        found, todo = set(keys), list(keys)
        while todo:
            for other in step.get(todo.pop(), ()):
                for name in self._names(other):
                    if name not in found:
                        found.add(name)
                        todo.append(name)
        return found

    def family(self, value: str, relation: str = "") -> frozenset[str]:
        """Value keys of the family of ``value`` for ``relation`` (itself included): its names, and every value of
        the trees it and the values near it stand in (from the top of each tree down)."""
        key = value_key(value)
        cached = self._cache.get((relation, key))
        if cached is not None:
            return cached
        names = self._names(key)
        head = self._head(key) if not self._up.get(key) else ""
        up = self._walk(names | self._names(head) if head else names, self._up)
        near: set[str] = set()
        for name in up:  # near to it, or to what it is a kind of
            near |= self._near.get(("", name), set()) | self._near.get((relation, name), set())
        found = set(names) | self._walk(names, self._kind_up) | self._walk(names, self._kind_down)
        for start in (names | ({head} if head else set()), *({n} for n in near)):
            tops = {k for k in self._walk(self._names_of(start), self._up) if not self._up.get(k)}
            found |= self._walk(tops | self._names_of(start), self._down)
        result = self._cache[(relation, key)] = frozenset(found)
        return result

    def _names_of(self, keys: set[str]) -> set[str]:
        found: set[str] = set()
        for key in keys:
            found |= self._names(key)
        return found

    def related(self, value: str, others: Iterable[str], relation: str = "") -> str:
        """The first of ``others`` whose family holds ``value`` or the value it is a kind of by its last word (or
        "": none does)."""
        key = value_key(value)
        head = self._head(key) if not self._up.get(key) else ""
        for other in others:
            if other:
                family = self.family(other, relation)
                if key in family or (head in family and head not in self._kinds_above(other)):
                    return other
        return ""

    def _kinds_above(self, value: str) -> set[str]:
        """The kinds ``value`` is by kind_of links (长篇小说 and 小说 for 章回体长篇小说): a compound of one of them is
        a sibling kind (中篇小说 of 小说), no family."""
        names = self._names(value_key(value))
        return self._walk(names, self._kind_up) - names

    def rows(self) -> Iterator[tuple[str, str, str, str, str]]:
        """Every link as a table row (value, link, other, source, relation), in the table's order."""
        for link in self.links:
            yield link.value, link.link, link.other, link.source, link.relation


def learn_near(described: Iterable[tuple[str, str, Iterable[str]]], min_entities: int = NEAR_MIN_ENTITIES,
               min_share: float = NEAR_MIN_SHARE) -> list[Link]:
    """Near links from (entity, relation, values its pages give it together for the relation), an entity's rows
    for one relation taken together; see the module docstring. Each link's source says on how many entities the
    two were seen together, of the entities of the rarer."""
    per: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)  # (entity, relation) -> value key -> value
    for entity, relation, given in described:
        keys = per[(entity, relation)]
        for value in given:
            key = value_key(value)
            if key:
                keys.setdefault(key, value)
    values: dict[str, Counter] = defaultdict(Counter)  # relation -> value key -> entities
    together: dict[str, Counter] = defaultdict(Counter)  # relation -> (a, b) -> entities
    shown: dict[tuple[str, str], str] = {}  # (relation, key) -> the value as first written
    for (_, relation), keys in sorted(per.items()):
        for key, value in keys.items():
            values[relation][key] += 1
            shown.setdefault((relation, key), value)
        for a, b in itertools.combinations(sorted(keys), 2):
            together[relation][(a, b)] += 1
    links: list[Link] = []
    for relation in sorted(together):
        for (a, b), n in sorted(together[relation].items()):
            rarer = min(values[relation][a], values[relation][b])
            if n >= min_entities or n >= min_share * rarer:
                links.append(Link(shown[(relation, a)], "near", shown[(relation, b)],
                                  f"crawl: {n} of {rarer} entities", relation))
    return links


def descriptions(facts: Iterable[tuple[str, str, list[str]]], texts, listed: set[str],
                 batch: int = 500) -> Iterator[tuple[str, str, list[str]]]:
    """(entity, relation, values): the values an entity's infobox gives for a relation (``facts``: (entity, relation,
    values), the entity named ``title#sense``), and, for the relations of ``listed`` (those that take several values
    per entity) with ``texts`` (titles -> their page texts, builders.graph.Graph.page_texts), each value of the
    relation's vocabulary its pages list together with one of those (「东汉杰出的天文学家、数学家、发明家和文学家」
    describes 张衡 by four 职业)."""
    from filters.enumerations import coordinated
    from filters.normalize import normalize, value_forms

    vocabulary: dict[str, set[str]] = defaultdict(set)
    rows: list[tuple[str, str, list[str]]] = []
    for entity, relation, tails in facts:
        if relation in listed and texts is not None:
            vocabulary[relation].update(tails)
            rows.append((entity, relation, tails))
        else:
            yield entity, relation, tails
    forms = {relation: {v: value_forms(v) for v in sorted(vs)} for relation, vs in vocabulary.items()}
    for start in range(0, len(rows), batch):
        part = rows[start:start + batch]
        pages = texts(sorted({_title(entity) for entity, _, _ in part}))
        plain = {title: normalize("\n".join(found)) for title, found in pages.items()}
        for entity, relation, tails in part:
            found = list(tails)
            text = plain.get(_title(entity), "")
            if text:
                anchors = [value_forms(t) for t in tails]
                for value, written in forms[relation].items():
                    if value in tails or not any(f in text for f in written):
                        continue
                    if any(coordinated(text, anchor, written) for anchor in anchors):
                        found.append(value)
            yield entity, relation, found


# A relation takes several values per entity when at least this share of its entities, among at least MULTI_MIN
# of them, have two (builders.graph.Graph.multi_valued, read here from the pages).
MULTI_SHARE = 0.2
MULTI_MIN = 5
PAGE_COLUMNS = ("url", "status", "title", "subtitle", "infobox", "summary", "paragraphs")


def crawl_families(page_shards: list[Path], table: Path | None = None) -> Families:
    """The table's families with the near links the crawl's pages teach: every page's infobox, and for the
    relations that take several values per entity, what its text lists with them (:func:`descriptions`). Read from
    the pages alone, so the item stage and the audit of its release learn the same links from the same crawl."""
    from filters.triples import NAME_RELATIONS, extract_triples, relation_aliases
    from schemas import Page
    from schemas.storage.shards import iter_records

    aliases = relation_aliases()
    grouped: dict[tuple[str, str], dict[str, None]] = defaultdict(dict)
    for page in iter_records(page_shards, Page, columns=("url", "status", "title", "subtitle", "infobox")):
        if page.status != "ok":
            continue
        for t in extract_triples(page, aliases):
            if t.relation not in NAME_RELATIONS and t.tail:
                grouped[(f"{page.title}#{page.subtitle}", t.relation)][t.tail] = None
    entities: Counter = Counter()
    several: Counter = Counter()
    for (_, relation), tails in grouped.items():
        entities[relation] += 1
        several[relation] += len(tails) > 1
    listed = {r for r, n in entities.items() if n >= MULTI_MIN and several[r] >= MULTI_SHARE * n}
    wanted = {_title(entity) for entity, relation in grouped if relation in listed}

    def texts(titles: list[str]) -> dict[str, list[str]]:
        return {t: found[t] for t in titles if t in found}

    found: dict[str, list[str]] = defaultdict(list)
    if wanted:
        for page in iter_records(page_shards, Page, columns=PAGE_COLUMNS):
            if page.status == "ok" and page.title in wanted:
                found[page.title].append("\n".join([page.summary, *page.paragraphs]))
    facts = ((entity, relation, list(tails)) for (entity, relation), tails in sorted(grouped.items()))
    return Families.load(table, learned=learn_near(descriptions(facts, texts if found else None, listed,
                                                                batch=10**9)))


def _title(entity: str) -> str:
    return entity.rpartition("#")[0] if "#" in entity else entity


def write_table(families: Families, path: Path) -> None:
    """The families' links as a table in the seed's format, each learned link with its relation."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# Value families of this run: the table builders/value_families.tsv and the near links learned from "
             "the crawl (builders/families.py)", "# value\tlink\tother\tsource\trelation"]
    lines += ["\t".join(row) for row in families.rows()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
