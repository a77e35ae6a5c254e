"""Value families: one right answer makes its family right too (builders.families)."""

from __future__ import annotations

import pytest

from builders.families import Families, FamilyTableError, Link, descriptions, learn_near, load_table, write_table


def test_a_kind_its_kinds_and_the_kinds_of_what_it_is_are_family():
    families = Families.load()
    assert families.related("文学家", ["诗人"]) == "诗人"  # what a 诗人 is
    assert families.related("小说家", ["作家"])  # a kind of 作家: 歌德 is both
    assert families.related("科学家", ["物理学家"]) and families.related("数学家", ["物理学家"])
    assert families.related("历史学家", ["史学家"])  # two names of one value
    assert not families.related("画家", ["诗人"]) and not families.related("航海家", ["数学家"])


def test_a_compound_is_a_kind_of_its_last_word():
    families = Families.load()
    assert families.related("核物理学家", ["数学家"])  # a 物理学家, so a 科学家
    assert families.related("杂剧作家", ["诗人"])
    assert not families.related("铁路工程师", ["诗人"])


def test_values_that_describe_one_entity_together_are_near_for_their_relation():
    described = [("甲", "职业", ["政治家", "军事家"]), ("乙", "职业", ["政治家", "军事家", "诗人"]),
                 ("丙", "职业", ["画家"]), ("丁", "职业", ["画家"]), ("戊", "职业", ["画家"]), ("己", "职业", ["画家"]),
                 ("庚", "职业", ["画家"]), ("辛", "职业", ["画家", "医生"]), ("壬", "职业", ["医生"]),
                 ("癸", "职业", ["医生"]), ("子", "职业", ["医生"]), ("丑", "职业", ["医生"]), ("寅", "职业", ["医生"])]
    links = {frozenset((link.value, link.other)): link for link in learn_near(described)}
    assert links[frozenset(("军事家", "政治家"))].source == "crawl: 2 of 2 entities"
    assert frozenset(("诗人", "政治家")) in links  # one entity, but all of the rarer one's
    assert frozenset(("医生", "画家")) not in links  # one of six: chance
    families = Families(learned := list(links.values()))
    assert families.related("军事家", ["政治家"], "职业") and not families.related("军事家", ["政治家"], "国籍")
    assert learned[0].relation == "职业"


def test_descriptions_add_what_the_page_lists_with_a_known_value():
    pages = {"张衡": ["张衡，东汉杰出的天文学家、数学家、发明家和文学家。"], "甲": ["甲是诗人，他的朋友是数学家。"]}
    facts = [("张衡#", "职业", ["天文学家"]), ("甲#唐代诗人", "职业", ["诗人"]),
             ("乙#", "职业", ["数学家", "发明家", "文学家"]), ("张衡#", "出生地", ["南阳"])]
    found = {(head, relation): set(values) for head, relation, values in
             descriptions(facts, lambda heads: {h: pages[h] for h in heads if h in pages}, {"职业"})}
    assert found[("张衡#", "职业")] == {"天文学家", "数学家", "发明家", "文学家"}
    assert found[("甲#唐代诗人", "职业")] == {"诗人"}  # 数学家 is on the page, not in the list
    assert found[("张衡#", "出生地")] == {"南阳"}  # a relation of one value an entity: its infobox alone


def test_a_malformed_table_names_its_line(tmp_path):
    path = tmp_path / "families.tsv"
    path.write_text("# header\n诗人\tsort_of\t文学家\tseed\n", encoding="utf-8")
    with pytest.raises(FamilyTableError, match=r"families.tsv:2: link 'sort_of'"):
        load_table(path)
    path.write_text("诗人\tis_a\n", encoding="utf-8")
    with pytest.raises(FamilyTableError, match=r"families.tsv:1: expected value"):
        load_table(path)


def test_the_run_table_reads_back_as_written(tmp_path):
    families = Families.load(learned=[Link("军事家", "near", "政治家", "crawl: 2 of 2 entities", "职业")])
    write_table(families, tmp_path / "value_families.tsv")
    again = Families(load_table(tmp_path / "value_families.tsv"))
    assert list(again.rows()) == list(families.rows())


def test_a_capital_by_its_old_name_is_the_same_city():
    """东晋的都城 is 建康, which is 南京: an item on it offers neither as a wrong answer to the other."""
    families = Families.load()
    assert "南京" in families.names("建康") and "金陵" in families.names("南京")
    assert families.related("南京", ["建康"], "都城") == "建康"
    assert not families.related("洛阳", ["建康"], "都城")


def test_a_kind_keeps_out_the_kinds_it_is_and_its_own_kinds_never_its_siblings():
    """《三国演义》 is a 章回体历史演义小说, so a 章回体长篇小说 and a 长篇小说: neither is offered beside it. 中篇小说, a
    sibling kind no 长篇小说 is, may be, though it is a compound of 小说 as 长篇小说 is."""
    families = Families.load()
    assert families.related("长篇小说", ["章回体历史演义小说"], "文学体裁")
    assert families.related("章回体长篇小说", ["章回体历史演义小说"], "文学体裁")
    assert families.related("章回体长篇小说", ["长篇小说"], "文学体裁")  # a kind of the gold: right too
    assert families.related("古体诗", ["乐府诗"], "文学体裁")
    assert not families.related("中篇小说", ["长篇小说"], "文学体裁")
    assert not families.related("五言古诗", ["乐府诗"], "文学体裁")
    assert not families.related("七言律诗", ["七言绝句"], "文学体裁")


def test_a_kind_of_link_is_read_from_the_table(tmp_path):
    table = tmp_path / "families.tsv"
    table.write_text("甲小说\tkind_of\t小说\tseed\n乙小说\tkind_of\t小说\tseed\n", encoding="utf-8")
    families = Families.load(table)
    assert families.related("小说", ["甲小说"]) and not families.related("乙小说", ["甲小说"])
