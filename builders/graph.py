"""The knowledge graph of all kept triples, and the distractor candidate pools drawn from it (DuckDB).

Nodes are strings (entity titles and values); an edge joins a triple's head and
tail, in both directions. For a batch of items (head, relation, gold) one set of
queries returns, per item, candidates with the source that proposed them:

* ``neighbour``: the gold's 1-hop and 2-hop neighbours;
* ``same_relation``: values of the same relation elsewhere in the graph (type match);
* ``frequency``: values in the gold's corpus-frequency bin (bin = floor(log2(frequency)));
* ``polysemy``: values that share a Chinese character bigram with the gold, and values of
  the same relation on entries that share the head's title but are another sense.

Each source is capped per item (``per_source``), taking candidates in a fixed
hash order, and the tables it draws from are bounded samples (``fanout`` neighbours
per node, ``sample`` values per relation and per frequency bin), so a hub node does
not flood the pool, an item costs about the same on any corpus size, and reruns
give the same pool.
Values that are themselves correct (any value of the item's relation on the same
head) are never candidates. Each candidate comes with the relations it is the tail
of, so its format is judged by its own relation, not the item's.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pyarrow as pa

from warehouse.shards import duck, sql_path_list

SOURCES = ("neighbour", "same_relation", "frequency", "polysemy")


class Candidate(NamedTuple):  # a tuple: hundreds of thousands are made per batch
    value: str
    source: str
    relations: tuple[str, ...]  # relations the value is the tail of, anywhere in the graph
    domain: str | None  # the most common domain of the pairs it occurs in


@dataclass(frozen=True)
class Query:
    item: str
    head: str
    sense: str
    relation: str
    gold: str
    domain: str | None = None


class Graph:
    """Kept triples of kept pairs, loaded from pair shards into an in-memory DuckDB."""

    def __init__(self, pair_shards: list[Path], threads: int | None = None, fanout: int = 50, sample: int = 400):
        self.con = duck()
        if threads:
            self.con.execute(f"SET threads = {int(threads)}")
        self.con.execute(f"""
            CREATE TABLE triples AS
            SELECT DISTINCT p.entity AS head, coalesce(p.sense, '') AS sense, t.relation AS relation, t.tail AS tail,
                   p.domain AS domain
            FROM (SELECT entity, sense, domain, unnest(triples) AS t FROM read_parquet({sql_path_list(pair_shards)})
                  WHERE decision = 'kept') AS p
            WHERE t.decision = 'kept'""")
        self.con.execute("""
            CREATE TABLE edges AS
            SELECT DISTINCT head AS a, tail AS b FROM triples
            UNION SELECT DISTINCT tail AS a, head AS b FROM triples""")
        self.con.execute("""
            CREATE TABLE frequency AS
            SELECT node, count(*) AS freq, floor(log2(count(*)))::INTEGER AS bin
            FROM (SELECT head AS node FROM triples UNION ALL SELECT tail FROM triples) GROUP BY node""")
        self.con.execute("""
            CREATE TABLE node_info AS
            WITH occurrences AS (
                SELECT tail AS node, relation, domain FROM triples
                UNION ALL SELECT head, NULL, domain FROM triples),
            domains AS (  -- the most common domain, ties to the first by name: mode() breaks ties arbitrarily
                SELECT node, domain FROM (
                    SELECT node, domain, row_number() OVER (PARTITION BY node ORDER BY count(*) DESC, domain) AS r
                    FROM occurrences GROUP BY node, domain) WHERE r = 1)
            SELECT node, list(DISTINCT relation ORDER BY relation) FILTER (WHERE relation IS NOT NULL) AS relations,
                   any_value(d.domain) AS domain
            FROM occurrences JOIN domains d USING (node) GROUP BY node""")
        self.con.execute("""
            CREATE TABLE bigrams AS
            SELECT DISTINCT tail AS value, substr(tail, i, 2) AS gram
            FROM (SELECT DISTINCT tail FROM triples), range(1, 40) AS r(i)
            WHERE i < length(tail) AND length(tail) <= 40
              AND regexp_full_match(substr(tail, i, 2), '[\u4e00-\u9fff]{2}')""")

        # Bounded samples, so that a hub (中国 is the value of thousands of triples) or a common
        # relation or bin costs the same per item as a rare one: fanout neighbours per node and
        # values per bigram, sample values per relation and per frequency bin, in md5 order.
        self.con.execute(f"""
            CREATE TABLE near AS SELECT a, b FROM (
                SELECT a, b, row_number() OVER (PARTITION BY a ORDER BY md5(a || '|' || b), b) AS r FROM edges)
            WHERE r <= {int(fanout)}""")
        self.con.execute(f"""
            CREATE TABLE relation_values AS SELECT relation, tail FROM (
                SELECT relation, tail, row_number() OVER (PARTITION BY relation ORDER BY md5(relation || '|' || tail),
                                                          tail) AS r
                FROM (SELECT DISTINCT relation, tail FROM triples))
            WHERE r <= {int(sample)}""")
        self.con.execute(f"""
            CREATE TABLE bin_values AS SELECT bin, node FROM (
                SELECT bin, node, row_number() OVER (PARTITION BY bin ORDER BY md5(node), node) AS r FROM frequency)
            WHERE r <= {int(sample)}""")
        self.con.execute(f"""
            CREATE TABLE gram_values AS SELECT gram, value FROM (
                SELECT gram, value, row_number() OVER (PARTITION BY gram ORDER BY md5(gram || value), value) AS r
                FROM bigrams)
            WHERE r <= {int(fanout)}""")

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> "Graph":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def counts(self) -> dict[str, int]:
        (triples,), = self.con.sql("SELECT count(*) FROM triples").fetchall()
        (nodes,), = self.con.sql("SELECT count(*) FROM frequency").fetchall()
        return {"triples": triples, "nodes": nodes}

    def relation_families(self, min_shared: int = 2) -> dict[str, set[str]]:
        """relation -> the relations whose values are the same type of thing: itself, and those
        sharing at least min_shared tail values with it (出生地 and 逝世地 share cities)."""
        rows = self.con.sql(f"""
            WITH v AS (SELECT DISTINCT relation, tail FROM triples)
            SELECT a.relation, b.relation FROM v a JOIN v b USING (tail)
            WHERE a.relation <> b.relation GROUP BY 1, 2 HAVING count(*) >= {int(min_shared)}""").fetchall()
        families: dict[str, set[str]] = defaultdict(set)
        for (relation,) in self.con.sql("SELECT DISTINCT relation FROM triples").fetchall():
            families[relation].add(relation)
        for a, b in rows:
            families[a].add(b)
        return dict(families)

    def candidates(self, queries: list[Query], per_source: int = 30) -> dict[str, list[Candidate]]:
        """item -> candidates, each source's in a fixed order, correct values excluded."""
        con = self.con
        batch = pa.table({name: pa.array([getattr(q, name) for q in queries], pa.string())
                          for name in ("item", "head", "sense", "relation", "gold")})
        con.register("query_batch", batch)  # executemany inserts row by row: seconds per thousand rows
        con.execute("CREATE OR REPLACE TEMP TABLE q AS SELECT * FROM query_batch")
        con.unregister("query_batch")
        query = f"""
            WITH hop1 AS (
                SELECT q.item, e.b AS cand FROM q JOIN near e ON e.a = q.gold),
            hop2 AS (
                SELECT h.item, e.b AS cand FROM hop1 h JOIN near e ON e.a = h.cand),
            pool AS (
                SELECT item, cand, 'neighbour' AS source FROM hop1
                UNION SELECT item, cand, 'neighbour' FROM hop2
                UNION SELECT q.item, v.tail, 'same_relation' FROM q JOIN relation_values v ON v.relation = q.relation
                UNION SELECT q.item, v.node, 'frequency'
                      FROM q JOIN frequency f ON f.node = q.gold JOIN bin_values v ON v.bin = f.bin
                UNION SELECT q.item, v.value, 'polysemy'
                      FROM q JOIN bigrams b ON b.value = q.gold JOIN gram_values v ON v.gram = b.gram
                UNION SELECT q.item, t.tail, 'polysemy'
                      FROM q JOIN triples t ON t.head = q.head AND t.sense <> q.sense AND t.relation = q.relation),
            allowed AS (
                SELECT p.* FROM pool p JOIN q USING (item)
                WHERE p.cand <> q.gold AND p.cand <> q.head
                  AND NOT EXISTS (SELECT 1 FROM triples t WHERE t.head = q.head AND t.sense = q.sense
                                  AND t.relation = q.relation AND t.tail = p.cand)),
            ranked AS (
                SELECT item, cand, source,
                       row_number() OVER (PARTITION BY item, source ORDER BY md5(item || cand), cand) AS rank
                FROM allowed)
            SELECT r.item, r.cand, r.source, n.relations, n.domain
            FROM ranked r LEFT JOIN node_info n ON n.node = r.cand
            WHERE r.rank <= {int(per_source)}
            ORDER BY r.item, r.source, r.rank"""
        pools: dict[str, list[Candidate]] = defaultdict(list)
        for batch in con.sql(query).to_arrow_reader(50_000):
            for item, cand, source, relations, domain in zip(*(batch.column(i).to_pylist() for i in range(5))):
                pools[item].append(Candidate(cand, source, tuple(relations or ()), domain))
        return pools
