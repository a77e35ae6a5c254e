"""zhbench audit: each promise recomputed from the files, each broken one named with an example."""

from __future__ import annotations

import json

from schemas import Triple
from tests.flows.test_cli import zhbench
from tests.warehouse.conftest import items, mcq, pairs, publish_release
from warehouse.audit import audit_release


def test_a_sound_release_has_no_violation(release):
    report = audit_release(release)
    assert report.ok and report.violations == 0
    assert {c: r.rows for c, r in report.configs.items()} == {
        "cdtp_pairs": 12, "t2t": 12, "kgc": 12, "qa": 12, "cloze": 12, "simpleqa": 12}


def test_every_broken_promise_is_found(tmp_path):
    bad_pairs = pairs()
    # 实体1's text says more than the triple it ships (the stored index is stale); 实体2 ships a triple its
    # text never states.
    bad_pairs[1].text = "实体1海拔1001米，是一座休眠火山，山顶有火口湖，四周是原始森林。"
    bad_pairs[2].triples.append(Triple("实体2", "所属国家", "中国", decision="kept", span_end=9))
    bad_pairs[10].triples.append(Triple("实体10", "海拔", "1110米", decision="dropped"))
    bad = items()
    for item in bad:
        if item.item_id == "kgc004":  # a distractor that is 实体4's own 海拔 in another notation
            item.options[(item.answer_index + 1) % 10] = "1004 米"
        if item.item_id == "cloze005":  # two cloze items of one sentence
            item.question, item.answer = "实体6是一座山，海拔＿＿＿。", "1006米"
        if item.item_id == "cloze007":  # 北宋 or 宋朝: two right answers
            item.question, item.answer, item.relation = "实体7最早记载于＿＿＿时期的地理志。", "北宋", "记载年代"
        if item.item_id == "simpleqa007":  # one question, another gold than simpleqa008's
            item.question = "实体8首次被登顶是在哪一年？"
        if item.item_id == "simpleqa009":  # the qa item's fact again
            item.question, item.answer, item.relation = "实体9有多高？", "1009米", "海拔"
        if item.item_id == "simpleqa010":  # the crawl gives 实体10 two heights
            item.question, item.answer, item.relation = "实体10的海拔是多少？", "1010米", "海拔"
        if item.item_id == "simpleqa011":  # its answer stored on one site only: the other page does not hold it
            item.provenance = json.dumps({"evidence": [{"url": item.urls[1], "passage": "实体11是一座山。"}]})
        if item.item_id == "qa003":  # 实体3's items split between train and eval
            item.split = "eval"
        if item.item_id == "qa006":  # the gold with more words around it
            item.options[(item.answer_index + 1) % 10] = "海拔1006米"
        if item.item_id == "qa001":  # 元末明初 is the Ming at another granularity
            eras = ["元代", "清代", "唐朝", "北宋", "商朝", "战国时期", "东汉末年", "隋朝", "元末明初"]
            item.question, item.relation, item.answer = "实体1创作于什么年代？", "创作年代", "明代"
            item.options = eras[:item.answer_index] + ["明代"] + eras[item.answer_index:]
    bad.append(mcq(9, "kgc", item_id="kgc909", question="（实体9，海拔 ，？）", split="train"))  # asked twice
    release = publish_release(tmp_path, tmp_path / "data", pair_records=bad_pairs, item_records=bad, gate=False)
    report = audit_release(release)
    found = {(c, rule) for c, r in report.configs.items() for rule in r.violations}
    assert {("cdtp_pairs", "pair.position_index"), ("cdtp_pairs", "pair.stale_position_index"),
            ("cdtp_pairs", "pair.ungrounded_triple"), ("kgc", "distractor.true_value"),
            ("cloze", "cloze.sentence_reused"), ("simpleqa", "question.several_golds"),
            ("qa", "split.entity_leak"), ("kgc", "question.duplicate"), ("qa", "question.same_fact"),
            ("simpleqa", "simpleqa.several_values"), ("qa", "distractor.overlaps_gold"),
            ("cloze", "cloze.other_granularity"), ("simpleqa", "simpleqa.evidence")} <= found
    # simpleqa011, and simpleqa009 and 010 whose answers were changed above (their kept passages give another)
    assert report.configs["simpleqa"].violations["simpleqa.evidence"] == 3
    assert not report.ok
    table = report.table()
    assert "实体2 (p002): (所属国家, 中国)" in table and "1004 米" in table
    assert report.configs["qa"].violations["distractor.overlaps_gold"] == 2
    assert {"实体1创作于什么年代？ [明代]: 元末明初", "qa：实体6的海拔是多少？ [1006米]: 海拔1006米"} \
        <= set(report.configs["qa"].examples["distractor.overlaps_gold"])

    cli = zhbench("audit", str(release), "--json")
    assert cli.returncode == 1
    data = json.loads(cli.stdout)
    assert data["ok"] is False and data["configs"]["kgc"]["violations"]["distractor.true_value"] == 1
    assert "zhbench audit" in zhbench("audit", "--help").stdout


def test_homonyms_with_one_value_are_two_facts(tmp_path):
    """Two entries titled 实体9 (their senses in the questions) with the same height: asked once each, not
    one fact asked twice. (The realistic mirror's 孔正翔 the poet and 孔正翔 the calligrapher share a 外文名.)"""
    both = items() + [mcq(9, "kgc", item_id="kgc919", question="（实体9（另一座山），海拔，？）", sense="另一座山")]
    release = publish_release(tmp_path, tmp_path / "data", item_records=both, gate=False)
    assert "question.duplicate" not in audit_release(release).configs["kgc"].violations


def test_the_gate_runs_the_audit_and_publishes_nothing_on_a_violation(tmp_path):
    import pytest

    from warehouse.gate import GateFailed

    bad = items()
    for item in bad:
        if item.item_id == "qa003":
            item.split = "eval"
    with pytest.raises(GateFailed, match="split.entity_leak"):
        publish_release(tmp_path, tmp_path / "data", item_records=bad)
    assert not (tmp_path / "data" / "releases" / "cdtp" / "0.1.0").exists()


def test_a_missing_release_is_a_one_line_error(tmp_path):
    result = zhbench("audit", "9.9.9", "--data-dir", str(tmp_path))
    assert result.returncode == 1 and "no release '9.9.9'" in result.stderr and "Traceback" not in result.stderr


def test_truth_kept_for_the_asked_heads_and_facts_answers_as_the_whole_one():
    from filters.normalize import value_key
    from warehouse.audit import Truth

    facts = [("甲", "职业", "诗人"), ("甲", "职业", "画家"), ("甲", "字", "子美"), ("乙", "国籍", "宋朝"),
             ("丙", "国籍", "宋朝"), ("丙", "别名", "丙公"), ("丁", "国籍", "唐朝"), ("丁", "职业", "诗人"),
             ("丁", "别名", "丁公")]
    dropped = [{"head": h, "relation": r, "tail": t} for h, r, t in facts]
    whole = Truth.build([], [], dropped)
    kept = Truth.build([], [], dropped, heads={value_key("甲")}, facts={("国籍", value_key("宋朝"))})
    assert kept.true_tails("甲", "职业") == whole.true_tails("甲", "职业") == {"诗人", "画家", "子美", "甲"}
    assert kept.true_heads("国籍", "宋朝") == whole.true_heads("国籍", "宋朝") == {"乙", "丙", "丙公", "宋朝"}
    assert kept.rows[(value_key("甲"), "职业")] == whole.rows[(value_key("甲"), "职业")]
    assert value_key("丁") not in kept.values and ("国籍", value_key("唐朝")) not in kept.heads
    # the names kept: those of the heads asked and of the entities having the facts asked
    assert set(kept.names) == {value_key("甲"), value_key("丙")} < set(whole.names)


def test_dropped_triples_are_read_a_batch_at_a_time_with_the_columns_a_file_has(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from warehouse.audit import DROPPED_COLUMNS, Truth, _batched_rows

    rows = [{"pair_id": f"p{i}", "head": f"人物{i}", "relation": "职业", "tail": "诗人", "reason": "x"} for i in range(5)]
    path = tmp_path / "all.parquet"  # a file written before raw_value was kept
    pq.write_table(pa.Table.from_pylist(rows), path)
    read = list(_batched_rows([path], DROPPED_COLUMNS, batch_size=2))
    assert read == [{"head": r["head"], "relation": "职业", "tail": "诗人"} for r in rows]
    truth = Truth.build([], [], _batched_rows([path], DROPPED_COLUMNS, batch_size=2))
    assert truth.true_heads("职业", "诗人") == {f"人物{i}" for i in range(5)} | {"诗人"}


def test_a_text_stating_a_fact_no_shipped_triple_covers_is_a_violation(tmp_path):
    """pair.uncovered_mention: 实体3's text dates something no triple ships; 实体4's opens with another name of
    the entity, its subject, which needs no triple."""
    bad_pairs = pairs()
    bad_pairs[3].text = "实体3海拔1003米，1990年被列为自然保护区。"
    bad_pairs[4].text, bad_pairs[4].aliases = "实体四号海拔1004米。", ["实体四号"]
    bad_pairs[4].triples[0].span_end = len("实体四号海拔1004米")
    bad_pairs[4].position_index = round(bad_pairs[4].triples[0].span_end / len(bad_pairs[4].text), 6)
    release = publish_release(tmp_path, tmp_path / "data", pair_records=bad_pairs, item_records=items(), gate=False)
    report = audit_release(release)
    examples = report.configs["cdtp_pairs"].examples.get("pair.uncovered_mention", [])
    assert report.configs["cdtp_pairs"].violations["pair.uncovered_mention"] == 1
    assert "1990年 (date)" in examples[0] and "实体3" in examples[0]
    assert not any("实体四号" in e for e in examples)


def test_easy_items_past_the_configs_share_are_violations():
    """Items an offline baseline answers (easy_by in their provenance) past items.easy_max_share of a config."""
    from warehouse.audit import ConfigReport, _audit_easy_share

    def item(n: int, easy: bool) -> dict:
        return {"item_id": f"i{n:02d}", "question": f"问题{n}？", "answer": "答",
                "provenance": json.dumps({"easy_by": ["pinyin"] if easy else []})}

    within, over = ConfigReport("qa"), ConfigReport("qa")
    _audit_easy_share([item(n, n < 2) for n in range(20)], 0.1, within)  # 2 of 20
    _audit_easy_share([item(n, n < 5) for n in range(20)], 0.1, over)  # 5 of 20: 1 allowed beside 15 hard
    assert not within.violations
    assert over.violations["difficulty.easy_share"] == 4


def test_what_a_test_taker_reads_is_audited(tmp_path):
    """A distractor the page lists with the gold (the cut took it out of the shipped text), one of the gold's value
    family, an option of another kind, and a blank in a list are each a violation with an example."""
    from schemas import Item, Pair

    from tests.warehouse.conftest import DOMAINS

    shipped = pairs()
    poet = Pair(pair_id="p100", entity="张甲", text="张甲，东汉诗人。", url="http://x/item/100",
                source_text="张甲，东汉诗人、数学家。", decision="kept", page_hash="h100", domain=DOMAINS[0],
                position_index=0.875, topic="natural_science", subtopic="geography",
                triples=[Triple("张甲", "职业", "诗人", decision="kept", span_end=7)])
    jobs = ["数学家", "文学家", "画家", "钢琴家", "航海家", "企业家", "律师", "商人", "工程师"]
    common = dict(source_pair_ids=["p100"], domain=DOMAINS[0], primary_category="natural_science",
                  secondary_category="geography", head="张甲", relation="职业", split="train")
    extra = [Item(item_id="kgc100", kind="kgc", question="（张甲，职业，？）", answer="诗人", answer_index=0,
                  options=["诗人", *jobs], **common),
             Item(item_id="cloze100", kind="cloze", question="张甲，东汉＿＿＿、数学家。", answer="诗人", **common),
             # an atomic number among atomic masses
             Item(item_id="kgc101", kind="kgc", question="（张甲，原子序数，？）", answer="30", answer_index=1,
                  options=["29", "30", "31", "28", "27", "32", "33", "26", "65.38", "34"],
                  **{**common, "relation": "原子序数"})]
    release = publish_release(tmp_path, tmp_path / "data", pair_records=[*shipped, poet],
                              item_records=[*items(), *extra], gate=False)
    report = audit_release(release)
    kgc = report.configs["kgc"]
    assert kgc.violations["item.true_distractor"] == 1
    assert kgc.examples["item.true_distractor"] == ["（张甲，职业，？） [诗人]: 数学家 (text as crawled)"]
    assert kgc.violations["item.family_distractor"] == 1  # 文学家: what a 诗人 is
    assert "文学家 (family of 诗人)" in kgc.examples["item.family_distractor"][0]
    assert kgc.violations["item.kind_mismatch"] == 1 and "65.38 is a number decimal" in \
        kgc.examples["item.kind_mismatch"][0]
    assert report.configs["cloze"].violations["cloze.open_blank"] == 1
