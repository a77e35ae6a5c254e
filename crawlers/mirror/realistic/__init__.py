"""The realistic profile of the mirror: generated entries that behave like real Baidu Baike pages.

The demo facts table is tidy (short summaries that repeat the infobox verbatim); this profile
is not. ``RealisticCorpus(size, seed)`` generates a small world knowledge graph implicitly by
index and writes each entity's page the way Baike editors do:

* a long tail: 5% famous entries (summaries of 300-600 characters, 10-20 infobox rows,
  referenced by many others), 25% mid (80-250, 5-10 rows) and 70% long-tail entries
  (20-80 characters, 2-5 rows, few inbound references);
* summaries from clause templates with several phrasings per relation: its name (面积为…),
  a cue word (生于, 毕业于, 注入 ...) or a Baike convention (the lifespan parentheses, 字/号/原名/
  又称, 「A人」, an appositive description «唐朝诗人»);
* planted properties at the rates of the module constants below, each labelled in
  ``entry.labels`` (schema in ``_Page.labels``): infobox rows the text never mentions, extra
  facts, paraphrased values, value-only traps, stale rows, false values the text states as well
  (the page wrong throughout; only other sites, crawlers.mirror.web, give the true one), partial
  values, long enumerations, multi-sense titles, citation marks and stray spaces, near duplicates.

Entry ``i`` depends only on (seed, size, i) and is computed in O(1): the index space is cut
into blocks of 100 whose type mix is fixed and whose order is a seeded shuffle, so "the k-th
city" is found without generating anything else, and a reference picks the k-th entity of a
type with a Zipf-like skew. Names depend on (seed, i) alone and are unique per title (a seeded
bijection of the member rank onto each type's name space) up to about 800,000 entries, apart
from the planted multi-sense titles. The first 50 indices are real countries, dynasties and
elements with real facts; generated people are fictional and long dead.

Relations are stated from one side only (a film names its director; the director's page need
not list the film), so the world has no contradicting inverse facts.

Each type belongs to one CDTP domain (DOMAIN below), except people, whose domain follows
their occupation (a poet is humanities_society, an official history_politics ...).

Measured on one core (Python 3.11, the development container): 100,000 entries in 31 s
(0.31 ms each), resident memory flat at about 90 MB (the caches are bounded).

What the first 2,000 entries of seed 0 hold (tests/crawlers/test_realistic.py checks that each
property occurs): of 8,980 infobox values other than 中文名, 50% are supported by the summary
(by name 19%, cue word 17%, convention 15%; 55 in a paraphrased form), 45% never appear, 3.4%
appear only in a clause about something else, 0.8% are contradicted (stale) and 0.8% given only
in part; 51 (0.6%) are planted false, the text stating the same wrong value (50 of them supported
by it); 1,920 extra facts (617 named by their relation) in 1,203 entries, 254 entries with a
named extra fact after the last supported value; 184 enumerations of 4-10 items, 125 of them
only partly in the infobox; 3% of titles shared by 2-3 entries; 0.85% near duplicates; citation
marks or stray spaces in 70% of summaries.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache
from typing import Iterator

from crawlers.mirror.facts import Entry
from crawlers.mirror.realistic.fixed import (COUNTRIES, DYNASTIES, ELEMENTS, ERA_WORD, FIXED, FIXED_INDEX, N_FIXED,
                                             PERSON_ERAS)
from crawlers.mirror.realistic.phrasing import (_LINK_SLOT, _NAMES, _TEMPLATES, _TRAPS, ALIASES, FILLER_FAMILY,
                                                FILLER_RELATIONS, FILLERS, HOWS, LINK_FILLERS, OPENING, PHRASES,
                                                SECTIONS, SUBJECTS, _Template)
from crawlers.mirror.realistic.pools import (ACHIEVEMENTS, ANIMAL_BASES, APPEARANCES, ATOMIC_MASS, BOOK_GENRES_ANCIENT,
                                             BOOK_GENRES_MODERN, BOOK_SUFFIXES, BOOK_WORDS, BUSINESS, CI_TUNES,
                                             CLIMATES, COMPOUND_BASES, DIRECTIONS, DRUG_CLASSES, EFFECTS,
                                             ENTERPRISE_KINDS, ETHNIC, EVENT_KINDS, EVENT_MEANINGS, EVENT_RESULTS,
                                             EXCHANGES, FEMALE_CHARS, FILM_GENRES, FILM_SUFFIXES, GIVEN, HAO_SUFFIXES,
                                             INDUSTRIES, INSECT_BASES, LAKE_KINDS, LATIN_EPITHETS, MEDICINAL_PARTS,
                                             MOUNTAIN_SIGHTS, N_PLACE, N_PROV, OFFICES, ORG_FIELDS, ORG_KINDS,
                                             PERIODICALS, PERSON_KINDS, PLACE_CHARS, PLANT_BASES, POEM_FORMS,
                                             POEM_NOUNS, POEM_VERBS, POEM_VERBS_IN_LINE, POEM_WORDS, POSTHUMOUS,
                                             PROTECTION_ANIMAL, PROTECTION_PLANT, PROVINCES, PUBLISHERS, RANGES,
                                             RIVER_SYSTEMS, SCENIC_LEVELS, SEAS, SIGHT_SUFFIXES, SUBSTITUENTS, SURNAMES,
                                             TITLES_OF_NOBILITY, TREATY_KINDS, TREATY_NATURES, TREATY_TERMS,
                                             TV_CHANNELS, UNIVERSITY_KINDS, UNIVERSITY_TAGS, ZODIAC, _latin, _variant)
from crawlers.mirror.realistic.rates import (BLOCK, BLOCK_MIX, COUNT, DOMAIN, FACT_EXPONENT, FAMILY, HOMONYM_GROUPS,
                                             HOMONYM_KINDS, HOW_WEIGHTS, INFOBOX_ROWS, MAX_EXTRA,
                                             NEAR_DUPLICATES_PER_BLOCK, P_APPROXIMATE, P_CITATION, P_DATE_NOTATION,
                                             P_ENUM_INFOBOX_ALL, P_ENUM_STATED, P_EXTRA, P_EXTRA_TRAILING, P_MERGE,
                                             P_NUMERAL, P_OPENING_EXTRA, P_PATTERN, P_RELATION_ALIAS,
                                             P_ROW_CONTRADICTED, P_ROW_FALSE, P_ROW_PARTIAL, P_ROW_STATED,
                                             P_ROW_VALUE_ONLY, P_STRAY_SPACE, P_SUBJECT, P_SUBJECTLESS_HEAD,
                                             P_UNIT_WORD, REALISTIC_ID_BASE, REF_SKEW, REF_TIER_WEIGHTS, RELATED_LINKS,
                                             SUMMARY_CHARS, TIER_PATTERN, TYPE_CODE)
from crawlers.mirror.realistic.records import _Clause, _Core, _Enum, _Extra, _Fact, _Item, _Plan, _Row, _Unit
from crawlers.mirror.realistic.streams import (_S_AUTHOR, _S_BIRTH, _S_CORE, _S_DUP, _S_ENTRY, _S_FACTS, _S_FALSE,
                                               _S_LAYOUT, _S_NAMER, _S_PLAN, _S_RELATED, _S_SECTIONS, _S_TIER, _S_TOWN,
                                               _mix, _Namer, _weighted)
from crawlers.mirror.realistic.values import (_CN_DIGITS, _COUNT, _FULL_DATE, _MONTH_DATE, _QTY, _UNIT_WORDS, _YEAR,
                                              _cn_number, _lv, _markup, _v, _year_text)

# --- The corpus ---------------------------------------------------------------------------------


class RealisticCorpus:
    """Entries 0..size-1 of a generated Baike-like corpus; entry i depends only on (seed, size, i)."""

    def __init__(self, size: int, seed: int = 0):
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"size must be a positive integer, got {size!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        self.size = size
        self.seed = seed
        # Caches bound to this corpus: plans and cores are asked for again and again by references.
        self._plan = lru_cache(maxsize=4096)(self._make_plan)
        self._core = lru_cache(maxsize=1 << 15)(self._make_core)
        self._tier_slots = lru_cache(maxsize=1 << 14)(self._make_tier_slots)
        self._namers = self._make_namers()
        self.members = {t: self._count(t) for t in COUNT}

    # -- public ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return self.size

    def entry(self, i: int) -> Entry:
        if not 0 <= i < self.size:
            raise IndexError(f"entry {i} is outside the corpus (size {self.size})")
        source = self._dup_source(i)
        if source >= 0:
            return self._near_duplicate(i, source)
        return self._compose(self._core(i))

    def take(self, n: int) -> Iterator[Entry]:
        """Entries 0..n-1."""
        if not 0 <= n <= self.size:
            raise ValueError(f"n must be in [0, {self.size}], got {n}")
        for i in range(n):
            yield self.entry(i)

    def seeds(self, k: int) -> list[str]:
        """Titles of k famous entries, the most linked first: good starting points for a crawl."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        titles: list[str] = []
        # 中国 and the great dynasties are the most linked entries (every place, every person of the past).
        fixed = [i for i, (_, name) in enumerate(FIXED) if name in ("中国", "唐朝", "明朝", "清朝", "北宋")]
        candidates = [i for i in fixed if i < self.size and self._core(i).tier == "famous"]
        order = ("person", "city", "book", "river", "company", "university", "mountain", "work", "lake",
                 "film", "organisation", "place", "event", "plant", "animal", "compound", "species", "treaty")
        for group in range(0, 1 + self.size // 20):
            for t in order:
                if group * 20 < self.members[t]:
                    k_famous = group * 20 + self._tier_slots(t, group)["famous"][0]
                    if k_famous < self.members[t]:
                        candidates.append(self._index(t, k_famous))
            if len(candidates) >= 3 * k:
                break
        # A small corpus may hold fewer famous entries than asked for: then the others, famous first.
        rest = sorted(range(min(self.size, 40 * k)), key=lambda i: (self._core(i).tier != "famous", i))
        for index in candidates + rest:
            title = self._core(index).name
            if self._dup_source(index) < 0 and title not in titles:
                titles.append(title)
            if len(titles) == k:
                break
        return titles

    # -- layout: blocks, members, tiers ---------------------------------------------------------

    def _rng(self, *parts: int) -> random.Random:
        return random.Random(_mix(self.seed, *parts))

    def _make_plan(self, block: int) -> _Plan:
        rng = self._rng(_S_PLAN, block)
        types = [t for t, n in BLOCK_MIX for _ in range(n)]
        rng.shuffle(types)
        positions: dict[str, list[int]] = {}
        ranks = []
        for pos, t in enumerate(types):
            at = positions.setdefault(t, [])
            ranks.append(len(at))
            at.append(pos)
        free = set(range(BLOCK))
        leader_of, group_of = {}, {}
        for _ in range(_weighted(rng, HOMONYM_GROUPS)):
            kind = _weighted(rng, HOMONYM_KINDS)
            need = {"pp": ("person", "person"), "ppp": ("person",) * 3, "pl": ("person", "place"),
                    "ll": ("place", "place"), "bf": ("book", "film")}[kind]
            chosen: list[int] = []
            for t in need:
                options = [p for p in positions[t] if p in free and p not in chosen]
                if kind == "pl" and t == "person":
                    # a town can share only a two-character name: persons whose rank gives one
                    options = [p for p in options if (block * COUNT["person"] + ranks[p]) % 4 == 0]
                if not options:
                    break
                chosen.append(rng.choice(options))
            if len(chosen) < len(need):
                continue
            free.difference_update(chosen)
            for p in chosen:
                group_of[p] = tuple(chosen)
            for p in chosen[1:]:
                leader_of[p] = chosen[0]
        dup = rng.choice(sorted(free)) if NEAR_DUPLICATES_PER_BLOCK else -1
        return _Plan(tuple(types), tuple(ranks), {t: tuple(p) for t, p in positions.items()},
                     leader_of, group_of, dup)

    def _where(self, i: int) -> tuple[str, int, _Plan, int]:
        block, pos = divmod(i - N_FIXED, BLOCK)
        plan = self._plan(block)
        t = plan.types[pos]
        return t, block * COUNT[t] + plan.ranks[pos], plan, pos

    def _index(self, t: str, k: int) -> int:
        block, r = divmod(k, COUNT[t])
        return N_FIXED + block * BLOCK + self._plan(block).positions[t][r]

    def _count(self, t: str) -> int:
        """How many entities of type t the corpus holds."""
        if self.size <= N_FIXED:
            return 0
        full, rest = divmod(self.size - N_FIXED, BLOCK)
        n = full * COUNT[t]
        if rest:
            n += sum(1 for p in self._plan(full).positions[t] if p < rest)
        return n

    def _make_tier_slots(self, t: str, group: int) -> dict[str, list[int]]:
        order = self._rng(_S_TIER, TYPE_CODE[t], group).sample(range(20), 20)
        slots: dict[str, list[int]] = {"famous": [], "mid": [], "long_tail": []}
        for r, p in enumerate(order):
            slots[TIER_PATTERN[p]].append(r)
        slots["by_rank"] = [TIER_PATTERN[p] for p in order]
        return slots

    def _tier(self, t: str, k: int) -> str:
        group, r = divmod(k, 20)
        return self._tier_slots(t, group)["by_rank"][r]

    def _pick(self, t: str, rng: random.Random, exclude: int = -1, province: int = -1,
              pred=None, tries: int = 6) -> int:
        """Another entity of type t, skewed to the famous; -1 when the corpus has none that fits."""
        n = self.members.get(t, 0)
        if n == 0:
            return -1
        for _ in range(tries):
            if province >= 0:
                m = (n - province + N_PROV - 1) // N_PROV
                if m <= 0:
                    return -1
                k = int(m * rng.random() ** REF_SKEW) * N_PROV + province
            else:
                tier = _weighted(rng, (("famous", REF_TIER_WEIGHTS[0]), ("mid", REF_TIER_WEIGHTS[1]),
                                       ("long_tail", REF_TIER_WEIGHTS[2])))
                group = int(((n + 19) // 20) * rng.random() ** REF_SKEW)
                k = group * 20 + rng.choice(self._tier_slots(t, group)[tier])
                if k >= n:
                    k = int(n * rng.random())
            j = self._index(t, k)
            _, _, plan, pos = self._where(j)
            if pos == plan.dup:
                continue  # pages link the original, not its near duplicate
            if j != exclude and (pred is None or pred(self._core(j))):
                return j
        return -1

    # -- names ------------------------------------------------------------------------------------

    def _make_namers(self) -> dict[str, tuple[_Namer, ...]]:
        rng = self._rng(_S_NAMER)
        s, g, p = len(SURNAMES), len(GIVEN), N_PLACE
        spaces = {
            "person1": ((s, g),), "person2": ((s, g, g),),
            "city": ((p, p - 1), (p, p - 1, p)), "place": ((p, p - 1, 3), (p, p - 1, p, 3)),
            "river": ((p, p - 1, 3), (p, p - 1, p, 3)), "mountain": ((p, p - 1, 2), (p, p - 1, p, 2)),
            "lake": ((p, p - 1), (p, p - 1, p)), "film": ((p, p - 1, len(FILM_SUFFIXES)),),
            "company": ((p, p - 1, len(INDUSTRIES), 2),), "university": ((p, p - 1, len(UNIVERSITY_KINDS)),),
            "organisation": ((p, p - 1, len(ORG_FIELDS), len(ORG_KINDS)),),
            "event": ((p, p - 1, len(EVENT_KINDS)),), "treaty": ((p, p - 1, len(TREATY_KINDS)),),
            "plant": ((p, p - 1, len(PLANT_BASES)),), "animal": ((p, p - 1, len(ANIMAL_BASES)),),
            "species": ((p, p - 1, len(INSECT_BASES)),),
            "work": ((p, p - 1, len(POEM_VERBS), len(POEM_NOUNS), 2),),
            "book": ((len(BOOK_WORDS), len(BOOK_WORDS) - 1, len(BOOK_SUFFIXES)),),
            "compound": ((4, 3, len(SUBSTITUENTS), len(SUBSTITUENTS), len(COMPOUND_BASES)),),
        }
        return {key: tuple(_Namer(radixes, rng) for radixes in options) for key, options in spaces.items()}

    def _digits(self, key: str, x: int) -> list[int]:
        namers = self._namers[key]
        for namer in namers[:-1]:
            if x < namer.size:
                return namer.digits(x)
            x -= namer.size
        return namers[-1].digits(x)

    @staticmethod
    def _stem(d: list[int], three: bool) -> tuple[str, list[str]]:
        first = PLACE_CHARS[d[0]]
        second = PLACE_CHARS[d[1] + (d[1] >= d[0])]
        chars = [first, second] + ([PLACE_CHARS[d[2]]] if three else [])
        return "".join(c for c, _ in chars), [py for _, py in chars]

    def _base_name(self, t: str, k: int) -> tuple[str, str, str]:
        """(name, romanised name, kind) of the k-th entity of type t, from (seed, k) alone."""
        if t == "person":
            single_room = len(SURNAMES) * len(GIVEN)
            if k % 4 == 0 and k // 4 < single_room:  # a quarter of people have one-character given names
                sur, g1 = self._digits("person1", k // 4)
                given = [GIVEN[g1]]
            else:
                room = self._namers["person2"][0].size
                # overflowing one-character names take two-character ones from the top of the space
                x = k - k // 4 - 1 if k % 4 else room - 1 - (k // 4 - single_room)
                sur, g1, g2 = self._digits("person2", x)
                given = [GIVEN[g1], GIVEN[g2]]
            surname, sur_py = SURNAMES[sur]
            name = surname + "".join(c for c, _ in given)
            return name, f"{sur_py.capitalize()} {_latin([py for _, py in given])}", ""
        if t == "book":
            a, b, s = self._digits("book", k)
            return BOOK_WORDS[a] + BOOK_WORDS[b + (b >= a)] + BOOK_SUFFIXES[s], "", ""
        if t == "compound":
            l1, l2, s1, s2, base = self._digits("compound", k)
            locants = (2, 3, 4, 5)  # positions every base ring has
            first, second = locants[l1], [x for x in locants if x != locants[l1]][l2]
            name = f"{first}-{SUBSTITUENTS[s1][0]}-{second}-{SUBSTITUENTS[s2][0]}{COMPOUND_BASES[base][0]}"
            return name, "", f"{s1},{s2},{base}"
        d = self._digits(t, k)
        three = t in ("city", "place", "river", "mountain", "lake") and len(d) == len(self._namers[t][-1].radixes) \
            and k >= self._namers[t][0].size
        stem, syllables = self._stem(d, three)
        rest = d[3:] if three else d[2:]
        latin = _latin(syllables)
        if t == "city":
            return stem + "市", f"{latin} City", ""
        if t == "place":
            suffix = "镇乡县"[rest[0]]
            return stem + suffix, f"{latin} " + ("Town", "Township", "County")[rest[0]], suffix
        if t == "river":
            return stem + "河江溪"[rest[0]], f"{latin} " + ("River", "River", "Creek")[rest[0]], ""
        if t == "mountain":
            return stem + "山岭"[rest[0]], (f"Mount {latin}", f"{latin} Ridge")[rest[0]], ""
        if t == "lake":
            return stem + "湖", f"{latin} Lake", ""
        if t == "film":
            return stem + FILM_SUFFIXES[rest[0]], "", ""
        if t == "company":
            industry, legal = rest
            name = stem + INDUSTRIES[industry][0] + ("有限公司", "股份有限公司")[legal]
            return name, f"{latin} {INDUSTRIES[industry][1]} Co., Ltd.", str(industry)
        if t == "university":
            kind = UNIVERSITY_KINDS[rest[0]]
            return stem + kind[0], f"{latin} {kind[1]}", str(rest[0])
        if t == "organisation":
            field_, kind = rest
            return stem + ORG_FIELDS[field_] + ORG_KINDS[kind][0], "", f"{field_},{kind}"
        if t == "event":
            return stem + EVENT_KINDS[rest[0]][0], "", str(rest[0])
        if t == "treaty":
            return stem + TREATY_KINDS[rest[0]], "", str(rest[0])
        if t == "plant":
            return stem + PLANT_BASES[rest[0]][0], "", str(rest[0])
        if t == "animal":
            return stem + ANIMAL_BASES[rest[0]][0], "", str(rest[0])
        if t == "species":
            return stem + INSECT_BASES[rest[0]][0], "", str(rest[0])
        if t == "work":
            verb, noun, form = rest
            base = POEM_VERBS[verb] + stem + POEM_NOUNS[noun]
            if form:
                return CI_TUNES[(d[0] + d[1]) % len(CI_TUNES)] + "·" + base, "", "词"
            return base, "", "诗"
        raise ValueError(f"no names for type {t!r}")

    # -- cores --------------------------------------------------------------------------------------

    def _dup_source(self, i: int) -> int:
        """The earlier entry that entry i copies, or -1 (i is not the block's near-duplicate slot).

        The slot of block b copies a member of its type from block b // 2, from the half of
        that block's members chosen by b's parity: distinct slots never copy the same entry.
        """
        if i < N_FIXED:
            return -1
        t, k, plan, pos = self._where(i)
        if pos != plan.dup:
            return -1
        block = (i - N_FIXED) // BLOCK
        half = max(1, COUNT[t] // 2)
        base = (block // 2) * COUNT[t] + (block % 2) * half
        start = _mix(self.seed, _S_DUP, i) % half
        for step in range(half):
            ks = base + (start + step) % half
            if ks >= k:
                continue
            source = self._index(t, ks)
            _, _, splan, spos = self._where(source)
            if spos == splan.dup or spos in splan.group_of:
                continue
            name = self._base_name(t, ks)[0]
            if _variant(name) != name:
                return source
        return -1

    def _make_core(self, i: int) -> _Core:
        if i < N_FIXED:
            return self._fixed_core(i)
        source = self._dup_source(i)
        if source >= 0:
            c = self._core(source)
            return _Core(i, c.type, c.k, _variant(c.name), c.latin, c.tier, c.province, c.kind, c.attrs,
                         c.gender, c.era, c.born, c.died, -1, source)
        t, k, plan, pos = self._where(i)
        name, latin, kind = self._base_name(t, k)
        c = _Core(i, t, k, name, latin, self._tier(t, k), kind=kind)
        leader_pos = plan.leader_of.get(pos)
        if leader_pos is not None:
            c.leader = i - pos + leader_pos
            lead = self._core(c.leader)
            c.name = lead.name
            c.latin = lead.latin if lead.type == t else ""
        rng = self._rng(_S_CORE, i)
        if t in ("city", "river", "mountain", "lake"):
            c.province = k % N_PROV
        if t == "person":
            self._person_core(c, rng)
        elif t == "city":
            c.attrs = (_weighted(rng, (("地级市", 70), ("县级市", 25), ("副省级市", 5))),)
        elif t == "film":
            c.kind = "tv" if rng.random() < 0.3 else "film"
            c.attrs = (_weighted(rng, (("中国大陆", 85), ("中国香港", 8), ("中国台湾", 7))), rng.choice(FILM_GENRES))
        elif t == "book":
            c.attrs = (rng.random(),)  # picks the genre once the author's era is known
        return c

    def _person_core(self, c: _Core, rng: random.Random) -> None:
        kind = _weighted(rng, [(k, v[3]) for k, v in PERSON_KINDS.items()])
        ancient, _, occupations, _ = PERSON_KINDS[kind]
        c.kind = kind
        c.gender = "女" if any(ch in FEMALE_CHARS for ch in c.name[1:]) else "男"
        first = occupations[0] if rng.random() < 0.5 else rng.choice(occupations)
        others = [o for o in occupations if o != first]
        rng.shuffle(others)
        count = {"famous": 3, "mid": 2, "long_tail": 1}[c.tier]
        c.attrs = (first, *others[:rng.randint(0, count - 1)])
        if ancient:
            era = _weighted(rng, PERSON_ERAS)
            start, end = next((d[2], d[3]) for d in DYNASTIES if d[0] == era)
            born = rng.randint(start - 30, max(start - 29, end - 25))
            died = born + rng.randint(30, 85)
            c.era = era
        else:
            born = rng.randint(1840, 1960)
            died = min(born + rng.randint(40, 95), 2020)
        c.born, c.died = (born if born else -1), (died if died else 1)

    def _fixed_core(self, i: int) -> _Core:
        t, name = FIXED[i]
        facts = len(self._fixed_facts(i))
        tier = "famous" if facts >= INFOBOX_ROWS["famous"][0] + 1 else "mid"
        if t == "country":
            return _Core(i, t, i, name, COUNTRIES[i][1], tier)
        if t == "dynasty":
            d = DYNASTIES[i - len(COUNTRIES)]
            return _Core(i, t, i, name, d[1], tier, era=name, born=d[2], died=d[3])
        e = ELEMENTS[i - len(COUNTRIES) - len(DYNASTIES)]
        return _Core(i, t, i, name, e[3], tier)

    def _fixed_ref(self, name: str) -> tuple:
        """A value naming a fixed entity: linked when the corpus holds it."""
        index = FIXED_INDEX.get(name, -1)
        return _lv(name) if 0 <= index < self.size else _v(name)

    def _ref(self, j: int, before: str = "", after: str = "") -> tuple:
        return _lv(self._core(j).name, before, after)

    def _layout(self, i: int) -> str:
        # About one entry in four is served in Baidu's older layout, as a crawl meets both.
        return "baidu_legacy" if _mix(self.seed, _S_LAYOUT, i) % 4 == 0 else "baidu"

    # -- the world's facts about an entity --------------------------------------------------------

    def _birth_city(self, owner: int) -> int:
        """The city where person ``owner`` was born (a same-name follower reuses its leader's)."""
        return self._pick("city", self._rng(_S_BIRTH, owner))

    def _town_city(self, c: _Core) -> int:
        """The city a town belongs to; a town named after a person lies in that person's birth city."""
        if c.leader >= 0 and self._core(c.leader).type == "person":
            return self._birth_city(c.leader)
        return self._pick("city", self._rng(_S_TOWN, c.index))

    def _author(self, c: _Core) -> int:
        """The author of a book or poem, or the director of a film; -1 when none fits."""
        owner = c.source if c.source >= 0 else c.index
        rng = self._rng(_S_AUTHOR, owner)
        if c.type == "work":
            return self._pick("person", rng, pred=lambda p: bool(p.era) and p.kind in
                              ("poet", "official", "scholar", "painter"), tries=8)
        if c.type == "book":
            return self._pick("person", rng, pred=lambda p: p.kind in ("writer", "scholar", "poet", "official"),
                              tries=8)
        if c.type == "film":
            return self._pick("person", rng, pred=lambda p: p.kind in ("director", "actor", "writer", "artist"),
                              tries=8)
        if c.type in ("event", "treaty"):
            kinds = ("official", "general") if c.type == "treaty" else ("official", "general", "scholar", "poet")
            return self._pick("person", rng, pred=lambda p: bool(p.era) and p.kind in kinds, tries=8)
        return -1

    def _fake_person(self, rng: random.Random, surname: str | None = None) -> str:
        """A person name that is no entry of the corpus (a father, a character in a novel)."""
        surname = surname or rng.choice(SURNAMES)[0]
        return surname + "".join(rng.choice(GIVEN)[0] for _ in range(rng.choice((1, 2, 2))))

    def _fake_stem(self, rng: random.Random) -> str:
        a, b = rng.sample(range(N_PLACE), 2)
        return PLACE_CHARS[a][0] + PLACE_CHARS[b][0]

    def _count_items(self, tier: str, rng: random.Random) -> int:
        return {"famous": rng.randint(5, 10), "mid": rng.randint(4, 7), "long_tail": rng.randint(1, 3)}[tier]

    def _facts(self, c: _Core) -> list[_Fact]:
        if c.index < N_FIXED:
            return self._fixed_facts(c.index)
        # An entity sparsely documented by chance is documented again more fully, so that every
        # entry has the infobox rows its tier asks for.
        facts: list[_Fact] = []
        for attempt, exponent in enumerate((FACT_EXPONENT[c.tier], 0.5, 0.0)):
            facts = self._facts_once(c, exponent, attempt)
            if len(facts) >= INFOBOX_ROWS[c.tier][0]:
                break
        return facts

    def _facts_once(self, c: _Core, exponent: float, attempt: int) -> list[_Fact]:
        rng = self._rng(_S_FACTS, c.index, attempt)
        facts: list[_Fact] = [_Fact("中文名", [_v(c.name)], "name")]

        def has(p: float) -> bool:
            # Famous entities are documented fully, long-tail ones sparsely.
            return rng.random() < p ** exponent

        def add(rel: str, vals: list, kind: str, enum: bool = False) -> None:
            if vals:
                facts.append(_Fact(rel, vals, kind, enum and len(vals) >= 4))

        getattr(self, f"_facts_{c.type}")(c, rng, has, add)
        return facts

    def _place_val(self, j: int, rng: random.Random, qualify: float) -> tuple:
        """A city, sometimes qualified by its province (浙江省安平市)."""
        c = self._core(j)
        if c.province >= 0 and rng.random() < qualify:
            return _lv(c.name, PROVINCES[c.province])
        return _lv(c.name)

    def _native_val(self, j: int) -> tuple:
        """籍贯 the Baike way: province without 省 and the city without 市 (浙江安平)."""
        c = self._core(j)
        return _lv(c.name, PROVINCES[c.province][:-1], shown=c.name[:-1])

    def _date(self, year: int, rng: random.Random, day: float) -> str:
        if year < 0 or rng.random() >= day:
            return _year_text(year)
        month = rng.randint(1, 12)
        return f"{year}年{month}月{rng.randint(1, 28)}日"

    def _facts_person(self, c: _Core, rng, has, add) -> None:
        ancient = bool(c.era)
        if c.latin and has(0.8):
            add("外文名", [_v(c.latin)], "name")
        if has(0.5):
            alias = self._fake_stem(rng) + rng.choice(HAO_SUFFIXES) if ancient else \
                "".join(rng.choice(GIVEN)[0] for _ in range(2))
            add("别名", [_v(alias)], "name")
        if has(0.2):
            add("本名", [_v(self._fake_person(rng, c.name[0]))], "name")
        if ancient and has(0.6):
            add("字", [_v(rng.choice(GIVEN)[0] + rng.choice(GIVEN)[0])], "name")
        if ancient:
            add("所处时代", [self._fixed_ref(c.era)], "dynasty")
        else:
            add("国籍", [self._fixed_ref("中国")], "country")
        if has(0.6):
            add("民族", [_v(_weighted(rng, ETHNIC))], "text")
        owner = c.leader if c.leader >= 0 and self._core(c.leader).type == "person" else c.index
        birth_city = self._birth_city(owner)  # a same-name person shares the birth city (overlapping values)
        if birth_city >= 0:
            add("出生地", [self._place_val(birth_city, rng, 0.5)], "place")
            if has(0.5):
                native = birth_city if rng.random() < 0.6 else self._pick("city", rng)
                if native >= 0:
                    add("籍贯", [self._native_val(native)], "place")
        day = 0.0 if ancient else 0.7
        birth_text = self._date(c.born, rng, day)
        add("出生日期", [_v(birth_text)], "date")
        add("逝世日期", [_v(self._date(c.died, rng, day))], "date")
        if has(0.5):
            death_city = birth_city if rng.random() < 0.3 else self._pick("city", rng)
            if death_city >= 0:
                add("逝世地", [self._ref(death_city)], "place")
        if not ancient and has(0.7):
            school = self._pick("university", rng)
            if school >= 0:
                add("毕业院校", [self._ref(school)], "org")
        add("职业", [_v(o) for o in c.attrs], "occupation")
        if not ancient and has(0.5):
            work = self._pick(rng.choice(("organisation", "university", "company")), rng)
            if work >= 0:
                add("工作单位", [self._ref(work)], "org")
                if has(0.4):
                    # the post alone: with the unit's name in it, 职务 would also state 工作单位
                    post = {"university": ("校长", "教授", "副校长"), "company": ("董事长", "总工程师", "总经理")}
                    add("职务", [_v(rng.choice(post.get(self._core(work).type, ("研究员", "所长", "理事长"))))], "text")
        if c.kind in ("official", "general"):
            if has(0.7):
                add("官职", [_v(rng.choice(OFFICES))], "text")
            if has(0.4):
                add("封爵", [_v(self._fake_stem(rng) + rng.choice(TITLES_OF_NOBILITY))], "text")
            if has(0.5):
                add("谥号", [_v(rng.choice(POSTHUMOUS))], "text")
        if has(0.6):
            pool = list(ACHIEVEMENTS[c.kind])
            rng.shuffle(pool)
            add("主要成就", [_v(a) for a in pool[:rng.randint(1, min(3, len(pool)))]], "text")
        if c.kind != "entrepreneur" and has(0.8):
            n = self._count_items(c.tier, rng)
            add("代表作品", [_v(f"《{self._work_title(c.kind, rng)}》") for _ in range(n)], "work", enum=True)
        if c.kind in ("poet", "writer") and has(0.3):
            add("作品集", [_v(f"《{c.name}{rng.choice(('集', '全集', '文集', '诗集'))}》")], "work")
        if has(0.3):
            add("父亲", [_v(self._fake_person(rng, c.name[0]))], "person")
        if has(0.3):
            add("配偶", [_v(self._fake_person(rng))], "person")
        if ancient and has(0.3):
            add("陵墓", [_v(f"{c.name}墓")], "text")
        full = _FULL_DATE.match(birth_text)
        if full and has(0.6):
            month, day_ = int(full.group(2)), int(full.group(3))
            sign = next((z for m, d, z in ZODIAC if (month, day_) < (m, d)), "摩羯座")
            add("星座", [_v(sign)], "text")
        if has(0.15):
            ancestral = self._pick("city", rng)
            if ancestral >= 0:
                add("祖籍", [self._native_val(ancestral)], "place")

    def _work_title(self, kind: str, rng: random.Random) -> str:
        """A title for a person's work that has no entry of its own."""
        if kind in ("poet", "official", "painter") and rng.random() < 0.7:
            return rng.choice(POEM_VERBS) + self._fake_stem(rng) + rng.choice(POEM_NOUNS)
        if kind in ("actor", "director"):
            return self._fake_stem(rng) + rng.choice(FILM_SUFFIXES)
        if kind in ("scientist", "engineer", "naturalist"):
            return self._fake_stem(rng) + rng.choice(("地区植被研究", "水文研究", "地质志", "植物志", "工程技术研究",
                                                      "物理学讲义", "数学原理"))
        if kind in ("painter", "artist"):
            return self._fake_stem(rng) + rng.choice(("山水图", "秋景图", "组曲", "交响曲", "春晓图"))
        a, b = rng.sample(BOOK_WORDS, 2)
        return a + b + rng.choice(BOOK_SUFFIXES)

    def _facts_city(self, c: _Core, rng, has, add) -> None:
        province = PROVINCES[c.province]
        if has(0.8):
            add("外文名", [_v(c.latin)], "name")
        if has(0.4):
            add("别名", [_v(c.name[0] + rng.choice("州城阳"))], "name")
        add("所属国家", [self._fixed_ref("中国")], "country")
        add("所属地区", [_v(province)], "text")
        add("行政区类别", [_v(c.attrs[0])], "text")
        low, high = {"地级市": (3000, 20000), "副省级市": (8000, 25000)}.get(c.attrs[0], (800, 3000))
        area = rng.randint(low, high)
        add("面积", [_v(f"{area}.{rng.randint(1, 99):02d}平方千米" if rng.random() < 0.5 else f"{area}平方千米")], "qty")
        add("地理位置", [_v(province + rng.choice(DIRECTIONS))], "text")
        if has(0.5):
            flower = self._pick("plant", rng)
            if flower >= 0:
                add("市花", [self._ref(flower)], "text")
        if has(0.8):
            n = self._count_items(c.tier, rng)
            sights = []
            for t in ("mountain", "lake"):
                j = self._pick(t, rng, province=c.province)
                if j >= 0 and rng.random() < 0.6:
                    sights.append(self._ref(j))
            seen = {s[0] for s in sights}
            while len(sights) < n:
                sight = self._fake_stem(rng) + rng.choice(SIGHT_SUFFIXES)
                if sight not in seen:
                    seen.add(sight)
                    sights.append(_v(sight))
            add("著名景点", sights[:n], "text", enum=True)
        if has(0.3):
            add("称号", [_v(rng.choice(("丝绸", "瓷器", "温泉", "桃花", "石刻", "茶叶", "荷花", "龙舟"))
                           + rng.choice(("之城", "之乡")))], "text")
        if has(0.6):
            add("气候类型", [_v(rng.choice(CLIMATES))], "text")
        if has(0.6):
            rivers = {j for j in (self._pick("river", rng, province=c.province) for _ in range(3)) if j >= 0}
            add("主要河流", [self._ref(j) for j in sorted(rivers)], "text")

    def _facts_place(self, c: _Core, rng, has, add) -> None:
        city = self._town_city(c)
        province = self._core(city).province if city >= 0 else _mix(self.seed, c.index) % N_PROV
        if c.latin and has(0.6):
            add("外文名", [_v(c.latin)], "name")
        if city >= 0:
            add("所属地区", [_lv(self._core(city).name, PROVINCES[province])], "place")
        else:
            add("所属地区", [_v(PROVINCES[province])], "text")
        add("行政区类别", [_v(c.kind or "镇")], "text")
        if has(0.5):
            add("所属国家", [self._fixed_ref("中国")], "country")
        low, high = (500, 3000) if c.kind == "县" else (20, 300)
        add("面积", [_v(f"{rng.randint(low, high)}平方千米")], "qty")
        where = _lv(self._core(city).name, after=rng.choice(DIRECTIONS)) if city >= 0 else \
            _v(PROVINCES[province] + rng.choice(DIRECTIONS))
        add("地理位置", [where], "text")
        if has(0.5):
            n = self._count_items(c.tier, rng)
            add("著名景点", [_v(self._fake_stem(rng) + s) for s in rng.sample(SIGHT_SUFFIXES, min(n, 8))],
                "text", enum=True)
        if has(0.4):
            river = self._pick("river", rng, province=province)
            if river >= 0:
                add("主要河流", [self._ref(river)], "text")
        if has(0.4):
            add("气候类型", [_v(rng.choice(CLIMATES))], "text")
        if has(0.4):
            peak = self._pick("mountain", rng, province=province)
            if peak >= 0:
                add("最高峰", [self._ref(peak)], "text")
        if has(0.2):
            add("别名", [_v(self._fake_stem(rng))], "name")

    def _facts_river(self, c: _Core, rng, has, add) -> None:
        province = PROVINCES[c.province]
        if has(0.8):
            add("外文名", [_v(c.latin)], "name")
        if has(0.3):
            add("别名", [_v(c.name[:2] + "水")], "name")
        add("所属国家", [self._fixed_ref("中国")], "country")
        source = self._pick("mountain", rng, province=c.province)
        add("发源地", [self._ref(source) if source >= 0 else _v(province + rng.choice(DIRECTIONS) + "山区")], "place")
        roll = rng.random()
        mouth = -1
        if roll < 0.4:
            mouth = self._pick("lake", rng, province=c.province)
        elif roll < 0.7:
            mouth = self._pick("river", rng, exclude=c.index, province=c.province)
        sea = mouth < 0
        add("注入", [self._ref(mouth) if mouth >= 0 else _v(rng.choice(SEAS))], "place")
        length = {"famous": (600, 3000), "mid": (150, 800), "long_tail": (20, 200)}[c.tier]
        km = rng.randint(*length)
        add("全长", [_v(("约" if rng.random() < 0.2 else "") + f"{km}千米")], "qty")
        if has(0.7):
            basin = km * rng.randint(15, 60)
            add("流域面积", [_v(f"约{basin / 10000:.1f}万平方千米" if basin >= 10000 else f"{basin}平方千米")], "qty")
        if has(0.7):
            n = self._count_items(c.tier, rng)
            tributaries = {self._fake_stem(rng) + rng.choice("河溪江水") for _ in range(n)}
            add("主要支流", [_v(t) for t in sorted(tributaries)], "text", enum=True)
        if has(0.6):
            others = [p[:-1] for p in rng.sample(PROVINCES, rng.randint(0, 3)) if p != province]
            add("流经省区", [_v(province[:-1])] + [_v(p) for p in others], "text")
        if has(0.3):
            lake = self._pick("lake", rng, province=c.province)
            if lake >= 0:
                add("主要湖泊", [self._ref(lake)], "text")
        if has(0.5):
            add("所属水系", [_v(rng.choice(RIVER_SYSTEMS))], "text")
        if sea and has(0.5):
            city = self._pick("city", rng, province=c.province)
            if city >= 0:
                add("入海口", [_lv(self._core(city).name, province)], "place")

    def _facts_mountain(self, c: _Core, rng, has, add) -> None:
        province = PROVINCES[c.province]
        if has(0.8):
            add("外文名", [_v(c.latin)], "name")
        if has(0.3):
            add("别名", [_v(self._fake_stem(rng) + "山")], "name")
        add("所属国家", [self._fixed_ref("中国")], "country")
        height = rng.randint(*{"famous": (1500, 5000), "mid": (800, 3000), "long_tail": (300, 2000)}[c.tier])
        add("海拔", [_v(f"{height}.{rng.randint(1, 9)}米" if rng.random() < 0.5 else f"{height}米")], "qty")
        if has(0.8):
            add(rng.choice(("所属山系", "所属山脉")), [_v(rng.choice(RANGES))], "text")
        if has(0.6):
            add("主峰", [_v(self._fake_stem(rng) + rng.choice("峰顶"))], "text")
        add("地理位置", [_v(province + rng.choice(DIRECTIONS))], "text")
        if has(0.5):
            add("景区级别", [_v(rng.choice(SCENIC_LEVELS))], "text")
        if has(0.3):
            add("保护区", [_v(c.name + rng.choice(("国家级自然保护区", "省级自然保护区")))], "text")
        if has(0.3):
            add("列入时间", [_v(f"{rng.randint(1982, 2018)}年")], "date")
        if has(0.6):
            n = self._count_items(c.tier, rng)
            add("著名景点", [_v(self._fake_stem(rng) + s) for s in rng.sample(MOUNTAIN_SIGHTS, min(n, 8))],
                "text", enum=True)
        if has(0.4):
            add("气候类型", [_v(rng.choice(CLIMATES))], "text")

    def _facts_lake(self, c: _Core, rng, has, add) -> None:
        if has(0.8):
            add("外文名", [_v(c.latin)], "name")
        if has(0.3):
            add("别名", [_v(c.name[:2] + rng.choice(("泊", "淀", "海子")))], "name")
        add("所属国家", [self._fixed_ref("中国")], "country")
        add("面积", [_v(f"{rng.randint(5, 3000)}.{rng.randint(1, 9)}平方千米")], "qty")
        if has(0.8):
            add("湖泊类型", [_v(rng.choice(LAKE_KINDS))], "text")
        average = rng.randint(10, 300) / 10
        if has(0.5):
            add("平均水深", [_v(f"{average}米")], "qty")
        if has(0.5):
            add("最大深度", [_v(f"{round(average * rng.uniform(1.5, 4), 1)}米")], "qty")
        if has(0.5):
            add("湖面海拔", [_v(f"{rng.randint(10, 3500)}米")], "qty")
        if has(0.6):
            river = self._pick("river", rng, province=c.province)
            add("所属水系", [self._ref(river) if river >= 0 else _v(rng.choice(RIVER_SYSTEMS))], "text")
        if has(0.6):
            n = self._count_items(c.tier, rng)
            inflows = {self._fake_stem(rng) + rng.choice("河溪水") for _ in range(n)}
            add("主要入湖河流", [_v(x) for x in sorted(inflows)], "text", enum=True)
        if has(0.4):
            add("出湖口", [_v(self._fake_stem(rng) + "口")], "text")
        if has(0.4):
            add("气候类型", [_v(rng.choice(CLIMATES))], "text")
        if has(0.4):
            add("景区级别", [_v(rng.choice(SCENIC_LEVELS))], "text")

    def _era_word(self, person: int, rng: random.Random) -> str:
        if person >= 0 and self._core(person).era:
            return ERA_WORD[self._core(person).era]
        if person >= 0:
            decade = (self._core(person).born + 35) // 10 * 10
            return f"20世纪{decade % 100}年代" if decade >= 1900 else f"19世纪{decade % 100}年代"
        return ERA_WORD[_weighted(rng, PERSON_ERAS)]

    def _book_genre(self, c: _Core) -> str:
        author = self._author(c)
        ancient = author < 0 or bool(self._core(author).era)
        pool = BOOK_GENRES_ANCIENT if ancient else BOOK_GENRES_MODERN
        return pool[int(c.attrs[0] * len(pool))] if c.attrs else pool[0]

    def _facts_book(self, c: _Core, rng, has, add) -> None:
        author = self._author(c)
        if has(0.2):
            a, b = rng.sample(BOOK_WORDS, 2)
            add("别名", [_v(a + b + rng.choice(BOOK_SUFFIXES))], "name")
        add("作者", [self._ref(author) if author >= 0 else _v(self._fake_person(rng))], "person")
        add("创作年代", [_v(self._era_word(author, rng))], "text")
        genre = self._book_genre(c)
        add("文学体裁", [_v(genre)], "text")
        modern = author >= 0 and not self._core(author).era
        if has(0.6):
            add("篇幅", [_v(f"{rng.randint(40, 120)}回" if "章回" in genre else f"{rng.randint(10, 60)}章")], "count")
        if has(0.5):
            add("字数", [_v(("约" if rng.random() < 0.5 else "") + f"{rng.randint(5, 80)}万字")], "qty")
        if modern and has(0.7):
            a = self._core(author)
            add("出版时间", [_v(f"{rng.randint(a.born + 25, max(a.born + 25, a.died))}年")], "date")
        if modern and has(0.5):
            add("出版社", [_v(self._fake_stem(rng) + rng.choice(PUBLISHERS))], "text")
        if has(0.6):
            n = self._count_items(c.tier, rng)
            characters = {self._fake_person(rng) for _ in range(n)}
            add("主要人物", [_v(x) for x in sorted(characters)], "person", enum=True)
        if has(0.3):
            add("地位", [_v(rng.choice(("中国现代文学的重要作品之一", "明清小说的重要作品之一", "地方文学的代表性作品")))],
                "text")
        if has(0.4):
            add("故事背景", [_v(rng.choice(("民国时期的江南小城", "清朝末年", "明朝中叶", "北宋末年", "抗战时期的山村")))],
                "text")
        if modern and has(0.3):
            add("首发刊物", [_v(f"《{self._fake_stem(rng)}{rng.choice(PERIODICALS)}》")], "text")

    def _facts_film(self, c: _Core, rng, has, add) -> None:
        director = self._author(c)
        add("导演", [self._ref(director) if director >= 0 else _v(self._fake_person(rng))], "person")
        actor = lambda p: not p.era and p.kind in ("actor", "director", "artist")  # noqa: E731
        if has(0.6):
            writer = self._pick("person", rng, pred=lambda p: p.kind in ("writer", "director"), tries=6)
            add("编剧", [self._ref(writer) if writer >= 0 else _v(self._fake_person(rng))], "person")
        if has(0.9):
            n = self._count_items(c.tier, rng)
            cast, seen = [], set()
            for _ in range(n):
                j = self._pick("person", rng, pred=actor, tries=4)
                val = self._ref(j) if j >= 0 else _v(self._fake_person(rng))
                if val[0] not in seen:
                    seen.add(val[0])
                    cast.append(val)
            add("主演", cast, "person", enum=True)
        base = self._core(director).born + 30 if director >= 0 and not self._core(director).era else 1950
        year = max(1930, min(rng.randint(base, base + 35), 2015))
        if c.kind == "tv":
            add("首播时间", [_v(self._date(year, rng, 0.4))], "date")
        else:
            add("上映时间", [_v(self._date(year, rng, 0.7))], "date")
        region, genre = c.attrs
        if has(0.7):
            add("制片地区", [_v(region)], "text")
        if has(0.7):
            genres = [genre] + ([g for g in [rng.choice(FILM_GENRES)] if g != genre] if rng.random() < 0.5 else [])
            add("类型", [_v(g) for g in genres], "text")
        if has(0.6):
            studio = self._pick("company", rng)
            if studio >= 0:
                add("出品公司", [self._ref(studio)], "org")
        if has(0.4):
            add("对白语言", [_v("粤语" if region == "中国香港" else "普通话")], "text")
        if has(0.3):
            add("色彩", [_v("黑白" if year < 1965 else "彩色")], "text")
        if c.leader >= 0 and self._core(c.leader).type == "book":
            # a film of the same name as a novel is its adaptation: the novel's author is the 原著
            novel_author = self._author(self._core(c.leader))
            if novel_author >= 0:
                add("原著", [self._ref(novel_author)], "person")
        if has(0.3):
            composer = self._pick("person", rng, pred=lambda p: p.kind == "artist", tries=4)
            if composer >= 0:
                add("音乐", [self._ref(composer)], "person")
        if c.kind == "tv":
            add("集数", [_v(f"{rng.randint(20, 60)}集")], "count")
            if has(0.7):
                add("首播平台", [_v(rng.choice(TV_CHANNELS))], "text")

    def _facts_work(self, c: _Core, rng, has, add) -> None:
        author = self._author(c)
        add("作者", [self._ref(author) if author >= 0 else _v(self._fake_person(rng))], "person")
        add("创作年代", [_v(self._era_word(author, rng))], "text")
        form, chars = ("词", 0) if c.kind == "词" else POEM_FORMS[_mix(self.seed, c.index, 7) % len(POEM_FORMS)]
        add("文学体裁", [_v(form)], "text")
        if has(0.5):
            add("作品出处", [_v(f"《{self._fake_stem(rng)}集》")], "work")
        if has(0.4):
            if author >= 0:
                a = self._core(author)
                year = rng.randint(a.born + 20, max(a.born + 20, a.died))
            else:
                year = rng.randint(618, 1900)
            add("创作时间", [_v(_year_text(year or 1))], "date")
        if has(0.3):
            city = self._pick("city", rng)
            if city >= 0:
                add("创作地点", [self._ref(city)], "place")
        if has(0.5):
            size = 7 if "七言" in form else 5
            words = rng.sample(POEM_WORDS, 2)
            line = words[0] + rng.choice(POEM_VERBS_IN_LINE) + words[1] + ("" if size == 5 else rng.choice(POEM_WORDS))
            add("名句", [_v(line[:size])], "text")
        if chars and has(0.4):
            add("字数", [_v(f"{chars}字")], "count")
        if has(0.2):
            add("别名", [_v(self._fake_stem(rng) + rng.choice(POEM_NOUNS) + "诗")], "name")
        if has(0.2):
            era = ERA_WORD.get(self._core(author).era, "古代") if author >= 0 else "古代"
            kind = rng.choice(("山水诗", "咏物诗", "边塞诗", "送别诗", "怀古诗"))
            add("地位", [_v(f"{era}{kind}名篇之一")], "text")

    def _facts_company(self, c: _Core, rng, has, add) -> None:
        industry = int(c.kind)
        if has(0.6):
            add("外文名", [_v(c.latin)], "name")
        if has(0.6):
            add("简称", [_v(c.name[:2] + INDUSTRIES[industry][0])], "name")
        founded = rng.randint(1978, 2015)
        add("创立时间", [_v(self._date(founded, rng, 0.5))], "date")
        if has(0.8):
            founders = set()
            for _ in range(rng.choice((1, 1, 2, 3))):
                j = self._pick("person", rng, pred=lambda p: not p.era and p.kind in
                               ("entrepreneur", "engineer", "scientist"), tries=6)
                if j >= 0:
                    founders.add(j)
            add("创始人", [self._ref(j) for j in sorted(founders)], "person")
        if has(0.9):
            city = self._pick("city", rng)
            if city >= 0:
                add("总部地点", [self._place_val(city, rng, 0.5)], "place")
        if has(0.6):
            add("企业性质", [_v(rng.choice(ENTERPRISE_KINDS))], "text")
        if has(0.5):
            scope = BUSINESS[INDUSTRIES[industry][0]].split("、")
            add("经营范围", [_v(x) for x in scope[:rng.randint(3, 5)]], "text", enum=True)
        if has(0.4):
            product = {"科技": "智能终端", "电子": "传感器", "药业": "胶囊", "重工": "挖掘机", "食品": "乳饮料",
                       "传媒": "纪录片", "化工": "涂料", "纺织": "面料", "机械": "数控机床", "能源": "光伏组件",
                       "物流": "冷链服务", "建材": "陶瓷砖"}[INDUSTRIES[industry][0]]
            n = self._count_items(c.tier, rng)
            names = {self._fake_stem(rng) + "牌" + product for _ in range(n)}
            add("代表产品", [_v(x) for x in sorted(names)], "text", enum=True)
        if has(0.3):
            listed = rng.randint(founded + 3, 2020)
            add("上市地点", [_v(rng.choice(EXCHANGES))], "text")
            add("上市时间", [_v(self._date(listed, rng, 0.8))], "date")
            add("股票代码", [_v(f"{rng.choice(('600', '000', '300', '002'))}{rng.randint(0, 999):03d}")], "text")

    def _facts_university(self, c: _Core, rng, has, add) -> None:
        name, _, category = UNIVERSITY_KINDS[int(c.kind)]
        if has(0.6):
            add("外文名", [_v(c.latin)], "name")
        if has(0.6):
            short = {"理工大学": "理工", "师范大学": "师大", "农业大学": "农大", "医科大学": "医大", "财经大学": "财大",
                     "大学": "大", "师范学院": "师院", "科技大学": "科大"}[name]
            add("简称", [_v(c.name[:2] + short)], "name")
        add("创立时间", [_v(self._date(rng.randint(1898, 1985), rng, 0.2))], "date")
        city = self._pick("city", rng)
        if city >= 0 and has(0.9):
            add("所在地", [self._place_val(city, rng, 0.4)], "place")
        province = PROVINCES[self._core(city).province] if city >= 0 else rng.choice(PROVINCES)
        if has(0.6):
            add("主管部门", [_v(rng.choice(("教育部", province + "人民政府", province + "教育厅")))], "text")
        if has(0.5):
            add("属性", [_v(x) for x in rng.sample(UNIVERSITY_TAGS, rng.randint(1, 3))], "text")
        if has(0.4):
            add("前身", [_v(c.name[:2] + rng.choice(("专科学校", "学堂", "书院", "师范学校")))], "text")
        if has(0.5):
            add("院校代码", [_v(f"1{rng.randint(0, 9999):04d}")], "text")
        if city >= 0 and has(0.4):
            # a district and street, not the city: the address would otherwise also state 所在地
            add("校址", [_v(f"{self._fake_stem(rng)}区{self._fake_stem(rng)}路{rng.randint(1, 300)}号")], "text")
        if has(0.7):
            add("类别", [_v(category)], "text")

    def _facts_organisation(self, c: _Core, rng, has, add) -> None:
        field_, kind = (int(x) for x in c.kind.split(","))
        if has(0.4):
            add("外文名", [_v(f"{c.name[:2]} {ORG_KINDS[kind][1]}")], "name")
        add("创立时间", [_v(self._date(rng.randint(1950, 2010), rng, 0.3))], "date")
        city = self._pick("city", rng)
        if city >= 0 and has(0.8):
            add("总部地点", [self._ref(city)], "place")
        if has(0.6):
            add("机构性质", [_v(ORG_KINDS[kind][2])], "text")
        if has(0.4):
            add("性质", [_v({"社会团体": "学术性社会团体", "事业单位": "公益性事业单位"}.get(ORG_KINDS[kind][2], "非营利机构"))],
                "text")
        province = PROVINCES[self._core(city).province] if city >= 0 else rng.choice(PROVINCES)
        if has(0.5):
            add("主管部门", [_v(rng.choice((province + "科学技术协会", "中国科学技术协会", province + "人民政府")))], "text")
        if ORG_KINDS[kind][0] in ("研究院", "科学院", "研究所") and has(0.4):
            head = self._pick("person", rng, pred=lambda p: not p.era and p.kind in ("scientist", "naturalist"), tries=6)
            if head >= 0:
                add("首任院长", [self._ref(head)], "person")
        if has(0.3):
            add("前身", [_v(c.name[:2] + ORG_FIELDS[field_] + "工作站")], "text")
        if has(0.4):
            add("简称", [_v(c.name[:2] + ORG_KINDS[kind][0][-1])], "name")
        if has(0.3):
            add("主要成就", [_v(x) for x in rng.sample(("承担多项国家级科研项目", "出版学术专著多部", "建成专业数据库",
                                                        "培养专业人才数百人", "举办全国性学术会议"), 2)], "text")

    def _taxonomy(self, add, rng, has, kingdom: str, phylum: str, cls: str, order: str, family: str, genus: str):
        for rel, value, p in (("界", kingdom, 0.6), ("门", phylum, 0.6), ("纲", cls, 0.6), ("目", order, 0.6),
                              ("科", family, 0.9), ("属", genus, 0.9)):
            if has(p):
                add(rel, [_v(value)], "text")

    def _latin_name(self, genus: str, c: _Core, rng: random.Random) -> str:
        if rng.random() < 0.5:
            syllables = [py for ch in c.name[:2] for pc, py in PLACE_CHARS if pc == ch][:2]
            return f"{genus} {''.join(syllables)}ensis"
        return f"{genus} {rng.choice(LATIN_EPITHETS)}"

    def _facts_plant(self, c: _Core, rng, has, add) -> None:
        name, family, genus, order, cls, phylum, latin_genus = PLANT_BASES[int(c.kind)]
        if has(0.8):
            add("拉丁学名", [_v(self._latin_name(latin_genus, c, rng))], "name")
        if has(0.4):
            add("别名", [_v(self._fake_stem(rng) + name)], "name")
        self._taxonomy(add, rng, has, "植物界", phylum, cls, order, family, genus)
        if has(0.7):
            n = self._count_items(c.tier, rng)
            add("分布区域", [_v(p[:-1]) for p in rng.sample(PROVINCES, n)], "text", enum=True)
        if has(0.3):
            add("原产地", [self._fixed_ref("中国")], "country")
        first = rng.randint(2, 8)
        if has(0.6):
            add("花期", [_v(f"{first}—{first + rng.randint(1, 2)}月")], "text")
        if has(0.5):
            second = min(first + rng.randint(3, 4), 11)
            add("果期", [_v(f"{second}—{second + 1}月")], "text")
        if has(0.4):
            add("保护级别", [_v(rng.choice(PROTECTION_PLANT))], "text")
        if has(0.3):
            add("药用部位", [_v(rng.choice(MEDICINAL_PARTS))], "text")
            add("功效", [_v(x) for x in rng.sample(EFFECTS, rng.randint(2, 4))], "text")

    def _facts_animal(self, c: _Core, rng, has, add) -> None:
        name, family, genus, order, cls, latin_genus = ANIMAL_BASES[int(c.kind)]
        if has(0.8):
            add("拉丁学名", [_v(self._latin_name(latin_genus, c, rng))], "name")
        if has(0.4):
            add("别名", [_v(self._fake_stem(rng) + name)], "name")
        self._taxonomy(add, rng, has, "动物界", "脊索动物门", cls, order, family, genus)
        if has(0.7):
            n = self._count_items(c.tier, rng)
            add("分布区域", [_v(p[:-1]) for p in rng.sample(PROVINCES, n)], "text", enum=True)
        if has(0.5):
            add("保护级别", [_v(rng.choice(PROTECTION_ANIMAL))], "text")

    def _facts_species(self, c: _Core, rng, has, add) -> None:
        name, family, genus, order, latin_genus = INSECT_BASES[int(c.kind)]
        if has(0.7):
            add("拉丁学名", [_v(self._latin_name(latin_genus, c, rng))], "name")
        if has(0.3):
            add("别名", [_v(self._fake_stem(rng) + name)], "name")
        self._taxonomy(add, rng, has, "动物界", "节肢动物门", "昆虫纲", order, family, genus)
        if has(0.6):
            n = self._count_items(c.tier, rng)
            add("分布区域", [_v(p[:-1]) for p in rng.sample(PROVINCES, n)], "text", enum=True)

    def _facts_compound(self, c: _Core, rng, has, add) -> None:
        s1, s2, base = (int(x) for x in c.kind.split(","))
        atoms = dict(COMPOUND_BASES[base][1])
        for sub in (s1, s2):
            atoms["H"] = atoms.get("H", 0) - 1
            for element, n in SUBSTITUENTS[sub][1].items():
                atoms[element] = atoms.get(element, 0) + n
        order = ["C", "H"] + sorted(e for e in atoms if e not in ("C", "H"))
        formula = "".join(f"{e}{atoms[e] if atoms[e] > 1 else ''}" for e in order if atoms.get(e, 0) > 0)
        mass = sum(ATOMIC_MASS[e] * n for e, n in atoms.items() if n > 0)
        if has(0.3):
            add("别名", [_v(SUBSTITUENTS[s1][0] + SUBSTITUENTS[s2][0] + COMPOUND_BASES[base][0])], "name")
        add("化学式", [_v(formula)], "text")
        if has(0.8):
            add("分子量", [_v(f"{mass:.2f}")], "text")
        melt = rng.randint(-500, 2500) / 10
        if has(0.6):
            add("熔点", [_v(f"{melt}℃")], "qty")
        if has(0.6):
            add("沸点", [_v(f"{round(melt + rng.randint(500, 2500) / 10, 1)}℃")], "qty")
        if has(0.5):
            add("密度", [_v(f"{rng.randint(850, 1900) / 1000:.3f}g/cm³")], "qty")
        if has(0.7):
            add("外观", [_v(rng.choice(APPEARANCES))], "text")
        if has(0.7):
            body = str(rng.randint(100, 99999))
            mid = f"{rng.randint(0, 99):02d}"
            digits = (body + mid)[::-1]
            check = sum((n + 1) * int(d) for n, d in enumerate(digits)) % 10
            add("CAS登录号", [_v(f"{body}-{mid}-{check}")], "text")
        if has(0.2):
            plant = self._pick("plant", rng)
            if plant >= 0:
                add("来源", [self._ref(plant)], "text")
        if has(0.3):
            finder = self._pick("person", rng, pred=lambda p: not p.era and p.kind in
                                ("scientist", "naturalist", "engineer"), tries=6)
            if finder >= 0:
                f = self._core(finder)
                add("发现者", [self._ref(finder)], "person")
                add("发现时间", [_v(f"{rng.randint(f.born + 25, max(f.born + 25, f.died))}年")], "date")
        if has(0.2):
            add("药物类别", [_v(rng.choice(DRUG_CLASSES))], "text")

    def _facts_event(self, c: _Core, rng, has, add) -> None:
        leader = self._author(c)
        kind_word = EVENT_KINDS[int(c.kind)][1]
        era = self._core(leader).era if leader >= 0 else _weighted(rng, PERSON_ERAS)
        if leader >= 0:
            a = self._core(leader)
            year = rng.randint(a.born + 20, max(a.born + 20, min(a.died, a.born + 60)))
        else:
            start, end = next((d[2], d[3]) for d in DYNASTIES if d[0] == era)
            year = rng.randint(start, end)
        add("时间", [_v(_year_text(year or 1))], "date")
        if has(0.8):
            city = self._pick("city", rng)
            if city >= 0:
                add("地点", [self._ref(city)], "place")
        if has(0.7):
            add("所处时代", [self._fixed_ref(era)], "dynasty")
        if kind_word == "战役" and has(0.6):
            add("参战方", [_v(self._fake_stem(rng) + "军"), _v(self._fake_stem(rng) + "军")], "text")
        if has(0.7):
            people = [self._ref(leader)] if leader >= 0 else []
            for _ in range(self._count_items(c.tier, rng) - len(people)):
                j = self._pick("person", rng, pred=lambda p: p.era == era, tries=3)
                val = self._ref(j) if j >= 0 else _v(self._fake_person(rng))
                if val[0] not in {p[0] for p in people}:
                    people.append(val)
            add("主要人物", people, "person", enum=True)
        if leader >= 0 and has(0.7):
            add("发动者" if kind_word == "政变" else "领导者", [self._ref(leader)], "person")
        if has(0.6):
            add("结果", [_v(rng.choice(EVENT_RESULTS))], "text")
        if has(0.3):
            add("历史意义", [_v(rng.choice(EVENT_MEANINGS))], "text")
        if has(0.3):
            add("影响", [_v(rng.choice(EVENT_MEANINGS))], "text")
        if has(0.2):
            treaty = self._pick("treaty", rng)
            if treaty >= 0:
                add("条约", [self._ref(treaty, "《", "》")], "work")

    def _facts_treaty(self, c: _Core, rng, has, add) -> None:
        envoy = self._author(c)
        era = self._core(envoy).era if envoy >= 0 else _weighted(rng, PERSON_ERAS)
        if envoy >= 0:
            a = self._core(envoy)
            year = rng.randint(a.born + 25, max(a.born + 25, a.died))
        else:
            start, end = next((d[2], d[3]) for d in DYNASTIES if d[0] == era)
            year = rng.randint(start, end)
        add("签订时间", [_v(_year_text(year or 1))], "date")
        if has(0.8):
            city = self._pick("city", rng)
            if city >= 0:
                add("签订地点", [self._ref(city)], "place")
        if has(0.8):
            add("签约双方", [self._fixed_ref(era), _v(self._fake_stem(rng) + rng.choice(("部", "国")))], "text")
        if envoy >= 0 and has(0.6):
            other = self._pick("person", rng, exclude=envoy, pred=lambda p: p.era == era, tries=3)
            add("签约代表", [self._ref(envoy)] + ([self._ref(other)] if other >= 0 else []), "person")
        if has(0.7):
            add("性质", [_v(rng.choice(TREATY_NATURES))], "text")
        if has(0.6):
            n = min(self._count_items(c.tier, rng), len(TREATY_TERMS))
            add("主要内容", [_v(x) for x in rng.sample(TREATY_TERMS, n)], "text", enum=True)
        if has(0.3):
            add("赔款", [_v(f"白银{rng.randint(10, 900)}万两")], "qty")
        if has(0.5):
            add("所处时代", [self._fixed_ref(era)], "dynasty")
        if has(0.3):
            add("历史意义", [_v(rng.choice(EVENT_MEANINGS))], "text")
        if has(0.3):
            add("影响", [_v(rng.choice(("两国边境由此安定多年", "此后双方贸易往来增多", "加重了当地百姓的负担")))], "text")

    def _fixed_facts(self, i: int) -> list[_Fact]:
        t, name = FIXED[i]
        facts = [_Fact("中文名", [_v(name)], "name")]
        if t == "country":
            _, english, _, table = COUNTRIES[i]
            facts.append(_Fact("外文名", [_v(english)], "name"))
            for rel, value in table.items():
                kind = "qty" if rel == "面积" else "text"
                facts.append(_Fact(rel, [_v(x) for x in value.split("、")], kind))
        elif t == "dynasty":
            _, english, _, _, table = DYNASTIES[i - len(COUNTRIES)]
            facts.append(_Fact("外文名", [_v(english)], "name"))
            for rel, value in table.items():
                vals = [self._fixed_ref(x) if x in FIXED_INDEX else _v(x) for x in value.split("、")]
                facts.append(_Fact(rel, vals, "dynasty" if rel in ("上一时期", "下一时期", "下一朝代") else "text"))
        else:
            number, symbol, _, english, mass, category = ELEMENTS[i - len(COUNTRIES) - len(DYNASTIES)]
            facts += [_Fact("外文名", [_v(english)], "name"), _Fact("元素符号", [_v(symbol)], "text"),
                      _Fact("原子序数", [_v(str(number))], "text"), _Fact("相对原子质量", [_v(mass)], "text"),
                      _Fact("元素类别", [_v(category)], "text")]
        return facts

    # -- writing the page ---------------------------------------------------------------------------

    def _compose(self, c: _Core) -> Entry:
        page = _Page(self, c, self._facts(c))
        page.plan_rows()
        opening = page.opening()
        body = page.body()
        units = page.fit(opening, body)
        summary, clean, noise = page.assemble(units)
        labels = page.labels(clean, noise)
        infobox = [(row.shown, "、".join(_markup(v, set()) for v in row.vals)) for row in page.rows]
        return Entry(
            title=c.name, sense=self._sense(c), domain=self._domain(c), type=c.type, summary=summary,
            infobox=infobox, sections=self._sections(c, page.facts), baidu_id=REALISTIC_ID_BASE + c.index,
            sogou_id=REALISTIC_ID_BASE + c.index, layout=self._layout(c.index), labels=labels)

    def _domain(self, c: _Core) -> str:
        return PERSON_KINDS[c.kind][1] if c.type == "person" else DOMAIN[c.type]

    def _base_sense(self, c: _Core) -> str:
        t = c.type
        if t == "person":
            era = ERA_WORD[c.era] if c.era else ("中国近代" if c.born < 1900 else "中国现代")
            return era + c.attrs[0]
        if t == "city":
            return f"{PROVINCES[c.province]}下辖{c.attrs[0]}"
        if t == "place":
            city = self._town_city(c)
            if city >= 0:
                town = self._core(city)
                return f"{PROVINCES[town.province]}{town.name}下辖{c.kind or '镇'}"
            return f"{PROVINCES[_mix(self.seed, c.index) % N_PROV]}下辖{c.kind or '镇'}"
        if t in ("river", "mountain", "lake"):
            return PROVINCES[c.province] + {"river": "境内河流", "mountain": "境内山峰", "lake": "境内湖泊"}[t]
        if t in ("book", "work"):
            author = self._author(c)
            era = self._era_word(author, self._rng(_S_AUTHOR, c.index, 1))
            name = self._core(author).name if author >= 0 else ""
            genre = self._book_genre(c) if t == "book" else ("词" if c.kind == "词" else "诗歌")
            return f"{era}{name}创作的{genre}"
        if t == "film":
            return f"{c.attrs[0]}{c.attrs[1]}片" if c.kind == "film" else f"{c.attrs[0]}{c.attrs[1]}电视剧"
        if t == "company":
            return f"中国{INDUSTRIES[int(c.kind)][0]}企业"
        if t == "university":
            return f"中国{UNIVERSITY_KINDS[int(c.kind)][2]}高等院校"
        if t == "organisation":
            field_, kind = (int(x) for x in c.kind.split(","))
            return f"从事{ORG_FIELDS[field_]}研究的{ORG_KINDS[kind][2]}"
        if t == "plant":
            return PLANT_BASES[int(c.kind)][1] + "植物"
        if t == "animal":
            return ANIMAL_BASES[int(c.kind)][1] + "动物"
        if t == "species":
            return INSECT_BASES[int(c.kind)][1] + "昆虫"
        if t == "compound":
            return "有机化合物"
        if t in ("event", "treaty"):
            lead = self._author(c)
            era = ERA_WORD.get(self._core(lead).era, "古代") if lead >= 0 else "古代"
            return era + (EVENT_KINDS[int(c.kind)][1] if t == "event" else "条约")
        if t == "country":
            return f"位于{COUNTRIES[c.index][2]}的国家"
        if t == "dynasty":
            return "中国历史时期" if c.name.endswith("时期") else "中国历史朝代"
        return f"第{ELEMENTS[c.index - len(COUNTRIES) - len(DYNASTIES)][0]}号化学元素"

    def _sense(self, c: _Core) -> str:
        """The Baike subtitle; entries sharing a title get different ones."""
        if c.source >= 0:
            return self._sense(self._core(c.source))
        base = self._base_sense(c)
        if c.index < N_FIXED:
            return base
        _, _, plan, pos = self._where(c.index)
        earlier = [p for p in plan.group_of.get(pos, ()) if p < pos]
        taken = {self._sense(self._core(c.index - pos + p)) for p in earlier}
        if base not in taken:
            return base
        if c.type == "person":
            return f"{_year_text(c.born)}出生的{base}"
        return base.replace("下辖", DIRECTIONS[pos % len(DIRECTIONS)] + "的", 1) if "下辖" in base else base + "之一"

    def _near_duplicate(self, i: int, source: int) -> Entry:
        """A lightly edited copy of an earlier entry: another title spelling and a punctuation change."""
        original = self._compose(self._core(source))
        labels = _copy_labels(original.labels)
        old, new = original.title, self._core(i).name
        at = 1 if original.type in ("book", "film", "work") else 0
        summary, clean = original.summary, labels["clean_summary"]
        raw_at = summary.find(old)  # the opening names the entry first (a stray space may precede it)
        if clean[at:at + len(old)] == old and raw_at >= 0:
            summary = summary[:raw_at] + new + summary[raw_at + len(old):]
            clean = clean[:at] + new + clean[at + len(old):]
        spans = [r["span"] for r in labels["rows"] if r["span"]] + [x["span"] for x in labels["extra_facts"]] \
            + [e["span"] for e in labels["enumerations"]]
        commas = [n for n, ch in enumerate(clean) if ch == "，" and not any(s <= n < e for s, e in spans)]
        if commas:
            which = self._rng(_S_DUP, i, 1).randrange(len(commas))
            at_clean = commas[which]
            raw_commas = [n for n, ch in enumerate(summary) if ch == "，"]
            at_raw = raw_commas[clean[:at_clean].count("，")]
            clean = clean[:at_clean] + "；" + clean[at_clean + 1:]
            summary = summary[:at_raw] + "；" + summary[at_raw + 1:]
        labels["clean_summary"] = clean
        for row in labels["rows"]:
            if row["relation"] == "中文名" and row["value"] == old:
                row["value"] = new
            elif row["how"] == "value_only" and clean[row["span"][0]:row["span"][1]] != row["value"]:
                row.update(supported=False, how="absent", form=None, span=None)  # the edit removed the trap
        labels["facts"] = [[r, new if r == "中文名" and v == old else v] for r, v in labels["facts"]]
        labels.update(index=i, near_duplicate_of=source, senses=1)
        infobox = [(n, new if n == "中文名" and v == old else v) for n, v in original.infobox]
        return Entry(title=new, sense=original.sense, domain=original.domain, type=original.type,
                     summary=summary, infobox=infobox, sections=original.sections,
                     baidu_id=REALISTIC_ID_BASE + i, sogou_id=REALISTIC_ID_BASE + i, layout=self._layout(i),
                     labels=labels)

    def _senses(self, i: int) -> int:
        """How many entries of the corpus share entry i's title."""
        if i < N_FIXED:
            return 1
        _, _, plan, pos = self._where(i)
        group = plan.group_of.get(pos, ())
        return max(1, sum(1 for p in group if i - pos + p < self.size))

    def _sections(self, c: _Core, facts: list[_Fact]) -> list[tuple[str, list[str]]]:
        """2-5 sections restating the facts (the true values), with links; the last one names related entries."""
        rng = self._rng(_S_SECTIONS, c.index)
        headings = SECTIONS[c.type]
        low, high = {"famous": (3, 5), "mid": (2, 4), "long_tail": (2, 3)}[c.tier]
        count = min(len(headings), rng.randint(low, high))
        stated = [f for f in facts if f.rel not in ("中文名", "外文名")]
        per = max(1, math.ceil(len(stated) / count))
        fillers = list(FILLERS[FILLER_FAMILY[c.type]])
        rng.shuffle(fillers)
        subject = _pronoun(c) if c.type == "person" else SUBJECTS.get(c.type, "该地")
        sections = []
        for n, heading in enumerate(headings[:count]):
            chunk = stated[n * per:(n + 1) * per]
            linked: set[str] = set()
            sentences = []
            for fact in chunk:
                templates = next((ts for ts in (_TEMPLATES[fact.rel][1], _TEMPLATES[fact.rel][0],
                                                _TEMPLATES[fact.rel][2]) if ts), ())
                if not templates:
                    continue
                tpl = templates[0]
                lead = (c.name if not sentences else subject) if tpl.subject else ""
                values = "、".join(_markup(v, linked) for v in fact.vals)
                sentences.append(f"{lead}{tpl.before}{values}{tpl.after}。")
            if fillers:
                filler = fillers.pop()
                sentences.append(f"{'' if filler.startswith('^') else subject}{filler.lstrip('^')}。")
            count_paragraphs = min(len(sentences), rng.randint(1, 3))
            cuts = sorted(rng.sample(range(1, len(sentences)), count_paragraphs - 1))
            bounds = list(zip([0] + cuts, cuts + [len(sentences)]))
            sections.append((heading, ["".join(sentences[a:b]) for a, b in bounds]))
        related = []
        rng_related = self._rng(_S_RELATED, c.index)
        for _ in range(RELATED_LINKS * 2):
            j = int(self.size * rng_related.random())
            title = self._core(j).name
            if j != c.index and title != c.name and title not in related:
                related.append(title)
            if len(related) == RELATED_LINKS:
                break
        if related:
            links = "、".join(f"[[{t}]]" for t in related)
            sections[-1][1][-1] += f"相关词条有{links}等。"
        return sections


def _pronoun(c: _Core) -> str:
    return "她" if c.gender == "女" else "他"


def _copy_labels(labels: dict) -> dict:
    """A copy of a labels dict deep enough to edit (lists of dicts and lists)."""
    out = {}
    for key, value in labels.items():
        if isinstance(value, list):
            out[key] = [dict(x) if isinstance(x, dict) else list(x) if isinstance(x, list) else x for x in value]
        else:
            out[key] = value
    return out


_HEAD = "head"


def _trap_templates(kind: str, family: str) -> tuple[_Template, ...]:
    return _TRAPS.get((kind, family)) or _TRAPS.get((kind, "*")) or ()


def _form(val: tuple, kind: str, rng: random.Random) -> tuple[tuple, str]:
    """The value as the text gives it: verbatim, or paraphrased (another date notation, numerals ...)."""
    text = val[0]
    if kind == "date":
        full = _FULL_DATE.match(text)
        if full and rng.random() < P_DATE_NOTATION:
            y, m, d = (int(x) for x in full.groups())
            return _v(f"{y}-{m:02d}-{d:02d}" if rng.random() < 0.5 else f"{y}.{m}.{d}"), "date_notation"
        year = _YEAR.match(text)
        if year and not year.group(1) and len(year.group(2)) == 4 and rng.random() < P_NUMERAL:
            return _v("".join(_CN_DIGITS[int(ch)] for ch in year.group(2)) + "年"), "numeral"
    elif kind == "count":
        count = _COUNT.match(text)
        if count and rng.random() < P_NUMERAL:
            return _v(_cn_number(int(count.group(1))) + count.group(2)), "numeral"
    elif kind == "qty":
        qty = _QTY.match(text)
        if qty:
            roll = rng.random()
            if qty.group(4) in _UNIT_WORDS and roll < P_UNIT_WORD:
                return _v(text[:qty.start(4)] + _UNIT_WORDS[qty.group(4)]), "unit_word"
            if not qty.group(1) and roll >= 1 - P_APPROXIMATE:
                return _v("约" + text), "approximate"
    return val, "verbatim"


def _partial(val: tuple, kind: str) -> tuple | None:
    """Part of the value: the year of a full date, the city of 浙江省安平市."""
    text, title, at, n = val
    if kind == "date":
        match = _FULL_DATE.match(text) or _MONTH_DATE.match(text)
        return _v(match.group(1) + "年") if match else None
    if kind == "place" and title is not None and at > 0 and at + n == len(text):
        return _lv(title, shown=text[at:])  # the part after the province, as the page shows it
    return None


def _stale(val: tuple, kind: str, rng: random.Random) -> tuple | None:
    """An outdated or wrong version of the value (another year, another quantity)."""
    text = val[0]
    if kind == "date":
        full = _FULL_DATE.match(text)
        if full:
            return _v(f"{int(full.group(1)) + rng.choice((-3, -2, -1, 1, 2, 3))}年{full.group(2)}月{full.group(3)}日")
        year = _YEAR.match(text)
        if year:
            shift = rng.choice((-5, -3, -2, -1, 1, 2, 3, 5))
            value = (-int(year.group(2)) if year.group(1) else int(year.group(2))) + shift
            return _v(_year_text(value)) if value not in (0, -1 if year.group(1) else 0) else None
        return None
    if kind == "qty":
        qty = _QTY.match(text)
        if not qty:
            return None
        number = qty.group(2)
        decimals = len(number.split(".")[1]) if "." in number else 0
        factor = rng.choice((0.8, 0.85, 0.9, 1.1, 1.15, 1.2, 1.25))
        new = f"{float(number) * factor:.{decimals}f}"
        return None if new == number else _v(text[:qty.start(2)] + new + text[qty.end(2):])
    if kind == "count":
        count = _COUNT.match(text)
        if count:
            n = int(count.group(1))
            return _v(f"{n + max(1, n // 10) * rng.choice((-1, 1))}{count.group(2)}") if n > 2 else None
    return None


def _find(text: str, value: str) -> tuple[int, int] | None:
    """The first mention of value in text that is not part of a longer number or Latin word."""
    if not value:
        return None
    start = text.find(value)
    while start != -1:
        end = start + len(value)
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        inside_number = (value[0].isdigit() and (before.isdigit() or before == ".")) or \
            (value[-1].isdigit() and (after.isdigit() or (after == "." and text[end + 1:end + 2].isdigit())))
        inside_word = (value[0].isascii() and value[0].isalnum() and before.isascii() and before.isalnum()) or \
            (value[-1].isascii() and value[-1].isalnum() and after.isascii() and after.isalnum())
        if not inside_number and not inside_word:
            return start, end
        start = text.find(value, start + 1)
    return None


def _size(clauses: list[_Clause], subject: str) -> int:
    """Length of a sentence: subject, clauses, the commas between them and the final 。."""
    return len(subject) + sum(c.size + (0 if k == 0 or c.glue else 1) for k, c in enumerate(clauses)) + 1


def _clause(*parts, subject: bool = False) -> _Clause:
    """A clause from plain strings and lists of mentions (a list is joined with 、)."""
    pieces: list = []
    for part in parts:
        if isinstance(part, str):
            if part:
                pieces.append(part)
            continue
        for n, mention in enumerate(part or ()):
            if n:
                pieces.append("、")
            pieces.append(mention)
    text = "".join(p if isinstance(p, str) else p[0][0] for p in pieces)
    return _Clause(pieces, subject, len(text), text)


class _Page:
    """One entry while its summary is written: the infobox plan, the mentions and what they support."""

    __slots__ = ("corpus", "c", "rng", "facts", "rows", "row_rel", "by_rel", "marks", "spans", "extras", "enums",
                 "ren", "family", "used", "n_extra", "extra_wish", "reserve", "named_marks", "filler_spans")

    def __init__(self, corpus: RealisticCorpus, c: _Core, facts: list[_Fact]):
        self.corpus, self.c, self.facts = corpus, c, facts
        self.rng = corpus._rng(_S_ENTRY, c.index)
        self.rows: list[_Row] = []
        self.row_rel: dict[str, _Row] = {}
        self.by_rel = {f.rel: f for f in facts}
        self.marks: list = []            # mark -> the _Item, _Extra or _HEAD it mentions
        self.spans: list = []
        self.extras: list[_Extra] = []
        self.enums: list[_Enum] = []
        self.ren: list[int] = []         # marks of 「A人」 mentions (籍贯 and 出生地 both)
        self.family = FAMILY[c.type]
        self.used: set[str] = set()      # relations the text has dealt with
        self.n_extra = 0
        self.extra_wish: dict[str, bool] = {}
        self.reserve: list[_Clause] = []  # rows left out, stated only if the summary is too short for its tier

    def mark(self, target) -> int:
        self.marks.append(target)
        return len(self.marks) - 1

    # -- the infobox --------------------------------------------------------------------------------

    def plan_rows(self) -> None:
        rng, c = self.rng, self.c
        low, high = INFOBOX_ROWS[c.tier]
        wanted = rng.randint(low, high)
        others = self.facts[1:]
        head = self.facts[0] if len(others) < low or rng.random() >= P_SUBJECTLESS_HEAD else None
        # Infoboxes keep a type's usual order, but which rows a page has varies.
        ranked = sorted(range(len(others)), key=lambda k: k + rng.random() * 6)
        chosen = sorted(ranked[:wanted - (1 if head else 0)])
        for fact in ([head] if head else []) + [others[k] for k in chosen]:
            shown = fact.rel
            if fact.rel in ALIASES and rng.random() < P_RELATION_ALIAS:
                shown = rng.choice(ALIASES[fact.rel])
            vals = list(fact.vals)
            fate, how = "absent", None
            if fact.rel == "中文名":
                fate = "head"
            elif fact.enum:
                if rng.random() >= P_ENUM_INFOBOX_ALL:
                    vals = vals[:rng.randint(2, len(vals) - 1)]
                if rng.random() < P_ENUM_STATED:
                    fate, how = "stated", self.how(fact.rel, body_only=True)
            elif len(vals) > 1:
                if rng.random() < P_ROW_STATED:
                    fate, how = "stated", self.how(fact.rel)
            else:
                roll = rng.random()
                traps = _trap_templates(fact.kind, self.family)
                stale = _stale(vals[0], fact.kind, rng) if fact.kind in ("date", "qty", "count") else None
                if traps and roll < P_ROW_VALUE_ONLY:
                    fate = "value_only"
                elif stale and roll < P_ROW_VALUE_ONLY + P_ROW_CONTRADICTED:
                    fate, vals = "contradicted", [stale]
                elif rng.random() < P_ROW_STATED:
                    fate, how = "stated", self.how(fact.rel)
                    if _partial(vals[0], fact.kind) and rng.random() < P_ROW_PARTIAL:
                        fate, how = "partial", None
            if fate == "stated" and how is None:
                fate = "absent"
            true_value = None
            # Its own stream: planting false values leaves every other choice of the page as it was.
            wrong = self.corpus._rng(_S_FALSE, c.index, len(self.rows))
            if fate == "stated" and len(vals) == 1 and fact.kind in ("date", "qty", "count") \
                    and wrong.random() < P_ROW_FALSE:
                false = _stale(vals[0], fact.kind, wrong)
                if false is not None:
                    true_value, vals = vals[0][0], [false]
            row = _Row(shown, fact, vals, [_Item(shown, fact.rel, v[0], fate, how, true_value=true_value)
                                           for v in vals])
            self.rows.append(row)
            self.row_rel[fact.rel] = row

    def how(self, rel: str, body_only: bool = False) -> str | None:
        """How the text states a relation: the opening's convention, or a body phrasing (name/cue/pattern)."""
        opening = not body_only and rel in OPENING[self.c.type]
        if opening and self.rng.random() < P_PATTERN:
            return "opening"
        options = [(h, HOW_WEIGHTS[h]) for h, ts in zip(HOWS, _TEMPLATES.get(rel, ((), (), ()))) if ts]
        if not options:
            return "opening" if opening else None
        return _weighted(self.rng, options)

    # -- the opening sentence ----------------------------------------------------------------------

    def can(self, rel: str) -> bool:
        row = self.row_rel.get(rel)
        if row is not None:
            return rel not in self.used and row.items[0].fate == "stated" and row.items[0].how == "opening"
        if rel not in self.by_rel or rel in self.used or self.n_extra >= MAX_EXTRA[self.c.tier]:
            return False
        if rel not in self.extra_wish:
            self.extra_wish[rel] = self.rng.random() < P_OPENING_EXTRA
        return self.extra_wish[rel]

    def take(self, rel: str, how: str = "pattern", checked: bool = False) -> list | None:
        """Mentions of a relation's values for the opening, or None when the opening should not state it.

        checked: the caller has already asked can() for this relation (and for its partners).
        """
        if not (checked or self.can(rel)):
            return None
        self.used.add(rel)
        row = self.row_rel.get(rel)
        if row is not None:
            out = []
            for item, val in zip(row.items, row.vals):
                item.how, item.form, item.mark = how, "verbatim", self.mark(item)
                out.append((val, item.mark))
            return out
        self.n_extra += 1
        out = []
        for val in self.by_rel[rel].vals:
            extra = _Extra(rel, val[0], -1, False)
            extra.mark = self.mark(extra)
            self.extras.append(extra)
            out.append((val, extra.mark))
        return out

    def opening(self) -> list[_Clause]:
        c = self.c
        row = self.row_rel.get("中文名")
        mark = self.mark(row.items[0] if row else _HEAD)
        if row:
            row.items[0].mark = mark
        head = [(_v(c.name), mark)]
        first = ["《", head, "》"] if c.type in ("book", "film", "work") else [head]
        clauses = getattr(self, f"_open_{c.type}")(first)
        if len(clauses) > 1 and clauses[1].text.startswith(("是", "发生于")):
            clauses[1].glue = True  # 「X是…」 takes no comma after the name
        return clauses

    def _open_person(self, first: list) -> list[_Clause]:
        c, rng = self.c, self.rng
        parts = list(first)
        extras_needed = sum(1 for rel in ("出生日期", "逝世日期") if rel not in self.row_rel)
        if self.can("出生日期") and self.can("逝世日期") and \
                self.n_extra + extras_needed <= MAX_EXTRA[c.tier]:
            parts += ["（", self.take("出生日期", checked=True), "—", self.take("逝世日期", checked=True), "）"]
        clauses = [_clause(*parts)]
        for rel, word in (("本名", rng.choice(("原名", "本名"))), ("字", "字"), ("别名", "号" if c.era else "又名")):
            got = self.take(rel)
            if got:
                clauses.append(_clause(word, got))
        native = self.take("籍贯") or self.take("出生地")
        if native:
            self.ren.append(native[0][1])
            clauses.append(_clause(native, "人"))
        ethnic = self.take("民族")
        if ethnic:
            clauses.append(_clause(ethnic))
        where = self.take("所处时代") if c.era else self.take("国籍")
        jobs = self.take("职业")
        modern = "" if c.era else ("近代" if c.born < 1900 else "现代")
        if jobs:
            fame = "著名" if c.tier == "famous" and rng.random() < 0.5 else ""
            clauses.append(_clause(where or [], modern if where else "", fame, jobs))
        elif where:
            clauses.append(_clause(where, modern, "人物"))
        elif rng.random() < 0.5:
            clauses.append(_clause(c.gender))
        return clauses

    def _open_city(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("古称", alias))
        country, region, kind = self.take("所属国家"), self.take("所属地区"), self.take("行政区类别")
        if region:
            clauses.append(_clause("是", country or [], region, "下辖的", kind or "城市"))
        elif country or kind:
            clauses.append(_clause("是", country or [], "的一座" if country else "一座", kind or "城市"))
        return clauses

    def _open_place(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        region, kind = self.take("所属地区"), self.take("行政区类别")
        if region:
            clauses.append(_clause("是", region, "下辖的", kind or "乡镇"))
        elif kind:
            clauses.append(_clause("是一个", kind))
        return clauses

    def _open_river(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("又称", alias))
        country = self.take("所属国家")
        clauses.append(_clause("是", country, "境内的一条河流") if country else _clause("是一条河流"))
        return clauses

    def _open_mountain(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("又称", alias))
        chain = self.take("所属山系") or self.take("所属山脉")
        if chain:
            clauses.append(_clause("是", chain, "的主要山峰之一"))
        return clauses

    def _open_lake(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("又称", alias))
        country, kind = self.take("所属国家"), self.take("湖泊类型")
        if country:
            clauses.append(_clause("是", country, "的一个", kind or "湖泊"))
        elif kind:
            clauses.append(_clause("是一个", kind))
        return clauses

    def _open_book(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("又名《", alias, "》"))
        era, author, genre = self.take("创作年代"), self.take("作者", "cue"), self.take("文学体裁")
        if author:
            clauses.append(_clause("是", era or [], author, "创作的", genre or "作品"))
        elif genre or era:
            clauses.append(_clause("是一部", era or [], genre or "作品"))
        return clauses

    def _open_film(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        director, region, genre = self.take("导演", "cue"), self.take("制片地区"), self.take("类型")
        kind = "电视剧" if self.c.kind == "tv" else "电影"
        if director:
            clauses.append(_clause("是由", director, "执导的", region or [], genre or [], kind))
        elif region or genre:
            clauses.append(_clause("是一部", region or [], genre or [], kind))
        return clauses

    def _open_work(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        ci = self.c.kind == "词"
        era, author, form = self.take("创作年代"), self.take("作者", "cue"), self.take("文学体裁")
        if author:
            clauses.append(_clause("是", era or [], "词人" if ci else "诗人", author,
                                   *(["创作的一首", form] if form else ["创作的作品"])))
        elif form:
            clauses.append(_clause("是一首", era or [], form))
        return clauses

    def _open_company(self, first: list) -> list[_Clause]:
        short = self.take("简称")
        clauses = [_clause(*first, *(["（简称", short, "）"] if short else []))]
        nature = self.take("企业性质")
        clauses.append(_clause("是一家", nature) if nature else
                       _clause("是一家", INDUSTRIES[int(self.c.kind)][0], "企业"))
        return clauses

    def _open_university(self, first: list) -> list[_Clause]:
        short = self.take("简称")
        clauses = [_clause(*first, *(["（简称", short, "）"] if short else []))]
        category = self.take("类别")
        clauses.append(_clause("是一所", category or [], "高等院校"))
        return clauses

    def _open_organisation(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        nature = self.take("机构性质")
        if nature:
            clauses.append(_clause("是一家", nature))
        return clauses

    def _open_plant(self, first: list) -> list[_Clause]:
        latin = self.take("拉丁学名")
        clauses = [_clause(*first, *(["（学名：", latin, "）"] if latin else []))]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("又名", alias))
        family, genus = self.take("科"), self.take("属")
        word = {"plant": "植物", "animal": "动物", "species": "昆虫"}[self.c.type]
        if family or genus:
            clauses.append(_clause("是", family or [], genus or [], "的", word))
        return clauses

    _open_animal = _open_plant
    _open_species = _open_plant

    def _open_compound(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        alias = self.take("别名")
        if alias:
            clauses.append(_clause("又称", alias))
        look = self.take("外观")
        clauses.append(_clause("是一种", look) if look else _clause("是一种有机化合物"))
        return clauses

    def _open_element(self, first: list) -> list[_Clause]:
        category = self.take("元素类别")
        return [_clause(*first), _clause("是一种", category) if category else _clause("是一种化学元素")]

    def _open_event(self, first: list) -> list[_Clause]:
        clauses = [_clause(*first)]
        time = self.take("时间", "cue")
        if time:
            clauses.append(_clause("发生于", time))
        era = self.take("所处时代")
        kind = EVENT_KINDS[int(self.c.kind)][1]
        clauses.append(_clause("是", era or [], "时期的一次" if era else "一次", kind))
        return clauses

    def _open_treaty(self, first: list) -> list[_Clause]:
        time, nature = self.take("签订时间", "cue"), self.take("性质")
        when = [time, "签订的"] if time else []
        return [_clause(*first), _clause("是", *when, "一项", nature or "条约")]

    def _open_country(self, first: list) -> list[_Clause]:
        full = self.take("全称")
        head = _clause(*first, *(["（", full, "）"] if full else []))
        return [head, _clause("是位于", COUNTRIES[self.c.index][2], "的国家")]

    def _open_dynasty(self, first: list) -> list[_Clause]:
        span = self.take("存在时间")
        head = _clause(*first, *(["（", span, "）"] if span else []))
        return [head, _clause("是中国历史上的一个", "时期" if self.c.name.endswith("时期") else "朝代")]

    # -- the body -------------------------------------------------------------------------------------

    def _phrase(self, rel: str, how: str, mentions: list, enum: bool = False) -> _Clause:
        tpl = self.rng.choice(_TEMPLATES[rel][HOWS.index(how)])
        pieces: list = [tpl.before] if tpl.before else []
        closing_deng = tpl.after.startswith("等")
        with_he = enum and not closing_deng and self.rng.random() < 0.5
        for n, mention in enumerate(mentions):
            if n:
                pieces.append("和" if with_he and n == len(mentions) - 1 else "、")
            pieces.append(mention)
        if enum and not closing_deng and not with_he and len(mentions) >= 3:
            pieces.append("等")
        if tpl.after:
            pieces.append(tpl.after)
        text = "".join(p if isinstance(p, str) else p[0][0] for p in pieces)
        return _Clause(pieces, tpl.subject, len(text), text)

    def _enumeration(self, fact: _Fact, row: _Row | None, how: str) -> _Clause:
        """The full list in the text (代表作有《A》、《B》、《C》和《D》等); the infobox may hold only some items."""
        items = {item.value: item for item in row.items} if row else {}
        mentions, flags = [], []
        for val in fact.vals:
            item = items.get(val[0])
            if item is not None:
                item.how, item.form, item.mark = how, "verbatim", self.mark(item)
                mark = item.mark
            else:
                extra = _Extra(fact.rel, val[0], -1, False)
                mark = extra.mark = self.mark(extra)
                self.extras.append(extra)
            mentions.append((val, mark))
            flags.append(item is not None)
        self.enums.append(_Enum(fact.rel, [v[0] for v in fact.vals], [m for _, m in mentions], flags))
        return self._phrase(fact.rel, how, mentions, enum=True)

    def body(self) -> list[_Clause]:
        rng = self.rng
        clauses: list[_Clause] = []
        for row in self.rows:
            rel, kind = row.fact.rel, row.fact.kind
            if rel == "中文名" or rel in self.used:
                continue
            first = row.items[0]
            if first.fate in ("stated", "partial", "contradicted"):
                how = first.how if first.how in HOWS else self.how(rel, body_only=True)
                if how is None:
                    continue
                if first.fate == "stated" and row.fact.enum:
                    clauses.append(self._enumeration(row.fact, row, how))
                elif first.fate == "stated":
                    mentions = []
                    for item, val in zip(row.items, row.vals):
                        shown, form = _form(val, kind, rng) if len(row.items) == 1 else (val, "verbatim")
                        item.how, item.form, item.mark = how, form, self.mark(item)
                        mentions.append((shown, item.mark))
                    clauses.append(self._phrase(rel, how, mentions))
                else:
                    true = row.fact.vals[0] if first.fate == "contradicted" else _partial(row.vals[0], kind)
                    first.mark = self.mark(first)
                    clauses.append(self._phrase(rel, how, [(true, first.mark)]))
            elif first.fate == "absent" and not row.fact.enum:
                how = self.how(rel, body_only=True)
                if how is not None:
                    mentions = []
                    for item, val in zip(row.items, row.vals):
                        item.fate, item.how, item.form, item.mark = "reserve", how, "verbatim", self.mark(item)
                        mentions.append((val, item.mark))
                    self.reserve.append(self._phrase(rel, how, mentions))
                continue
            elif first.fate == "value_only":
                tpl = rng.choice(_trap_templates(kind, self.family))
                first.mark = self.mark(first)
                text = tpl.before + row.vals[0][0] + tpl.after
                clauses.append(_Clause([p for p in (tpl.before, (row.vals[0], first.mark), tpl.after) if p],
                                       tpl.subject, len(text), text))
            else:
                continue
            self.used.add(rel)
        trailing: list[_Clause] = []
        for fact in self.facts[1:]:
            if self.n_extra >= MAX_EXTRA[self.c.tier]:
                break
            if fact.rel in self.used or fact.rel in self.row_rel or rng.random() >= P_EXTRA:
                continue
            how = self.how(fact.rel, body_only=True)
            if how is None:
                continue
            self.used.add(fact.rel)
            self.n_extra += 1
            if fact.enum:
                clause = self._enumeration(fact, None, how)
            else:
                mentions = []
                for val in fact.vals:
                    extra = _Extra(fact.rel, val[0], -1, False)
                    extra.mark = self.mark(extra)
                    self.extras.append(extra)
                    mentions.append((val, extra.mark))
                clause = self._phrase(fact.rel, how, mentions)
            if rng.random() < P_EXTRA_TRAILING:
                trailing.append(clause)
            else:
                clauses.insert(rng.randint(0, len(clauses)), clause)
        return clauses + trailing

    # -- length and assembly --------------------------------------------------------------------------

    def subject(self) -> str:
        c = self.c
        if self.rng.random() < 0.3:
            return f"《{c.name}》" if c.type in ("book", "film", "work") else c.name
        if c.type == "person":
            return _pronoun(c)
        if c.type == "place":
            return "该" + (c.kind or "镇")
        if c.type == "film" and c.kind == "tv":
            return "该剧"
        if c.type == "dynasty" and c.name.endswith("时期"):
            return SUBJECTS["period"]
        return SUBJECTS[c.type]

    def filler(self, template: str) -> _Clause | None:
        """A filler clause; {type} slots become links to other entries (None when the corpus has none)."""
        pieces: list = []
        text = template.lstrip("^")
        at = 0
        for match in _LINK_SLOT.finditer(text):
            j = self.corpus._pick(match.group(1), self.rng, exclude=self.c.index)
            if j < 0 or self.corpus._core(j).name == self.c.name:
                return None
            if match.start() > at:
                pieces.append(text[at:match.start()])
            quoted = self.corpus._core(j).type in ("book", "film", "work")
            pieces.append((self.corpus._ref(j, "《", "》") if quoted else self.corpus._ref(j), None))
            at = match.end()
        if at < len(text):
            pieces.append(text[at:])
        plain = "".join(p if isinstance(p, str) else p[0][0] for p in pieces)
        return _Clause(pieces, False, len(plain), plain, filler=True, names=FILLER_RELATIONS.get(template, ()))

    def fit(self, opening: list[_Clause], body: list[_Clause]) -> list[_Unit]:
        """Sentences whose total length falls in the tier's range: facts that do not fit are left out."""
        rng = self.rng
        low, high = SUMMARY_CHARS[self.c.tier]
        # Lengths within a tier cluster at the short end, with a tail of long summaries.
        target = low + int((high - low) * rng.random() ** 2)
        while len(opening) > 1 and _size(opening, "") > high - 2:
            opening.pop()  # its facts stay in the infobox only
        head = _Unit(opening, "", _size(opening, ""))
        units, at = [], 0
        while at < len(body):
            group = body[at:at + rng.choice((1, 1, 2, 2, 3))]
            at += len(group)
            subject = self.subject() if group[0].subject and rng.random() < P_SUBJECT else ""
            units.append(_Unit(group, subject, _size(group, subject)))
        length = head.size
        kept = [False] * len(units)
        for k, unit in enumerate(units):
            if length + unit.size <= target:
                kept[k], length = True, length + unit.size
        for k, unit in enumerate(units):
            if not kept[k] and length < low and length + unit.size <= high:
                kept[k], length = True, length + unit.size
        out = [u for k, u in enumerate(units) if kept[k]]
        family = FILLER_FAMILY[self.c.type]
        fillers = list(FILLERS[family]) + list(LINK_FILLERS[family])
        rng.shuffle(fillers)
        while length < target and fillers:
            # one to three filler clauses make a sentence: 该河水量丰沛，两岸风景秀丽。
            clauses: list[_Clause] = []
            subject = ""
            for _ in range(rng.choice((1, 2, 2, 3))):
                room = high - length - _size(clauses, subject) - (1 if clauses else 0)
                pick = next((f for f in fillers if len(_LINK_SLOT.sub("某某某", f.lstrip("^"))) + 1 <= room), None)
                if pick is None:
                    break
                fillers.remove(pick)
                clause = self.filler(pick)
                if clause is None or clause.size + (1 if clauses else 1) > room:
                    continue
                if not clauses and not pick.startswith("^") and rng.random() < P_SUBJECT:
                    subject = self.subject()
                    if _size([clause], subject) > high - length:
                        subject = ""
                clauses.append(clause)
            if not clauses:
                break
            unit = _Unit(clauses, subject, _size(clauses, subject))
            out.insert(rng.randint(0, len(out)), unit)
            length += unit.size
        for clause in self.reserve:
            # a famous entry whose fillers ran out states more of its rows
            if length >= low:
                break
            unit = _Unit([clause], "", _size([clause], ""))
            if length + unit.size <= high:
                out.insert(rng.randint(0, len(out)), unit)
                length += unit.size
        if out and rng.random() < P_MERGE and length - len(out[0].subject) >= low:
            head.join_next = True
            length -= len(out[0].subject)
            out[0].size -= len(out[0].subject)
            out[0].subject = ""
        return [head] + out

    def assemble(self, units: list[_Unit]) -> tuple[str, str, list[str]]:
        """The summary string (with link markup and noise) and the clean text its spans refer to."""
        rng = self.rng
        raw: list[str] = []
        clean: list[str] = []
        noise: list[str] = []
        self.spans = [None] * len(self.marks)
        self.named_marks: dict[int, bool] = {}
        self.filler_spans: list[list[int]] = []
        linked: set[str] = set()
        pos = 0
        for unit in units:
            if unit.subject:
                raw.append(unit.subject)
                clean.append(unit.subject)
                pos += len(unit.subject)
            for k, clause in enumerate(unit.clauses):
                if k and not clause.glue:
                    raw.append("，")
                    clean.append("，")
                    pos += 1
                frame = "".join(p for p in clause.pieces if isinstance(p, str))
                clause_start = pos
                for piece in clause.pieces:
                    if isinstance(piece, str):
                        raw.append(piece)
                        clean.append(piece)
                        pos += len(piece)
                        continue
                    val, mark = piece
                    raw.append(_markup(val, linked))
                    clean.append(val[0])
                    pos += len(val[0])
                    if mark is None:
                        continue  # a filler's link: no fact of this entry
                    self.spans[mark] = (pos - len(val[0]), pos)
                    target = self.marks[mark]
                    if isinstance(target, (_Extra, _Item)):
                        # named: the clause words (not the values) name the relation or an alias of it
                        named = any(name in frame for name in _NAMES.get(target.rel, (target.rel,)))
                        if isinstance(target, _Extra):
                            target.named = named
                        else:
                            self.named_marks[mark] = named
                if clause.filler:
                    self.filler_spans.append({"span": [clause_start, pos], "names": list(clause.names)})
            end = "，" if unit.join_next else "。"
            raw.append(end)
            clean.append(end)
            pos += 1
            if end == "。" and rng.random() < P_CITATION:
                first = rng.randint(1, 12)
                cite = f"[{first}]" if rng.random() < 0.8 else f"[{first}-{first + rng.randint(1, 3)}]"
                raw.append(cite)
                noise.append(cite)
        if rng.random() < P_STRAY_SPACE:
            for _ in range(rng.randint(1, 2)):
                space = rng.choice((" ", "\u3000"))
                raw.insert(rng.randint(1, len(raw) - 1), space)
                noise.append(space)
        return "".join(raw), "".join(clean), noise

    # -- labels ---------------------------------------------------------------------------------------

    def labels(self, clean: str, noise: list[str]) -> dict:
        spans = self.spans
        ren = [spans[m] for m in self.ren if spans[m]]
        rows = []
        for row in self.rows:
            for item in row.items:
                span = spans[item.mark] if item.mark >= 0 else None
                # named: the clause of the mention names the relation (what the trailing-relation rule reads)
                label = {"relation": item.relation, "value": item.value, "supported": False, "how": "absent",
                         "form": None, "span": None, "named": bool(span) and self.named_marks.get(item.mark, False),
                         # a planted false value: the page states it, other sites give true_value
                         "false": item.true_value is not None, "true_value": item.true_value}
                if span and item.fate in ("head", "stated", "reserve"):
                    label.update(supported=True, how="pattern" if item.fate == "head" else item.how,
                                 form=item.form or "verbatim", span=list(span))
                elif span and item.fate in ("value_only", "contradicted", "partial"):
                    label.update(how=item.fate, span=list(span))
                else:
                    # 「浙江安平人」 states 籍贯 and 出生地 alike when the two rows hold the same value
                    co = next((s for s in ren if item.rel in ("籍贯", "出生地") and clean[s[0]:s[1]] == item.value), None)
                    found = co or _find(clean, item.value)
                    if co:
                        label.update(supported=True, how="pattern", form="verbatim", span=list(co))
                    elif found:
                        label.update(how="value_only", span=list(found))
                rows.append(label)
        supported_ends = [r["span"][1] for r in rows if r["supported"]]
        last = max(supported_ends) if supported_ends else None
        extras = sorted((e for e in self.extras if spans[e.mark]), key=lambda e: spans[e.mark])
        trailing: list[str] = []
        for extra in extras:
            if extra.named and (last is None or spans[extra.mark][0] >= last) and extra.rel not in trailing:
                trailing.append(extra.rel)
        enums = []
        for enum in self.enums:
            if all(spans[m] for m in enum.marks):
                enums.append({"relation": enum.rel, "items": list(enum.items),
                              "span": [spans[enum.marks[0]][0], spans[enum.marks[-1]][1]],
                              "in_infobox": list(enum.in_infobox)})
        return {
            "profile": "realistic", "seed": self.corpus.seed, "index": self.c.index, "tier": self.c.tier,
            "clean_summary": clean, "noise": noise, "rows": rows,
            "extra_facts": [{"relation": e.rel, "value": e.value, "span": list(spans[e.mark]), "named": e.named}
                            for e in extras],
            "enumerations": enums, "last_supported_end": last, "trailing_named_relations": trailing,
            # sentences that state no fact of the entry (「与某某、某某交往甚密」), their lists no row gives, and
            # the relations a few of them speak of by name (「性质较为稳定」)
            "fillers": self.filler_spans,
            "facts": [[f.rel, v[0]] for f in self.facts for v in f.vals],
            "senses": self.corpus._senses(self.c.index), "near_duplicate_of": None,
        }


__all__ = [
    "ALIASES", "FILLERS", "INFOBOX_ROWS", "LINK_FILLERS", "N_FIXED", "PHRASES", "REALISTIC_ID_BASE", "SUMMARY_CHARS",
    "RealisticCorpus",
]
