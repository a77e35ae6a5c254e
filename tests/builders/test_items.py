"""Items built from the mirror's kept pairs: every multiple-choice item is well formed and reproducible."""

from __future__ import annotations

import json

import duckdb
import pytest

from builders.criteria import check_question
from builders.formats import compatible, value_format
from builders.items import BLANK, sentences
from filters.dedup import field_key
from filters.normalize import normalize
from flows.items import items_stage, split_query
from flows.settings import ItemsSettings
from schemas import Item, Pair
from schemas.storage.shards import iter_records, sql_path_list


@pytest.fixture(scope="module")
def built(kept_pair_shards, tmp_path_factory):
    root = tmp_path_factory.mktemp("items")
    first = items_stage(kept_pair_shards, ItemsSettings(), root / "a", cache_dir=root / "cache")
    second = items_stage(kept_pair_shards, ItemsSettings(), root / "b", cache_dir=root / "cache")
    return first, second


def items_of(result, kind=None, decision="kept"):
    return [i for i in iter_records(result["shards"], Item)
            if (kind is None or i.kind == kind) and (decision is None or i.decision == decision)]


def test_every_multiple_choice_item_is_well_formed(built):
    first, _ = built
    mcq = items_of(first, "kgc") + items_of(first, "qa")
    assert len(mcq) >= 200
    for item in mcq:
        assert len(item.options) == 10, item.item_id
        keys = [field_key(o) for o in item.options]
        assert len(set(keys)) == 10, item.options  # unique after normalisation
        assert item.options[item.answer_index] == item.answer
        assert keys.count(field_key(item.answer)) == 1  # the gold once, no option equal to it
        assert item.option_sources[item.answer_index] == "gold"
        assert item.option_sources.count("gold") == 1
        gold = value_format(item.answer, item.relation)
        for option in item.options:
            assert compatible(gold, value_format(option, item.relation)), (item.answer, option)


def test_dropped_multiple_choice_items_say_why(built):
    first, _ = built
    dropped = items_of(first, "kgc", decision="dropped")
    assert dropped and all(i.reason.startswith(("too_few_distractors:", "answer_in_question")) and not i.options
                           for i in dropped)
    report = first["report"]
    assert report["mcq_with_nine_distractors"] >= 0.6  # none padded: the others are dropped
    assert report["mcq_candidates"] == report["items_kept"]["kgc"] + sum(
        1 for i in dropped if i.reason.startswith("too_few_distractors:")) + report["items_dropped"].get(
        "kgc:dedup:field_duplicate", 0) + report["items_dropped"].get("kgc:criteria:several_answers", 0)


def test_two_builds_give_identical_items_and_the_cache_is_used(built):
    first, second = built
    rows = lambda r: [i.to_row() for i in iter_records(r["shards"], Item)]  # noqa: E731
    assert rows(first) == rows(second)
    assert first["report"]["gold_position"] == second["report"]["gold_position"]


def test_report_shows_positions_sources_and_similarities(built):
    report = built[0]["report"]
    positions = report["gold_position"]
    assert set(positions) == {str(k) for k in range(10)}
    total = sum(positions.values())
    assert total == report["items_kept"]["kgc"] + report["items_dropped"].get("kgc:dedup:field_duplicate", 0)
    assert max(positions.values()) < 2.5 * total / 10  # about uniform
    assert set(report["distractor_sources"]) <= {"neighbour", "same_type", "same_relation", "polysemy"}
    assert report["distractor_sources"].get("neighbour") and report["distractor_sources"].get("same_type")
    assert abs(sum(report["distractor_source_share"].values()) - 1) < 1e-3
    assert set(report["asked"]) == {"tail", "any", "head"}  # either end of a triple is asked
    assert sum(report["distractor_similarity"].values()) == 9 * total


def test_t2t_cloze_and_simpleqa_items(built, kept_pair_shards):
    first, _ = built
    pairs = {p.pair_id: p for p in iter_records(kept_pair_shards, Pair) if p.decision == "kept"}
    t2t = items_of(first, "t2t")
    assert len(t2t) == len(pairs)
    for item in t2t:
        pair = pairs[item.source_pair_ids[0]]
        assert item.answer == pair.text
        assert item.question.splitlines() == [f"{t.head}｜{t.relation}｜{t.tail}" for t in pair.kept_triples()]
    cloze = items_of(first, "cloze")
    assert cloze
    seen = set()
    for item in cloze:
        sentence = item.question.replace(BLANK, item.answer)
        assert item.question.count(BLANK) == 1 and sentence.count(item.answer) == 1
        pair = pairs[item.source_pair_ids[0]]
        assert sentence in sentences(pair.source_text or pair.text)  # one sentence of the pair's text, as written
        assert len(item.question) <= ItemsSettings().cloze_max_chars
        assert sentence not in seen  # a sentence is never used twice
        seen.add(sentence)
    simpleqa = items_of(first, "simpleqa")
    assert simpleqa
    for item in simpleqa:
        assert check_question(item.question, item.answer, item.relation) == []
        assert item.primary_category and item.secondary_category and item.urls
        assert normalize(item.answer) not in normalize(item.question)


def test_splits_are_by_entity_reproducible_and_disjoint(built):
    first, _ = built
    settings = ItemsSettings()
    paths = sql_path_list(first["shards"])
    rows = {}
    for split in ("train", "eval"):
        rows[split] = duckdb.sql(split_query("qa", split, settings).replace("$paths", paths)).fetchall()
    train_ids = {r[0] for r in rows["train"]}
    eval_ids = {r[0] for r in rows["eval"]}
    assert not train_ids & eval_ids
    assert len(train_ids) + len(eval_ids) == len(items_of(first, "qa"))
    again = duckdb.sql(split_query("qa", "eval", settings).replace("$paths", paths)).fetchall()
    assert again == rows["eval"]
    # Every item of an entity, in every config, is in one split; the eval share holds per domain.
    kept = items_of(first)
    by_head: dict[str, set[str]] = {}
    for item in kept:
        by_head.setdefault(normalize(item.head), set()).add(item.split)
    assert all(len(s) == 1 for s in by_head.values())
    assert all(i.split in ("train", "eval") for i in kept)
    for domain in {i.domain for i in kept}:
        share = sum(i.split == "eval" for i in kept if i.domain == domain) / sum(i.domain == domain for i in kept)
        assert 0.12 <= share <= 0.3, (domain, share)
    subset = ItemsSettings(subset_size=60)
    sampled = duckdb.sql(f"SELECT count(*) FROM ({split_query('qa', 'train', subset)}) UNION ALL "
                         f"SELECT count(*) FROM ({split_query('qa', 'eval', subset)})".replace("$paths", paths))
    assert sum(r[0] for r in sampled.fetchall()) == 60  # largest remainders: exactly the size asked


def test_contamination_check_drops_a_registered_question(kept_pair_shards, built, tmp_path):
    first, _ = built
    question = items_of(first, "qa")[0].question
    registered = tmp_path / "chinese_simpleqa.jsonl"
    registered.write_text(json.dumps({"question": question.rstrip("？") + "?", "answer": "x"},
                                     ensure_ascii=False) + "\n", encoding="utf-8")
    result = items_stage(kept_pair_shards, ItemsSettings(contamination_files=[registered]), tmp_path / "out")
    dropped = [i for i in items_of(result, "qa", decision="dropped") if i.reason.startswith("contamination:")]
    assert [i.question for i in dropped] == [question]
    assert json.loads(dropped[0].provenance)["dropped_because"]["matched_id"] == "chinese_simpleqa.jsonl:1"


def test_a_question_has_one_answer_and_one_config():
    from flows.items import question_conflicts

    kept = [("q1", "qa", "汤显祖的代表作品是什么？", "《牡丹亭》"),
            ("q2", "qa", "汤显祖的代表作品是什么？", "《紫钗记》"),
            ("s1", "simpleqa", "汤显祖的代表作品是什么", "《牡丹亭》"),
            ("s2", "simpleqa", "孟子生活在哪个时代？", "战国"),
            ("q3", "qa", "孟子生活在哪个时代?", "战国时期"),
            ("s3", "simpleqa", "北京大学创立于什么时候？", "1898年"),
            ("t1", "t2t", "a｜b｜c", "text one"), ("t2", "t2t", "a｜b｜c", "text two")]
    drops = question_conflicts(kept, ("kgc", "qa", "simpleqa"))
    # One question text, two golds: no config keeps it.
    assert {k for k, (reason, _) in drops.items() if reason == "criteria:several_answers"} == {"q1", "q2", "s1",
                                                                                            "s2", "q3"}
    assert "s3" not in drops and "t1" not in drops and "t2" not in drops
    same = [("q4", "qa", "北京大学创立于什么时候？", "1898年"), ("s4", "simpleqa", "北京大学创立于什么时候", "1898年")]
    # the short-answer config keeps a question both configs ask (FACT_OWNERS), whatever the order of kinds
    assert question_conflicts(same, ("kgc", "qa", "simpleqa")) == {"q4": ("dedup:question_in_simpleqa", {})}


def pair(pair_id: str, entity: str, text: str, triples: list[tuple[str, str]]) -> Pair:
    """A kept pair whose triples its whole text states."""
    from schemas import Triple

    return Pair(pair_id=pair_id, entity=entity, text=text, domain="history_politics", position_index=1.0,
                triples=[Triple(entity, relation, tail, decision="kept", span_end=len(text))
                         for relation, tail in triples])


def test_a_cloze_never_blanks_an_era_that_another_name_fits(tmp_path):
    """北宋 in 「…北宋开国皇帝…」 is also 宋朝: the sentence's other triple is blanked, or none. 明代 has no
    other name than 明朝, one value written another way: it stays."""
    from tests.builders.test_distractors import write

    pairs = [
        pair("p1", "赵匡胤", "赵匡胤是北宋的开国皇帝，在位十六年，死后的庙号为太祖，葬于永昌陵。",
             [("所处时代", "北宋"), ("庙号", "太祖")]),
        pair("p2", "毕昇", "毕昇是北宋时期的一位平民发明家，他发明的胶泥活字比欧洲早约四百年。", [("所处时代", "北宋")]),
        pair("p3", "汤显祖", "汤显祖是明代时期杰出的戏曲作家和文学家，代表作是《牡丹亭》等四部剧作。", [("所处时代", "明代")]),
    ]
    result = items_stage(write(tmp_path, pairs), ItemsSettings(kinds=["cloze"]), tmp_path / "items")
    cloze = {i.head: i for i in items_of(result, "cloze")}
    assert set(cloze) == {"赵匡胤", "汤显祖"}
    assert cloze["赵匡胤"].answer == "太祖" and "北宋" in cloze["赵匡胤"].question
    assert cloze["汤显祖"].answer == "明代"
    assert result["report"]["items_dropped"]["cloze:era_at_another_granularity_fits"] == 1


def test_a_cloze_never_blanks_a_list_member_or_an_open_slot_and_takes_an_era_both_ways(tmp_path):
    """「青海、＿＿＿等」 takes any other province of the list; 「＿＿＿著名画家」 any qualifier; a 职业 of an entity with
    several takes its others: those sentences blank their other triple or none. 明朝 is also 明代: both are answers."""
    from builders.cloze import open_blank
    from tests.builders.test_distractors import write

    assert open_blank("上仁木兰分布区域包括青海、＿＿＿等。") == "blank_in_list"
    assert open_blank("汪允文，原名汪瑞曦，物理学家、＿＿＿。") == "blank_in_list"
    assert open_blank("吴远建，壮族，＿＿＿著名画家。") == "open_blank"
    assert open_blank("锌，元素符号为＿＿＿，原子序数为30。") == ""
    # a taxon's blank takes the ranks around it (「蔷薇科＿＿＿」: 苹果亚科 and 梨属; 「属＿＿＿」: 茄科 and 茄属)
    assert open_blank("梨属于被子植物门双子叶植物纲蔷薇科＿＿＿。", "亚科") == "open_blank"
    assert open_blank("马铃薯（学名：Solanum tuberosum L.），属＿＿＿，一年生草本植物", "科") == "open_blank"
    assert open_blank("吴远建，又名允彦，壮族，＿＿＿近代著名画家、书法家。", "国籍") == "open_blank"  # 中国, 我国
    assert open_blank("安高起义发生于＿＿＿，是一次农民起义。", "时间") == "open_blank"  # 1681年, and 塘宝市
    assert open_blank("《屈原》是郭沫若于＿＿＿创作的五幕历史剧。", "创作年代") == "open_blank"  # 1942年, and 重庆
    assert open_blank("居里夫人（1867年11月7日－1934年7月4日），出生于＿＿＿，法国物理学家。", "出生地") == ""
    assert open_blank("南京是江苏省省会，地处＿＿＿。", "地理位置") == "open_blank"  # 长江下游, and 中国东部
    assert open_blank("卫青以功封＿＿＿，食邑三千八百户。", "封爵") == "held_relation"  # 关内侯, then 长平侯
    # a team a player is with now: he was with others before
    assert open_blank("布雷克·格里芬，美国职业篮球运动员，效力于NBA＿＿＿。", "所属运动队") == "held_relation"

    pairs = [
        pair("p1", "凤红山茶", "凤红山茶是山茶科植物，分布区域包括浙江、江西等地，花期为每年三月到四月之间。",
             [("分布区域", "江西")]),
        pair("p2", "吴远建", "吴远建，又名允彦，壮族，中国著名画家，生于山西南鹿，晚年居于白福市。",
             [("国籍", "中国"), ("民族", "壮族")]),
        pair("p3", "孟之荣", "孟之荣，本名孟雪松，字锦方，山西昌洲人，明朝时期的一位人物。", [("所处时代", "明朝")]),
    ]
    result = items_stage(write(tmp_path, pairs), ItemsSettings(kinds=["cloze"]), tmp_path / "items")
    cloze = {i.head: i for i in items_of(result, "cloze")}
    assert "凤红山茶" not in cloze
    # 「＿＿＿著名画家」 takes any qualifier, and 「又名允彦，＿＿＿，中国著名画家」 is a clause of its own: a birthplace
    # fits it as well as 壮族
    assert "吴远建" not in cloze
    assert open_blank("韩耀兰，＿＿＿，女，明代词人。") == "open_blank"
    assert cloze["孟之荣"].answer == "明朝" and cloze["孟之荣"].also_true == ["明代"]
    dropped = result["report"]["items_dropped"]
    assert dropped["cloze:blank_in_list"] == 1


def test_multiple_choice_items_carry_their_other_right_answers(built):
    """The filtered setting: an item on a title with several values of the relation names the others, and none of
    them is an option."""
    several = [i for i in items_of(built[0], "kgc") if i.asked == "any"]
    assert several and all(i.also_true for i in several)
    for item in items_of(built[0], "kgc"):
        assert not set(item.also_true) & set(item.options), item.question
        assert item.answer not in item.also_true


def test_a_cloze_sentence_names_its_subject_outside_titles_and_other_names():
    """「…作品集有《史琦福诗集》，父亲＿＿＿」 names a book; 「别称羧基乙酰基噻吩，熔点＿＿＿」 another name: neither says
    whose father or melting point to a reader. A work's own title in 《》 is its subject."""
    from builders.cloze import names_subject

    assert not names_subject("代表作品有《咏定德台》，作品集有《史琦福诗集》，父亲＿＿＿。", ["史琦福"])
    assert not names_subject("别称羧基乙酰基噻吩，熔点＿＿＿，密度为1.408g/cm³。", ["羧基乙酰基噻吩"])
    assert not names_subject("作品出处为《翠白集》，全书＿＿＿，别名桥远阁诗。", ["桥远阁诗"])
    assert names_subject("《残阳霜天谣》是战国时期＿＿＿创作的作品。", ["残阳霜天谣"])
    assert names_subject("夏璋卿，原名夏云波，出生日期为＿＿＿。", ["夏璋卿", "夏云波"])
