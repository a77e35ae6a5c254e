"""What kind of thing a value is, so that a distractor is a wrong answer of the gold's kind.

CDTP (Appendix C.2) picks distractors that keep "entity-type consistency": ten
options of one kind, none of which can be ruled out by what it is. A value's type is
read, in this order, from:

1. its format, when that says what it is: dates, periods, years, quantities (with their
   unit), numbers, formulas and codes (:mod:`builders.formats`; a quantity gets quantities
   of its unit at a similar magnitude, a year years of its era);
2. its own page in the crawl: the entity type whose relations and tags the page shares
   most (``builders/entity_types.toml``: a literary work is not a treaty, a person is not
   a place);
3. the type its relations usually take: the types of the values of that relation that do
   have pages (the values of 出生地 with pages are cities, so a 出生地 without a page is a city);
4. otherwise only its relations say what it is: it may stand with values of the same
   relation family (relations sharing at least two values: :func:`relation_families`)
   that belong to entities of the same type (纸币 is a 类别 of a currency: 安神药, a 类别 of a
   medicine, is not of its kind).

A value of a name relation (别名, 简称, 外文名, 字 …) names an entity, so it is of the type of the
entities it names: an alias of a seismograph gets aliases of other instruments, never 月亮.

A candidate matches a gold of the same kind only: a format gold takes compatible formats;
an entity gold takes entities of its type or of a child type (a gold known only as a place
takes a river; a city gold does not take a value known only as a place); a gold typed only
by its relations takes values of those relations and never an entity with a type of its
own. An untyped candidate is never used for a typed gold.

For a question that asks the head of a triple, the answer is an entity with a page: it is
typed by its page, or, when the page matches no type, by having the asked relation at all
(other works with an 作者 for 「下列哪部作品的作者是X？」).
"""

from __future__ import annotations

import tomllib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from builders.formats import ValueFormat, compatible, value_format
from builders.places import place_level
from filters.normalize import value_key
from filters.triples import NAME_RELATIONS

TYPES_FILE = Path(__file__).with_name("entity_types.toml")
FORMAT_KINDS = frozenset({"date", "period", "year", "quantity", "number", "formula", "code"})
TAG_WEIGHT = 3
# A relation takes the type of its typed values when this share of them (and at least
# RANGE_MIN of them) has it; 0.6 is our choice: a clear majority, robust to a few mislinked values.
RANGE_SHARE = 0.6
RANGE_MIN = 2
PAGE_COLUMNS = ("url", "status", "title", "infobox", "tags")  # what typing reads of a page record


class TypeTableError(ValueError):
    """The entity types file is malformed; the message names the file and the type."""


@dataclass(frozen=True)
class EntityType:
    name: str
    parent: str
    relations: frozenset[str]
    tags: frozenset[str]


class TypeTable:
    """The reviewable entity types (``entity_types.toml``) and the page typing they define."""

    def __init__(self, types: dict[str, EntityType]):
        self.types = types
        self.by_relation: dict[str, list[str]] = defaultdict(list)
        self.by_tag: dict[str, list[str]] = defaultdict(list)
        for t in types.values():
            for relation in t.relations:
                self.by_relation[relation].append(t.name)
            for tag in t.tags:
                self.by_tag[tag].append(t.name)
        self._ancestors = {name: tuple(self._walk_up(name)) for name in types}

    @classmethod
    def load(cls, path: Path | None = None) -> "TypeTable":
        path = Path(path) if path is not None else TYPES_FILE
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise TypeTableError(f"{path} is not valid TOML: {exc}") from None
        types = {}
        for name, spec in data.items():
            if not isinstance(spec, dict):
                raise TypeTableError(f"{path}: [{name}] must be a table with relations and tags")
            unknown = set(spec) - {"parent", "relations", "tags"}
            if unknown:
                raise TypeTableError(f"{path}: [{name}] has unknown keys {sorted(unknown)}; "
                                     "use parent, relations, tags")
            types[name] = EntityType(name, str(spec.get("parent", "")), frozenset(spec.get("relations", [])),
                                     frozenset(spec.get("tags", [])))
        for t in types.values():
            if t.parent and t.parent not in types:
                raise TypeTableError(f"{path}: [{t.name}] has parent {t.parent!r}, which is not a type of the file")
        return cls(types)

    def parent(self, name: str) -> str:
        found = self.types.get(name)
        return found.parent if found else ""

    def page_type(self, relations: Iterable[str], tags: Iterable[str] = ()) -> str | None:
        """The type a page with these infobox relations and tags is, or None when none or several fit."""
        scores: Counter = Counter()
        for relation in set(relations):
            for name in self.by_relation.get(relation, ()):
                scores[name] += 1
        for tag in set(tags):
            for name in self.by_tag.get(tag, ()):
                scores[name] += TAG_WEIGHT
        if not scores:
            return None
        # A child's score includes what it shares with the types above it: 出生地-free cities still have
        # 面积 and 地理位置, which are the place's; a mammal's 界 and 纲 are the species'.
        own = dict(scores)
        for name in own:  # from the scores each type earned itself, whatever order they came in (a set's)
            scores[name] += sum(own.get(above, 0) for above in self._above(name))
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        best, score = ranked[0]
        rivals = [n for n, s in ranked[1:] if s == score]
        if any(r not in self._above(best) and best not in self._above(r) for r in rivals):
            return None
        below = [r for r in rivals if best in self._above(r)]  # a kind ties what it is a kind of: it is more precise
        return max(below, key=lambda r: len(self._above(r))) if below else best

    def match(self, gold: frozenset[str], candidate: frozenset[str], every: bool = False) -> bool:
        """Whether some type of the candidate (with ``every``: each of them) is a type of the gold or a kind of one:
        a gold known only as a place takes cities, but a city gold does not take values known only as places."""
        fits = (any(c == g or g in self._above(c) for g in gold) for c in candidate)
        return all(fits) if every else any(fits)

    def _above(self, name: str) -> tuple[str, ...]:
        """The types ``name`` is a kind of, nearest first (animal, species for fish)."""
        return self._ancestors.get(name, ())

    def _walk_up(self, name: str) -> list[str]:
        found: list[str] = []
        while (name := self.parent(name)) and name not in found:
            found.append(name)
        return found


@dataclass(frozen=True)
class ValueType:
    """``kind``: format | entity | name (of entities of these types) | relation (typed by its relations
    only) | heads (an entity typed by the relations its page has). ``names``: entity types or relation
    names; ``fmt``: the value's format (builders.formats)."""

    kind: str
    names: frozenset[str] = frozenset()
    fmt: ValueFormat | None = None
    # for "relation": the types of the entities that have the value; for "name": the name relations giving it
    owners: frozenset[str] = frozenset()
    level: str = ""  # a place's level (builders.places): country, province, city, county, township, village, site

    def key(self) -> str:
        """One string per pool of like values (for drawing same-type candidates)."""
        if self.kind == "format" and self.fmt is not None:
            return f"format:{self.fmt.kind}:{self.fmt.unit}" + (":span" if self.fmt.span else "")
        return f"{self.kind}:{'|'.join(sorted(self.names))}" + (f"@{self.level}" if self.level else "")


@dataclass
class ValueTyper:
    """Types values against what a crawl says about them; see the module docstring."""

    table: TypeTable
    title_types: dict[str, frozenset[str]] = field(default_factory=dict)  # value key of a title -> its types
    head_relations: dict[str, frozenset[str]] = field(default_factory=dict)  # title key -> relations its pages have
    tail_relations: dict[str, frozenset[str]] = field(default_factory=dict)  # value key -> relations it is a tail of
    ranges: dict[str, frozenset[str]] = field(default_factory=dict)  # relation -> the type its values take
    families: dict[str, frozenset[str]] = field(default_factory=dict)  # relation -> relations sharing its values
    name_owners: dict[str, frozenset[str]] = field(default_factory=dict)  # name -> types of the entities it names
    owners: dict[str, frozenset[str]] = field(default_factory=dict)  # value -> types of the entities that have it
    levels: dict[str, str] = field(default_factory=dict)  # relation -> the place level its values' forms mostly name

    @classmethod
    def build(cls, pages: Iterable[tuple[str, Iterable[str], Iterable[str]]],
              facts: Iterable[tuple[str, str, str]], families: dict[str, set[str]] | None = None,
              table: TypeTable | None = None, keep: Iterable[str] | None = None) -> "ValueTyper":
        """``pages``: (title, infobox relations, tags) of every content page; ``facts``: every
        (head, relation, tail) the crawl states, whatever the filters decided. ``facts`` is read once,
        after ``pages``. With ``keep``, the typer is ``restricted(keep)``, without holding what it knows
        of the other values on the way."""
        kept = None if keep is None else {value_key(v) for v in keep}
        table = table or TypeTable.load()
        # Every value's sets are built in a pool of shared frozensets, never as a set of its own: a
        # crawl's hundreds of thousands of values share a few hundred relation and type sets, and a
        # set per value would cost 216 bytes or more, and leave the heap full of holes once freed.
        pool = _SetPool()
        title_types: dict[str, frozenset[str]] = {}
        head_relations: dict[str, frozenset[str]] = {}
        for title, relations, tags in pages:
            relations = frozenset(relations)
            key = value_key(title)
            head_relations[key] = pool.union(head_relations.get(key, _EMPTY), relations)
            found = table.page_type(relations, tags)
            if found:
                title_types[key] = pool.add(title_types.get(key, _EMPTY), found)
        tails: dict[str, frozenset[str]] = {}
        levels: dict[str, Counter] = defaultdict(Counter)
        by_relation: dict[str, set[str]] = defaultdict(set)
        names: dict[str, frozenset[str]] = {}
        owners: dict[str, frozenset[str]] = {}
        for head, relation, tail in facts:
            key = value_key(tail)
            named = relation in NAME_RELATIONS  # names name entities of every type: no range of their own
            if not named:
                by_relation[relation].add(key)  # every value: the ranges come from all of them
                level = place_level(tail)
                if level:
                    levels[relation][level] += 1
            if kept is not None and key not in kept:
                continue
            tails[key] = pool.add(tails.get(key, _EMPTY), relation)
            head_types = title_types.get(value_key(head), _EMPTY)
            if named:
                names[key] = pool.union(names.get(key, _EMPTY), head_types)
            else:
                owners[key] = pool.union(owners.get(key, _EMPTY), head_types)
        typer = cls(table, title_types, head_relations, tails,
                    families={r: frozenset(f) for r, f in (families or {}).items()},
                    name_owners={k: v for k, v in names.items() if v},
                    owners={k: v for k, v in owners.items() if v},
                    levels={r: c.most_common(1)[0][0] for r, c in levels.items()
                            if c.most_common(1)[0][1] >= max(RANGE_MIN, RANGE_SHARE * sum(c.values()))})
        typer.ranges = typer._ranges(by_relation)  # from every title's types: cut down after
        return typer if kept is None else typer._holding(kept)

    @classmethod
    def from_sources(cls, page_shards: list[Path], pairs: Iterable,
                     keep: Iterable[str] | None = None) -> "ValueTyper":
        """From crawl page shards (their infobox and tags) or, where there are none, Pair records (their
        triples, without tags). A page's pair is never read beside it: its type would be judged twice,
        once without the tags, and the two could differ. ``keep``: as in :meth:`build`.

        The records are read once: each page's facts are kept (three references each) while its
        title, relations and tags go straight to the build, which reads the facts after the pages."""
        from filters.triples import extract_triples, relation_aliases
        from schemas import Page
        from schemas.storage.shards import iter_records

        aliases = relation_aliases()
        facts = _Facts()

        def pages() -> Iterator[tuple[str, set[str], list[str]]]:
            for page in iter_records(page_shards, Page, columns=PAGE_COLUMNS):
                if page.status == "ok":
                    triples = extract_triples(page, aliases)
                    facts.extend(page.title, triples)
                    yield page.title, {t.relation for t in triples}, [*page.tags, *_taxon_tags(triples)]
            if not page_shards:
                for pair in pairs:
                    facts.extend(pair.entity, pair.triples)
                    yield pair.entity, {t.relation for t in pair.triples}, []

        typer = cls.build(pages(), facts, keep=keep)
        typer.families = {r: frozenset(f) for r, f in relation_families(facts).items()}
        return typer

    def restricted(self, values: Iterable[str]) -> "ValueTyper":
        """A typer that types ``values`` (and titles among them) as this one does, holding what it knows of
        those values only: the relations' ranges and families, which come from every value, are shared."""
        return self._holding({value_key(v) for v in values})

    def _holding(self, keys: set[str]) -> "ValueTyper":
        def kept(table: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
            return {k: table[k] for k in keys if k in table}

        return ValueTyper(self.table, kept(self.title_types), kept(self.head_relations), kept(self.tail_relations),
                          self.ranges, self.families, kept(self.name_owners), kept(self.owners), self.levels)

    def _ranges(self, by_relation: dict[str, set[str]]) -> dict[str, frozenset[str]]:
        ranges: dict[str, frozenset[str]] = {}
        for relation, values in by_relation.items():
            fine: Counter = Counter()
            coarse: Counter = Counter()
            typed = 0
            for key in values:
                types = self.title_types.get(key)
                if not types:
                    continue
                typed += 1
                for t in types:
                    fine[t] += 1
                    coarse[self.table.parent(t) or t] += 1
            if typed < RANGE_MIN:
                continue
            name, count = fine.most_common(1)[0]
            if count >= RANGE_SHARE * typed:
                ranges[relation] = frozenset({name})
                continue
            name, count = coarse.most_common(1)[0]
            if count >= RANGE_SHARE * typed:
                ranges[relation] = frozenset({name})
        return ranges

    def family(self, relations: Iterable[str]) -> frozenset[str]:
        found: set[str] = set()
        for r in relations:
            found |= self.families.get(r, frozenset({r}))
        return frozenset(found)

    def value_type(self, value: str, relation: str, own: Iterable[str] = ()) -> ValueType:
        """The type of ``value`` offered as an answer for ``relation``; ``own``: the relations the value
        is known to be a tail of (default: those the crawl gives it)."""
        fmt = value_format(value, relation)
        key = value_key(value)
        if relation in NAME_RELATIONS:
            # a name of entities of some types, given by some name relations (a 字 takes other 字, not 号)
            given = (frozenset(own) or self.tail_relations.get(key) or frozenset({relation})) & NAME_RELATIONS
            return ValueType("name", self.name_owners.get(key, frozenset()), fmt, given)
        if fmt.kind in FORMAT_KINDS:
            # with the types of the entities that have it: a birth date is a person's, an approval date a product's
            return ValueType("format", frozenset({fmt.kind}), fmt, self.owners.get(key, frozenset()))
        types = self.title_types.get(key)
        if types:
            return ValueType("entity", types, fmt, level=self._level(value, types, relation))
        relations = (frozenset(own) or self.tail_relations.get(key) or frozenset({relation})) - NAME_RELATIONS
        # As the answer of this relation, a value takes the relation's type; otherwise its own relations'.
        ranged = self.ranges.get(relation) if relation in relations else None
        ranged = ranged or frozenset(t for r in relations for t in self.ranges.get(r, ()))
        if ranged:
            return ValueType("entity", ranged, fmt, level=self._level(value, ranged, relation))
        # Known only as the value of some relations (or of none but names: then of nothing that types it); a place
        # by its relation (产地: its values' forms are mostly regions) has a level
        level = place_level(value) if relation in self.levels else ""
        return ValueType("relation", self.family(relations), fmt, self.owners.get(key, frozenset()), level)

    def _level(self, value: str, types: frozenset[str], relation: str = "") -> str:
        """A place's level by its form and its page's type (builders.places), else the level the relation's values
        mostly name (a 著名景点 is a site, 盛新古道 too); "" for what is not a place."""
        if not types or not all(t == "place" or self.table.parent(t) == "place" for t in types):
            return ""
        level = place_level(value)
        if types == {"country"}:
            return level if level == "group" else "country"
        return level or self.levels.get(relation, "")

    def is_value_of(self, value: str, relation: str, asked: str = "tail") -> bool:
        """Whether the crawl gives ``value`` for ``relation`` somewhere (as a head, whether it has the relation)."""
        table = self.head_relations if asked == "head" else self.tail_relations
        return relation in table.get(value_key(value), frozenset())

    def head_type(self, title: str) -> ValueType:
        """The type of an entity offered as the head of a triple."""
        key = value_key(title)
        types = self.title_types.get(key)
        fmt = value_format(title)  # a title in 《》 is no option beside names written without
        if types:
            return ValueType("entity", types, fmt, level=self._level(title, types))
        return ValueType("heads", self.head_relations.get(key, frozenset()), fmt)

    def answer_type(self, value: str, relation: str, asked: str = "tail") -> ValueType:
        return self.head_type(value) if asked == "head" else self.value_type(value, relation)

    option_type = answer_type

    def same_type(self, gold: ValueType, candidate: ValueType, relation: str = "") -> bool:
        """Whether a candidate of this type may stand next to the gold; see the module docstring."""
        if gold.kind != candidate.kind:
            return False
        if gold.level and candidate.level and gold.level != candidate.level:
            return False  # a scenic spot is no county, a city no province (builders.places)
        if gold.kind == "format":
            if gold.owners and candidate.owners and not self.table.match(gold.owners, candidate.owners):
                return False  # 2013年01月11日, a product's approval, is no birth date beside 1984年1月28日
            return gold.fmt is not None and candidate.fmt is not None and compatible(gold.fmt, candidate.fmt)
        if gold.kind in ("entity", "name"):
            # every type of the candidate: a title that names a township and a poet (汪善) is no township option
            if not self.table.match(gold.names, candidate.names, every=gold.kind == "entity"):
                return False
            given = relation in candidate.owners if relation else bool(gold.owners & candidate.owners)
            if gold.kind == "name" and not given:
                return False  # a name the asked name relation never gives: a 号 for a 字
            # the written form must agree too: a title in 《》 takes titles, a person's name names
            return gold.fmt is None or candidate.fmt is None or compatible(gold.fmt, candidate.fmt)
        if gold.kind == "heads":
            if gold.fmt is not None and candidate.fmt is not None and gold.fmt.kind != candidate.fmt.kind:
                return False
            return relation in candidate.names if relation else bool(gold.names & candidate.names)
        # A value typed by its relations is of the kind of the entities that have it: 纸币 is a 类别 of
        # currencies, 安神药 a 类别 of medicines.
        if gold.owners and not self.table.match(gold.owners, candidate.owners):
            return False
        return bool(gold.names & candidate.names) and (
            gold.fmt is None or candidate.fmt is None or compatible(gold.fmt, candidate.fmt))

    def answer_kind(self, value: str, relation: str, asked: str = "tail") -> str:
        """What a question asks for, to choose its question word (builders.templates.QUESTION_WORDS): person,
        place (a place or one of its kinds: city, river ...), year, or thing."""
        t = self.answer_type(value, relation, asked)
        if t.kind == "format":
            return "year" if t.fmt is not None and t.fmt.kind == "year" else "thing"
        if t.kind == "heads":  # an entity typed by the relations its page has
            page = self.table.page_type(t.names)
            names = frozenset({page}) if page else frozenset()
        else:
            names = t.names if t.kind == "entity" else t.owners if t.kind == "name" and asked == "head" else frozenset()
        if not names:
            return "thing"
        if names == {"person"}:
            return "person"
        if all(n == "place" or self.table.parent(n) == "place" for n in names):
            return "place"
        return "thing"

    def describe(self, value: str, relation: str, asked: str = "tail") -> str:
        t = self.answer_type(value, relation, asked)
        if t.kind == "format" and t.fmt is not None:
            return f"a {t.fmt.kind}{f' in {t.fmt.unit}' if t.fmt.unit else ''}"
        if t.kind == "entity":
            return "a " + "/".join(sorted(t.names))
        if t.kind == "name":
            return "a name of a " + ("/".join(sorted(t.names)) or "untyped entity")
        if t.kind == "heads":
            return "an entity with " + "、".join(sorted(t.names)[:3])
        return "a value of " + ("、".join(sorted(t.names)[:3]) or "no typed relation") + \
            (f" of a {'/'.join(sorted(t.owners))}" if t.owners else "")


_EMPTY: frozenset = frozenset()


class _SetPool:
    """Frozensets built one element or one set at a time, each distinct set one object, each step
    remembered (a crawl takes the same few hundred steps over and over)."""

    def __init__(self) -> None:
        self._sets: dict[frozenset, frozenset] = {_EMPTY: _EMPTY}
        self._steps: dict[tuple[frozenset, object], frozenset] = {}

    def add(self, current: frozenset, item: str) -> frozenset:
        found = self._steps.get((current, item))
        if found is None:
            found = self._steps[(current, item)] = self._one(current | {item})
        return found

    def union(self, current: frozenset, other: frozenset) -> frozenset:
        if not other or other is current:
            return current
        found = self._steps.get((current, other))
        if found is None:
            found = self._steps[(current, other)] = self._one(current | other)
        return found

    def _one(self, values: frozenset) -> frozenset:
        return self._sets.setdefault(values, values)


class _Facts:
    """(head, relation, tail) of every fact, kept as three lists of references instead of a tuple
    each; iterating gives the tuples, in order."""

    def __init__(self) -> None:
        self.heads: list[str] = []
        self.relations: list[str] = []
        self.tails: list[str] = []
        self._names: dict[str, str] = {}  # one object per relation name

    def extend(self, head: str, triples: Iterable) -> None:
        for t in triples:
            self.heads.append(head)
            self.relations.append(self._names.setdefault(t.relation, t.relation))
            self.tails.append(t.tail)

    def __iter__(self) -> Iterator[tuple[str, str, str]]:
        return zip(self.heads, self.relations, self.tails)


# An animal's class by its 纲's name, as the tag that types it (entity_types.toml: fish, mammal …).
_CLASS_TAGS = (("哺乳", "哺乳动物"), ("鸟", "鸟类"), ("爬行", "爬行动物"), ("两栖", "两栖动物"), ("昆虫", "昆虫"),
               ("鱼", "鱼类"))


def _taxon_tags(triples) -> list[str]:
    """The tags a species' page earns by its kingdom or phylum (植物 for 植物界 or 被子植物门, 动物 for 节肢动物门) and an
    animal's by its class (鱼类 for 辐鳍鱼纲, 哺乳动物 for 哺乳纲): a plant is no option among insects, nor a deer among
    fish, where the page has no tag of its own to say which it is."""
    kingdom = [word for t in triples if t.relation in ("界", "门") for word in ("植物", "动物") if word in t.tail]
    kind = [tag for t in triples if t.relation == "纲" for part, tag in _CLASS_TAGS if part in t.tail]
    return kingdom[:1] + kind[:1]


def relation_families(facts: Iterable[tuple[str, str, str]], min_shared: int = 2) -> dict[str, set[str]]:
    """relation -> itself and the relations sharing at least ``min_shared`` values with it (出生地 and 逝世地
    share cities)."""
    pool = _SetPool()
    by_value: dict[str, frozenset[str]] = {}  # value -> the relations giving it
    families: dict[str, set[str]] = {}
    for _, relation, tail in facts:
        by_value[tail] = pool.add(by_value.get(tail, _EMPTY), relation)
        if relation not in families:
            families[relation] = {relation}
    shared: Counter = Counter()
    for relations in by_value.values():
        if len(relations) > 1:
            for a in relations:
                for b in relations:
                    if a != b:
                        shared[(a, b)] += 1
    for (a, b), n in shared.items():
        if n >= min_shared:
            families[a].add(b)
    return families
