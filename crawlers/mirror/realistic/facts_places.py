"""The world's facts about places (cities, towns, rivers, mountains, lakes) and organisations
(companies, universities, institutes)."""

from __future__ import annotations

from crawlers.mirror.realistic.pools import (BUSINESS, CLIMATES, DIRECTIONS, ENTERPRISE_KINDS, EXCHANGES, INDUSTRIES,
                                             LAKE_KINDS, MOUNTAIN_SIGHTS, N_PROV, ORG_FIELDS, ORG_KINDS, PROVINCES,
                                             RANGES, RIVER_SYSTEMS, SCENIC_LEVELS, SEAS, SIGHT_SUFFIXES,
                                             UNIVERSITY_KINDS, UNIVERSITY_TAGS)
from crawlers.mirror.realistic.records import _Core
from crawlers.mirror.realistic.streams import _mix
from crawlers.mirror.realistic.values import _lv, _v
from crawlers.mirror.realistic.world import World


class PlaceFacts(World):
    """Facts of places and organisations: ``_facts_<type>(c, rng, has, add)``."""

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
