"""``zhbench audit``: every promise a release makes, recomputed from its files.

The audit trusts no column a stage computed for itself. It reads the released rows
(and, for what an entity's pages say, the crawl the manifest names) and checks again:

* pairs: every shipped triple supported by the text, the position index of the
  shipped triples above the threshold and equal to the stored one, no relation named
  after the last mention that no shipped triple covers, every enumeration item covered,
  only relations the frequency filter kept;
* triple-to-text: the triples and the text of a released pair, as released;
* multiple choice: ten different options, the gold once at its index, no distractor
  that is true (any value the entity's pages give for the relation, in any sense, any
  name of the entity, the gold written another way, or a value the pair's own text
  states for the relation), none holding the gold, held by it or naming an era that
  overlaps it, every distractor of the gold's type;
* every question: one gold per question text across the release, no duplicate or
  near-duplicate question in a config, no entity in both train and eval, no fact in
  both (a fact asked one way in eval and the other way in train);
* cloze: one blank, the answer once in its sentence, no sentence used twice, within
  the length cap, no answer an era that another name fits as well (北宋 and 宋朝), no blank that takes
  another filler (a list member, a qualifier slot, a value of a relation the entity has several of);
* multiple choice, as a test-taker reads it: no distractor the entity's own pages state (the text as
  crawled, every page and sense), none of a right answer's value family, none of another kind by its form.

Rule definitions (what "supported" or "the same type" means) are the pipeline's own
(filters.align, builders.types); what the audit adds is that they are applied again, to
what was shipped, with nothing taken from the stage that shipped it.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

import pyarrow.parquet as pq

from builders.cloze import BLANK
from builders.items import FACT_OWNERS, one_relation, several_values
from filters.align import AlignmentRules
from filters.base import Funnel, apply_filters
from filters.normalize import normalize, value_key
from filters.triples import NAME_RELATIONS, relation_aliases
from schemas import Page, Pair, Triple
from schemas.records import ITEM_KINDS
from schemas.releases import ReleaseError, load_manifest
from warehouse.reading import Readers, asked_end, audit_reading

EXAMPLES = 3
MCQ = ("kgc", "qa")
QUESTIONS = ("kgc", "qa", "cloze", "simpleqa")  # configs whose question text has one gold
NEAR_DUPLICATE = 0.8  # character 3-gram Jaccard of two questions with the same gold

RULES = {
    "pair.no_triple": "a released pair ships no triple",
    "pair.ungrounded_triple": "a shipped triple the text does not support",
    "pair.infrequent_relation": "a shipped triple of a relation the frequency filter dropped",
    "pair.position_index": "the shipped triples' position index is not above the threshold",
    "pair.stale_position_index": "the stored position index is not the shipped triples' index",
    "pair.trailing_relation": "the text names, after the last mention, a relation no shipped triple covers",
    "pair.enumeration": "an enumeration item of the text no shipped triple covers",
    "pair.uncovered_mention": "the text states a fact no shipped triple covers (a value of the entry's infobox, a "
                              "date, a number, a title, a linked name, a fact the mirror planted)",
    "t2t.not_a_released_pair": "the source pair is not in cdtp_pairs",
    "t2t.differs": "triples or text differ from the released pair's",
    "t2t.uncovered_mention": "the reference text states a fact none of the item's triples covers",
    "options.count": "not ten options",
    "options.gold": "the gold is not exactly once among the options, at answer_index",
    "options.duplicate": "two options are one value written alike",
    "distractor.true_value": "a distractor is a right answer for the entity",
    "distractor.type": "a distractor is not of the gold's type",
    "distractor.overlaps_gold": "a distractor holds the gold or is held by it, or names an overlapping era "
                                "(the gold at another granularity)",
    "question.several_golds": "one question text has two golds in the release",
    "question.same_fact": "one fact asked by two questions of the question configs (qa, simpleqa)",
    "simpleqa.several_values": "the crawl gives the entity two values for the relation (any page, any sense, or "
                               "a row that lists several)",
    "simpleqa.evidence": "fewer than two URLs of different sites whose stored text holds the answer (its own "
                         "page, as the release's pair gives it, and other sites' passages kept in its provenance)",
    "difficulty.easy_share": "more of the config's items than items.easy_max_share are ones an offline baseline "
                             "answers (easy_by in their provenance: builders/baselines.py)",
    "question.duplicate": "one fact asked twice in a config",
    "question.near_duplicate": "two questions of a config give one entity, take one gold and differ only slightly",
    "split.entity_leak": "an entity has items in both train and eval",
    "split.fact_leak": "a fact is in an eval item and in a train item",
    "cloze.blank": "not exactly one blank",
    "cloze.answer_not_once": "the answer does not occur exactly once in its sentence",
    "cloze.sentence_reused": "two cloze items share one source sentence",
    "cloze.too_long": "the cloze sentence is over the length cap",
    "cloze.other_granularity": "the answer is an era another name fits as well (北宋 and 宋朝): two right answers",
    "cloze.open_blank": "the blank takes another filler: a member of a list (「青海、＿＿＿等」), a qualifier slot "
                        "(「＿＿＿著名画家」), or a value of a relation the entity has several of",
    "item.true_distractor": "a distractor the entity's own pages state (its text as crawled, every page and sense: "
                            "stated for the relation, or listed with a right answer)",
    "item.family_distractor": "a distractor of a right answer's value family (builders/value_families.tsv and the near "
                              "links the crawl teaches: 文学家 for 诗人, 思想家 for 哲学家)",
    "item.kind_mismatch": "an option of another kind than the gold by its form: another format, unit or number kind "
                          "(an integer among decimals, a range among single values), a place of another level",
}


class AuditError(ReleaseError):
    """A release cannot be audited (missing files); the message says what is missing."""


@dataclass
class ConfigReport:
    config: str
    rows: int = 0
    violations: Counter = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, rule: str, example: str) -> None:
        self.violations[rule] += 1
        shown = self.examples.setdefault(rule, [])
        example = " / ".join(example.splitlines())
        if len(shown) < EXAMPLES and example not in shown:
            shown.append(example)


@dataclass
class AuditReport:
    release: str
    configs: dict[str, ConfigReport] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def config(self, name: str) -> ConfigReport:
        return self.configs.setdefault(name, ConfigReport(name))

    @property
    def violations(self) -> int:
        return sum(sum(c.violations.values()) for c in self.configs.values())

    @property
    def ok(self) -> bool:
        return self.violations == 0

    def as_dict(self) -> dict[str, Any]:
        return {"release": self.release, "ok": self.ok, "violations": self.violations, "notes": self.notes,
                "configs": {name: {"rows": c.rows, "violations": dict(sorted(c.violations.items())),
                                   "examples": {k: v for k, v in sorted(c.examples.items())}}
                            for name, c in self.configs.items()}}

    def table(self) -> str:
        lines = [f"audit of {self.release}: " + ("0 violations" if self.ok else f"{self.violations} violations")]
        for name, c in self.configs.items():
            lines.append(f"  {name:<16} {c.rows:>7} rows checked  "
                         + ("ok" if not c.violations else f"{sum(c.violations.values())} violations"))
            for rule, count in sorted(c.violations.items()):
                lines.append(f"    {rule:<28} {count:>6}  {RULES.get(rule, '')}")
                for example in c.examples.get(rule, []):
                    lines.append(f"      e.g. {example}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def audit_release(release_dir: Path) -> AuditReport:
    """Audit a published release directory."""
    release_dir = Path(release_dir)
    manifest = load_manifest(release_dir)
    return audit_files(release_dir, [f.path for f in manifest.files], manifest.config,
                       manifest.sources.get("crawl", []), release_dir.parents[2] if len(release_dir.parents) > 2
                       else release_dir, f"{manifest.name} {manifest.version}")


def audit_files(directory: Path, files: list[str], config: dict, crawl: list[str], data_dir: Path,
                label: str) -> AuditReport:
    """Audit release files (paths relative to ``directory``); ``config`` is the run's settings as the
    manifest records them, ``crawl`` the page shards (relative to ``data_dir``) the release came from."""
    directory = Path(directory)
    report = AuditReport(label)
    tables: dict[str, list[Path]] = defaultdict(list)
    for path in files:
        tables[Path(path).parts[0]].append(directory / path)
    pairs = _rows(tables.get("cdtp_pairs", []))
    pages = [Path(data_dir) / p for p in crawl]
    missing = [p for p in pages if not p.is_file()]
    if missing or not pages:
        why = "none recorded" if not pages else f"{len(missing)} of {len(pages)} page shards missing"
        report.notes.append(f"the crawl this release came from is not here ({why}): what an entity's pages "
                            "say is read from cdtp_pairs and dropped_triples only")
        pages = []
    items: dict[str, list[dict]] = {kind: _rows(tables[kind]) for kind in ITEM_KINDS if kind in tables}
    asked = [item for kind in (*MCQ, "simpleqa") for item in items.get(kind, [])]
    # The crawl's models, each kept to what the release's items ask of it, the typer first: the typer holds
    # only those values from its build on, and the second's build then starts from its small part.
    typer = _typer(pages, pairs, keep=[
        value for kind in MCQ for item in items.get(kind, []) for value in (item["answer"], *(item["options"] or []))])
    truth = Truth.build(pages, pairs, _batched_rows(tables.get("dropped_triples", []), DROPPED_COLUMNS),
                        heads={value_key(i["head"]) for i in asked},
                        facts={(i["relation"], value_key(i.get("tail") or "")) for i in asked
                               if asked_end(i) == "head"})
    align = config.get("align", {})
    rules = _alignment_rules(tables.get("relations", []), align, report)
    facts = _entry_facts(pages, pairs, tables.get("dropped_triples", []), config.get("crawl") or {})
    if pairs or "cdtp_pairs" in tables:
        _audit_pairs(pairs, rules, report.config("cdtp_pairs"))
        _audit_coverage(pairs, facts, report.config("cdtp_pairs"))
    by_pair = {p["pair_id"]: p for p in pairs}
    if "t2t" in items:
        _audit_t2t(items["t2t"], by_pair, report.config("t2t"))
        _audit_t2t_coverage(items["t2t"], by_pair, facts, report.config("t2t"))
    readers = Readers(pages, pairs, asked)
    for kind in MCQ:
        if kind in items:
            _audit_options(items[kind], truth, typer, by_pair, report.config(kind))
            audit_reading(items[kind], truth, typer, by_pair, readers, report.config(kind))
    if "cloze" in items:
        _audit_cloze(items["cloze"], int((config.get("items") or {}).get("cloze_max_chars") or 0),
                     report.config("cloze"), truth)
    _audit_questions(items, report)
    if "simpleqa" in items:
        _audit_simpleqa(items["simpleqa"], truth, report.config("simpleqa"))
        # an item's own page is its shipped pair's text; the crawl is read only for items whose pair is not shipped
        unshipped = {i["urls"][0] for i in items["simpleqa"] if i.get("urls")
                     and not any(p in by_pair for p in i.get("source_pair_ids") or ())}
        _audit_evidence(items["simpleqa"], by_pair, _page_texts(pages, unshipped), report.config("simpleqa"))
    _audit_same_fact(items, report)
    _audit_splits(items, report)
    max_share = (config.get("items") or {}).get("easy_max_share")
    if max_share is not None:
        for kind in QUESTIONS:
            if kind in items:
                _audit_easy_share(items[kind], float(max_share), report.config(kind))
    for kind, rows in items.items():
        report.config(kind).rows = len(rows)
    return report


def _rows(paths: Iterable[Path]) -> list[dict]:
    rows: list[dict] = []
    for path in paths:
        rows.extend(pq.read_table(path).to_pylist())
    return rows


# What the audit reads of a dropped triple: its fact. (A release of an 84k-page crawl ships 338,534 of them;
# read whole as dicts of every column they held 310 MB, and the audit's peak was theirs.)
DROPPED_COLUMNS = ("head", "relation", "tail", "raw_value")


def _batched_rows(paths: Iterable[Path], columns: tuple[str, ...], batch_size: int = 8192) -> Iterator[dict]:
    """The rows of ``paths`` with only those of ``columns`` each file has, a batch at a time."""
    for path in paths:
        parquet = pq.ParquetFile(path, pre_buffer=False)  # as iter_records: no batch kept until the end
        present = [c for c in columns if c in parquet.schema_arrow.names]
        for batch in parquet.iter_batches(batch_size=batch_size, columns=present):
            yield from batch.to_pylist()


# --- what an entity's pages say ------------------------------------------------------------------


@dataclass
class Truth:
    """Every value an entity's pages give, by relation (all senses of a title together), its names,
    and for each (relation, value) the entities that have it.

    With ``heads`` and ``facts`` (value keys), only what the audit asks of a release is kept: the values
    and infobox rows of those heads, the entities of those (relation, value), and the names of both (a
    true head's names are right answers too). The whole crawl's held 577 MB at 84k pages."""

    values: dict[str, dict[str, set[str]]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(set)))
    names: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    heads: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    rows: dict[tuple[str, str], set[tuple[str, str, str]]] = field(default_factory=lambda: defaultdict(set))
    wanted_heads: set[str] | None = None
    wanted_facts: set[tuple[str, str]] | None = None

    def add(self, head: str, relation: str, value: str, raw: str = "") -> None:
        h, v = value_key(head), value_key(value)
        if not h or not v:
            return
        if self.wanted_heads is None or h in self.wanted_heads:
            self.values[h][relation].add(v)
            self.rows[(h, relation)].add(("", value, raw))
        if self.wanted_facts is None or (relation, v) in self.wanted_facts:
            self.heads[(relation, v)].add(h)
        if relation in NAME_RELATIONS:
            self.names[h].add(v)

    @classmethod
    def build(cls, page_shards: list[Path], pairs: list[dict], dropped: Iterable[dict], heads: set[str] | None = None,
              facts: set[tuple[str, str]] | None = None) -> "Truth":
        from filters.triples import extract_triples
        from schemas.storage.shards import iter_records

        truth = cls(wanted_heads=heads, wanted_facts=facts)
        aliases = relation_aliases()
        for page in iter_records(page_shards, Page, columns=("url", "status", "title", "infobox")):
            if page.status == "ok":
                for t in extract_triples(page, aliases):
                    truth.add(page.title, t.relation, t.tail, t.raw_value)
        for pair in pairs:
            for t in pair["triples"] or []:
                truth.add(pair["entity"], t["relation"], t["tail"], t.get("raw_value") or "")
            for alias in pair["aliases"] or []:
                truth.names[value_key(pair["entity"])].add(value_key(alias))
        for row in dropped:
            truth.add(row["head"], row["relation"], row["tail"], row.get("raw_value") or "")
        if heads is not None:  # the names asked after: those of the heads asked and of the entities kept
            needed = set(heads).union(*truth.heads.values())
            truth.names = defaultdict(set, {h: n for h, n in truth.names.items() if h in needed})
        return truth

    def true_tails(self, head: str, relation: str) -> set[str]:
        h = value_key(head)
        return self.values.get(h, {}).get(relation, set()) | self.names.get(h, set()) | {h}

    def true_heads(self, relation: str, tail: str) -> set[str]:
        found = set(self.heads.get((relation, value_key(tail)), set()))
        for head in list(found):
            found |= self.names.get(head, set())
        return found | {value_key(tail)}


def _typer(pages: list[Path], pairs: list[dict], keep: list[str]):
    """The value typer over what the release came from (the crawl, or the released pairs without it),
    restricted to the values ``keep`` (``ValueTyper.build``)."""
    from builders.types import ValueTyper

    return ValueTyper.from_sources(pages, [Pair.from_row(p) for p in pairs], keep=keep)


# --- pairs ---------------------------------------------------------------------------------------


def _alignment_rules(relation_files: list[Path], align: dict, report: AuditReport) -> AlignmentRules:
    rows = _rows(relation_files)
    if not rows:
        report.notes.append("the release has no relations table: the trailing-relation rule is checked against "
                            "the shipped relations only")
    vocabulary = {r["relation"]: int(r["pages"]) for r in rows}
    aliases = {a: r["relation"] for r in rows for a in (r["aliases"] or [])}
    keep = [r["relation"] for r in rows if r["kept"]] if rows else None
    learned = {r["relation"]: list(r["learned_cues"]) for r in rows if r.get("learned_cues")}
    return AlignmentRules(vocabulary, keep, aliases or relation_aliases(),
                          float(align.get("position_threshold", 0.75)),
                          bool(align.get("enumerations_must_be_covered", True)), learned_cues=learned)


_PAIR_RULE = {"position_index": "pair.position_index", "trailing_relation": "pair.trailing_relation",
              "enumeration": "pair.enumeration", "pair": "pair.no_triple"}


def _audit_pairs(rows: list[dict], rules: AlignmentRules, out: ConfigReport) -> None:
    out.rows = len(rows)
    if rules.keep is None:
        rules.keep = sorted({t["relation"] for r in rows for t in r["triples"] or []})
        rules.vocabulary = dict.fromkeys(rules.keep, 1) | rules.vocabulary
    keep = set(rules.keep)
    triple_filters, pair_filters = rules.filters()

    def fresh() -> Iterator[Pair]:
        for row in rows:
            pair = Pair.from_row(row)
            pair.triples = [Triple(t.head, t.relation, t.tail, t.raw_value) for t in pair.triples]
            yield pair

    for row, pair in zip(rows, apply_filters(fresh(), triple_filters, pair_filters, Funnel()), strict=True):
        name = f"{row['entity']} ({row['pair_id']})"
        if not row["triples"]:
            out.add("pair.no_triple", name)
            continue
        for t in pair.triples:
            if t.decision != "kept":
                rule = "pair.infrequent_relation" if t.relation not in keep else "pair.ungrounded_triple"
                out.add(rule, f"{name}: ({t.relation}, {t.tail}) {t.reason}")
        if pair.decision != "kept":
            rule = _PAIR_RULE.get(pair.reason.split(":")[0], "pair.no_triple")
            if rule != "pair.no_triple" or not any(t.decision != "kept" for t in pair.triples):
                out.add(rule, f"{name}: {pair.reason}, index {pair.position_index}")
        stored = row.get("position_index")
        if pair.position_index is not None and (stored is None or abs(stored - pair.position_index) > 1e-6):
            out.add("pair.stale_position_index", f"{name}: stored {stored}, shipped triples give {pair.position_index}")


@dataclass
class EntryFacts:
    """What the audit knows an entry states, besides the release: its infobox values (crawl and dropped
    triples), the names its page links, the facts the realistic mirror planted in it."""

    values: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    planted: list[str] = field(default_factory=list)


def _entry_facts(pages: list[Path], pairs: list[dict], dropped: list[Path], crawl: dict) -> dict[str, EntryFacts]:
    """EntryFacts by pair id, for the released pairs."""
    from crawlers.urls import public_url
    from filters.triples import extract_triples
    from warehouse.coverage import Planted
    from schemas.storage.shards import iter_records

    by_url = {p["url"]: p["pair_id"] for p in pairs}
    facts = {p["pair_id"]: EntryFacts(links=list(p.get("linked") or [])) for p in pairs}
    if by_url:
        for page in iter_records(pages, Page, columns=("url", "canonical_url", "source", "status", "title", "infobox",
                                                       "links")):
            pair_id = by_url.get(public_url(page.canonical_url or page.url, page.source)) if page.status == "ok" else None
            if pair_id is not None:
                facts[pair_id].values += [t.tail for t in extract_triples(page)]
                facts[pair_id].links += [link["title"] for link in page.links if link.get("title")]
    for row in _batched_rows(dropped, ("pair_id", "tail")):
        if row["pair_id"] in facts:
            facts[row["pair_id"]].values.append(row["tail"])
    planted = Planted.of(crawl)
    if planted is not None:
        for pair in pairs:
            facts[pair["pair_id"]].planted = planted.facts(pair["url"])
    return facts


def _audit_coverage(rows: list[dict], facts: dict[str, EntryFacts], out: ConfigReport) -> None:
    from warehouse.coverage import uncovered

    for row in rows:
        known = facts.get(row["pair_id"], EntryFacts())
        tails = [t["tail"] for t in row["triples"] or []]
        # its other names are facts too (别名, 外文名): a triple must state them, unless one opens the text as its
        # subject (「阿尔弗雷德·伯恩哈德·诺贝尔，瑞典化学家」)
        names = [row["entity"], *_opening_alias(row["text"], row.get("aliases") or [])]
        missing = uncovered(row["text"], tails, names, known.values + tails, known.links, known.planted,
                            [t["relation"] for t in row["triples"] or []])
        if missing:
            shown = "、".join(f"{what} ({kind})" for kind, what in missing[:4])
            out.add("pair.uncovered_mention", f"{row['entity']} ({row['pair_id']}): {shown} in 「{row['text'][:80]}」")


def _opening_alias(text: str, aliases: list[str]) -> list[str]:
    """The other name of the entity a text opens with, as its subject (in 《》 or not), if any."""
    return [a for a in aliases if a and (text.startswith(a) or text.startswith(f"《{a}》"))][:1]


def _audit_t2t_coverage(items: list[dict], by_pair: dict[str, dict], facts: dict[str, EntryFacts],
                        out: ConfigReport) -> None:
    from warehouse.coverage import uncovered

    for item in items:
        pair_id = (item["source_pair_ids"] or [""])[0]
        pair = by_pair.get(pair_id)
        if pair is None:
            continue
        lines = [line.split("｜") for line in item["question"].splitlines()]
        tails = [parts[2] for parts in lines if len(parts) == 3]
        relations = [parts[1] for parts in lines if len(parts) == 3]
        known = facts.get(pair_id, EntryFacts())
        names = [pair["entity"], *_opening_alias(item["answer"], pair.get("aliases") or [])]
        missing = uncovered(item["answer"], tails, names, known.values + tails, known.links, known.planted, relations)
        if missing:
            shown = "、".join(f"{what} ({kind})" for kind, what in missing[:4])
            out.add("t2t.uncovered_mention", f"{item['item_id']} ({pair['entity']}): {shown}")


def _audit_t2t(items: list[dict], by_pair: dict[str, dict], out: ConfigReport) -> None:
    for item in items:
        pair = by_pair.get((item["source_pair_ids"] or [""])[0])
        if pair is None:
            out.add("t2t.not_a_released_pair", f"{item['item_id']} from {item['source_pair_ids']}")
            continue
        lines = [f"{t['head']}｜{t['relation']}｜{t['tail']}" for t in pair["triples"]]
        if item["question"].splitlines() != lines or item["answer"] != pair["text"]:
            out.add("t2t.differs", f"{item['item_id']} ({pair['entity']})")


# --- multiple choice -------------------------------------------------------------------------------


def _audit_options(items: list[dict], truth: Truth, typer, by_pair: dict[str, dict], out: ConfigReport) -> None:
    from builders.distractors import overlaps_gold
    from builders.items import stated_by
    from filters.rules.grounding import GroundingFilter

    states = stated_by(GroundingFilter())  # the pair's text states the value for the relation
    for item in items:
        options, gold = item["options"] or [], item["answer"]
        name = f"{item['question']} [{gold}]"
        if len(options) != 10:
            out.add("options.count", f"{name}: {len(options)} options")
        keys = [value_key(o) for o in options]
        index = item["answer_index"]
        if keys.count(value_key(gold)) != 1 or index is None or not 0 <= index < len(options) \
                or options[index] != gold:
            out.add("options.gold", name)
        if len(set(keys)) != len(keys):
            out.add("options.duplicate", f"{name}: {[o for o, k in zip(options, keys) if keys.count(k) > 1]}")
        asked = asked_end(item)
        if asked == "head":
            true = truth.true_heads(item["relation"], item.get("tail") or "")
        else:
            true = truth.true_tails(item["head"], item["relation"])
        row = by_pair.get((item["source_pair_ids"] or [""])[0])
        pair = None if row is None or asked == "head" else Pair(
            pair_id=row["pair_id"], entity=row["entity"], text=row["text"], aliases=row["aliases"] or [])
        distractors = [o for i, o in enumerate(options) if i != index]
        gold_key = value_key(gold)
        for option in distractors:
            key = value_key(option)
            stated = pair is not None and states(pair, item["relation"], option)
            if key in true or stated:
                why = "stated in the pair's text" if stated else "a value the entity's pages give"
                out.add("distractor.true_value", f"{name}: {option} ({why})")
            elif overlaps_gold(option, key, gold, (gold_key,)):
                out.add("distractor.overlaps_gold", f"{name}: {option}")
        if options:
            relation = item["relation"]
            gold_type = typer.answer_type(gold, relation, asked)
            for option in distractors:
                if not typer.same_type(gold_type, typer.option_type(option, relation, asked), relation):
                    out.add("distractor.type", f"{name}: {option} is {typer.describe(option, relation, asked)}, "
                                               f"the gold {typer.describe(gold, relation, asked)}")


# --- questions, splits, cloze ----------------------------------------------------------------------


def _question_key(question: str) -> str:
    return value_key(question.replace(BLANK, "_"))


def _fact(item: dict) -> tuple[str, str, str, str, str]:
    """One fact of one entity: homonyms (孔正翔 the poet and 孔正翔 the calligrapher, their senses named in the
    questions) are two entities, even where a value of theirs is the same."""
    return (value_key(item["head"]), value_key(item.get("sense") or ""), item["relation"],
            value_key(item.get("tail") or item["answer"]), asked_end(item))


def _grams(text: str) -> set[str]:
    return {text[i:i + 3] for i in range(max(len(text) - 2, 1))}


def _audit_questions(items: dict[str, list[dict]], report: AuditReport) -> None:
    golds: dict[str, set[str]] = defaultdict(set)
    where: dict[str, list[tuple[str, dict]]] = defaultdict(list)
    for kind in QUESTIONS:
        for item in items.get(kind, []):
            key = _question_key(item["question"])
            golds[key].add(value_key(item["answer"]))
            where[key].append((kind, item))
    for key, answers in golds.items():
        if len(answers) > 1:
            for kind, item in where[key]:
                report.config(kind).add("question.several_golds",
                                        f"{item['question']} → {sorted({i['answer'] for _, i in where[key]})}")
    for kind in QUESTIONS:
        out = report.config(kind) if kind in items else None
        if out is None:
            continue
        seen: dict[tuple, str] = {}
        # Questions that give the same entity and take the same gold (another relation or wording: the same
        # thing asked twice); questions giving different entities are different questions however alike.
        by_gold: dict[tuple[str, str], list[tuple[str, set[str]]]] = defaultdict(list)
        for item in items[kind]:
            fact = _fact(item) if kind != "cloze" else (_question_key(item["question"]),)
            if fact in seen:
                out.add("question.duplicate", f"{item['question']} and {seen[fact]}")
            seen.setdefault(fact, item["question"])
            text = normalize(item["question"])
            grams = _grams(text)
            given = item.get("tail") if asked_end(item) == "head" else item["head"]
            key = (value_key(item["answer"]), value_key(given or ""))
            for other_text, other in by_gold[key]:
                if other_text != text and len(grams & other) >= NEAR_DUPLICATE * len(grams | other):
                    out.add("question.near_duplicate", f"{item['question']} ~ {other_text}")
                    break
            by_gold[key].append((text, grams))


def _audit_simpleqa(items: list[dict], truth: Truth, out: ConfigReport) -> None:
    for item in items:
        if not item["relation"]:
            continue  # written from the text by a model, with no infobox relation behind it
        rows = truth.rows.get((value_key(item["head"]), item["relation"]), set())
        if several_values(sorted(rows)):
            values = sorted({tail for _, tail, _ in rows} | {raw for _, _, raw in rows if raw})
            out.add("simpleqa.several_values", f"{item['question']} → {item['answer']} (the crawl: {'、'.join(values)})")


def _page_texts(pages: list[Path], urls: set[str]) -> dict[str, str]:
    """The crawled text (summary and paragraphs) of the pages at ``urls`` (their published URLs)."""
    from crawlers.urls import public_url
    from schemas.storage.shards import iter_records

    found: dict[str, str] = {}
    if urls:
        for page in iter_records(pages, Page, columns=("url", "canonical_url", "source", "status", "summary",
                                                       "paragraphs")):
            url = public_url(page.canonical_url or page.url, page.source) if page.status == "ok" else None
            if url in urls:
                found[url] = "\n".join([page.summary, *page.paragraphs])
    return found


def _audit_evidence(items: list[dict], by_pair: dict[str, dict], page_texts: dict[str, str],
                    out: ConfigReport) -> None:
    """Each SimpleQA answer on two sites: the pages among its URLs whose stored text holds it, counted by site.
    An URL's stored text is its source pair's text (the item's own page) or the passage its provenance keeps.
    An answer an adjudicator set in review is the reviewers' to source (provenance ``answer_set_by``). An item
    whose pair the release does not ship (reviewers rejected it) is read against its crawled page."""
    from filters.normalize import holds_form, value_forms
    from verifiers.items import site_of

    for item in items:
        forms = value_forms(item["answer"])
        stored = {u: page_texts[u] for u in (item.get("urls") or [])[:1] if u in page_texts}
        stored.update((by_pair[p]["url"], by_pair[p]["text"]) for p in item.get("source_pair_ids") or ()
                      if p in by_pair)
        try:
            provenance = json.loads(item.get("provenance") or "{}")
        except ValueError:
            provenance = {}
        if not isinstance(provenance, dict):
            provenance = {}
        if provenance.get("answer_set_by") == "human_review":
            continue  # an adjudicator's answer: its sources are the reviewers', not pages kept here
        kept = provenance.get("evidence") or []
        stored.update((e.get("url"), e.get("passage") or "") for e in kept if isinstance(e, dict))
        urls = list(item.get("urls") or [])
        holding = {site_of(u) for u in urls if u in stored and holds_form(normalize(stored[u]), forms)}
        if len(holding) < 2:
            out.add("simpleqa.evidence", f"{item['question']} → {item['answer']}: {len(urls)} URL(s), the answer "
                                         f"stored on {len(holding)} site(s) ({'、'.join(sorted(holding)) or 'none'})")


def _audit_easy_share(items: list[dict], max_share: float, out: ConfigReport) -> None:
    """The share of the config's items an offline baseline answers, as their provenance records it, at most
    ``max_share`` (one violation per item past it, the first ones by id as examples)."""
    easy = []
    for item in items:
        try:
            provenance = json.loads(item.get("provenance") or "{}")
        except ValueError:
            continue
        if isinstance(provenance, dict) and provenance.get("easy_by"):
            easy.append(item)
    allowed = int(max_share * (len(items) - len(easy)) / (1 - max_share) + 1e-9) if max_share < 1 else len(easy)
    for item in sorted(easy, key=lambda i: i["item_id"])[allowed:]:
        out.add("difficulty.easy_share", f"{item['question']} → {item['answer']}: {len(easy)} of {len(items)} easy, "
                                         f"over {100 * max_share:.0f}%")


def _audit_same_fact(items: dict[str, list[dict]], report: AuditReport) -> None:
    """Two questions of qa and simpleqa on one fact: the same entity and value, and the same relation or one
    whose name holds the other's (作者 and 原著作者), whichever end each asks."""
    by_fact: dict[tuple[str, str], list[tuple[str, dict]]] = defaultdict(list)
    for kind in FACT_OWNERS:
        for item in items.get(kind, []):
            by_fact[(value_key(item["head"]), value_key(item.get("tail") or item["answer"]))].append((kind, item))
    for group in by_fact.values():
        for n, (kind, a) in enumerate(group):
            for other_kind, b in group[n + 1:]:
                if one_relation(a["relation"], b["relation"]):
                    report.config(other_kind).add("question.same_fact",
                                                  f"{b['question']} ({other_kind}) and {a['question']} ({kind})")


def _audit_splits(items: dict[str, list[dict]], report: AuditReport) -> None:
    splits: dict[str, set[str]] = defaultdict(set)
    facts: dict[frozenset, set[str]] = defaultdict(set)
    for kind, rows in items.items():
        for item in rows:
            splits[value_key(item["head"])].add(item["split"])
            for fact in _item_facts(kind, item):
                facts[fact].add(item["split"])
    for kind, rows in items.items():
        out = report.config(kind)
        for item in rows:
            if item["split"] != "eval":
                continue
            if len(splits[value_key(item["head"])]) > 1:
                out.add("split.entity_leak", f"{item['head']}: {item['question'][:40]}")
            leaked = [f for f in _item_facts(kind, item) if len(facts[f]) > 1]
            if leaked:
                out.add("split.fact_leak", f"{item['head']}: {' / '.join(sorted(leaked[0]))}")


def _item_facts(kind: str, item: dict) -> list[frozenset]:
    """The facts an item states or asks, as unordered entity pairs (asked either way, one fact)."""
    if kind == "t2t":
        pairs = [line.split("｜") for line in item["question"].splitlines()]
        return [frozenset((value_key(p[0]), value_key(p[2]))) for p in pairs if len(p) == 3]
    other = item.get("tail") or item["answer"]  # the value the item asks for, or gives when it asks the head
    return [frozenset((value_key(item["head"]), value_key(other)))] if other else []


def _audit_cloze(items: list[dict], max_chars: int, out: ConfigReport, truth: Truth | None = None) -> None:
    from builders.eras import other_granularity
    from builders.cloze import open_blank

    sentences: dict[str, str] = {}
    for item in items:
        question, answer = item["question"], item["answer"]
        if question.count(BLANK) != 1:
            out.add("cloze.blank", question[:60])
            continue
        sentence = question.replace(BLANK, answer)
        if sentence.count(answer) != 1:
            out.add("cloze.answer_not_once", f"{answer} in {sentence[:60]}")
        key = value_key(sentence)
        if key in sentences:
            out.add("cloze.sentence_reused", f"{sentence[:60]} ({sentences[key]}, {item['item_id']})")
        sentences.setdefault(key, item["item_id"])
        if max_chars and len(question) > max_chars:
            out.add("cloze.too_long", f"{len(question)} characters: {question[:40]}…")
        if other_granularity(answer):
            out.add("cloze.other_granularity", f"{answer} in {question[:60]}")
        why = open_blank(question, item.get("relation") or "")
        if not why and truth is not None and several_values(
                sorted(truth.rows.get((value_key(item["head"]), item["relation"]), ()))):
            why = f"the entity has several values of {item['relation']}"
        if why:
            out.add("cloze.open_blank", f"{question[:60]} [{answer}] ({why})")


def audit_json(report: AuditReport) -> str:
    return json.dumps(report.as_dict(), ensure_ascii=False, indent=2)
