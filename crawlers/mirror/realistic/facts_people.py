"""The world's facts about people, the works they made (books, films, poems) and the events and
treaties they took part in. Generated people are fictional and long dead."""

from __future__ import annotations

import random

from crawlers.mirror.realistic.fixed import DYNASTIES, ERA_WORD, PERSON_ERAS
from crawlers.mirror.realistic.pools import (ACHIEVEMENTS, BOOK_GENRES_ANCIENT, BOOK_GENRES_MODERN, BOOK_SUFFIXES,
                                             BOOK_WORDS, ETHNIC, EVENT_KINDS, EVENT_MEANINGS, EVENT_RESULTS,
                                             FILM_GENRES, FILM_SUFFIXES, GIVEN, HAO_SUFFIXES, OFFICES, PERIODICALS,
                                             POEM_FORMS, POEM_NOUNS, POEM_VERBS, POEM_VERBS_IN_LINE, POEM_WORDS,
                                             POSTHUMOUS, PUBLISHERS, TITLES_OF_NOBILITY, TREATY_NATURES, TREATY_TERMS,
                                             TV_CHANNELS, ZODIAC)
from crawlers.mirror.realistic.records import _Core
from crawlers.mirror.realistic.streams import _mix, _weighted
from crawlers.mirror.realistic.values import _FULL_DATE, _v, _year_text
from crawlers.mirror.realistic.world import World


class PeopleFacts(World):
    """Facts of people, works and historical events: ``_facts_<type>(c, rng, has, add)``."""

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
