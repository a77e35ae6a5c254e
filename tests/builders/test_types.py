"""The value typer's tables are the plain sets its docstring defines, however they are built."""

from __future__ import annotations

from collections import Counter, defaultdict

from builders.types import NAME_RELATIONS, TypeTable, ValueTyper
from filters.normalize import value_key
from filters.triples import extract_triples, page_to_pair, relation_aliases
from schemas import Page
from tests.builders.conftest import fact_pages
from schemas.storage.shards import iter_records


def _reference(pages):
    """Every table with a set per key, straight from the definitions."""
    table, aliases = TypeTable.load(), relation_aliases()
    title_types, head_relations = defaultdict(set), defaultdict(set)
    facts = []
    for page in pages:
        triples = extract_triples(page, aliases)
        relations = {t.relation for t in triples}
        head_relations[value_key(page.title)] |= relations
        # a species' kingdom or phylum is a tag: 植物 for 被子植物门, 动物 for 脊索动物门
        kingdom = [w for t in triples if t.relation in ("界", "门") for w in ("植物", "动物") if w in t.tail][:1]
        kingdom += [tag for t in triples if t.relation == "纲" for part, tag in (
            ("哺乳", "哺乳动物"), ("鸟", "鸟类"), ("爬行", "爬行动物"), ("两栖", "两栖动物"), ("昆虫", "昆虫"), ("鱼", "鱼类"))
            if part in t.tail][:1]
        found = table.page_type(relations, [*page.tags, *kingdom])
        if found:
            title_types[value_key(page.title)].add(found)
        facts += [(t.head, t.relation, t.tail) for t in triples]
    tails, names, owners = defaultdict(set), defaultdict(set), defaultdict(set)
    for head, relation, tail in facts:
        tails[value_key(tail)].add(relation)
        (names if relation in NAME_RELATIONS else owners)[value_key(tail)] |= title_types.get(value_key(head), set())
    values = defaultdict(set)
    for _, relation, tail in facts:
        values[relation].add(tail)
    by_value = defaultdict(set)
    for relation, tails_of in values.items():
        for tail in tails_of:
            by_value[tail].add(relation)
    shared = Counter((a, b) for rs in by_value.values() for a in rs for b in rs if a != b)
    families = {r: {r} | {b for (a, b), n in shared.items() if a == r and n >= 2} for r in values}
    return dict(title_types=dict(title_types), head_relations=dict(head_relations), tail_relations=dict(tails),
                name_owners={k: v for k, v in names.items() if v}, owners={k: v for k, v in owners.items() if v},
                families=families)


def test_the_typer_read_from_pages_holds_the_sets_the_crawl_gives(tmp_path):
    from dataclasses import replace

    from schemas.storage.shards import ShardWriter

    # Tags type some pages; a second record of a title joins its relations and types to the first's.
    pages = [replace(p, tags=["城市"] if n % 5 == 0 else []) for n, p in enumerate(
        iter_records(fact_pages(tmp_path / "facts"), Page))]
    pages += [replace(p, tags=["人物"]) for p in pages[:20]]
    with ShardWriter(tmp_path / "pages", "pages", Page, rows_per_shard=300) as writer:
        writer.write_all(pages)
    typer = ValueTyper.from_sources(writer.paths, [])
    for name, table in _reference(pages).items():
        assert getattr(typer, name) == table, name
    assert len(typer.tail_relations) > 100 and len(typer.families) > 10 and typer.owners and typer.name_owners
    assert any(len(types) > 1 for types in typer.title_types.values())
    assert any(len(family) > 1 for family in typer.families.values())
    # One object per distinct set.
    assert len({id(v) for v in typer.tail_relations.values()}) == len(set(typer.tail_relations.values()))


def test_a_typer_restricted_to_some_values_types_them_as_the_whole_one(tmp_path):
    pages = list(iter_records(fact_pages(tmp_path / "facts"), Page))
    typer = ValueTyper.from_sources(fact_pages(tmp_path / "pages"), [])
    aliases = relation_aliases()
    facts = [(t.head, t.relation, t.tail) for page in pages for t in extract_triples(page, aliases)]
    chosen = facts[::7]
    values = [v for h, _, t in chosen for v in (h, t)]
    small = typer.restricted(values)
    assert 0 < len(small.tail_relations) < len(typer.tail_relations) and small.ranges is typer.ranges
    for head, relation, tail in chosen:
        for asked, value in (("tail", tail), ("head", head)):
            assert small.answer_type(value, relation, asked) == typer.answer_type(value, relation, asked)
            assert small.describe(value, relation, asked) == typer.describe(value, relation, asked)
        assert small.is_value_of(tail, relation) == typer.is_value_of(tail, relation)
    assert set(small.title_types) <= {value_key(v) for v in values}


def test_a_typer_built_restricted_holds_what_the_whole_one_restricted_holds(tmp_path):
    pages = list(iter_records(fact_pages(tmp_path / "facts"), Page))
    shards = fact_pages(tmp_path / "pages")
    aliases = relation_aliases()
    facts = [(t.head, t.relation, t.tail) for page in pages for t in extract_triples(page, aliases)]
    values = [v for h, _, t in facts[::5] for v in (h, t)] + ["不在这次爬取里的值"]
    whole = ValueTyper.from_sources(shards, []).restricted(values)
    built = ValueTyper.from_sources(shards, [], keep=values)
    for name in ("title_types", "head_relations", "tail_relations", "ranges", "families", "name_owners", "owners"):
        assert getattr(built, name) == getattr(whole, name), name
    assert built.title_types and built.tail_relations and built.owners and built.ranges
    assert len(built.tail_relations) < len(ValueTyper.from_sources(shards, []).tail_relations)
    # From pairs, without pages, alike.
    pairs = [page_to_pair(page) for page in pages]
    from_pairs, whole = ValueTyper.from_sources([], pairs, keep=values), ValueTyper.from_sources([], pairs)
    assert from_pairs.owners and from_pairs.owners == whole.restricted(values).owners


def test_a_stock_exchange_is_a_kind_of_its_own():
    """「中国工商银行的上市地点」 takes exchanges: 上海证券交易所's page (总部地点, 监管机构, 主要板块) is one, 联合国's is not."""
    table = TypeTable.load()
    assert table.page_type({"成立时间", "开业时间", "总部地点", "监管机构", "主要板块"}) == "exchange"
    assert table.page_type({"成立时间", "总部地点", "会员国", "官方语言", "主要机构"}) == "organisation"
    assert not table.match(frozenset({"exchange"}), frozenset({"organisation"}))


def test_a_page_type_three_kinds_deep_is_the_same_in_every_process():
    """A mammal's page scores for species (界, 纲), animal (动物) and mammal (哺乳动物): the type is mammal whatever
    order a set gives the relations and tags in, which changes with the process's hash seed."""
    import subprocess
    import sys

    code = ("from builders.types import TypeTable; t = TypeTable.load(); "
            "print(t.page_type({'拉丁学名', '界', '门', '纲', '目', '科', '属', '分布区域', '保护级别', '体长'}, "
            "['动物', '哺乳动物', '自然']))")
    found = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**__import__("os").environ, "PYTHONHASHSEED": str(seed)}).stdout.strip()
             for seed in range(6)}
    assert found == {"mammal"}
