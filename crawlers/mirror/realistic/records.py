"""The records a corpus is built from: a block's plan, an entity's core and facts, and the rows,
mentions, clauses and sentences of a page while it is written."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class _Plan:
    """One block of 100 indices: the type at each position and the shared titles planted in it."""

    types: tuple[str, ...]
    ranks: tuple[int, ...]                       # rank of each position among its type in the block
    positions: dict[str, tuple[int, ...]]        # type -> its positions, ascending
    leader_of: dict[int, int]                    # follower position -> position whose title it takes
    group_of: dict[int, tuple[int, ...]]         # member position -> every position sharing the title
    dup: int                                     # the near-duplicate slot, -1 for none


@dataclass(slots=True)
class _Core:
    """What other entries need to know about an entity: cheap, and independent of the corpus size."""

    index: int
    type: str
    k: int                    # rank among the entities of its type
    name: str
    latin: str                # romanised name for 外文名 ("" when none)
    tier: str
    province: int = -1        # geography: index into PROVINCES
    kind: str = ""            # person kind, 镇/乡/县, 诗/词, film/tv, an index into a name table ...
    attrs: tuple = ()         # type-specific cheap attributes (occupations, genre ...)
    gender: str = ""
    era: str = ""             # people of the past: their dynasty
    born: int = 0
    died: int = 0
    leader: int = -1          # multi-sense follower: the index whose title it shares
    source: int = -1          # near duplicate: the index it copies


@dataclass(slots=True)
class _Fact:
    rel: str                  # canonical relation name
    vals: list                # single values, each (text, linked title, link start, link length)
    kind: str                 # date, qty, count, place, person, dynasty, country, occupation, org, work, name, text
    enum: bool = False        # an enumeration the text may list in full


@dataclass(slots=True)
class _Item:
    """One single value of an infobox row and what the summary does with it."""

    relation: str             # as shown on the page
    rel: str                  # canonical
    value: str
    fate: str = "absent"      # absent, stated, value_only, contradicted, partial, head, reserve
    how: str | None = None    # for stated: name, cue, pattern, or "opening" until the opening takes it
    form: str | None = None
    mark: int = -1
    true_value: str | None = None  # a planted false value: the true one (P_ROW_FALSE)


@dataclass(slots=True)
class _Row:
    shown: str
    fact: _Fact
    vals: list
    items: list


@dataclass(slots=True)
class _Extra:
    rel: str
    value: str
    mark: int
    named: bool


@dataclass(slots=True)
class _Enum:
    rel: str
    items: list
    marks: list
    in_infobox: list


@dataclass(slots=True)
class _Clause:
    pieces: list              # plain strings and (value, mark) mentions
    subject: bool             # a sentence subject may precede it
    size: int
    text: str
    glue: bool = False        # follows the previous clause without a comma (X是…)
    filler: bool = False      # states no fact of the entry
    names: tuple = ()         # for a filler: relations it speaks of by name (FILLER_RELATIONS)


@dataclass(slots=True)
class _Unit:
    """A sentence of the summary."""

    clauses: list
    subject: str
    size: int
    join_next: bool = False   # ends with ， and runs into the next sentence
