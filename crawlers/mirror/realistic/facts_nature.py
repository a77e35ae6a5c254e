"""The world's facts about living things (plants, animals, insects) and chemical compounds."""

from __future__ import annotations

import random

from crawlers.mirror.realistic.pools import (ANIMAL_BASES, APPEARANCES, ATOMIC_MASS, COMPOUND_BASES, DRUG_CLASSES,
                                             EFFECTS, INSECT_BASES, LATIN_EPITHETS, MEDICINAL_PARTS, PLACE_CHARS,
                                             PLANT_BASES, PROTECTION_ANIMAL, PROTECTION_PLANT, PROVINCES, SUBSTITUENTS)
from crawlers.mirror.realistic.records import _Core
from crawlers.mirror.realistic.values import _v
from crawlers.mirror.realistic.world import World


class NatureFacts(World):
    """Facts of living things and compounds: ``_facts_<type>(c, rng, has, add)``."""

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
