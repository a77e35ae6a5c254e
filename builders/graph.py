"""The knowledge graph of everything the crawl states, and the distractor pools drawn from it (DuckDB).

Facts are every triple of every pair, whatever the filters decided about it: a triple
the text does not support is still what the entity's page says, so it is never a
wrong answer, and its value is still a thing of its kind. Nodes are strings (titles and
values); an edge joins a fact's head and tail, in both directions. For a batch of
items one set of queries returns, per item, candidates with the source that proposed them:

* ``neighbour``: 1-hop and 2-hop neighbours of the gold (CDTP, Appendix C.2);
* ``same_type``: values of the gold's type (:mod:`builders.types`) in its corpus-frequency
  bin or the two next to it (bin = floor(log2(frequency)));
* ``same_relation``: values of the asked relation elsewhere (or, when the head is asked,
  other entities that have the relation);
* ``polysemy``: what the pages of the head's other senses say (a title with several
  senses: 天池 in 长白山 and in 天山), confusable with the sense asked about.

Each source is capped per item (``per_source``), taking candidates in a fixed hash order,
and the tables it draws from are bounded samples (``fanout`` neighbours per node,
``sample`` values per relation and per type and bin), so a hub node does not flood the
pool, an item costs about the same on any corpus size, and reruns give the same pool.
:meth:`Graph.truth` gives, per item, every value that is a right answer.
"""

from __future__ import annotations

from collections import defaultdict
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Callable, Iterable, Iterator, NamedTuple, TypeVar

import duckdb
import pyarrow as pa

from filters.triples import NAME_RELATIONS
from schemas.storage.shards import bounded_duck, sql_path_list

T = TypeVar("T")

SOURCES = ("neighbour", "same_type", "same_relation", "polysemy")
# Relations between a whole and its parts (or a thing and what it became): a value linked to the
# gold by one of them is the gold at another granularity (宋朝 and 北宋, 东汉 and 东汉末年), a right
# answer in other words, never a distractor.
PART_RELATIONS = frozenset({"分期", "组成部分", "主要组成", "下辖地区", "所属地区", "所属国家", "所在地", "上级行政区",
                            "主要岛屿", "前身", "后身", "所属山脉", "所属山系", "所属水系", "所属类别", "上位概念"})


# Relations that tie a work to what it was adapted from: a title on either end has several versions.
ADAPTATION_RELATIONS = frozenset({"原著", "原作", "改编自", "原著作者", "原作者", "改编作品", "衍生作品", "翻拍自"})
WORK_SOURCE_RELATIONS = frozenset({"原作", "改编自", "改编作品", "衍生作品", "翻拍自"})  # their values are works


class Candidate(NamedTuple):  # a tuple: hundreds of thousands are made per batch
    value: str
    source: str
    domain: str | None  # the most common domain of the pairs it occurs in
    freq: int = 0  # how many facts it is the head or tail of (0: not given)


@dataclass(frozen=True)
class Query:
    item: str
    head: str  # the triple's head (the answer when the head is asked)
    sense: str
    relation: str
    gold: str  # the answer: the tail, or the head when asked == "head"
    domain: str | None = None
    asked: str = "tail"  # tail | head
    tail: str = ""  # the triple's tail (given in the question when the head is asked)
    type_key: str = ""  # the gold's type (builders.types.ValueType.key), for same-type candidates
    # an asked head's type by its own page, where its title names things of several types (熊秀: a person, and a
    # city): the options are of this one
    sense_type: str = ""


# What the graph's DuckDB may hold in memory. Its tables grow with the crawl (128 MB at 84k realistic
# pages, 460,242 facts) and go to a temporary directory beyond this; a batch's query that does not fit is
# asked for each half of the batch in turn (Graph._halving), a query over the whole graph without the limit.
MEMORY_LIMIT = "128MB"


class Graph:
    """Every fact of the pair shards, loaded into a DuckDB database held to ``memory_limit`` from its
    build on: beyond it, its tables and a query's working set go to a temporary directory, removed on
    :meth:`close`. A statement over the whole graph (the build's, :meth:`nodes`, :meth:`set_types` ...)
    that cannot keep the limit runs again without it (:meth:`_fitting`), and the limit is set again after.

    Left without the limit until the item build, the build of an 84k-page crawl's graph grew the process
    by 223 MB, kept through the typing of its nodes and the builder's set-up; held, by 97 MB
    (bench/RESULTS.md, 2026-11-28)."""

    def __init__(self, pair_shards: list[Path], threads: int | None = None, fanout: int = 50, sample: int = 400,
                 memory_limit: str = MEMORY_LIMIT):
        self._closing = ExitStack()
        self.con = self._closing.enter_context(bounded_duck(memory_limit, threads))
        self.memory_limit = memory_limit
        self._held = True
        self.fanout, self.sample = fanout, sample
        self._registered: list[Query] | None = None
        self._keyed = False
        self._pages = False  # load_pages: the crawl's page texts are in the table page_texts
        try:
            self._fitting(lambda: self._load(pair_shards))
        except BaseException:
            self.close()
            raise

    def _load(self, pair_shards: list[Path]) -> None:
        fanout, sample = self.fanout, self.sample
        self.con.execute(f"""
            CREATE OR REPLACE TABLE facts AS
            SELECT DISTINCT p.entity AS head, coalesce(p.sense, '') AS sense, t.relation AS relation, t.tail AS tail,
                   p.domain AS domain
            FROM (SELECT entity, sense, domain, unnest(triples) AS t FROM read_parquet({sql_path_list(pair_shards)}))
                 AS p
            WHERE t.tail <> ''""")
        self.con.execute("""
            CREATE OR REPLACE TABLE edges AS
            SELECT DISTINCT head AS a, tail AS b FROM facts
            UNION SELECT DISTINCT tail AS a, head AS b FROM facts""")
        self.con.execute("""
            CREATE OR REPLACE TABLE frequency AS
            SELECT node, count(*) AS freq, floor(log2(count(*)))::INTEGER AS bin
            FROM (SELECT head AS node FROM facts UNION ALL SELECT tail FROM facts) GROUP BY node""")
        self.con.execute("""
            CREATE OR REPLACE TABLE node_domain AS
            WITH occurrences AS (SELECT tail AS node, domain FROM facts UNION ALL SELECT head, domain FROM facts)
            SELECT node, domain FROM (  -- the most common domain, ties to the first by name
                SELECT node, domain, row_number() OVER (PARTITION BY node ORDER BY count(*) DESC, domain) AS r
                FROM occurrences GROUP BY node, domain) WHERE r = 1""")
        # Bounded samples, so that a hub (中国 is the value of thousands of facts) or a common
        # relation costs the same per item as a rare one, in md5 order.
        self.con.execute(f"""
            CREATE OR REPLACE TABLE near AS SELECT a, b FROM (
                SELECT a, b, row_number() OVER (PARTITION BY a ORDER BY md5(a || '|' || b), b) AS r FROM edges)
            WHERE r <= {int(fanout)}""")
        self.con.execute("DROP TABLE IF EXISTS edges")  # every edge in both directions: near is what is read of it
        self.con.execute(f"""
            CREATE OR REPLACE TABLE relation_values AS SELECT relation, tail FROM (
                SELECT relation, tail, row_number() OVER (PARTITION BY relation ORDER BY md5(relation || '|' || tail),
                                                          tail) AS r
                FROM (SELECT DISTINCT relation, tail FROM facts))
            WHERE r <= {int(sample)}""")
        self.con.execute(f"""
            CREATE OR REPLACE TABLE relation_heads AS SELECT relation, head FROM (
                SELECT relation, head, row_number() OVER (PARTITION BY relation ORDER BY md5(relation || '|' || head),
                                                          head) AS r
                FROM (SELECT DISTINCT relation, head FROM facts))
            WHERE r <= {int(sample)}""")
        self.con.execute("CREATE OR REPLACE TABLE type_values (type_key VARCHAR, bin INTEGER, node VARCHAR)")
        # Each infobox row as written (before it was split into one triple per value), for the
        # one-answer rule of short-answer questions (Graph.relation_values).
        self.con.execute(f"""
            CREATE OR REPLACE TABLE rows AS
            SELECT DISTINCT p.entity AS head, coalesce(p.sense, '') AS sense, t.relation AS relation, t.tail AS tail,
                   coalesce(t.raw_value, '') AS raw_value
            FROM (SELECT entity, sense, unnest(triples) AS t FROM read_parquet({sql_path_list(pair_shards)})) AS p
            WHERE t.tail <> ''""")

    def load_pages(self, page_shards: list[Path]) -> None:
        """The text of every page whose title is a head of the graph (its summary and body, each sense's page a
        row), as the crawl parsed it: what an entity's pages say, beyond the cut text of its pair
        (:meth:`page_texts`)."""
        if not page_shards:
            return
        self._fitting(lambda: self.con.execute(f"""
            CREATE OR REPLACE TABLE page_texts AS
            SELECT p.title AS head, p.url AS url,
                   concat_ws(chr(10), p.summary, array_to_string(coalesce(p.paragraphs, []), chr(10))) AS text
            FROM read_parquet({sql_path_list(page_shards)}) p
            WHERE p.status = 'ok' AND p.title IN (SELECT DISTINCT head FROM facts)"""))
        # titles the crawl knows several senses of: several pages, or a page (a disambiguation page among them)
        # that lists several, whether or not every sense's page became a pair
        self._fitting(lambda: self.con.execute(f"""
            CREATE OR REPLACE TABLE page_senses AS
            SELECT title AS head, greatest(count(DISTINCT coalesce(subtitle, '')) FILTER (WHERE status = 'ok'),
                                           max(len(coalesce(senses, [])))) AS senses
            FROM read_parquet({sql_path_list(page_shards)}) GROUP BY title"""))
        self._pages = True

    def page_texts(self, heads: Iterable[str]) -> dict[str, list[str]]:
        """head -> the texts of its pages (every sense), in URL order; {} where the pages were not loaded."""
        wanted = sorted(set(heads))
        if not wanted or not self._pages:
            return {}
        self.con.register("wanted_heads", pa.table({"head": pa.array(wanted, pa.string())}))
        try:
            rows = self.con.sql("SELECT t.head, t.text FROM page_texts t JOIN wanted_heads w USING (head) "
                                "ORDER BY t.head, t.url").fetchall()
        finally:
            self.con.unregister("wanted_heads")
        found: dict[str, list[str]] = defaultdict(list)
        for head, text in rows:
            if text:
                found[head].append(text)
        return found

    def hold_memory(self) -> None:
        """Hold DuckDB to the graph's memory limit again (where something lifted it)."""
        self.con.execute(f"SET memory_limit = '{self.memory_limit}'")
        self._held = True

    @contextmanager
    def _limitless(self) -> Iterator[None]:
        """DuckDB's default memory limit inside, the graph's limit set again after it where it was held (and
        where DuckDB can free enough for it: else the graph stays unheld, its answers the same)."""
        held = self._held
        self.con.execute("RESET memory_limit")
        self._held = False
        try:
            yield
        finally:
            if held:
                try:
                    self.hold_memory()
                except duckdb.OutOfMemoryException:
                    pass

    def _unheld(self, ask: Callable[[], T]) -> T:
        """``ask()`` with DuckDB's default memory limit (see :meth:`_limitless`)."""
        with self._limitless():
            return ask()

    def _fitting(self, ask: Callable[[], T]) -> T:
        """``ask()`` within the graph's memory limit, and again without it where it cannot keep the limit:
        for what cannot be split. ``ask`` must be one statement, or safe to run again (a failed statement
        changes nothing; CREATE OR REPLACE)."""
        if not self._held:
            return ask()
        try:
            return ask()
        except duckdb.OutOfMemoryException:
            return self._unheld(ask)

    def close(self) -> None:
        self._closing.close()

    def __enter__(self) -> "Graph":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def counts(self) -> dict[str, int]:
        (facts,), = self.con.sql("SELECT count(*) FROM facts").fetchall()
        (nodes,), = self.con.sql("SELECT count(*) FROM frequency").fetchall()
        return {"facts": facts, "nodes": nodes}

    def nodes(self) -> Iterator[tuple[str, str, list[str], bool]]:
        """(node, the relation it is most often the tail of or '', its relations as a tail, whether it is a head),
        in node order. Where the query cannot keep the graph's limit, the nodes not yet given come from the
        query run again without it."""
        given = 0
        try:
            for row in self._node_rows(0):
                yield row
                given += 1
            return
        except duckdb.OutOfMemoryException:
            if not self._held:
                raise
        with self._limitless():
            yield from self._node_rows(given)

    def _node_rows(self, skip: int) -> Iterator[tuple[str, str, list[str], bool]]:
        query = f"""
            WITH tails AS (SELECT tail AS node, relation, count(*) AS n FROM facts GROUP BY 1, 2),
                 heads AS (SELECT DISTINCT head AS node FROM facts)
            SELECT f.node, coalesce(first(t.relation ORDER BY t.n DESC, t.relation), ''),
                   list(DISTINCT t.relation ORDER BY t.relation)
                       FILTER (WHERE t.relation IS NOT NULL), h.node IS NOT NULL
            FROM frequency f LEFT JOIN tails t ON t.node = f.node LEFT JOIN heads h ON h.node = f.node
            GROUP BY f.node, h.node ORDER BY f.node OFFSET {int(skip)}"""
        reader = self.con.cursor()  # its own connection to the graph: set_types writes while this reads
        try:
            for batch in reader.sql(query).to_arrow_reader(50_000):
                for row in zip(*(batch.column(i).to_pylist() for i in range(4))):
                    yield row[0], row[1], row[2] or [], row[3]
        finally:
            reader.close()

    def set_types(self, typed: Iterable[tuple[str, str]]) -> None:
        """Register (node, type key) for every node, for same-type candidates (bounded per type and bin).

        ``typed`` may read :meth:`nodes` while this runs: it is taken 50,000 rows at a time into a
        table of the graph, never whole into Python."""
        self.con.execute("CREATE OR REPLACE TEMP TABLE typed_nodes (node VARCHAR, type_key VARCHAR)")
        typed = iter(typed)
        while rows := list(islice(typed, 50_000)):
            chunk = pa.table({"node": pa.array([r[0] for r in rows], pa.string()),
                              "type_key": pa.array([r[1] for r in rows], pa.string())})
            self.con.register("typed_chunk", chunk)
            self._fitting(lambda: self.con.execute("INSERT INTO typed_nodes SELECT * FROM typed_chunk"))
            self.con.unregister("typed_chunk")
        self._fitting(lambda: self.con.execute(f"""
            INSERT INTO type_values
            SELECT type_key, bin, node FROM (
                SELECT t.type_key, f.bin, t.node,
                       row_number() OVER (PARTITION BY t.type_key, f.bin ORDER BY md5(t.node), t.node) AS r
                FROM typed_nodes t JOIN frequency f USING (node))
            WHERE r <= {int(self.sample)}"""))
        self.con.execute("DROP TABLE typed_nodes")

    def senses(self) -> dict[str, int]:
        """Titles with more than one sense, and how many (by the facts, and by the pages where they are loaded)."""
        found = dict(self._fitting(lambda: self.con.sql("SELECT head, count(DISTINCT sense) FROM facts GROUP BY 1 "
                                                        "HAVING count(DISTINCT sense) > 1").fetchall()))
        if self._pages:
            for head, n in self.con.sql("SELECT head, senses FROM page_senses WHERE senses > 1").fetchall():
                found[head] = max(found.get(head, 0), n)
        return found

    def relation_values(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[tuple[str, str, str]]]:
        """(head, relation) -> every (sense, tail, raw row value) the crawl's pages give for it, in every
        sense of the title, whatever the filters decided about the triple."""
        wanted = sorted(set(keys))
        if not wanted:
            return {}
        table = pa.table({"head": pa.array([k[0] for k in wanted], pa.string()),
                          "relation": pa.array([k[1] for k in wanted], pa.string())})
        self.con.register("wanted_values", table)
        try:
            rows = self.con.sql("""
                SELECT r.head, r.relation, r.sense, r.tail, r.raw_value
                FROM rows r JOIN wanted_values w ON w.head = r.head AND w.relation = r.relation
                ORDER BY 1, 2, 3, 4, 5""").fetchall()
        finally:
            self.con.unregister("wanted_values")
        found: dict[tuple[str, str], list[tuple[str, str, str]]] = defaultdict(list)
        for head, relation, sense, tail, raw in rows:
            found[(head, relation)].append((sense, tail, raw))
        return found

    def heads_with(self, facts: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
        """(relation, tail) -> every head whose pages give it that value, in order (the right answers of a question
        that asks the head)."""
        wanted = sorted(set(facts))
        if not wanted:
            return {}
        self.con.register("wanted_facts", pa.table({"relation": pa.array([w[0] for w in wanted], pa.string()),
                                                    "tail": pa.array([w[1] for w in wanted], pa.string())}))
        try:
            rows = self.con.sql("SELECT DISTINCT f.relation, f.tail, f.head FROM facts f JOIN wanted_facts w "
                                "USING (relation, tail) ORDER BY 1, 2, 3").fetchall()
        finally:
            self.con.unregister("wanted_facts")
        found: dict[tuple[str, str], list[str]] = defaultdict(list)
        for relation, tail, head in rows:
            found[(relation, tail)].append(head)
        return found

    def grouped_facts(self, skip: Iterable[str] = ()) -> Iterator[tuple[str, str, list[str]]]:
        """(entity, relation, its values) for every entity (a title and a sense) and relation not in ``skip``, a
        batch at a time; an entity is named ``title#sense``."""
        cursor = self.con.cursor()
        try:
            result = cursor.execute(
                "SELECT head || '#' || sense, relation, list(DISTINCT tail ORDER BY tail) FROM facts "
                "WHERE NOT list_contains($skip, relation) GROUP BY head, sense, relation ORDER BY 1, 2",
                parameters={"skip": sorted(set(skip))})
            while rows := result.fetchmany(10_000):
                yield from rows
        finally:
            cursor.close()

    def majority_values(self, share: float = 0.5, min_heads: int = 5, few: int = 3,
                        few_heads: int = 10, plurality: float = 0.3,
                        plurality_heads: int = 20) -> set[tuple[str, str]]:
        """(relation, value) that a question answers by the prior alone: the value is what at least
        ``share`` of the titles with the relation have, among at least ``min_heads`` titles; or it is the
        relation's most common value and at least ``plurality`` of at least ``plurality_heads`` titles have
        it (国籍 中国: 21 of the demo's 57 titles with a 国籍, and the guess for any Chinese name; fewer
        titles make a prior of a coincidence, such as one founder of 5 of 15 companies); or the relation
        takes at most ``few``
        values over at least ``few_heads`` titles (界: 植物界 or 动物界; 文学体裁: 词, 诗 or 曲), so a guess
        among them is right often."""
        rows = self._fitting(lambda: self.con.sql(f"""
            WITH per AS (SELECT relation, tail, count(DISTINCT head) AS n FROM facts GROUP BY 1, 2),
                 total AS (SELECT relation, count(DISTINCT head) AS heads, count(DISTINCT tail) AS tails,
                                  max(n) AS mode FROM facts JOIN per USING (relation, tail) GROUP BY 1)
            SELECT p.relation, p.tail FROM per p JOIN total t USING (relation)
            WHERE (t.heads >= {int(min_heads)} AND p.n >= {float(share)} * t.heads)
               OR (t.heads >= {int(plurality_heads)} AND p.n = t.mode AND p.n >= {float(plurality)} * t.heads)
               OR (t.heads >= {int(few_heads)} AND t.tails <= {int(few)})""").fetchall())
        return {(relation, tail) for relation, tail in rows}

    def facts(self, batch: int = 50_000) -> Iterator[tuple[str, str, str]]:
        """Every (head, relation, tail) of the crawl, a batch at a time (for the offline baselines' priors)."""
        cursor = self.con.cursor()
        try:
            result = cursor.execute("SELECT DISTINCT head, relation, tail FROM facts ORDER BY ALL")
            while rows := result.fetchmany(batch):
                yield from rows
        finally:
            cursor.close()

    def multi_valued(self, share: float = 0.2, min_heads: int = 5) -> set[str]:
        """Relations that take several values per entity: at least ``share`` of the (title, sense) entries with
        the relation, among at least ``min_heads``, give two values or a row that lists several (职业: 卫青 is
        军事家 on one page and 政治家 on another; 都城 of a dynasty that moved). A one-answer question about
        one of them is right only where the crawl happens to give one value."""
        rows = self._fitting(lambda: self.con.sql(f"""
            WITH per AS (SELECT relation, head, sense, count(DISTINCT tail) AS values_,
                                bool_or(regexp_matches(raw_value, '[、，；]')) AS listed
                         FROM rows GROUP BY 1, 2, 3)
            SELECT relation FROM per GROUP BY 1
            HAVING count(*) >= {int(min_heads)}
               AND count(*) FILTER (WHERE values_ > 1 OR listed) >= {float(share)} * count(*)""").fetchall())
        return {relation for (relation,) in rows}

    def adapted(self) -> set[str]:
        """Titles that name an adaptation or a source of one: a work whose page gives an original work
        or author it was adapted from (原著, 改编自 ...), or a title another page gives as that source."""
        rows = self._fitting(lambda: self.con.sql("""
            SELECT DISTINCT head FROM facts WHERE relation IN $adaptation
            UNION SELECT DISTINCT regexp_replace(tail, '^《(.*)》$', '\\1') FROM facts WHERE relation IN $works""",
                            params={"adaptation": sorted(ADAPTATION_RELATIONS),
                                    "works": sorted(WORK_SOURCE_RELATIONS)}).fetchall())
        return {row[0] for row in rows}

    def _register(self, queries: list[Query]) -> None:
        """Load a batch of queries as the table q (once: truth and candidates of a batch share it)."""
        if queries is self._registered:
            return
        self._registered = None  # until q holds them: a load that fails (out of memory) is made again
        con = self.con
        batch = pa.table({name: pa.array([getattr(q, name) for q in queries], pa.string())
                          for name in ("item", "head", "sense", "relation", "gold", "asked", "tail", "type_key")})
        con.register("query_batch", batch)  # executemany inserts row by row: seconds per thousand rows
        try:
            con.execute("CREATE OR REPLACE TEMP TABLE q AS SELECT * FROM query_batch")
        finally:
            con.unregister("query_batch")
        self._registered = queries

    def truth(self, queries: list[Query], among: dict[str, list[Candidate]] | None = None) -> dict[str, set[str]]:
        """item -> every value that answers it rightly, as written in the crawl: for a tail, every value
        the head's pages (all senses) give for the relation and every name of the head; for a head,
        every entity whose pages give that relation that value, and their names. For both, the gold's
        own names, what the gold names, and what contains the gold or is part of it (北宋 is 宋朝's).

        With ``among`` (item -> its candidates, :meth:`candidates`), only the candidates that are right
        answers: those whose :func:`~filters.normalize.value_key` is a right answer's. That is all a
        distractor check asks, and it stays small where the full answer is large (the head of 国籍 中国
        is every Chinese person in the crawl)."""
        if among is not None:
            if not self._keyed:  # a pass over every node, which cannot be split
                self._fitting(self._key_nodes)
            return self._halving(queries, lambda part: self._true_candidates(
                {q.item: among[q.item] for q in part if q.item in among}))
        self._register(queries)
        rows = self.con.sql(self._TRUTH, params=self._truth_params()).fetchall()
        found: dict[str, set[str]] = defaultdict(set)
        for item, value in rows:
            found[item].add(value)
        return found

    def _true_candidates(self, among: dict[str, list[Candidate]]) -> dict[str, set[str]]:
        from filters.normalize import value_key

        pairs = sorted({(item, c.value) for item, pool in among.items() for c in pool})
        table = pa.table({"item": pa.array([p[0] for p in pairs], pa.string()),
                          "value": pa.array([p[1] for p in pairs], pa.string()),
                          "key": pa.array([value_key(p[1]) for p in pairs], pa.string())})
        self.con.register("offered", table)
        try:
            query = f"""
                WITH truth AS ({self._TRUTH}),
                     true_keys AS (SELECT DISTINCT t.item, k.key FROM truth t JOIN node_key k ON k.node = t.tail)
                SELECT o.item, o.value FROM offered o JOIN true_keys t ON t.item = o.item AND t.key = o.key"""
            found: dict[str, set[str]] = defaultdict(set)
            for batch in self.con.sql(query, params=self._truth_params()).to_arrow_reader(50_000):
                for item, value in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist()):
                    found[item].add(value)
        finally:
            self.con.unregister("offered")
        return found

    def _key_nodes(self) -> None:
        """The table node_key: every node with its value_key, once (the key is Python's, not SQL's).
        A right answer is a fact's head or tail, so a node."""
        if self._keyed:
            return
        from filters.normalize import value_key

        nodes = self.con.sql("SELECT node FROM frequency").to_arrow_table()
        self.con.execute("CREATE OR REPLACE TABLE node_key (node VARCHAR, key VARCHAR)")
        for start in range(0, nodes.num_rows, 50_000):
            chunk = nodes.column(0).slice(start, 50_000)
            keyed = pa.table({"node": chunk, "key": pa.array([value_key(n) for n in chunk.to_pylist()], pa.string())})
            self.con.register("keyed_nodes", keyed)
            self.con.execute("INSERT INTO node_key SELECT * FROM keyed_nodes")
            self.con.unregister("keyed_nodes")
        self._keyed = True

    @staticmethod
    def _truth_params() -> dict[str, list[str]]:
        return {"names": sorted(NAME_RELATIONS), "close": sorted(NAME_RELATIONS | PART_RELATIONS)}

    _TRUTH = """
            SELECT q.item, f.tail FROM q JOIN facts f ON f.head = q.head AND f.relation = q.relation
            WHERE q.asked = 'tail'
            UNION SELECT q.item, f.tail FROM q JOIN facts f ON f.head = q.head AND f.relation IN $names
            WHERE q.asked = 'tail'
            UNION SELECT q.item, f.head FROM q JOIN facts f ON f.relation = q.relation AND f.tail = q.tail
            WHERE q.asked = 'head'
            UNION SELECT q.item, n.tail FROM q JOIN facts f ON f.relation = q.relation AND f.tail = q.tail
                  JOIN facts n ON n.head = f.head AND n.relation IN $names
            WHERE q.asked = 'head'
            UNION SELECT q.item, f.tail FROM q JOIN facts f ON f.head = q.gold AND f.relation IN $close
            UNION SELECT q.item, f.head FROM q JOIN facts f ON f.tail = q.gold AND f.relation IN $close"""

    def _halving(self, queries: list[Query], ask: Callable[[list[Query]], dict[str, T]]) -> dict[str, T]:
        """``ask(queries)`` with the batch loaded as q. Where DuckDB cannot hold the query's working set
        within the graph's memory limit, the batch is asked in halves, one after the other: an item's answer
        never depends on the other items of its batch. One item that does not fit is asked without the
        limit."""
        def asked() -> dict[str, T]:
            self._register(queries)
            return ask(queries)

        try:
            return asked()
        except duckdb.OutOfMemoryException:
            if len(queries) < 2:
                return self._unheld(asked)
        middle = len(queries) // 2
        found = self._halving(queries[:middle], ask)
        found.update(self._halving(queries[middle:], ask))
        return found

    def candidates(self, queries: list[Query], per_source: int = 30) -> dict[str, list[Candidate]]:
        """item -> candidates, each source's in a fixed order (the gold and the head left out)."""
        return self._halving(queries, lambda part: self._candidates(per_source))

    def _candidates(self, per_source: int) -> dict[str, list[Candidate]]:
        """The candidates of the items of q."""
        query = f"""
            WITH hop1 AS (
                SELECT q.item, e.b AS cand FROM q JOIN near e ON e.a = q.gold),
            hop2 AS (
                SELECT h.item, e.b AS cand FROM hop1 h JOIN near e ON e.a = h.cand),
            pool AS (
                SELECT item, cand, 'neighbour' AS source FROM hop1
                UNION SELECT item, cand, 'neighbour' FROM hop2
                UNION SELECT q.item, v.node, 'same_type'
                      FROM q JOIN frequency f ON f.node = q.gold
                      JOIN type_values v ON v.type_key = q.type_key AND v.bin BETWEEN f.bin - 1 AND f.bin + 1
                UNION SELECT q.item, v.tail, 'same_relation'
                      FROM q JOIN relation_values v ON v.relation = q.relation WHERE q.asked = 'tail'
                UNION SELECT q.item, v.head, 'same_relation'
                      FROM q JOIN relation_heads v ON v.relation = q.relation WHERE q.asked = 'head'
                UNION SELECT q.item, t.tail, 'polysemy'
                      FROM q JOIN facts t ON t.head = q.head AND t.sense <> q.sense WHERE q.asked = 'tail'),
            allowed AS (
                SELECT p.* FROM pool p JOIN q USING (item) WHERE p.cand <> q.gold AND p.cand <> q.head),
            ranked AS (
                SELECT item, cand, source,
                       row_number() OVER (PARTITION BY item, source ORDER BY md5(item || cand), cand) AS rank
                FROM allowed)
            SELECT r.item, r.cand, r.source, d.domain, f.freq
            FROM ranked r LEFT JOIN node_domain d ON d.node = r.cand LEFT JOIN frequency f ON f.node = r.cand
            WHERE r.rank <= {int(per_source)}
            ORDER BY r.item, r.source, r.rank"""
        pools: dict[str, list[Candidate]] = defaultdict(list)
        for batch in self.con.sql(query).to_arrow_reader(50_000):
            for item, cand, source, domain, freq in zip(*(batch.column(i).to_pylist() for i in range(5))):
                pools[item].append(Candidate(cand, source, domain, freq))
        return pools
