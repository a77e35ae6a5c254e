"""RealisticCorpus: each entry composed from the world's facts and the summary written about them, with
its infobox, sections, subtitle (sense) and layout, and the planted near duplicates."""

from __future__ import annotations

import math
from typing import Iterator

from crawlers.mirror.facts import Entry
from crawlers.mirror.realistic.facts_nature import NatureFacts
from crawlers.mirror.realistic.facts_people import PeopleFacts
from crawlers.mirror.realistic.facts_places import PlaceFacts
from crawlers.mirror.realistic.fixed import COUNTRIES, DYNASTIES, ELEMENTS, ERA_WORD, FIXED, N_FIXED
from crawlers.mirror.realistic.labels import _copy_labels, _Page
from crawlers.mirror.realistic.phrasing import _TEMPLATES, FILLER_FAMILY, FILLERS, SECTIONS, SUBJECTS
from crawlers.mirror.realistic.pools import (ANIMAL_BASES, DIRECTIONS, EVENT_KINDS, INDUSTRIES, INSECT_BASES, N_PROV,
                                             ORG_FIELDS, ORG_KINDS, PERSON_KINDS, PLANT_BASES, PROVINCES,
                                             UNIVERSITY_KINDS)
from crawlers.mirror.realistic.rates import DOMAIN, FACT_EXPONENT, INFOBOX_ROWS, REALISTIC_ID_BASE, RELATED_LINKS
from crawlers.mirror.realistic.records import _Core, _Fact
from crawlers.mirror.realistic.streams import _S_AUTHOR, _S_DUP, _S_FACTS, _S_LAYOUT, _S_RELATED, _S_SECTIONS, _mix
from crawlers.mirror.realistic.text import _pronoun
from crawlers.mirror.realistic.values import _markup, _v, _year_text


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

    # -- the world's facts about an entity ---------------------------------------------------------

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

    def _layout(self, i: int) -> str:
        # About one entry in four is served in Baidu's older layout, as a crawl meets both.
        return "baidu_legacy" if _mix(self.seed, _S_LAYOUT, i) % 4 == 0 else "baidu"

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
