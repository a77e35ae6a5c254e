"""Distractors are wrong answers of the gold's kind: never a value true for the entity, never another type."""

from __future__ import annotations

from flows.items import items_stage
from flows.settings import ItemsSettings
from schemas import Item, Pair, Triple
from schemas.storage.shards import ShardWriter, iter_records

JOBS = ["音乐家", "数学家", "天文学家", "医学家", "哲学家", "史学家", "军事家", "政治家", "建筑学家", "地理学家", "农学家",
        "外交家", "教育家", "物理学家"]


def person(pair_id: str, name: str, job: str, sense: str = "", text: str = "", decision: str = "kept",
           extra: list[Triple] | None = None) -> Pair:
    triples = [Triple(name, "职业", job, decision="kept", span_end=len(text)),
               Triple(name, "出生日期", f"{1000 + len(pair_id)}年", decision="dropped", reason="grounding:value_not_in_text"),
               *(extra or [])]
    return Pair(pair_id=pair_id, entity=name, sense=sense, text=text or f"{name}是{job}。", triples=triples,
                domain="humanities_society", decision=decision, position_index=1.0)


def write(tmp_path, pairs: list[Pair]):
    with ShardWriter(tmp_path / "pairs", "pairs", Pair) as writer:
        writer.write_all(pairs)
    return writer.paths


def kept(result, kind: str = "kgc") -> list[Item]:
    return [i for i in iter_records(result["shards"], Item) if i.kind == kind and i.decision == "kept"]


def test_a_value_true_for_the_entity_is_never_a_distractor(tmp_path):
    """诗人 is the gold; 画家 is on the page but was dropped by grounding, 书法家 is what the other sense of
    the title says, 散文家 is what the pair's own text says: all right answers, none may be offered."""
    target = person("p0", "甲", "诗人", sense="唐代诗人", text="甲是唐代诗人，也是一位散文家。",
                    extra=[Triple("甲", "职业", "画家", decision="dropped", reason="grounding:value_not_in_text")])
    other_sense = person("p1", "甲", "书法家", sense="宋代书法家", decision="dropped")
    people = [person(f"q{n:02d}", f"人物{n}", job) for n, job in enumerate([*JOBS, "画家", "书法家", "散文家"])]
    shards = write(tmp_path, [target, other_sense, *people])
    result = items_stage(shards, ItemsSettings(kinds=["kgc", "qa"]), tmp_path / "items")
    (item,) = [i for i in kept(result) if i.head == "甲" and i.relation == "职业"]
    assert item.answer == "诗人" and item.asked == "any"  # the page gives two values: one of several is asked
    offered = set(item.options) - {"诗人"}
    assert len(offered) == 9
    assert not offered & {"画家", "书法家", "散文家"}
    assert offered <= set(JOBS)
    assert result["report"]["rejected_candidates"].get("true_value", 0) >= 2


def test_distractors_are_of_the_gold_type(tmp_path):
    """A 职业 gold takes occupations of people; a 所在地 value of a building is not one."""
    people = [person(f"q{n:02d}", f"人物{n}", job) for n, job in enumerate(JOBS)]
    places = [Pair(pair_id=f"b{n}", entity=f"建筑{n}", text=f"建筑{n}位于城{n}。", domain="humanities_society",
                   triples=[Triple(f"建筑{n}", "所在地", f"城{n}", span_end=5), Triple(f"建筑{n}", "开工时间", "1990年")],
                   position_index=1.0) for n in range(12)]
    shards = write(tmp_path, [*people, *places])
    result = items_stage(shards, ItemsSettings(kinds=["kgc"]), tmp_path / "items")
    jobs = [i for i in kept(result) if i.relation == "职业"]
    assert jobs and all(set(i.options) <= set(JOBS) for i in jobs)
    assert result["report"]["rejected_candidates"].get("type", 0) > 0


def test_a_question_with_two_golds_is_never_published(tmp_path):
    """Two pages of one title without sense labels give the same question with different golds."""
    twins = [person("t1", "乙", "诗人"), person("t2", "乙", "画家")]
    people = [person(f"q{n:02d}", f"人物{n}", job) for n, job in enumerate(JOBS)]
    result = items_stage(write(tmp_path, [*twins, *people]), ItemsSettings(kinds=["kgc", "qa"]), tmp_path / "items")
    assert not [i for i in kept(result) + kept(result, "qa") if i.head == "乙"]
    dropped = [i for i in iter_records(result["shards"], Item) if i.head == "乙" and i.kind == "kgc"]
    assert {i.reason for i in dropped} == {"criteria:several_answers"}


def test_items_picked_in_groups_are_the_items_picked_at_once(tmp_path, monkeypatch):
    """pick_many embeds a group of items' texts at a time; the groups change no item's options."""
    import builders.distractors as distractors

    people = [person(f"q{n:02d}", f"人物{n}", job) for n, job in enumerate(JOBS * 2)]
    shards = write(tmp_path, people)

    def options(limit: int, out: str) -> list[tuple]:
        monkeypatch.setattr(distractors, "PICK_TEXTS", limit)
        result = items_stage(shards, ItemsSettings(kinds=["kgc", "qa"]), tmp_path / out)
        return sorted((i.item_id, i.decision, i.reason, tuple(i.options), i.answer_index, tuple(i.option_similarity))
                      for i in iter_records(result["shards"], Item))

    at_once = options(1 << 20, "once")
    assert [o for o in at_once if o[1] == "kept"]
    assert options(1, "singly") == at_once
    assert options(40, "groups") == at_once


def work(pair_id: str, title: str, era: str) -> Pair:
    text = f"《{title}》是一部长篇小说，创作于{era}。"
    return Pair(pair_id=pair_id, entity=title, text=text, domain="humanities_society", position_index=1.0,
                triples=[Triple(title, "创作年代", era, decision="kept", span_end=len(text))])


def test_an_era_overlapping_the_gold_is_never_a_distractor(tmp_path):
    """For a work of the Ming (明代), 元末明初, 明清时期 and 明末 are right at another granularity; the
    other dynasties are wrong, 元代 and 清代 beside it included."""
    overlapping = ["元末明初", "明清时期", "明末"]
    wrong = ["元代", "清代", "唐朝", "北宋", "商朝", "战国时期", "春秋末期", "东汉末年", "隋朝", "南宋", "西晋"]
    works = [work(f"w{n:02d}", f"作品{n}", era) for n, era in enumerate([*overlapping, *wrong])]
    shards = write(tmp_path, [work("gold", "西游记", "明代"), *works])
    result = items_stage(shards, ItemsSettings(kinds=["kgc", "qa"]), tmp_path / "items")
    items = [i for i in kept(result) + kept(result, "qa") if i.head == "西游记"]
    assert {i.kind for i in items} == {"kgc", "qa"}
    for item in items:
        offered = set(item.options) - {"明代"}
        assert len(offered) == 9 and offered <= set(wrong), item.options
    assert result["report"]["rejected_candidates"]["overlaps_gold"] >= len(overlapping)


def test_a_value_another_page_states_for_the_entity_is_never_a_distractor(tmp_path):
    """The infobox gives 甲 one 职业; a museum page the search finds names five more: right answers, never offered,
    where without the search some of them are."""
    import json
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread
    from urllib.parse import parse_qs, urlsplit

    from flows.settings import VerifySettings

    also = JOBS[:5]

    class StandIn(BaseHTTPRequestHandler):  # a SearXNG that knows one page
        def log_message(self, *args):
            pass

        def do_GET(self):  # noqa: N802
            params = parse_qs(urlsplit(self.path).query)
            found = params.get("q") == ['"甲" 职业'] and params.get("pageno") == ["1"]
            page = {"url": "https://museum.example/jia", "title": "甲_博物馆", "content": f"甲是一位{'、'.join(also)}。"}
            body = json.dumps({"results": [page] if found else []}, ensure_ascii=False).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

    people = [person(f"q{n:02d}", f"人物{n}", job) for n, job in enumerate(JOBS)]
    shards = write(tmp_path, [person("p0", "甲", "诗人", text="甲是诗人。"), *people])
    offline = items_stage(shards, ItemsSettings(kinds=["kgc"]), tmp_path / "offline")
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        verify = VerifySettings(search_url=f"http://127.0.0.1:{server.server_port}", items=False)
        result = items_stage(shards, ItemsSettings(kinds=["kgc"]), tmp_path / "items", verify=verify,
                             catalog_path=tmp_path / "catalog.duckdb")
    finally:
        server.shutdown()
        server.server_close()
    (without,) = [i for i in kept(offline) if i.head == "甲"]
    assert set(without.options) & set(also)  # what the search would have caught
    (item,) = [i for i in kept(result) if i.head == "甲"]
    assert set(item.options) - {"诗人"} == set(JOBS) - set(also)
    assert result["report"]["rejected_candidates"]["stated_on_web"] >= 1


def test_a_value_the_pages_give_beyond_the_shipped_text_is_never_a_distractor(tmp_path):
    """The pair ships 「甲是唐代诗人。」, cut from 「甲是唐代诗人、医学家和音乐家。」; the page's body lists 史学家 with
    诗人. All three are right answers by what the sources say, whatever the cut kept."""
    from schemas import Page

    target = person("p0", "甲", "诗人", text="甲是唐代诗人。")
    target.source_text = "甲是唐代诗人、医学家和音乐家。"
    people = [person(f"q{n:02d}", f"人物{n}", job) for n, job in enumerate(JOBS)]
    shards = write(tmp_path, [target, *people])
    with ShardWriter(tmp_path / "pages", "pages", Page) as writer:
        writer.write(Page(url="http://mirror.invalid/item/甲", title="甲", status="ok", summary=target.source_text,
                          paragraphs=["甲一生作诗千余首，晚年编修国史，后人称其为诗人、史学家。"]))
        for pair in people:
            writer.write(Page(url=f"http://mirror.invalid/item/{pair.entity}", title=pair.entity, status="ok",
                              summary=pair.text))
    settings = ItemsSettings(kinds=["kgc"], seed=3)
    result = items_stage(shards, settings, tmp_path / "items", page_shards=writer.paths)
    (item,) = [i for i in kept(result) if i.head == "甲"]
    assert not set(item.options) & {"医学家", "音乐家", "史学家"}
    rejected = result["report"]["rejected_candidates"]
    assert rejected.get("stated_in_text", 0) + rejected.get("stated_on_page", 0) + \
        rejected.get("stated_on_page_list", 0) >= 1


def test_a_member_of_a_right_answer_family_is_never_a_distractor(tmp_path):
    """A 诗人 is a 作家 and a 文学家, and a 作家 is often a 小说家 too (builders/value_families.tsv); 政治家 and 军事家
    describe many entities of the crawl together, so for a 政治家 neither is offered beside the other."""
    jobs = [*JOBS, "作家", "文学家", "小说家", "剧作家", "画家", "化学家", "商人", "航海家", "钢琴家"]
    people = [person(f"q{n:02d}", f"人物{n}", job) for n, job in enumerate(jobs)]
    both = [Pair(pair_id=f"b{n}", entity=f"将相{n}", text=f"将相{n}是政治家、军事家。", domain="humanities_society",
                 position_index=1.0, triples=[Triple(f"将相{n}", "职业", "政治家", decision="kept", span_end=8),
                                              Triple(f"将相{n}", "职业", "军事家", decision="kept", span_end=8)])
            for n in range(3)]
    shards = write(tmp_path, [person("p0", "甲", "诗人"), person("p1", "乙", "政治家"), *people, *both])
    result = items_stage(shards, ItemsSettings(kinds=["kgc"]), tmp_path / "items")
    items = {i.head: i for i in kept(result)}
    assert not set(items["甲"].options) & {"作家", "文学家", "小说家", "剧作家"}
    assert "军事家" not in items["乙"].options
    assert result["report"]["rejected_candidates"]["family"] >= 5


def test_an_asked_head_of_a_title_with_several_types_takes_options_of_its_own_sense():
    """「松铭是下列哪一项的别名？」 asks 熊秀 the person; a city is also called 熊秀. The options are persons, never
    the cities a title of both types would let in."""
    from builders.distractors import DistractorPicker
    from builders.graph import Candidate, Query
    from builders.types import TypeTable, ValueTyper
    from filters.embeddings import make_embedder

    person_page, city_page = ["出生日期", "籍贯", "职业", "别名"], ["行政区类别", "政府驻地", "人口", "别名"]
    people = [f"{surname}{name}" for surname, name in zip("赵钱孙李周吴郑王冯陈褚卫", "甲乙丙丁戊己庚辛壬癸子丑")]
    cities = [f"{name}城市" for name in "东南西北中上下左右前后内"]
    pages = [("熊秀", person_page, []), ("熊秀", city_page, []), *((p, person_page, []) for p in people),
             *((c, city_page, []) for c in cities)]
    facts = [("熊秀", "别名", "松铭"), *((p, "别名", f"{p}号") for p in people), *((c, "别名", f"{c}称") for c in cities)]
    typer = ValueTyper.build(pages, facts, table=TypeTable.load())
    assert typer.head_type("熊秀").names == {"person", "city"}
    picker = DistractorPicker(make_embedder("char-ngram", None), typer)
    pool = [Candidate(v, "same_relation", None) for v in [*people, *cities]]
    asked = dict(item="q", head="熊秀", sense="", relation="别名", gold="熊秀", asked="head", tail="松铭")
    plain = picker.pick_many([Query(**asked)], {"q": "松铭是下列哪一项的别名？"}, {"q": pool}, {"q": set()})["q"]
    narrowed = picker.pick_many([Query(**asked, sense_type="person")], {"q": "松铭是下列哪一项的别名？"},
                                {"q": pool}, {"q": set()})["q"]
    assert plain.choice is not None and set(plain.choice.options) & set(cities)  # what the title alone lets in
    assert narrowed.choice is not None and not set(narrowed.choice.options) & set(cities)
