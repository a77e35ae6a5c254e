"""Question templates: the bundled file, errors that name file and line, and the fallback question."""

from __future__ import annotations

import pytest

from builders.templates import TEMPLATES, TemplateError, load_templates, question_for
from filters.triples import relation_aliases

# The most frequent relations of the bundled facts; each needs its own question.
FREQUENT = """出生日期 逝世日期 出生地 职业 主要成就 代表作品 所处时代 国籍 密度 CAS登录号 创立时间 化学式 熔点 作者
文学体裁 地理位置 创作年代 沸点 分子量 星座 毕业院校 谥号 总部地点 类别 逝世地 界 门 陵墓 面积 元素符号 原子序数
相对原子质量 元素类别 外观 拉丁学名 著名景点 在位时间 籍贯 所属国家 主要人物 发现者 科 属 全长 建立者 篇幅 发现时间
纲 目 保护级别 庙号 官职 所在地 前身 年号 货币 都城 官方语言 创始人 字 号 封爵 祖籍 民族 父亲 主演 导演 发源地 首都
发明者 注入 海拔 最高峰 上映时间 编剧 配偶 外文名 别名 简称 本名 全称""".split()


def write(tmp_path, text: str):
    path = tmp_path / "templates.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def test_bundled_templates_cover_the_frequent_relations():
    templates = load_templates()
    assert not [r for r in FREQUENT if r not in templates]


def test_bundled_templates_are_questions_about_the_head():
    for relation, template in load_templates().items():
        assert template.startswith("{head}"), (relation, template)
        assert template.endswith("？"), (relation, template)


def test_bundled_templates_use_canonical_relation_names():
    aliases = relation_aliases()
    assert not [r for r in load_templates() if r in aliases and aliases[r] != r]


def test_taxonomy_ranks_ask_for_the_rank():
    templates = load_templates()
    for rank in "界门纲目科属":
        assert question_for("大熊猫", rank, templates) == f"大熊猫在生物分类上属于哪个{rank}？"


def test_question_fills_the_head():
    templates = load_templates()
    assert question_for("北京", "首都", {"首都": "{head}的首都是哪座城市？"}) == "北京的首都是哪座城市？"
    assert question_for("水", "化学式", templates) == "水的化学式是什么？"
    assert question_for("红楼梦", "作者", templates) == "红楼梦的作者是谁？"


def test_relation_without_template_falls_back():
    assert question_for("长城", "始建年代", {}) == "长城的始建年代是什么？"
    assert question_for("长城", "始建年代", load_templates()) == "长城的始建年代是什么？"


def test_sense_is_parenthesised_or_dropped():
    templates = {"作者": "{head}{sense}的作者是谁？"}
    assert question_for("红楼梦", "作者", templates, sense="小说") == "红楼梦（小说）的作者是谁？"
    assert question_for("红楼梦", "作者", templates) == "红楼梦的作者是谁？"


def test_braces_in_the_head_are_not_placeholders():
    assert question_for("{sense}计划", "作者", {"作者": "{head}的作者是谁？"}, sense="x") == "{sense}计划的作者是谁？"


def test_comments_and_blank_lines_are_skipped(tmp_path):
    path = write(tmp_path, "# relation<TAB>template\n\n作者\t{head}的作者是谁？\n  # indented comment\n")
    assert load_templates(path) == {"作者": "{head}的作者是谁？"}


@pytest.mark.parametrize("line, problem", [
    ("作者 {head}的作者是谁？", "expected 'relation<TAB>template'"),
    ("作者\t{head}的作者是谁？\t多余", "found 2 tab(s)"),
    ("作者\t", "empty template"),
    ("\t{head}的作者是谁？", "empty relation"),
    ("作者\t这部书的作者是谁？", "has no {head}"),
    ("作者\t{head}的{author}是谁？", "unknown placeholder {author}"),
    ("作者\t{head}的作者", "is not a question"),
])
def test_malformed_line_names_file_line_and_fix(tmp_path, line, problem):
    path = write(tmp_path, f"# header\n出生日期\t{{head}}出生于什么时候？\n{line}\n")
    with pytest.raises(TemplateError) as info:
        load_templates(path)
    message = str(info.value)
    assert message.startswith(f"{path}:3: ")
    assert problem in message


def test_duplicate_relation_names_both_lines(tmp_path):
    path = write(tmp_path, "作者\t{head}的作者是谁？\n导演\t{head}的导演是谁？\n作者\t谁写了{head}？\n")
    with pytest.raises(TemplateError, match=r":3: relation '作者' already has a template on line 1"):
        load_templates(path)


def test_template_error_is_a_value_error():
    assert issubclass(TemplateError, ValueError)
    assert TEMPLATES.name == "question_templates.tsv" and TEMPLATES.exists()
