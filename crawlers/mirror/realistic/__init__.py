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
from typing import Iterator

from crawlers.mirror.facts import Entry
from crawlers.mirror.realistic.facts_nature import NatureFacts
from crawlers.mirror.realistic.facts_people import PeopleFacts
from crawlers.mirror.realistic.facts_places import PlaceFacts
from crawlers.mirror.realistic.fixed import COUNTRIES, DYNASTIES, ELEMENTS, ERA_WORD, FIXED, N_FIXED
from crawlers.mirror.realistic.phrasing import (_LINK_SLOT, _NAMES, _TEMPLATES, _TRAPS, ALIASES, FILLER_FAMILY,
                                                FILLER_RELATIONS, FILLERS, HOWS, LINK_FILLERS, OPENING, PHRASES,
                                                SECTIONS, SUBJECTS, _Template)
from crawlers.mirror.realistic.pools import (ANIMAL_BASES, DIRECTIONS, EVENT_KINDS, INDUSTRIES, INSECT_BASES, N_PROV,
                                             ORG_FIELDS, ORG_KINDS, PERSON_KINDS, PLANT_BASES, PROVINCES,
                                             UNIVERSITY_KINDS)
from crawlers.mirror.realistic.rates import (DOMAIN, FACT_EXPONENT, FAMILY, HOW_WEIGHTS, INFOBOX_ROWS, MAX_EXTRA,
                                             P_APPROXIMATE, P_CITATION, P_DATE_NOTATION, P_ENUM_INFOBOX_ALL,
                                             P_ENUM_STATED, P_EXTRA, P_EXTRA_TRAILING, P_MERGE, P_NUMERAL,
                                             P_OPENING_EXTRA, P_PATTERN, P_RELATION_ALIAS, P_ROW_CONTRADICTED,
                                             P_ROW_FALSE, P_ROW_PARTIAL, P_ROW_STATED, P_ROW_VALUE_ONLY, P_STRAY_SPACE,
                                             P_SUBJECT, P_SUBJECTLESS_HEAD, P_UNIT_WORD, REALISTIC_ID_BASE,
                                             RELATED_LINKS, SUMMARY_CHARS)
from crawlers.mirror.realistic.records import _Clause, _Core, _Enum, _Extra, _Fact, _Item, _Row, _Unit
from crawlers.mirror.realistic.streams import (_S_AUTHOR, _S_DUP, _S_ENTRY, _S_FACTS, _S_FALSE, _S_LAYOUT, _S_RELATED,
                                               _S_SECTIONS, _mix, _weighted)
from crawlers.mirror.realistic.values import (_CN_DIGITS, _COUNT, _FULL_DATE, _MONTH_DATE, _QTY, _UNIT_WORDS, _YEAR,
                                              _cn_number, _lv, _markup, _v, _year_text)

# --- The corpus ---------------------------------------------------------------------------------


class RealisticCorpus(PeopleFacts, PlaceFacts, NatureFacts):
    """Entries 0..size-1 of a generated Baike-like corpus; entry i depends only on (seed, size, i)."""

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


    def _layout(self, i: int) -> str:
        # About one entry in four is served in Baidu's older layout, as a crawl meets both.
        return "baidu_legacy" if _mix(self.seed, _S_LAYOUT, i) % 4 == 0 else "baidu"


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
