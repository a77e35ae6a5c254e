"""The world behind the corpus: where each index lies (blocks of types, tiers), the entities' names,
cores and references to each other, and the fact helpers every type shares.

Entry ``i`` depends only on (seed, size, i) and is computed in O(1): the index space is cut into blocks of
100 whose type mix is fixed and whose order is a seeded shuffle, so "the k-th city" is found without
generating anything else, and a reference picks the k-th entity of a type with a Zipf-like skew. Names
depend on (seed, i) alone and are unique per title (a seeded bijection of the member rank onto each type's
name space) up to about 800,000 entries, apart from the planted multi-sense titles.

The facts of each type are written by the subclasses in facts_people, facts_places and facts_nature.
Relations are stated from one side only (a film names its director; the director's page need not list
the film), so the world has no contradicting inverse facts.
"""

from __future__ import annotations

import random
from functools import lru_cache

from crawlers.mirror.realistic.fixed import COUNTRIES, DYNASTIES, ELEMENTS, FIXED, FIXED_INDEX, N_FIXED, PERSON_ERAS
from crawlers.mirror.realistic.pools import (ANIMAL_BASES, BOOK_SUFFIXES, BOOK_WORDS, CI_TUNES, COMPOUND_BASES,
                                             EVENT_KINDS, FEMALE_CHARS, FILM_GENRES, FILM_SUFFIXES, GIVEN, INDUSTRIES,
                                             INSECT_BASES, N_PLACE, N_PROV, ORG_FIELDS, ORG_KINDS, PERSON_KINDS,
                                             PLACE_CHARS, PLANT_BASES, POEM_NOUNS, POEM_VERBS, PROVINCES, SUBSTITUENTS,
                                             SURNAMES, TREATY_KINDS, UNIVERSITY_KINDS, _latin, _variant)
from crawlers.mirror.realistic.rates import (BLOCK, BLOCK_MIX, COUNT, HOMONYM_GROUPS, HOMONYM_KINDS, INFOBOX_ROWS,
                                             NEAR_DUPLICATES_PER_BLOCK, REF_SKEW, REF_TIER_WEIGHTS, TIER_PATTERN,
                                             TYPE_CODE)
from crawlers.mirror.realistic.records import _Core, _Fact, _Plan
from crawlers.mirror.realistic.streams import (_S_AUTHOR, _S_BIRTH, _S_CORE, _S_DUP, _S_NAMER, _S_PLAN, _S_TIER,
                                               _S_TOWN, _mix, _Namer, _weighted)
from crawlers.mirror.realistic.values import _lv, _v, _year_text


class World:
    """Entities 0..size-1 of the generated world; entity i depends only on (seed, size, i)."""

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

    def _senses(self, i: int) -> int:
        """How many entries of the corpus share entry i's title."""
        if i < N_FIXED:
            return 1
        _, _, plan, pos = self._where(i)
        group = plan.group_of.get(pos, ())
        return max(1, sum(1 for p in group if i - pos + p < self.size))

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

    # -- what the facts of every type draw on; the fixed entities' facts ------------------------

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
