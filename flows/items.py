"""The item stage: kept pairs -> KGC, QA, T2T, cloze and SimpleQA-style items, deduplicated by fields
and checked against the question database; and the release queries that split them.

Stage logic is a plain function over file paths, like the other stages the flow in flows/cdtp.py calls.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import Iterator, NamedTuple

import pyarrow.parquet as pq

from builders.baselines import BASELINES, DESCRIPTION as BASELINE_PANEL
from builders.contamination import QuestionDatabase, read_question_file
from builders.difficulty import DESCRIPTION as DIFFICULTY_PROXY
from builders.items import FACT_OWNERS, one_relation
from builders.splits import assign_splits, unit_of
from builders.templates import load_templates
from filters.dedup import FieldDeduplicator, field_key
from filters.embeddings import make_embedder
from filters.normalize import clear_value_caches, value_key
from flows import item_parts
from flows.item_checks import verify_items
from flows.item_models import BATCH_TRIPLES, item_builder
from flows.settings import ItemsSettings, LLMSection, VerifySettings
from schemas import ITEM_SCHEMA, Item, Pair
from schemas.records import QUESTION_KINDS
from schemas.storage.shards import ShardWriter, iter_records, release_freed
from warehouse import release as releases
from warehouse.hierarchy import LEVELS, Labels



def released_items(data_dir: Path, name: str, kinds: tuple[str, ...],
                   columns: tuple[str, ...] = ("item_id", "kind", "question", "answer")) -> Iterator[dict]:
    """Rows of the given item kinds from every earlier release of that name."""
    for version in releases.list_versions(data_dir, name):
        root = releases.releases_root(data_dir, name) / version
        for kind in kinds:
            for path in sorted((root / kind).glob("*.parquet")) if (root / kind).is_dir() else []:
                for row in pq.read_table(path, columns=list(columns)).to_pylist():
                    row["release"] = f"{name} {version}"
                    yield row


def items_stage(pair_shards: list[Path], settings: ItemsSettings, out_dir: Path, cache_dir: Path | None = None,
                data_dir: Path | None = None, release_name: str = "cdtp", llm: LLMSection | None = None,
                catalog_path: Path | None = None, verify: VerifySettings | None = None,
                page_shards: list[Path] | None = None, processes: int = 1) -> dict:
    """Build items from the kept pairs; returns {"shards": item shards, "report": counts and distributions}.

    With data_dir, the items of earlier releases named release_name count as published: a new item
    repeating one (field match, or a question the contamination check matches) is dropped.
    With llm.base_url set, QA questions are rewritten and SimpleQA items written by that model
    (replies cached in the catalog at catalog_path, by default out_dir/catalog.duckdb).
    ``processes``: how many processes build the items (0: one per core); the same items whatever the number.
    """
    if not settings.enabled or not pair_shards:
        return {"shards": [], "report": {}}
    embedder = make_embedder(settings.embedder, cache_dir / "embeddings" if cache_dir else None)
    templates = load_templates(settings.templates)
    raw_dir = out_dir / "raw"
    client = None
    cache = catalog_path or out_dir / "catalog.duckdb"
    if llm is not None and llm.base_url:
        from schemas.llm import LLMClient

        client = LLMClient(llm.client_settings(), cache)
    try:
        result = _build(pair_shards, settings, out_dir, raw_dir, embedder, templates, data_dir, release_name, client,
                        verify, page_shards or [], cache, processes or os.cpu_count() or 1)
    finally:
        if client is not None:
            client.close()
    return result


def _generate(pair_shards, settings, raw_dir, embedder, templates, client,
              page_shards, verify=None, cache=None, processes=1) -> tuple[list[Path], dict, dict]:
    """Every candidate item, written to shards under raw_dir: (the shards, the builder's report, its LLM
    writers' counts). The models of the crawl it needs (value types, the graph, the difficulty panel's
    signals) grow with the crawl; they are gone when it returns, before the checks that follow build
    their own (the evidence check's search index), so the two are never held at once.

    With ``processes`` above 1, the batches are split between that many processes (flows/item_parts.py):
    the others start first and build their own models while this one builds its own."""
    parts = item_parts.plan(pair_shards, BATCH_TRIPLES,
                            processes if client is None and item_parts.portable(settings) else 1)
    spec = {"pair_shards": [str(p) for p in pair_shards], "page_shards": [str(p) for p in page_shards],
            "items": settings.model_dump(mode="json"), "raw_dir": str(raw_dir), "batch_size": BATCH_TRIPLES,
            "verify": verify.model_dump(mode="json") if verify is not None else None,
            "cache": str(cache) if cache is not None else None}
    with item_parts.started(parts[1:], spec) as others:
        with item_builder(pair_shards, settings, embedder, templates, client, page_shards, verify, cache,
                          BATCH_TRIPLES, rules_dir=raw_dir.parent / "rules") as builder:
            with ShardWriter(raw_dir, "items", Item) as writer:
                writer.write_all(builder.build(iter_records(pair_shards, Pair), *parts[0]))
                for other in others:
                    writer.write_all(item_parts.merged(other.result(), builder))
            report = builder.stats.as_dict()
            report["graph"] = builder.graph.counts()
            report["multi_valued_relations"] = sorted(builder.multi_valued)
    counts = {} if client is None else {"qa_rewrite": builder.rewriter.counts,
                                         "simpleqa_writer": builder.writer.counts}
    return writer.paths, report, counts


# The columns each pass over the item shards reads (the others keep their defaults): decoding every field of
# every item, its options and provenance, was most of each pass.
_READ = ("item_id", "kind", "question", "answer", "decision")
_FACT = (*_READ, "head", "relation", "tail", "asked")


def _build(pair_shards, settings, out_dir, raw_dir, embedder, templates, data_dir, release_name, client,
           verify, page_shards, cache, processes=1) -> dict:
    item_paths, report, writer_counts = _generate(pair_shards, settings, raw_dir, embedder, templates, client,
                                                  page_shards, verify, cache, processes)
    gc.collect()  # whatever of the builder's models sits in a reference cycle goes now, not at a later pass
    clear_value_caches()  # their last entries would keep the models' memory from going back
    release_freed()
    report["embedder"] = embedder.name

    # Field-matching dedup within each kind, and against the same kind in earlier releases.
    kept = [(i.item_id, i.kind, i.question, i.answer) for i in iter_records(item_paths, Item, columns=_FACT)
            if i.decision == "kept"]
    drops: dict[str, tuple[str, dict]] = {}
    for kind in settings.kinds:
        finder = FieldDeduplicator()
        if data_dir is not None:
            finder.add_references((f"{r['release']}:{r['item_id']}", (r["question"], r["answer"]))
                                  for r in released_items(Path(data_dir), release_name, (kind,)))
        for d in finder.find((i, (q, a)) for i, k, q, a in kept if k == kind):
            reason = "dedup:released_field_duplicate" if d.reference else "dedup:field_duplicate"
            drops[d.doc_id] = (reason, {"duplicate_of": d.duplicate_of})

    facts = {i.item_id: Asked(i.item_id, i.kind, i.question, i.answer, i.head, i.relation, i.tail, i.asked)
             for i in iter_records(item_paths, Item, columns=_FACT) if i.decision == "kept" and i.kind in FACT_OWNERS}
    drops.update(question_conflicts([k for k in kept if k[0] not in drops], settings.kinds, facts))
    drops.update(reworded_conflicts([f for f in facts.values() if f.item_id not in drops],
                                    _kind_rank(settings.kinds)))

    # The contamination check of natural-language questions.
    from builders.contamination import ContaminationRewriter, NewQuestion, apply_rewrites

    database = QuestionDatabase(embedder, settings.contamination_minhash, settings.contamination_embedding,
                                settings.contamination_paraphrase, settings.contamination_same_fact,
                                judge=client if settings.contamination_llm_judge else None)
    if data_dir is not None:
        database.add((f"{r['release']}:{r['item_id']}", r["question"], r["answer"])
                     for r in released_items(Path(data_dir), release_name, QUESTION_KINDS))
    for path in settings.contamination_files:
        database.add(read_question_file(path, answers=True))
    candidates = {i.item_id: NewQuestion(i.item_id, i.question, i.answer, i.head, i.relation)
                  for i in iter_records(item_paths, Item, columns=_FACT)
                  if i.decision == "kept" and i.kind in QUESTION_KINDS and i.item_id not in drops}
    found = database.check(list(candidates.values()))
    rewrites = {}
    if client is not None and found:  # rewritten as Chinese SimpleQA does; kept when it no longer matches
        rewriter = ContaminationRewriter(client, database, settings.max_answer_chars)
        rewrites = rewriter.rewrite([(candidates[m.item_id], m) for m in found.values()])
        report["contamination_rewrite"] = rewriter.counts
    for match in found.values():
        if match.item_id not in rewrites:
            drops[match.item_id] = (f"contamination:{match.kind}_match",
                                    {"matched_id": match.matched_id, "matched_question": match.matched_question,
                                     "similarity": match.similarity})
    if rewrites:  # the steps below read item_paths: from here on, the items with their rewrites
        with ShardWriter(raw_dir / "rewritten", "items", Item) as writer:
            writer.write_all(apply_rewrites(iter_records(item_paths, Item), rewrites))
        item_paths = writer.paths
    report["question_database"] = len(database)
    if database.judge is not None and database.judge_counts["asked"]:
        report["contamination_judge"] = dict(database.judge_counts)

    verified_by: dict[str, list[str]] = {}  # checks that returned a verdict on the item
    unverified_by: dict[str, list[str]] = {}  # checks that ran on it without one
    sources: dict[str, list[dict]] = {}  # pages of other sites that state its answer
    if verify is not None and verify.items:
        texts = {row["pair_id"]: row["text"] for path in pair_shards
                 for row in pq.read_table(path, columns=["pair_id", "text", "decision"]).to_pylist()
                 if row["decision"] == "kept"}
        report["verification"] = verify_items(item_paths, drops, verified_by, verify, client, page_shards,
                                              out_dir / "verification.jsonl", cache, unverified_by, sources, texts)
    if hasattr(embedder, "hits"):
        report["embedding_cache"] = {"hits": embedder.hits, "misses": embedder.misses}
    if client is not None:  # after verification, so its calls are counted too
        report["llm"] = {**client.report(), **writer_counts}

    # The offline baselines' easy items: at most easy_max_share of each config, the rest dropped (after every
    # other check, so the share is of what ships).
    easy = {i.item_id: (i.kind, easy_by(i)) for i in iter_records(item_paths, Item, columns=(*_READ, "provenance"))
            if i.decision == "kept" and i.item_id not in drops}
    over = easy_budget_drops(((item_id, kind, by) for item_id, (kind, by) in easy.items()), settings.easy_max_share)
    drops.update(over)
    report["baselines"] = baseline_summary(easy, over, settings.easy_max_share)

    splits = assign_splits((unit_of(i) for i in iter_records(item_paths, Item, columns=(*_FACT, "domain"))
                            if i.decision == "kept" and i.item_id not in drops), settings.eval_fraction, settings.seed)

    def decided() -> Iterator[Item]:
        for item in iter_records(item_paths, Item):
            item.verified_by = verified_by.get(item.item_id, [])
            item.unverified_by = unverified_by.get(item.item_id, [])
            evidence = sources.get(item.item_id)
            if evidence:  # the answer's other sources: their URLs after the item's own, their passages kept
                item.urls = list(dict.fromkeys([*item.urls, *(e["url"] for e in evidence)]))
                provenance = json.loads(item.provenance)
                provenance["evidence"] = evidence
                item.provenance = json.dumps(provenance, ensure_ascii=False, sort_keys=True)
            found = drops.get(item.item_id)
            if found is not None and item.decision == "kept":
                item.decision, item.reason = "dropped", found[0]
                provenance = json.loads(item.provenance)
                provenance["dropped_because"] = found[1]
                item.provenance = json.dumps(provenance, ensure_ascii=False, sort_keys=True)
            item.split = splits.get(item.item_id, "all")
            yield item

    with ShardWriter(out_dir / "items", "items", Item) as final:
        final.write_all(decided())
    extra = Counter(f"{kind}:{reason}" for (reason, _), kind in
                    ((drops[i], k) for i, k, _, _ in kept if i in drops))
    report["items_dropped"] = dict(sorted((Counter(report["items_dropped"]) + extra).items()))
    kept_after = Counter(k for i, k, _, _ in kept if i not in drops)
    report["items_kept"] = {k: kept_after.get(k, 0) for k in settings.kinds}
    report["difficulty"] = difficulty_summary(iter_records(final.paths, Item, columns=(*_READ, "difficulty")))
    return {"shards": final.paths, "report": report}


def easy_by(item: Item) -> list[str]:
    """The offline baselines that answer the item, as its provenance records them."""
    try:
        found = json.loads(item.provenance or "{}").get("easy_by") or []
    except (ValueError, AttributeError):
        return []
    return [b for b in found if isinstance(b, str)]


def easy_budget_drops(items, max_share: float) -> dict[str, tuple[str, dict]]:
    """Drops that leave each kind's easy items (any baseline answers them) at most ``max_share`` of its kept
    items: ``items`` are (item id, kind, the baselines that answer it). The easy items kept are those a guess
    answers rather than a transliteration (pinyin: 秦宁鸿's 外文名 asks nothing), then those fewer baselines
    answer, then by a hash of their id, so the same items make the same release."""
    if not 0 <= max_share < 1:
        raise ValueError(f"max_share must be in [0, 1), got {max_share}")
    by_kind: dict[str, list[str]] = defaultdict(list)
    hard: Counter = Counter()
    solvers: dict[str, list[str]] = {}
    for item_id, kind, by in items:
        if by:
            by_kind[kind].append(item_id)
            solvers[item_id] = list(by)
        else:
            hard[kind] += 1
    drops = {}
    for kind, ids in sorted(by_kind.items()):
        # e easy of e + h kept: e <= share (e + h)  <=>  e <= share h / (1 - share)
        allowed = int(max_share * hard[kind] / (1 - max_share) + 1e-9)
        ranked = sorted(ids, key=lambda i: ("pinyin" in solvers[i], len(solvers[i]),
                                            hashlib.sha256(i.encode()).hexdigest(), i))
        for item_id in ranked[allowed:]:
            drops[item_id] = ("difficulty:easy_over_budget",
                              {"kept_easy": allowed, "easy": len(ids), "max_share": max_share})
    return drops


def baseline_summary(easy: dict[str, tuple[str, list[str]]], over: dict, max_share: float) -> dict:
    """Per config: the items the offline baselines saw, how many each answers, the easy ones, those dropped past
    the budget and the easy share of what is kept."""
    configs: dict[str, dict] = {}
    for item_id, (kind, by) in sorted(easy.items()):
        row = configs.setdefault(kind, {"items": 0, "solved": {b: 0 for b in BASELINES}, "easy": 0,
                                        "dropped_over_budget": 0})
        row["items"] += 1
        for name in by:
            row["solved"][name] = row["solved"].get(name, 0) + 1
        row["easy"] += bool(by)
        row["dropped_over_budget"] += item_id in over
    for kind, row in configs.items():
        kept = row["items"] - row["dropped_over_budget"]
        row["kept"] = kept
        row["easy_kept"] = row["easy"] - row["dropped_over_budget"]
        row["easy_share"] = round(row["easy_kept"] / kept, 4) if kept else 0.0
        if kind == "t2t":
            row["note"] = "no short answer to guess: the baselines do not apply"
    return {"panel": BASELINE_PANEL, "max_share": max_share, "configs": dict(sorted(configs.items()))}


def difficulty_summary(items) -> dict:
    """Quartiles of the offline difficulty proxy of the kept items, per kind, with what the proxy is."""
    scores: dict[str, list[float]] = defaultdict(list)
    for item in items:
        if item.decision == "kept" and item.difficulty is not None:
            scores[item.kind].append(item.difficulty)
    quartiles = {}
    for kind, values in sorted(scores.items()):
        values.sort()
        quartiles[kind] = {name: values[min(int(q * len(values)), len(values) - 1)]
                           for name, q in (("q1", 0.25), ("median", 0.5), ("q3", 0.75))}
    return {"proxy": DIFFICULTY_PROXY, "quartiles": quartiles} if quartiles else {}


NEAR_DUPLICATE = 0.8  # character 3-gram Jaccard of two questions that give one entity and take one gold


class Asked(NamedTuple):
    """What the conflict rules need of a kept item."""

    item_id: str
    kind: str
    question: str
    answer: str
    head: str = ""
    relation: str = ""
    tail: str = ""
    asked: str = ""


def question_conflicts(kept: list, kinds, facts: dict[str, Asked] | None = None) -> dict[str, tuple[str, dict]]:
    """Drops for questions that are not one question with one answer, about one fact, in one config.

    ``kept``: (item_id, kind, question, answer); ``facts``: item_id -> :class:`Asked` with the item's
    head, relation, tail and asked end. Questions are compared after normalisation with punctuation
    removed. A question that the kept items answer in more than one way (in any config) has no single
    gold: all its items go (``criteria:several_answers``). A question left in several configs stays in
    one (:data:`FACT_OWNERS` first, then the order of ``kinds``) and leaves the others
    (``dedup:question_in_<kind>``). With ``facts``, questions of :data:`FACT_OWNERS` configs about one
    fact — the same entity and value with the same relation or one whose name holds the other's
    (作者 and 原著作者), or near-duplicate wording with the same given entity and gold — are merged
    into one, in any config and from any template (``dedup:same_fact_in_<kind>``). Triple-to-text
    items (their question is the triples) are not questions.
    """
    kept = [k for k in kept if k[1] != "t2t"]
    answers: dict[bytes, set[bytes]] = {}
    owner: dict[bytes, str] = {}
    rank = _kind_rank(kinds)
    for _, kind, question, answer in kept:
        key = field_key(question)
        answers.setdefault(key, set()).add(field_key(answer))
        if key not in owner or rank(kind) < rank(owner[key]):
            owner[key] = kind
    drops: dict[str, tuple[str, dict]] = {}
    for item, kind, question, _ in kept:
        key = field_key(question)
        if len(answers[key]) > 1:
            drops[item] = ("criteria:several_answers", {"answers": len(answers[key])})
    for item, kind, question, _ in kept:
        key = field_key(question)
        if item not in drops and kind != owner[key]:
            drops[item] = (f"dedup:question_in_{owner[key]}", {})
    if facts:
        rest = [facts[k[0]] for k in kept if k[0] not in drops and k[1] in FACT_OWNERS and k[0] in facts]
        drops.update(same_fact_drops(rest, rank))
    return drops


def _kind_rank(kinds):
    order = {kind: n for n, kind in enumerate(kinds)}

    def rank(kind: str) -> tuple[int, int]:
        return (FACT_OWNERS.index(kind) if kind in FACT_OWNERS else len(FACT_OWNERS), order.get(kind, len(order)))
    return rank


def _fact_value(item: Asked) -> str:
    return value_key(item.tail or item.answer)


def _grams(text: str) -> set[str]:
    text = value_key(text)
    return {text[i:i + 3] for i in range(max(len(text) - 2, 1))}


def reworded_conflicts(items: list[Asked], rank) -> dict[str, tuple[str, dict]]:
    """Questions one reader would take for one question, worded apart (仁铜大学坐落在哪里？ and 仁铜大学坐落在
    什么地方？, from the templates of 校址 and 所在地), found as the contamination check finds a reworded
    question (:class:`builders.contamination.QuestionDatabase`, the items registered against each other).
    With two answers neither question has one gold: both go (``criteria:several_answers``); with one,
    the question is asked once (``dedup:same_fact_in_<kind>``, the best-ranked kind kept)."""
    from builders.contamination import NewQuestion, QuestionDatabase

    if len(items) < 2:
        return {}
    database = QuestionDatabase(None)
    database.add(NewQuestion(i.item_id, i.question, i.answer) for i in items)
    by_id = {i.item_id: i for i in items}
    drops: dict[str, tuple[str, dict]] = {}
    found = database.matches([NewQuestion(i.item_id, i.question, i.answer) for i in items], limit=5)
    for item_id, matches in sorted(found.items()):
        for match in matches:
            other = by_id.get(match.matched_id)
            if other is None or other.item_id == item_id or match.kind not in ("exact", "near", "paraphrase"):
                continue
            item = by_id[item_id]
            if value_key(item.answer) != value_key(other.answer):
                for one, two in ((item, other), (other, item)):
                    drops[one.item_id] = ("criteria:several_answers", {"reworded_as": two.question,
                                                                       "other_answer": two.answer})
            else:
                keep, lose = sorted((item, other), key=lambda i: (rank(i.kind), i.item_id))
                if lose.item_id not in drops:
                    drops[lose.item_id] = (f"dedup:same_fact_in_{keep.kind}",
                                           {"kept": keep.item_id, "kept_question": keep.question})
    return drops


def same_fact_drops(items: list[Asked], rank) -> dict[str, tuple[str, dict]]:
    """One item per fact among ``items``: the one of the best-ranked kind, then the smallest id."""
    parent = {i.item_id: i.item_id for i in items}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    by_fact: dict[tuple[str, str], list[Asked]] = defaultdict(list)
    by_gold: dict[tuple[str, str], list[Asked]] = defaultdict(list)
    for item in items:
        by_fact[(value_key(item.head), _fact_value(item))].append(item)
        given = item.tail if item.asked == "head" else item.head
        by_gold[(value_key(item.answer), value_key(given))].append(item)
    for group in by_fact.values():
        for n, a in enumerate(group):
            for b in group[n + 1:]:
                if one_relation(a.relation, b.relation):
                    union(a.item_id, b.item_id)
    for group in by_gold.values():
        grams = [_grams(i.question) for i in group]
        for n, a in enumerate(group):
            for m in range(n + 1, len(group)):
                if len(grams[n] & grams[m]) >= NEAR_DUPLICATE * len(grams[n] | grams[m]):
                    union(a.item_id, group[m].item_id)
    clusters: dict[str, list[Asked]] = defaultdict(list)
    for item in items:
        clusters[find(item.item_id)].append(item)
    drops: dict[str, tuple[str, dict]] = {}
    for members in clusters.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda i: (rank(i.kind), i.item_id))
        keep = members[0]
        for other in members[1:]:
            drops[other.item_id] = (f"dedup:same_fact_in_{keep.kind}",
                                    {"kept": keep.item_id, "kept_question": keep.question})
    return drops


def split_query(kind: str, split: str, settings: ItemsSettings, labels: Labels | None = None) -> str:
    """Kept items of one kind and split (assigned by entity in the item stage: builders.splits),
    optionally a stratified subset.

    Strata are domain | entity type | relation frequency bin | text length bin (CDTP §4.1); a
    stratum contributes its share of subset_size (largest remainders, so the subset has exactly
    subset_size items when there are that many), and each item keeps its entity's split. Within a
    stratum, items are drawn by a seeded weighted draw that favours items the offline difficulty proxy
    rates harder (weight ``1 + subset_prefer_hard * difficulty``; 0 draws uniformly). ``labels`` are the
    config's capability, task and dataset, written on every row.
    """
    fixed = {}
    for level in LEVELS:
        fixed[level] = f"{_sql_text(getattr(labels, level) if labels else '')} AS {level}"
    columns = ", ".join(fixed.get(name, name) for name in ITEM_SCHEMA.names)
    size = int(settings.subset_size)
    return f"""
        WITH items AS (
            SELECT * EXCLUDE ({", ".join(LEVELS)}),
                   -- a weighted draw without replacement (Efraimidis-Spirakis): key = -ln(u) / weight,
                   -- u uniform from the item's hash, weight 1 + prefer_hard * difficulty
                   -ln((('0x' || substr(md5('{int(settings.seed)}:' || item_id), 1, 13))::BIGINT + 0.5)
                       / 4503599627370496.0)
                   / (1 + {float(settings.subset_prefer_hard)} * coalesce(difficulty, 0.5)) AS h
            FROM read_parquet($paths) WHERE decision = 'kept' AND kind = '{kind}'),
        ranked AS (
            SELECT *, row_number() OVER (PARTITION BY stratum ORDER BY h, item_id) AS stratum_rank FROM items),
        quotas AS (  -- largest remainder: each stratum its share of subset_size, the total exactly subset_size
            SELECT stratum, {size} * count(*) / sum(count(*)) OVER () AS share FROM items GROUP BY stratum),
        takes AS (
            SELECT stratum, floor(share) + CASE WHEN row_number() OVER (ORDER BY share - floor(share) DESC, stratum)
                                                    <= {size} - sum(floor(share)) OVER () THEN 1 ELSE 0 END AS take
            FROM quotas),
        subset AS (
            SELECT r.* FROM ranked r JOIN takes t USING (stratum) WHERE {size} = 0 OR r.stratum_rank <= t.take)
        SELECT {columns} FROM subset WHERE split = '{split}' ORDER BY item_id"""


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def item_tables(item_shards: list[Path], settings: ItemsSettings,
                hierarchy: dict[str, Labels] | None = None) -> list[releases.TableSpec]:
    if not settings.enabled or not item_shards:
        return []
    hierarchy = hierarchy or {}
    return [releases.TableSpec(kind, split, ITEM_SCHEMA, split_query(kind, split, settings, hierarchy.get(kind)),
                               item_shards)
            for kind in settings.kinds for split in ("train", "eval")]
