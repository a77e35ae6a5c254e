"""A page's infobox and the noise planted in its facts: which rows the page shows and the fate of each
(absent, stated, value-only, stale, partial, false), and the paraphrased, stale or partial forms of a value."""

from __future__ import annotations

import random

from crawlers.mirror.realistic.phrasing import _TEMPLATES, _TRAPS, ALIASES, HOWS, OPENING, _Template
from crawlers.mirror.realistic.rates import (FAMILY, HOW_WEIGHTS, INFOBOX_ROWS, P_APPROXIMATE, P_DATE_NOTATION,
                                             P_ENUM_INFOBOX_ALL, P_ENUM_STATED, P_NUMERAL, P_PATTERN, P_RELATION_ALIAS,
                                             P_ROW_CONTRADICTED, P_ROW_FALSE, P_ROW_PARTIAL, P_ROW_STATED,
                                             P_ROW_VALUE_ONLY, P_SUBJECTLESS_HEAD, P_UNIT_WORD)
from crawlers.mirror.realistic.records import _Clause, _Core, _Enum, _Extra, _Fact, _Item, _Row
from crawlers.mirror.realistic.streams import _S_ENTRY, _S_FALSE, _weighted
from crawlers.mirror.realistic.values import (_CN_DIGITS, _COUNT, _FULL_DATE, _MONTH_DATE, _QTY, _UNIT_WORDS, _YEAR,
                                              _cn_number, _lv, _v, _year_text)
from crawlers.mirror.realistic.world import World


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


class _PagePlan:
    """One entry while its summary is written: the infobox plan, the mentions and what they support."""

    __slots__ = ("corpus", "c", "rng", "facts", "rows", "row_rel", "by_rel", "marks", "spans", "extras", "enums",
                 "ren", "family", "used", "n_extra", "extra_wish", "reserve", "named_marks", "filler_spans")

    def __init__(self, corpus: World, c: _Core, facts: list[_Fact]):
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
