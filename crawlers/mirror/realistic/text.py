"""The text writer: a summary's opening sentence (with the Baike conventions of each type), its body
clauses, and sentences fitted to the tier's length with fillers."""

from __future__ import annotations

from crawlers.mirror.realistic.fixed import COUNTRIES
from crawlers.mirror.realistic.noise import _form, _PagePlan, _partial, _trap_templates
from crawlers.mirror.realistic.phrasing import (_LINK_SLOT, _TEMPLATES, FILLER_FAMILY, FILLER_RELATIONS, FILLERS, HOWS,
                                                LINK_FILLERS, SUBJECTS)
from crawlers.mirror.realistic.pools import EVENT_KINDS, INDUSTRIES
from crawlers.mirror.realistic.rates import (MAX_EXTRA, P_EXTRA, P_EXTRA_TRAILING, P_MERGE, P_OPENING_EXTRA, P_SUBJECT,
                                             SUMMARY_CHARS)
from crawlers.mirror.realistic.records import _Clause, _Core, _Enum, _Extra, _Fact, _Row, _Unit
from crawlers.mirror.realistic.values import _v


def _pronoun(c: _Core) -> str:
    return "她" if c.gender == "女" else "他"


_HEAD = "head"


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


class _PageText(_PagePlan):
    """A page while its summary text is written: opening, body, length."""

    __slots__ = ()

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

    # -- length ---------------------------------------------------------------------------------------

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
