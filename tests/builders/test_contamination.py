"""The contamination check on a sample of Chinese SimpleQA (tests/fixtures/contamination/README.md):
paraphrases match their source, a different relation about the same entity does not, the same fact
with its entity and answer does, question-only checks, the LLM rewrite, and files that cannot be read."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from builders.contamination import ContaminationError, Match, NewQuestion, QuestionDatabase, read_question_file
from builders.question_forms import QuestionWords
from filters.embeddings import CharNgramEmbedder
from flows.items import items_stage
from flows.settings import ItemsSettings, LLMSection
from schemas import Item
from tests.llm_server import ScriptedLLM, reply, status
from schemas.storage.shards import iter_records

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


@pytest.fixture(scope="module")
def plain_qa(kept_pair_shards, tmp_path_factory) -> list[Item]:
    """The QA items of the kept pairs without a registered question: what each test below starts from."""
    return _qa(items_stage(kept_pair_shards, ItemsSettings(kinds=["qa"]), tmp_path_factory.mktemp("plain")))


def test_a_matched_question_is_rewritten_by_the_llm_and_kept_when_it_no_longer_matches(kept_pair_shards, plain_qa,
                                                                                       tmp_path):
    plain = plain_qa
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


def test_without_an_llm_a_matched_question_is_dropped_as_before(kept_pair_shards, plain_qa, tmp_path):
    plain = plain_qa
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


# -- relation synonyms (issue 42): learned groups, what registered questions teach, the LLM judge ------------------

from builders.relation_groups import RelationGroups, RelationGroupsError, main as relation_groups_main  # noqa: E402

# Paraphrases that change the relation's words (measured by a user against KgCLUE): (registered, new, answer).
IN_TABLE = [("万寿宫建造年代是什么时候？", "万寿宫建于何时？", "1547年"),
            ("万寿宫是什么时候开始的？", "万寿宫始于哪个朝代？", "明朝")]
NOT_IN_VOCABULARY = [("东风-41的射程是多少？", "东风-41能打多远？", "14000公里"),
                     ("解放牌卡车的产量为多少？", "解放牌卡车一共造了多少台？", "128万辆"),
                     ("唐山大地震有多少人遇难？", "唐山大地震造成多少人死亡？", "24.2万人")]
DIFFERENT_FACTS = [  # (registered, new, registered answer, new answer)
    ("李白出生于哪一年？", "李白去世于哪一年？", "701年", "762年"),
    ("《南京条约》签订于哪一年？", "《南京条约》废除于哪一年？", "1842年", "1943年"),
    ("万寿宫建成于哪一年？", "万寿宫拆除于哪一年？", "1547年", "1958年"),
    ("111的大写是什么？", "1111的大写是什么？", "壹佰壹拾壹", "壹仟壹佰壹拾壹")]  # one answer inside the other


@pytest.fixture(scope="module")
def registered() -> list[tuple[str, str, str]]:
    """The sample of Chinese SimpleQA and the registered side of the pairs above, so words weigh as in a real
    database."""
    pairs = IN_TABLE + NOT_IN_VOCABULARY + [(old, new, answer) for old, new, answer, _ in DIFFERENT_FACTS]
    return list(read_question_file(SAMPLE, answers=True)) + [(f"r{k}", old, answer)
                                                             for k, (old, _, answer) in enumerate(pairs)]


@pytest.mark.parametrize("with_answer", [False, True], ids=["question-only", "with answers"])
@pytest.mark.parametrize("old, new, answer", IN_TABLE)
def test_relation_words_of_one_learned_group_ask_the_same_fact(registered, old, new, answer, with_answer):
    db = QuestionDatabase(None)
    db.add(registered)
    found = db.matches([NewQuestion("n", new, answer if with_answer else "")])["n"]
    assert old in [m.matched_question for m in found]
    assert next(m for m in found if m.matched_question == old).kind in ("synonym", "same_fact")


def test_the_learned_table_puts_a_relations_phrases_in_one_group_and_opposites_apart():
    groups = RelationGroups.load()
    for a, b in [(["建于"], ["建造", "年代"]), (["修建"], ["始建"]), (["建于"], ["修建", "时间"]),
                 (["始于", "朝代"], ["开始"]), (["出版"], ["刊行"]), (["逝世"], ["死亡"])]:
        assert groups.compare(a, b)[0] == "same", (a, b)
    for a, b in [(["出生"], ["去世"]), (["签订"], ["废除"]), (["发明"], ["改进"]), (["开始"], ["结束"])]:
        assert groups.compare(a, b)[0] != "same", (a, b)
    # Each phrase says where it was learned: a source file and line.
    assert re.search(r"relation_cues\.tsv:\d+|question_templates\.tsv:\d+", groups.sources[("建于", "始建时间")])


def test_the_shipped_table_is_what_the_learner_writes(capsys):
    assert relation_groups_main(["--check"]) == 0


@pytest.mark.parametrize("with_answer", [False, True], ids=["question-only", "with answers"])
def test_different_facts_about_one_entity_do_not_match(registered, with_answer):
    db = QuestionDatabase(None)
    db.add(registered)
    items = [NewQuestion(f"d{k}", new, answer if with_answer else "") for k, (_, new, _, answer) in
             enumerate(DIFFERENT_FACTS)]
    assert db.matches(items) == {}
    # Known words of two relations are two facts even where the answers agree (a year of both).
    assert db.matches([NewQuestion("x", "李白去世于哪一年？", "701年")]) == {}


def test_registered_questions_teach_a_relation_synonym():
    """Two registered questions with one answer and one entity but other relation words (射程, 能打多远 of one
    missile) make those words one relation: another missile's two questions then match without answers."""
    teaching = [("t1", "巨浪-2的射程是多少？", "8000公里"), ("t2", "巨浪-2能打多远？", "8000公里"),
                ("t3", "红旗轿车的产量为多少？", "1540辆"), ("t4", "红旗轿车一共造了多少台？", "1540辆"),
                ("t5", "汶川地震有多少人遇难？", "69227人"), ("t6", "汶川地震造成多少人死亡？", "69227人")]
    plain = QuestionDatabase(None)
    plain.add(read_question_file(SAMPLE, answers=True))
    plain.add([(f"r{k}", old, a) for k, (old, _, a) in enumerate(NOT_IN_VOCABULARY)])
    items = [NewQuestion(f"n{k}", new) for k, (_, new, _) in enumerate(NOT_IN_VOCABULARY)]
    assert plain.matches(items) == {}  # the shipped vocabulary has no 射程, 产量 or 遇难
    taught = QuestionDatabase(None)
    taught.add(read_question_file(SAMPLE, answers=True))
    taught.add([(f"r{k}", old, a) for k, (old, _, a) in enumerate(NOT_IN_VOCABULARY)] + teaching)
    found = taught.matches(items)
    assert taught.learned_groups == 3
    for k, (old, _, _) in enumerate(NOT_IN_VOCABULARY):
        assert found[f"n{k}"][0].matched_question == old and found[f"n{k}"][0].kind == "synonym"
    # What was taught stays with its database: the shipped groups are not changed.
    assert "射程" not in RelationGroups.load().groups


def test_with_answers_a_relation_the_vocabulary_lacks_is_the_same_fact_when_the_entity_weighs_enough(registered):
    db = QuestionDatabase(None)
    db.add(registered)
    found = db.matches([NewQuestion(f"n{k}", new, answer) for k, (_, new, answer) in enumerate(NOT_IN_VOCABULARY)])
    assert {k: (m[0].matched_question, m[0].kind) for k, m in found.items()} == {
        "n0": ("东风-41的射程是多少？", "same_fact"), "n2": ("唐山大地震有多少人遇难？", "same_fact")}
    # 一共造了多少台 has three relation words against 产量's one: the entity is less than same_fact_min of what
    # the two questions weigh, so the pair waits for the LLM judge (or a registered pair that teaches 产量).


def test_an_llm_judge_settles_the_undecided_pairs_and_says_so(registered, tmp_path):
    from schemas.llm import LLMClient, LLMSettings

    def script(body: dict):
        user = body["messages"][1]["content"]
        new = re.search(r"新题：(.*)", user).group(1).strip()
        matched = re.search(r"题库中的题：(.*)", user).group(1).strip()
        same = any(new == n and matched == o for o, n, _ in NOT_IN_VOCABULARY)
        return reply({"same_fact": same})

    items = [NewQuestion(f"n{k}", new) for k, (_, new, _) in enumerate(NOT_IN_VOCABULARY)]
    items += [NewQuestion(f"d{k}", new) for k, (_, new, *_) in enumerate(DIFFERENT_FACTS)]
    with ScriptedLLM(script) as llm:
        client = LLMClient(LLMSettings(base_url=llm.base_url, model="judge-1"), tmp_path / "llm.duckdb")
        db = QuestionDatabase(None, judge=client)
        db.add(registered)
        found = db.matches(items)
        asked = [re.search(r"新题：(.*)", r["messages"][1]["content"]).group(1).strip() for r in llm.requests]
    assert {k: (m[0].matched_question, m[0].kind) for k, m in found.items()} == {
        f"n{k}": (old, "llm") for k, (old, _, _) in enumerate(NOT_IN_VOCABULARY)}
    # Pairs the rules settle are never asked: known opposites (出生, 去世) and other numbers (1111, 111); 废除 and
    # 拆除 are in no group of the shipped table, so the judge settles them too (here: another fact).
    assert sorted(asked) == sorted([new for _, new, _ in NOT_IN_VOCABULARY] + ["《南京条约》废除于哪一年？",
                                                                              "万寿宫拆除于哪一年？"])
    assert db.judge_counts == {"asked": 5, "same": 3, "different": 2, "failed": 0}


def test_without_a_judge_an_undecided_pair_is_no_match(registered):
    db = QuestionDatabase(None)
    db.add(registered)
    assert db.matches([NewQuestion("n", "东风-41能打多远？")]) == {}


@pytest.mark.parametrize("content, message", [
    ("# groups\n建于\t始建时间\n", "groups.tsv:2: expected <phrase> TAB <group> TAB <source>, got 2 field(s)"),
    ("建于\t\tfilters/relation_cues.tsv:151\n", "groups.tsv:1: expected <phrase> TAB <group> TAB <source>"),
])
def test_a_bad_relation_group_line_is_named_with_the_fix(tmp_path, content, message):
    path = tmp_path / "groups.tsv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RelationGroupsError, match=re.escape(message)) as error:
        RelationGroups.load(path)
    assert "python -m builders.relation_groups" in str(error.value)


def test_a_missing_relation_group_table_says_how_to_make_it(tmp_path):
    with pytest.raises(RelationGroupsError, match="does not exist; regenerate it with"):
        RelationGroups.load(tmp_path / "none.tsv")
