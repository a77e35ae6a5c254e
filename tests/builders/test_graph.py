"""The fact graph's answers: the right answers among an item's candidates are those of the full truth."""

from __future__ import annotations

import duckdb
import pytest

from builders.graph import Candidate, Graph, Query
from filters.normalize import value_key
from schemas import Pair, Triple
from schemas.storage.shards import ShardWriter


def pair(pair_id: str, entity: str, facts: list[tuple[str, str]], sense: str = "") -> Pair:
    triples = [Triple(entity, relation, tail, decision="kept") for relation, tail in facts]
    return Pair(pair_id=pair_id, entity=entity, sense=sense, text=entity, triples=triples, decision="kept",
                domain="history")


def graph_of(tmp_path, pairs: list[Pair], **options) -> Graph:
    with ShardWriter(tmp_path / "pairs", "pairs", Pair) as writer:
        writer.write_all(pairs)
    return Graph(writer.paths, **options)


def memory_limit(con) -> str:
    return con.sql("SELECT current_setting('memory_limit')").fetchall()[0][0]


def test_true_candidates_are_the_candidates_the_full_truth_makes_wrong(tmp_path):
    """甲 has two 职业 and a 别名; 乙 丙 丁 share 国籍 宋朝 (a head-asked question has three right
    answers); 宋代 is 宋朝 under value_key and 北宋 is a part of it: every kind of right answer, some
    written differently from the graph's own string."""
    pairs = [pair("p0", "甲", [("职业", "诗人"), ("职业", "画家"), ("别名", "甲先生"), ("国籍", "宋朝")]),
             pair("p1", "乙", [("职业", "书法家"), ("国籍", "宋朝"), ("出生地", "汴京")]),
             pair("p2", "丙", [("职业", "诗人"), ("国籍", "宋代"), ("出生地", "临安")]),
             pair("p3", "丁", [("职业", "医学家"), ("国籍", "宋朝")]),
             pair("p4", "宋朝", [("分期", "北宋"), ("都城", "汴京")]),
             pair("p5", "戊", [("职业", "画家"), ("国籍", "唐朝")]),
             *(pair(f"q{n}", f"人物{n}", [("职业", job), ("国籍", "元朝")])
               for n, job in enumerate(["音乐家", "数学家", "天文学家", "哲学家"]))]
    queries = [Query("a", "甲", "", "职业", "诗人", "history"),
               Query("b", "乙", "", "国籍", "宋朝", "history", type_key=""),
               Query("c", "乙", "", "国籍", "乙", "history", asked="head", tail="宋朝"),
               Query("d", "丙", "", "出生地", "临安", "history")]
    with graph_of(tmp_path, pairs) as graph:
        pools = graph.candidates(queries, per_source=50)
        full = graph.truth(queries)
        among = graph.truth(queries, among=pools)
    for q in queries:
        right = {value_key(v) for v in full.get(q.item, set())}
        expected = {c.value for c in pools.get(q.item, []) if value_key(c.value) in right}
        assert among.get(q.item, set()) == expected, q.item
        assert among.get(q.item, set()) <= {c.value for c in pools.get(q.item, [])}
    assert among["a"] == {"画家", "甲先生"}  # the other 职业 and a name of 甲
    assert among["b"] == {"宋代", "北宋"}  # 宋朝 written as 宋代, and a part of it: the graph has neither as 乙's
    assert among["c"] == {"甲", "丁"}  # the other entities of 国籍 宋朝 (丙's is 宋代: a string of its own)
    assert not among.get("d")
    # a candidate written as no node is: right when its key is a right answer's
    offered = {"b": [Candidate("宋 朝", "same_type", None), Candidate("元朝", "same_type", None)]}
    with graph_of(tmp_path / "again", pairs) as graph:
        assert graph.truth(queries, among=offered) == {"b": {"宋 朝"}}


def test_a_batch_duckdb_cannot_hold_is_asked_in_halves_with_the_same_answers(tmp_path, monkeypatch):
    """Where the batch's query does not fit the graph's memory limit (DuckDB's out-of-memory error),
    each half is asked in turn: the same pools and right answers as the whole batch. One item that does
    not fit is asked without the limit, which is set again after."""
    pairs = [pair(f"p{n}", f"人物{n}", [("职业", job), ("国籍", nation), ("出生地", place)])
             for n, (job, nation, place) in enumerate([("诗人", "宋朝", "汴京"), ("画家", "宋朝", "临安"),
                                                       ("医学家", "唐朝", "长安"), ("音乐家", "元朝", "大都"),
                                                       ("诗人", "唐朝", "洛阳"), ("书法家", "元朝", "临安")])]
    pairs[0].triples += [Triple("人物0", "职业", "画家", decision="kept"),
                         Triple("人物0", "别名", "甲先生", decision="kept")]
    queries = [Query(f"i{n}", f"人物{n}", "", relation, gold, "history")
               for n, (relation, gold) in enumerate([("职业", "诗人"), ("国籍", "宋朝"), ("出生地", "长安"),
                                                     ("职业", "音乐家"), ("国籍", "唐朝")])]
    with graph_of(tmp_path, pairs) as graph:
        pools = graph.candidates(queries, per_source=50)
        right = graph.truth(queries, among=pools)
    assert right["i0"] == {"画家", "甲先生"}  # the comparison below is of answers, not of empty sets
    asked: list[int] = []

    def tight(ask):  # DuckDB's error for a batch of more than two items
        def limited(self, *args):
            (rows,), = self.con.sql("SELECT count(*) FROM q").fetchall()
            asked.append(rows)
            if rows > 2:
                raise duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block")
            return ask(self, *args)
        return limited

    monkeypatch.setattr(Graph, "_candidates", tight(Graph._candidates))
    monkeypatch.setattr(Graph, "_true_candidates", tight(Graph._true_candidates))
    with graph_of(tmp_path / "tight", pairs) as graph:
        assert graph.candidates(queries, per_source=50) == pools
        assert asked[:3] == [5, 2, 3] and max(asked[3:]) <= 2
        assert graph.truth(queries, among=pools) == right

    def limit(graph: Graph) -> str:
        return memory_limit(graph.con)

    def held_fails(self, per_source):  # not even one item fits the graph's limit
        if limit(self) != unheld:
            raise duckdb.OutOfMemoryException("Out of Memory Error: failed to pin block")
        return original(self, per_source)

    monkeypatch.undo()
    original = Graph._candidates
    monkeypatch.setattr(Graph, "_candidates", held_fails)
    with graph_of(tmp_path / "one", pairs) as graph, duckdb.connect() as fresh:
        held, unheld = limit(graph), memory_limit(fresh)  # held from the build on; DuckDB's default
        assert held != unheld
        assert graph.candidates(queries, per_source=50) == pools  # each item asked without the limit
        assert limit(graph) == held  # and held again after
        assert graph.truth(queries, among=pools) == right  # the node keys made without it, then held again
        assert limit(graph) == held
    with graph_of(tmp_path / "none", pairs) as graph, pytest.raises(duckdb.OutOfMemoryException):
        monkeypatch.setattr(Graph, "_candidates", lambda self, per_source: (_ for _ in ()).throw(
            duckdb.OutOfMemoryException("Out of Memory Error")))
        graph.hold_memory()
        graph.candidates(queries[:1])  # an item that does not fit without the limit either: the error


def test_a_whole_graph_statement_that_cannot_keep_the_limit_runs_again_without_it(tmp_path, monkeypatch):
    """The graph is held to its memory limit from its build on. At 1 MB its build cannot keep it (DuckDB's
    out-of-memory error): the build runs again without the limit, which is set again after, and the graph
    gives the same nodes, candidates and right answers as one under the default limit."""
    pairs = [pair(f"p{n}", f"人物{n}", [("职业", ("诗人", "画家", "医学家")[n % 3]), ("国籍", ("宋朝", "唐朝")[n % 2]),
                                       ("出生地", f"城{n}")]) for n in range(40)]
    queries = [Query(f"i{n}", f"人物{n}", "", "职业", ("诗人", "画家", "医学家")[n % 3], "history") for n in range(6)]
    with graph_of(tmp_path / "default", pairs) as graph:
        nodes = list(graph.nodes())
        pools = graph.candidates(queries, per_source=50)
        right = graph.truth(queries, among=pools)
    assert len(nodes) == 40 + 5 + 40 and pools["i0"]  # every title, job, nation and town

    unheld: list[str] = []
    lift = Graph._unheld

    def spied(self, ask):
        unheld.append(memory_limit(self.con))
        return lift(self, ask)

    monkeypatch.setattr(Graph, "_unheld", spied)
    with graph_of(tmp_path / "tight", pairs, memory_limit="1MB") as graph:
        assert unheld and unheld[0] == memory_limit(graph.con) == "976.5 KiB"  # lifted for the build, held after
        assert graph.counts() == {"facts": 120, "nodes": 85}
        assert list(graph.nodes()) == nodes
        assert graph.candidates(queries, per_source=50) == pools
        assert graph.truth(queries, among=pools) == right
        assert memory_limit(graph.con) == "976.5 KiB"

        rows = Graph._node_rows

        def two_then_out(self, skip):  # held, the node query runs out of memory after two rows
            for n, row in enumerate(rows(self, skip)):
                if self._held and n == 2:
                    raise duckdb.OutOfMemoryException("Out of Memory Error: failed to pin block")
                yield row

        monkeypatch.setattr(Graph, "_node_rows", two_then_out)
        assert list(graph.nodes()) == nodes  # the rest from the third on, without the limit
        assert memory_limit(graph.con) == "976.5 KiB"
