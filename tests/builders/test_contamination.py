"""The contamination check on a sample of Chinese SimpleQA (tests/fixtures/contamination/README.md):
paraphrases match their source, a different relation about the same entity does not, the same fact
with its entity and answer does, question-only checks, the LLM rewrite, and files that cannot be read."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from builders.contamination import (ContaminationError, Match, NewQuestion, QuestionDatabase, QuestionWords,
                                    read_question_file)
from filters.embeddings import CharNgramEmbedder
from flows.items import items_stage
from flows.settings import ItemsSettings, LLMSection
from schemas import Item
from tests.llm_server import ScriptedLLM, reply, status
from warehouse.shards import iter_records

SAMPLE = Path(__file__).parents[1] / "fixtures" / "contamination" / "chinese_simpleqa_sample.jsonl"
NAME = SAMPLE.name


@pytest.fixture(scope="module")
def sample() -> dict[str, tuple[str, str]]:
    """question -> (registered id, answer)"""
    return {q: (i, a) for i, q, a in read_question_file(SAMPLE, answers=True)}


@pytest.fixture(scope="module")
def database() -> QuestionDatabase:
    db = QuestionDatabase(CharNgramEmbedder())
    assert db.add(read_question_file(SAMPLE, answers=True)) == 200
    return db


BIRTH = "日本艺术体操运动员三浦莉奈是哪一年出生的？"  # answer 1994
TREATY = "《里斯本条约》是哪一年在葡萄牙里斯本签署的？"  # answer 2007
DEATH = "德国作曲家鲍里斯·布拉黑尔于哪一年去世？"  # answer 1975
AUTHOR = "《南翁梦录》的作者是谁？"  # answer 黎澄
FOLK = "在中国传统民俗中，十月廿三是哪个神灵的神诞？"

PARAPHRASES = [  # (kind of edit, source, paraphrase)
    ("punctuation", TREATY, "“里斯本条约”是哪一年在葡萄牙里斯本签署的?"),
    ("full width", "Nix 包管理器是在哪一年首次发布的？", "Ｎｉｘ包管理器是在哪一年首次发布的？"),
    ("traditional script", TREATY, "《里斯本條約》是哪一年在葡萄牙里斯本簽署的？"),
    ("filler", BIRTH, "请问，日本艺术体操运动员三浦莉奈是哪一年出生的呢？"),
    ("filler", AUTHOR, "你知道《南翁梦录》的作者是谁吗？"),
    ("word swap 哪一年→哪年", DEATH, "德国作曲家鲍里斯·布拉黑尔于哪年去世？"),
    ("word swap 是什么→为何", "古埃及神祇索贝克的象征动物是什么？", "古埃及神祇索贝克的象征动物为何？"),
    ("word swap 出生→诞生", BIRTH, "日本艺术体操运动员三浦莉奈是哪一年诞生的？"),
    ("reordered", BIRTH, "日本艺术体操运动员三浦莉奈出生于哪一年？"),
    ("reordered", AUTHOR, "谁是《南翁梦录》的作者？"),
    ("reordered clauses", FOLK, "十月廿三是哪个神灵的神诞，在中国传统民俗中？"),
    ("filler + reorder + swap", BIRTH, "请问日本艺术体操运动员三浦莉奈诞生于哪年？"),
    ("all", TREATY, "請問，葡萄牙里斯本簽署“里斯本條約”是哪年?"),
]


@pytest.mark.parametrize("with_answer", [False, True], ids=["question-only", "with answers"])
def test_each_paraphrase_kind_matches_its_source(database, sample, with_answer):
    items = [NewQuestion(f"p{k}", text, sample[source][1] if with_answer else "")
             for k, (_, source, text) in enumerate(PARAPHRASES)]
    found = database.matches(items)
    for k, (edit, source, text) in enumerate(PARAPHRASES):
        assert f"p{k}" in found, (edit, text)
        best = found[f"p{k}"][0]
        assert best.matched_id == sample[source][0] and best.matched_question == source, (edit, best)
        assert best.kind in ("exact", "near", "paraphrase") and 0 < best.similarity <= 1


def test_a_different_relation_about_the_same_entity_is_not_a_match(database):
    changed = [("r1", TREATY.replace("签署", "废除"), ""), ("r2", TREATY.replace("签署", "废除"), "2009"),
               ("r3", DEATH.replace("去世", "出生"), ""), ("r4", DEATH.replace("去世", "出生"), "1913"),
               ("r5", BIRTH.replace("出生", "退役"), ""), ("r6", AUTHOR.replace("作者", "译者"), "")]
    assert database.matches(changed) == {}
    # The character-level check alone takes them for one question: these are one word apart.
    from filters.dedup import shingles

    a, b = shingles(TREATY, n=3), shingles(changed[0][1], n=3)
    assert len(a & b) / len(a | b) > 0.5


def test_the_same_fact_with_its_entity_and_answer_matches_and_without_the_answer_does_not(database, sample):
    reworded = "日本艺术体操选手三浦莉奈生于哪一年？"  # 选手 for 运动员: a word the lists do not know
    same = database.matches([NewQuestion("s1", reworded, "1994年", head="三浦莉奈", relation="出生日期")])
    assert [(m.matched_id, m.kind) for m in same["s1"]] == [(sample[BIRTH][0], "same_fact")]
    assert same["s1"][0].matched_answer == "1994"
    # Question-only, a word the lists do not know on each side may be another relation: no match.
    assert database.matches([("s2", reworded)]) == {}
    # Another answer is another fact.
    assert database.matches([NewQuestion("s3", reworded, "1990年", head="三浦莉奈")]) == {}
    # The item's entity and relation word both in the registered question: the same fact, answer or not.
    named = database.matches([NewQuestion("s4", "三浦莉奈这位日本选手的出生年份是？", head="三浦莉奈", relation="出生")])
    assert named["s4"][0].matched_id == sample[BIRTH][0] and named["s4"][0].kind == "same_fact"


def test_matches_are_best_first_and_check_keeps_the_best():
    db = QuestionDatabase(None)
    db.add([("a", AUTHOR, "黎澄"), ("b", "谁是《南翁梦录》的作者？", "黎澄"), ("c", "《南翁梦录》一书的作者是谁？"),
            ("d", TREATY, "2007")])
    found = db.matches([("x", AUTHOR, "黎澄")], limit=3)["x"]
    assert [m.matched_id for m in found][0] == "a" and found[0].kind == "exact" and found[0].similarity == 1.0
    assert {m.matched_id for m in found} == {"a", "b", "c"}
    kinds = [m.kind for m in found]
    assert kinds == sorted(kinds, key=("exact", "near", "paraphrase", "same_fact", "embedding").index)
    assert len(db.matches([("x", AUTHOR)], limit=1)["x"]) == 1
    best = db.check([("x", AUTHOR), ("y", "《安澜纪要》的作者是谁？")])
    assert set(best) == {"x"} and isinstance(best["x"], Match) and best["x"].matched_id == "a"


def test_read_question_file_returns_answers_when_asked_and_the_old_pairs_otherwise(tmp_path):
    rows = list(read_question_file(SAMPLE))
    assert rows[0] == (f"{NAME}:1", "位于第3肋间隙并距前正中线4寸的腧穴，主治咳喘、胸痛、乳痈等疾病的是什么穴位？")
    assert list(read_question_file(SAMPLE, answers=True))[0][2] == "膺窗穴"
    path = tmp_path / "simple_evals.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["problem", "answer"])
        writer.writerow([AUTHOR, "黎澄"])
    assert list(read_question_file(path, answers=True)) == [("simple_evals.csv:2", AUTHOR, "黎澄")]
    bare = tmp_path / "bare.jsonl"
    bare.write_text(json.dumps({"question": AUTHOR}, ensure_ascii=False) + "\n", encoding="utf-8")
    assert list(read_question_file(bare, answers=True)) == [("bare.jsonl:1", AUTHOR, "")]


@pytest.mark.parametrize("name, content, message", [
    ("missing.jsonl", None, "does not exist"),
    ("broken.jsonl", '{"question": "a"}\nnot json\n', "broken.jsonl:2: not JSON"),
    ("headers.csv", "text,answer\nq,a\n", "no column named question or problem or prompt"),
    ("questions.txt", "q\n", "unknown file type '.txt'"),
])
def test_an_unreadable_registered_file_is_a_contamination_error_naming_it(tmp_path, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ContaminationError, match=re.escape(message)) as error:
        QuestionDatabase(None).add(read_question_file(path))
    assert name in str(error.value)


def test_a_bad_word_list_line_is_named(tmp_path):
    words = tmp_path / "words.tsv"
    words.write_text("# lists\n请问\tfiller\tstart\n哪年\tquestion\twhen\n", encoding="utf-8")
    with pytest.raises(ValueError, match="words.tsv:3: question class"):
        QuestionWords.load(words)


def test_checking_is_blocked_not_all_pairs():
    """Thousands against thousands in well under a minute: each question is judged against a few candidates."""
    import time

    questions = [(f"r{i}", f"编号{i:05d}号小行星的发现者是谁？", f"天文学家{i}") for i in range(5_000)]
    db = QuestionDatabase(CharNgramEmbedder())
    db.add(questions)
    started = time.perf_counter()
    found = db.matches([(f"n{i}", f"请问，编号{i:05d}号小行星是谁发现的？") for i in range(0, 5_000, 2)])
    assert time.perf_counter() - started < 30
    assert len(found) == 2_500 and all(found[f"n{i}"][0].matched_id == f"r{i}" for i in range(0, 5_000, 2))


# -- the item stage: rewrite a matched question with an LLM --------------------------------------------------


def _qa(result) -> list[Item]:
    return [i for i in iter_records(result["shards"], Item) if i.kind == "qa"]


def test_a_matched_question_is_rewritten_by_the_llm_and_kept_when_it_no_longer_matches(kept_pair_shards, tmp_path):
    settings = ItemsSettings(kinds=["qa"])
    plain = _qa(items_stage(kept_pair_shards, settings, tmp_path / "plain"))
    escapes = next(i for i in plain if i.head == "关羽" and i.relation == "出生地")
    stays = next(i for i in plain if i.head == "隋文帝" and i.relation == "籍贯")
    registered = tmp_path / "public.csv"
    with open(registered, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "answer"])
        writer.writerow([escapes.question, escapes.answer])
        writer.writerow([stays.question, stays.answer])
    settings = ItemsSettings(kinds=["qa"], contamination_files=[registered])

    def script(body: dict):
        system, user = body["messages"][0]["content"], body["messages"][1]["content"]
        if not system.startswith("你负责中文事实问答基准的防泄漏改写"):
            return status(400)  # the QA rewrite: the template question stays
        head = re.search(r"实体：(.*)", user).group(1).strip()
        if head == "关羽":
            return reply({"question": "三国名将关羽是在哪个郡县降生的？"})
        return reply({"question": f"请问{re.search(r'原问句：(.*)', user).group(1).strip()}"})

    with ScriptedLLM(script) as llm:
        result = items_stage(kept_pair_shards, settings, tmp_path / "llm",
                             llm=LLMSection(base_url=llm.base_url, model="rewriter-1"),
                             catalog_path=tmp_path / "catalog.duckdb")
        asked = [r for r in llm.requests if r["messages"][0]["content"].startswith("你负责")]
    assert len(asked) == 2  # one request per matched item
    items = {i.item_id: i for i in _qa(result)}
    kept = items[escapes.item_id]
    assert kept.decision == "kept" and kept.question == "三国名将关羽是在哪个郡县降生的？"
    provenance = json.loads(kept.provenance)["contamination_rewrite"]
    assert provenance["original_question"] == escapes.question and provenance["matched_id"] == "public.csv:2"
    assert provenance["llm"] == "rewriter-1"
    dropped = items[stays.item_id]
    assert dropped.decision == "dropped" and dropped.reason.startswith("contamination:")
    assert dropped.question == stays.question
    assert result["report"]["contamination_rewrite"] == {"asked": 2, "rewritten": 1, "still_matched": 1,
                                                         "rejected": 0, "failed": 0}
    # Every other item is as it was without the LLM.
    before = {i.item_id: (i.question, i.decision) for i in plain}
    assert all((i.question, i.decision) == before[i.item_id] for i in items.values()
               if i.item_id not in (escapes.item_id, stays.item_id))


def test_without_an_llm_a_matched_question_is_dropped_as_before(kept_pair_shards, tmp_path):
    settings = ItemsSettings(kinds=["qa"])
    plain = _qa(items_stage(kept_pair_shards, settings, tmp_path / "plain"))
    target = next(i for i in plain if i.head == "关羽" and i.relation == "出生地")
    registered = tmp_path / "public.jsonl"
    registered.write_text(json.dumps({"question": "请问，" + target.question, "answer": target.answer},
                                     ensure_ascii=False) + "\n", encoding="utf-8")
    result = items_stage(kept_pair_shards, ItemsSettings(kinds=["qa"], contamination_files=[registered]),
                         tmp_path / "out")
    dropped = [i for i in _qa(result) if i.decision == "dropped" and i.reason.startswith("contamination:")]
    assert [i.item_id for i in dropped] == [target.item_id]
    assert json.loads(dropped[0].provenance)["dropped_because"]["matched_id"] == "public.jsonl:1"
    assert "contamination_rewrite" not in result["report"]
