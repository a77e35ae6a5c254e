"""Question templates: the bundled table, errors that name file and line, phrasings, and the fallbacks."""

from __future__ import annotations

import pytest

from builders.criteria import RELATIVE_TIME_WORDS, load_word_list
from builders.templates import TEMPLATES, TemplateError, Templates, fill, load_templates, question_for
from filters.triples import relation_aliases

# The most frequent relations of the bundled facts; each needs its own questions.
FREQUENT = """出生日期 逝世日期 出生地 职业 主要成就 代表作品 所处时代 国籍 密度 CAS登录号 创立时间 化学式 熔点 作者
文学体裁 地理位置 创作年代 沸点 分子量 星座 毕业院校 谥号 总部地点 类别 逝世地 界 门 陵墓 面积 元素符号 原子序数
相对原子质量 元素类别 外观 拉丁学名 著名景点 在位时间 籍贯 所属国家 主要人物 发现者 科 属 全长 建立者 篇幅 发现时间
纲 目 保护级别 庙号 官职 所在地 前身 年号 货币 都城 官方语言 创始人 字 号 封爵 祖籍 民族 父亲 主演 导演 发源地 首都
发明者 注入 海拔 最高峰 上映时间 编剧 配偶 外文名 别名 简称 本名 全称""".split()


def write(tmp_path, text: str):
    path = tmp_path / "templates.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def kept_relations() -> list[str]:
    """The relations of the bundled mirror that pass the relation filter with the default support."""
    from collections import Counter

    from crawlers.mirror.facts import load_facts
    from filters.rules.relation_frequency import frequent_relations
    from flows.settings import AlignSettings

    aliases = relation_aliases()
    counts = Counter(r for e in load_facts() for r in {aliases.get(n, n) for n, _ in e.infobox})
    return frequent_relations(dict(counts), AlignSettings().min_relation_support)


def test_bundled_templates_cover_every_kept_relation_with_several_phrasings():
    templates = load_templates()
    wanted = set(FREQUENT) | set(kept_relations())
    wanted.discard("中文名")  # its answer is the entity's own name
    short = [r for r in sorted(wanted) if len(templates.phrasings.get((r, "tail"), [])) < 2]
    assert not short, f"relations with fewer than two tail phrasings: {short}"
    assert not [r for r in sorted(wanted) if not templates.has(r, "any")]
    assert len(templates.relations("head")) >= 80  # many relations can be asked from the value's side


def test_bundled_templates_are_questions_that_do_not_give_the_answer_away():
    words = load_word_list(RELATIVE_TIME_WORDS)
    for (relation, ask), phrasings in load_templates().phrasings.items():
        for template in phrasings:
            assert template.endswith("？"), (relation, template)
            assert ("{tail}" in template) == (ask == "head"), (relation, ask, template)
            assert not any(w in template for w in words), (relation, template)
            if ask == "tail":
                assert "有哪些" not in template and "包括哪些" not in template, (relation, template)


def test_bundled_templates_use_canonical_relation_names():
    aliases = relation_aliases()
    names = {r for r, _ in load_templates().phrasings}
    assert not [r for r in names if r in aliases and aliases[r] != r]


def test_an_item_always_reads_the_same_and_a_release_mixes_phrasings():
    templates = load_templates()
    first = {templates.question("出生日期", "tail", head="李白", pick=str(n)) for n in range(40)}
    assert len(first) >= 2  # several phrasings in use
    assert templates.question("出生日期", "tail", head="李白", pick="7") == \
        templates.question("出生日期", "tail", head="李白", pick="7")


def test_each_end_of_the_triple_is_filled():
    templates = Templates({("作者", "tail"): ["{head}{sense}的作者是谁？"],
                           ("作者", "any"): ["下列哪一位是{head}{sense}的作者之一？"],
                           ("作者", "head"): ["下列哪部作品的作者是{tail}？"]})
    assert templates.question("作者", "tail", head="红楼梦") == "红楼梦的作者是谁？"
    assert templates.question("作者", "tail", head="红楼梦", sense="小说") == "红楼梦（小说）的作者是谁？"
    assert templates.question("作者", "any", head="诗经") == "下列哪一位是诗经的作者之一？"
    assert templates.question("作者", "head", tail="曹雪芹") == "下列哪部作品的作者是曹雪芹？"


def test_relation_without_template_falls_back_except_for_the_head():
    assert question_for("长城", "始建年代", Templates()) == "长城的始建年代是什么？"
    assert Templates().question("始建年代", "any", head="长城") == "下列哪一项是长城的始建年代之一？"
    assert Templates().question("始建年代", "head", tail="秦朝") is None  # no head question without a template


def test_braces_in_the_values_are_not_placeholders():
    assert fill("{head}的作者是谁？", head="{sense}计划", sense="x") == "{sense}计划的作者是谁？"
    assert fill("下列哪部作品的作者是{tail}？", tail="{head}") == "下列哪部作品的作者是{head}？"


def test_comments_blank_lines_and_the_two_cell_format(tmp_path):
    path = write(tmp_path, "# relation<TAB>ask<TAB>template\n\n作者\ttail\t{head}的作者是谁？\n  # indented\n"
                           "导演\t{head}的导演是谁？\n")
    templates = load_templates(path)
    assert templates.phrasings == {("作者", "tail"): ["{head}的作者是谁？"], ("导演", "tail"): ["{head}的导演是谁？"]}


@pytest.mark.parametrize("line, problem", [
    ("作者 tail {head}的作者是谁？", "expected 'relation<TAB>ask<TAB>template'"),
    ("作者\ttail\t{head}的作者是谁？\t多余", "found 3 tab(s)"),
    ("作者\ttail\t", "empty template"),
    ("\ttail\t{head}的作者是谁？", "empty relation"),
    ("作者\tboth\t{head}的作者是谁？", "ask 'both' is not one of tail, any, head"),
    ("作者\ttail\t这部书的作者是谁？", "has no {head}"),
    ("作者\thead\t{head}的作者是谁？", "has no {tail}"),
    ("作者\ttail\t{head}的作者是{tail}吗？", "contains {tail}"),
    ("作者\ttail\t{head}的{author}是谁？", "unknown placeholder {author}"),
    ("作者\ttail\t{head}的作者", "is not a question"),
])
def test_malformed_line_names_file_line_and_fix(tmp_path, line, problem):
    path = write(tmp_path, f"# header\n出生日期\ttail\t{{head}}出生于什么时候？\n{line}\n")
    with pytest.raises(TemplateError) as info:
        load_templates(path)
    message = str(info.value)
    assert message.startswith(f"{path}:3: ")
    assert problem in message


def test_duplicate_line_names_both_lines(tmp_path):
    path = write(tmp_path, "作者\ttail\t{head}的作者是谁？\n导演\ttail\t{head}的导演是谁？\n作者\ttail\t{head}的作者是谁？\n")
    with pytest.raises(TemplateError, match=r":3: the same template for '作者' \(tail\) is already on line 1"):
        load_templates(path)


def test_template_error_is_a_value_error():
    assert issubclass(TemplateError, ValueError)
    assert TEMPLATES.name == "question_templates.tsv" and TEMPLATES.exists()
