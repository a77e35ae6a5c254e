"""Typed records and their Arrow schemas.

Inside a stage, code works on these slotted dataclasses; at stage boundaries the
same data travels as Arrow record batches with the schemas below. Each schema
carries its version in its metadata (``zhbench.schema_version``); a change that
breaks readers bumps the major number.
"""

from __future__ import annotations

import json
from functools import lru_cache
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from datetime import datetime, timezone
from typing import Any, ClassVar, Iterable, Iterator

import pyarrow as pa

# unparsable: the body is no HTML page (empty, binary, not_html), no entry (no_layout, no_title) or the parser
# failed on it (parser_error:<exception>); Page.reason says which (for a blocked page, the block's kind).
PAGE_STATUSES = ("ok", "blocked", "not_found", "disambiguation", "truncated", "unparsable")
SOURCES = ("baidu", "sogou", "wikipedia", "other")
ITEM_KINDS = ("kgc", "qa", "t2t", "cloze", "simpleqa")
QUESTION_KINDS = ("qa", "simpleqa")  # kinds whose questions are natural language, checked for contamination
LETTERS = "ABCDEFGHIJ"  # an option's letter: a reviewer and a scored model name an option alike
SPLITS = ("train", "eval", "all")
DOMAINS = (
    "history_politics",
    "humanities_society",
    "technology_economics",
    "nature_environment",
)


def _with_version(schema: pa.Schema, name: str, version: str) -> pa.Schema:
    return schema.with_metadata(
        {b"zhbench.schema": name.encode(), b"zhbench.schema_version": version.encode()}
    )


def schema_name(schema: pa.Schema) -> str:
    """The record type a schema is stamped with (pair, item ...)."""
    return (schema.metadata or {}).get(b"zhbench.schema", b"").decode()


def schema_version(schema: pa.Schema) -> str:
    """The version stamped on a schema (or on a Parquet file's schema)."""
    meta = schema.metadata or {}
    return meta.get(b"zhbench.schema_version", b"").decode()


@lru_cache(maxsize=None)
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


@lru_cache(maxsize=None)
def _field_set(cls: type) -> frozenset[str]:
    """The field names of a record type, looked up once: ``dataclasses.fields`` on every row was a fifth of
    the time to read pair shards back."""
    return frozenset(_field_names(cls))


_SCALARS = (str, int, float, bool, type(None), datetime)


def _plain(value: Any) -> Any:
    if isinstance(value, _SCALARS):
        return value
    if is_dataclass(value):
        return {name: _plain(getattr(value, name)) for name in _field_names(type(value))}
    if isinstance(value, list):
        return [_plain(v) for v in value] if value and is_dataclass(value[0]) else value
    return value


class Record:
    """Shared conversion between dataclass records and Arrow rows."""

    SCHEMA: ClassVar[pa.Schema]
    VERSION: ClassVar[str]

    def to_row(self) -> dict[str, Any]:
        # dataclasses.asdict deep-copies every value; rows only need nested records turned into dicts
        return {name: _plain(getattr(self, name)) for name in _field_names(type(self))}

    @classmethod
    def from_row(cls, row: dict[str, Any]):
        names = _field_set(cls)
        return cls(**{k: v for k, v in row.items() if k in names})

    @classmethod
    def to_batch(cls, records: Iterable["Record"]) -> pa.RecordBatch:
        rows = [r.to_row() for r in records]
        return pa.RecordBatch.from_pylist(rows, schema=cls.SCHEMA)

    @classmethod
    def from_batch(cls, batch: pa.RecordBatch) -> Iterator["Record"]:
        for row in batch.to_pylist():
            yield cls.from_row(row)


# --- Page -------------------------------------------------------------------

INFOBOX_ENTRY = pa.struct(
    [
        ("name", pa.string()),
        ("value", pa.string()),  # the cell as displayed, cleaned of citation marks
        ("values", pa.list_(pa.string())),  # the cell split into single values
    ]
)
LINK = pa.struct([("title", pa.string()), ("url", pa.string())])
SENSE = pa.struct([("label", pa.string()), ("url", pa.string())])

PAGE_SCHEMA = _with_version(
    pa.schema(
        [
            ("url", pa.string()),
            ("canonical_url", pa.string()),
            ("source", pa.string()),
            ("layout", pa.string()),
            ("status", pa.string()),
            ("http_status", pa.int32()),
            ("title", pa.string()),
            ("subtitle", pa.string()),
            ("summary", pa.string()),
            ("paragraphs", pa.list_(pa.string())),
            ("infobox", pa.list_(INFOBOX_ENTRY)),
            ("links", pa.list_(LINK)),
            ("senses", pa.list_(SENSE)),
            ("tags", pa.list_(pa.string())),
            ("depth", pa.int32()),
            ("fetched_at", pa.timestamp("ms", tz="UTC")),
            ("content_hash", pa.string()),
            ("reason", pa.string()),  # why an unparsable page could not be read, how a page was blocked ("" otherwise)
        ]
    ),
    "page",
    "1.1.0",
)


@dataclass(frozen=True, slots=True)  # one per passage of a crawl: no __dict__ each
class Hit:
    """A search result or a passage of a crawl: the page's URL and title, the text, the backend's score."""
    url: str
    title: str
    text: str
    score: float


@dataclass(slots=True)
class InfoboxEntry:
    name: str
    value: str
    values: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Page(Record):
    """One fetched encyclopedia page, parsed."""

    SCHEMA: ClassVar[pa.Schema] = PAGE_SCHEMA
    VERSION: ClassVar[str] = "1.1.0"

    url: str
    canonical_url: str = ""
    source: str = "other"
    layout: str = ""
    status: str = "ok"
    http_status: int = 200
    title: str = ""
    subtitle: str = ""
    summary: str = ""
    paragraphs: list[str] = field(default_factory=list)
    infobox: list[InfoboxEntry] = field(default_factory=list)
    links: list[dict] = field(default_factory=list)
    senses: list[dict] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    depth: int = 0
    fetched_at: datetime | None = None
    content_hash: str = ""
    reason: str = ""

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "Page":
        row = dict(row)
        row["infobox"] = [InfoboxEntry(**e) for e in row.get("infobox") or []]
        return super(Page, cls).from_row(row)

    def contract(self) -> dict[str, Any]:
        """The JSON shape printed by ``zhbench parse``."""
        return {
            "status": self.status,
            "source": self.source,
            "url": self.url,
            "title": self.title,
            "subtitle": self.subtitle,
            "summary": self.summary,
            "paragraphs": list(self.paragraphs),
            "infobox": [[e.name, e.value] for e in self.infobox],
            "links": [{"title": l["title"], "url": l["url"]} for l in self.links],
            "senses": [{"label": s["label"], "url": s["url"]} for s in self.senses],
        }


# --- Triple and Pair -----------------------------------------------------------

TRIPLE_SCHEMA = _with_version(
    pa.schema(
        [
            ("head", pa.string()),
            ("relation", pa.string()),
            ("tail", pa.string()),
            ("raw_value", pa.string()),
            ("decision", pa.string()),  # kept | dropped
            ("reason", pa.string()),  # why dropped ("" when kept)
            ("span_end", pa.int32()),  # end offset of the mention in the pair text, -1 if none
            ("support_urls", pa.list_(pa.string())),  # search results where head and tail co-occur
        ]
    ),
    "triple",
    "1.1.0",
)


@dataclass(slots=True)
class Triple(Record):
    SCHEMA: ClassVar[pa.Schema] = TRIPLE_SCHEMA
    VERSION: ClassVar[str] = "1.1.0"

    head: str
    relation: str
    tail: str
    raw_value: str = ""
    decision: str = "kept"
    reason: str = ""
    span_end: int = -1
    support_urls: list[str] = field(default_factory=list)


# The side table of triples the text did not support (useful for augmentation, per CDTP).
DROPPED_TRIPLE_SCHEMA = _with_version(
    pa.schema(
        [
            ("pair_id", pa.string()),
            ("head", pa.string()),
            ("relation", pa.string()),
            ("tail", pa.string()),
            ("raw_value", pa.string()),
            ("reason", pa.string()),
        ]
    ),
    "dropped_triple",
    "1.0.0",
)

# The relation vocabulary of the crawl: how many pages have each relation, whether the frequency
# filter kept it, and the other names it goes by (CDTP's relation filtering, and what the
# trailing-relation rule matches against).
RELATION_SCHEMA = _with_version(
    pa.schema(
        [
            ("relation", pa.string()),
            ("pages", pa.int64()),
            ("kept", pa.bool_()),
            ("aliases", pa.list_(pa.string())),
            ("learned_cues", pa.list_(pa.string())),  # words the crawl says it with (<before, >after the value)
        ]
    ),
    "relation",
    "1.1.0",
)

# A span of a pair's source text cut from its text, and what it stated (filters.cut).
CUT = pa.struct([("start", pa.int32()), ("end", pa.int32()), ("reason", pa.string())])

PAIR_SCHEMA = _with_version(
    pa.schema(
        [
            ("pair_id", pa.string()),
            ("entity", pa.string()),
            ("sense", pa.string()),
            ("url", pa.string()),
            ("source", pa.string()),
            ("text", pa.string()),
            ("triples", pa.list_(pa.struct(list(TRIPLE_SCHEMA)))),
            ("position_index", pa.float64()),
            ("domain", pa.string()),
            ("decision", pa.string()),
            ("reason", pa.string()),
            ("page_hash", pa.string()),
            ("aliases", pa.list_(pa.string())),  # the entity's other names (中文名, 外文名, 别名, 简称 ...)
            ("domain_confidence", pa.float64()),
            ("domain_method", pa.string()),  # rules | embedding | rules+embedding, and the embedder
            ("topic", pa.string()),  # Chinese SimpleQA primary topic (optional)
            ("subtopic", pa.string()),
            ("source_text", pa.string()),  # the text as crawled; ``text`` is it with ``cuts`` removed
            ("cuts", pa.list_(CUT)),  # spans of source_text cut because they state what no kept triple states
            ("linked", pa.list_(pa.string())),  # names the page links that its text mentions
        ]
    ),
    "pair",
    "1.3.0",
)


@dataclass(slots=True)
class Pair(Record):
    """An entity's text with its infobox triples and the decision on each."""

    SCHEMA: ClassVar[pa.Schema] = PAIR_SCHEMA
    VERSION: ClassVar[str] = "1.3.0"

    pair_id: str
    entity: str
    text: str
    sense: str = ""
    url: str = ""
    source: str = ""
    triples: list[Triple] = field(default_factory=list)
    position_index: float | None = None
    domain: str | None = None
    decision: str = "kept"
    reason: str = ""
    page_hash: str = ""
    aliases: list[str] = field(default_factory=list)
    domain_confidence: float | None = None
    domain_method: str = ""
    topic: str | None = None
    subtopic: str | None = None
    source_text: str = ""
    cuts: list[dict] = field(default_factory=list)
    linked: list[str] = field(default_factory=list)

    def kept_triples(self) -> list[Triple]:
        return [t for t in self.triples if t.decision == "kept"]

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "Pair":
        row = dict(row)
        row["triples"] = [Triple.from_row(t) for t in row.get("triples") or []]
        # files written before the cut (schema 1.2) have neither column
        row["source_text"] = row.get("source_text") or ""
        row["cuts"] = list(row.get("cuts") or [])
        row["linked"] = list(row.get("linked") or [])
        return super(Pair, cls).from_row(row)


# --- Item ------------------------------------------------------------------------

ITEM_SCHEMA = _with_version(
    pa.schema(
        [
            ("item_id", pa.string()),
            ("kind", pa.string()),
            ("question", pa.string()),
            ("options", pa.list_(pa.string())),
            ("answer", pa.string()),
            ("answer_index", pa.int32()),
            ("source_pair_ids", pa.list_(pa.string())),
            ("provenance", pa.string()),  # JSON: generator, embedder, verifiers that ran
            ("domain", pa.string()),
            ("split", pa.string()),
            ("head", pa.string()),
            ("sense", pa.string()),
            ("relation", pa.string()),
            ("answer_kind", pa.string()),  # the gold's format: date, year, quantity, person, title ...
            ("option_sources", pa.list_(pa.string())),  # per option: gold, neighbour, same_relation ...
            ("option_similarity", pa.list_(pa.float64())),  # per option: embedding similarity to the gold
            ("primary_category", pa.string()),  # Chinese SimpleQA topic
            ("secondary_category", pa.string()),  # and subtopic
            ("urls", pa.list_(pa.string())),
            ("stratum", pa.string()),  # domain|answer_kind|relation frequency bin|text length bin
            ("decision", pa.string()),
            ("reason", pa.string()),
            ("verified_by", pa.list_(pa.string())),  # the verifiers that actually ran on the item
            ("capability", pa.string()),  # CUGE-style levels (warehouse/hierarchy.toml), set on release
            ("task", pa.string()),
            ("dataset", pa.string()),
            ("asked", pa.string()),  # which end of the triple the question asks: tail | any (one of several) | head
            ("tail", pa.string()),  # the triple's tail (the answer, or what the question gives when it asks the head)
            ("unverified_by", pa.list_(pa.string())),  # checks that ran on the item but returned no verdict
            ("difficulty", pa.float64()),  # offline difficulty proxy in [0, 1] (rarity of entity and relation)
            # other right answers: every other value the sources give for the question (kgc, qa: the filtered
            # setting of link prediction; none is ever an option), the answer's other written forms (cloze)
            ("also_true", pa.list_(pa.string())),
        ]
    ),
    "item",
    "1.6.0",
)


@dataclass(slots=True)
class Item(Record):
    SCHEMA: ClassVar[pa.Schema] = ITEM_SCHEMA
    VERSION: ClassVar[str] = "1.6.0"

    item_id: str
    kind: str
    question: str
    answer: str
    options: list[str] = field(default_factory=list)
    answer_index: int | None = None
    source_pair_ids: list[str] = field(default_factory=list)
    provenance: str = "{}"
    domain: str | None = None
    split: str = "all"
    head: str = ""
    sense: str = ""
    relation: str = ""
    answer_kind: str = ""
    option_sources: list[str] = field(default_factory=list)
    option_similarity: list[float] = field(default_factory=list)
    primary_category: str | None = None
    secondary_category: str | None = None
    urls: list[str] = field(default_factory=list)
    stratum: str = ""
    decision: str = "kept"
    reason: str = ""
    verified_by: list[str] = field(default_factory=list)
    capability: str = ""
    task: str = ""
    dataset: str = ""
    asked: str = ""
    tail: str = ""
    unverified_by: list[str] = field(default_factory=list)
    difficulty: float | None = None
    also_true: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.kind not in ITEM_KINDS:
            raise ValueError(f"item kind must be one of {ITEM_KINDS}, got {self.kind!r}")
        if self.split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {self.split!r}")
        if self.options and (
            self.answer_index is None or self.options[self.answer_index] != self.answer
        ):
            raise ValueError(f"item {self.item_id}: answer_index does not point at the answer")


# --- Release manifest ------------------------------------------------------------

MANIFEST_VERSION = "1.2.0"  # 1.1.0: hierarchy, validation; 1.2.0: sources


@dataclass(slots=True)
class ReleaseFile:
    path: str  # relative to the release directory
    config: str
    split: str
    rows: int
    bytes: int
    sha256: str
    schema: str
    schema_version: str


@dataclass(slots=True)
class ReleaseManifest:
    name: str
    version: str
    files: list[ReleaseFile]
    config: dict[str, Any]
    counts: dict[str, Any]
    manifest_version: str = MANIFEST_VERSION
    code_version: str = ""
    parent: str | None = None
    source_snapshot: str = ""
    flow_run_id: str | None = None
    hierarchy: dict[str, Any] = field(default_factory=dict)  # config -> role, capability, task, dataset ...
    validation: dict[str, Any] = field(default_factory=dict)  # the gate's suites and their results
    # what the release came from, for audits: {"crawl": [page shard paths relative to the data directory]}
    sources: dict[str, Any] = field(default_factory=dict)
    created_at: str = field(
        default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds")
    )

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> "ReleaseManifest":
        data = json.loads(text)
        data["files"] = [ReleaseFile(**f) for f in data["files"]]
        return cls(**data)
