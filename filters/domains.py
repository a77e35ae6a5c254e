"""Assign each pair one of the four CDTP domains, and optionally a Chinese SimpleQA topic and subtopic.

The vocabulary lives in ``filters/taxonomy.toml`` (reviewable without reading code).
Two signals are combined per candidate label:

* rules: keyword occurrences in the title and text (one Aho-Corasick pass, leftmost
  longest, so 天然卫星 counts once and not also as 卫星) plus infobox relation names
  matched whole (a dictionary lookup: a substring search would let 门, the taxonomic
  rank, fire inside 主管部门);
* embedding: cosine similarity between the embedded title + text and the embedded
  prototype of each label (its description and keywords).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import ahocorasick_rs
import numpy as np

from filters.embeddings import Embedder
from filters.normalize import normalize
from schemas import DOMAINS, Pair

TAXONOMY_PATH = Path(__file__).with_name("taxonomy.toml")
_ID = re.compile(r"[a-z][a-z0-9_]*")


class TaxonomyError(ValueError):
    """The taxonomy file is malformed; the message names the file, the problem and the fix."""


@dataclass(frozen=True)
class Domain:
    id: str
    name: str
    name_en: str
    description: str
    keywords: tuple[str, ...]
    relations: tuple[str, ...]

    def prototype(self) -> str:
        return self.description + "；".join(self.keywords)


@dataclass(frozen=True)
class Subtopic:
    id: str
    name: str
    name_en: str
    keywords: tuple[str, ...]

    def prototype(self) -> str:
        return self.name + "：" + "；".join(self.keywords)


@dataclass(frozen=True)
class Topic:
    id: str
    name: str
    name_en: str
    description: str
    keywords: tuple[str, ...]
    subtopics: tuple[Subtopic, ...]

    def prototype(self) -> str:
        return self.description + "；".join(self.keywords)


@dataclass(frozen=True)
class Taxonomy:
    domains: tuple[Domain, ...]
    topics: tuple[Topic, ...] = ()
    path: Path | None = None

    def domain(self, domain_id: str) -> Domain:
        for domain in self.domains:
            if domain.id == domain_id:
                return domain
        raise KeyError(domain_id)

    def topic(self, topic_id: str) -> Topic:
        for topic in self.topics:
            if topic.id == topic_id:
                return topic
        raise KeyError(topic_id)


class _Reader:
    """Validates the parsed TOML, raising TaxonomyError with the file and block named."""

    def __init__(self, path: Path):
        self.path = path

    def fail(self, where: str, what: str, fix: str) -> TaxonomyError:
        return TaxonomyError(f"{self.path}: {where}: {what}; {fix}")

    def blocks(self, data: dict, key: str, where: str, required: bool) -> list[dict]:
        value = data.get(key)
        if value is None:
            if required:
                raise self.fail(where, f"no [[{key}]] blocks", f"add at least one [[{key}]] block")
            return []
        if not isinstance(value, list) or not all(isinstance(b, dict) for b in value):
            raise self.fail(where, f"'{key}' must be a list of [[{key}]] blocks", f"write each as a [[{key}]] table")
        return value

    def text(self, block: dict, key: str, where: str) -> str:
        if key not in block:
            raise self.fail(where, f"missing key '{key}'", f'add {key} = "..." to this block')
        value = block[key]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(where, f"'{key}' must be a non-empty string, got {value!r}", f'write {key} = "..."')
        return value.strip()

    def ident(self, block: dict, where: str) -> str:
        value = self.text(block, "id", where)
        if not _ID.fullmatch(value):
            raise self.fail(where, f"id {value!r} is not lower-case ASCII with underscores",
                            'use an id such as "natural_science"')
        return value

    def words(self, block: dict, key: str, where: str) -> tuple[str, ...]:
        if key not in block:
            raise self.fail(where, f"missing key '{key}'", f'add {key} = ["...", "..."] to this block')
        value = block[key]
        if not isinstance(value, list) or not value or not all(isinstance(w, str) and w.strip() for w in value):
            raise self.fail(where, f"'{key}' must be a non-empty list of non-empty strings",
                            f'write {key} = ["...", "..."]')
        seen: dict[str, str] = {}
        for word in value:
            norm = normalize(word)
            if norm in seen:
                raise self.fail(where, f"{key} lists {word!r} twice (as {seen[norm]!r} and {word!r})",
                                "remove one of them")
            seen[norm] = word
        return tuple(w.strip() for w in value)

    def unique(self, ids: dict[str, str], value: str, where: str, kind: str) -> None:
        if value in ids:
            raise self.fail(where, f"duplicate {kind} id {value!r} (also used by {ids[value]})",
                              f"give every {kind} its own id")
        ids[value] = where


def load_taxonomy(path: Path | None = None) -> Taxonomy:
    """Read and validate a taxonomy file; the bundled ``filters/taxonomy.toml`` by default."""
    path = Path(path) if path is not None else TAXONOMY_PATH
    reader = _Reader(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaxonomyError(f"{path}: file not found; give the path of a taxonomy TOML file") from None
    except tomllib.TOMLDecodeError as exc:
        raise TaxonomyError(f"{path}: not valid TOML ({exc}); fix the syntax at that line") from None

    domains, domain_ids = [], {}
    for number, block in enumerate(reader.blocks(data, "domains", "top level", required=True), 1):
        where = f"[[domains]] block {number}"
        domain_id = reader.ident(block, where)
        where = f"{where} (id {domain_id!r})"
        if domain_id not in DOMAINS:
            raise reader.fail(where, f"unknown domain id {domain_id!r}",
                              f"use one of {', '.join(DOMAINS)} (the ids the released data is labelled with)")
        reader.unique(domain_ids, domain_id, where, "domain")
        domains.append(Domain(domain_id, reader.text(block, "name", where), reader.text(block, "name_en", where),
                              reader.text(block, "description", where), reader.words(block, "keywords", where),
                              reader.words(block, "relations", where)))
    missing = [d for d in DOMAINS if d not in domain_ids]
    if missing:
        raise reader.fail("[[domains]]", f"no block for domain(s) {', '.join(missing)}",
                          "add a [[domains]] block for each of them")

    topics, topic_ids, subtopic_ids = [], {}, {}
    for number, block in enumerate(reader.blocks(data, "topics", "top level", required=False), 1):
        where = f"[[topics]] block {number}"
        topic_id = reader.ident(block, where)
        where = f"{where} (id {topic_id!r})"
        reader.unique(topic_ids, topic_id, where, "topic")
        subtopics = []
        for sub_number, sub in enumerate(reader.blocks(block, "subtopics", where, required=True), 1):
            sub_where = f"{where}, [[topics.subtopics]] block {sub_number}"
            sub_id = reader.ident(sub, sub_where)
            sub_where = f"{sub_where} (id {sub_id!r})"
            reader.unique(subtopic_ids, sub_id, sub_where, "subtopic")
            subtopics.append(Subtopic(sub_id, reader.text(sub, "name", sub_where),
                                      reader.text(sub, "name_en", sub_where), reader.words(sub, "keywords", sub_where)))
        topics.append(Topic(topic_id, reader.text(block, "name", where), reader.text(block, "name_en", where),
                            reader.text(block, "description", where), reader.words(block, "keywords", where),
                            tuple(subtopics)))
    return Taxonomy(tuple(domains), tuple(topics), path)


@dataclass(frozen=True)
class DomainLabel:
    domain: str
    confidence: float
    method: str  # rules | embedding | rules+embedding | none
    topic: str | None = None
    subtopic: str | None = None
    topic_confidence: float | None = None


class _KeywordCounter:
    """Counts keyword occurrences per group (domain, topic or subtopic) in one Aho-Corasick pass."""

    def __init__(self, groups: Sequence[Iterable[str]]):
        owners: dict[str, list[int]] = {}
        for index, words in enumerate(groups):
            for word in words:
                owner = owners.setdefault(normalize(word), [])
                if index not in owner:
                    owner.append(index)
        self.patterns = list(owners)
        self.owners = [np.asarray(owners[p]) for p in self.patterns]
        self.size = len(groups)
        self.automaton = ahocorasick_rs.AhoCorasick(self.patterns, matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_LONGEST)

    def count(self, normalized_text: str) -> np.ndarray:
        counts = np.zeros(self.size)
        for pattern, _, _ in self.automaton.find_matches_as_indexes(normalized_text):
            counts[self.owners[pattern]] += 1
        return counts


def _rule_scores(raw: np.ndarray) -> np.ndarray:
    # Additive smoothing: one stray keyword gives 0.5, ten keywords for one label about 0.9.
    return raw / (raw.sum() + 1.0)


class DomainAssigner:
    """Label pairs with a CDTP domain (and, with topics=True, a SimpleQA topic and subtopic).

    For every candidate label d:

        rule_d      = hits_d / (sum of hits over labels + 1), hits = keyword occurrences
                      plus matching relation names (relations for domains only)
        embedding_d = cos(embed(title + text), embed(prototype_d))
        combined_d  = rule_weight * rule_d + (1 - rule_weight) * embedding_d

    The label is the argmax of combined (ties go to the earlier label in the taxonomy).
    With p = softmax(combined / temperature) over k labels,

        confidence = (max(p) - 1/k) / (1 - 1/k)

    which is 0 when all labels score alike and tends to 1 as one label dominates.
    The subtopic is chosen the same way among the subtopics of the chosen topic.
    method says which signals fired: "rules" (some keyword or relation matched),
    "embedding" (the text has characters to embed), both, or "none" (confidence 0).
    """

    def __init__(self, taxonomy: Taxonomy, embedder: Embedder, rule_weight: float = 0.6,
                 topics: bool = False, temperature: float = 0.05):
        if not 0 <= rule_weight <= 1:
            raise ValueError(f"rule_weight must be in [0, 1], got {rule_weight}")
        if temperature <= 0:
            raise ValueError(f"temperature must be > 0, got {temperature}")
        if topics and not taxonomy.topics:
            raise ValueError(f"topics=True but the taxonomy {taxonomy.path} has no [[topics]] blocks")
        self.taxonomy, self.embedder = taxonomy, embedder
        self.rule_weight, self.topics, self.temperature = rule_weight, topics, temperature
        self._domain_words = _KeywordCounter([d.keywords for d in taxonomy.domains])
        self._relations: dict[str, list[int]] = {}
        for index, domain in enumerate(taxonomy.domains):
            for relation in domain.relations:
                self._relations.setdefault(normalize(relation), []).append(index)
        self._subtopics = [s for t in taxonomy.topics for s in t.subtopics]
        self._topic_words = _KeywordCounter([t.keywords + tuple(w for s in t.subtopics for w in s.keywords)
                                             for t in taxonomy.topics])
        self._subtopic_words = _KeywordCounter([s.keywords for s in self._subtopics])
        self._subtopic_rows, start = [], 0
        for topic in taxonomy.topics:
            self._subtopic_rows.append(np.arange(start, start + len(topic.subtopics)))
            start += len(topic.subtopics)
        self._prototypes: dict[str, np.ndarray] | None = None

    def _prototype_texts(self) -> dict[str, list[str]]:
        texts = {"domains": [d.prototype() for d in self.taxonomy.domains]}
        if self.topics:
            texts["topics"] = [t.prototype() for t in self.taxonomy.topics]
            texts["subtopics"] = [s.prototype() for s in self._subtopics]
        return texts

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Embed texts, and the prototypes on the first call, in one encode."""
        if self._prototypes is not None:
            return np.asarray(self.embedder.encode(texts), dtype=np.float32)
        protos = self._prototype_texts()
        flat = [t for group in protos.values() for t in group]
        vectors = np.asarray(self.embedder.encode(flat + texts), dtype=np.float32)
        self._prototypes, start = {}, 0
        for key, group in protos.items():
            self._prototypes[key] = vectors[start:start + len(group)]
            start += len(group)
        return vectors[start:]

    def _decide(self, raw: np.ndarray, similarity: np.ndarray) -> tuple[int, float]:
        # similarity is computed one item at a time (matrix @ vector), never as one batch
        # product, so a label does not depend on which other items share its batch.
        combined = self.rule_weight * _rule_scores(raw) + (1 - self.rule_weight) * similarity
        best = int(np.argmax(combined))
        k = len(combined)
        if k == 1:
            return best, 1.0
        logits = (combined - combined.max()) / self.temperature
        p = np.exp(logits) / np.exp(logits).sum()
        confidence = (p[best] - 1 / k) / (1 - 1 / k)
        # Rounded so that release files do not change with the last bits of a float.
        return best, round(float(min(max(confidence, 0.0), 1.0)), 6)

    def assign_many(self, items: Iterable[tuple[str, str, Sequence[str]]]) -> list[DomainLabel]:
        """Label (entity title, text, relation names) items; one embedding call for the batch."""
        items = [(entity, text, list(relations)) for entity, text, relations in items]
        if not items:
            return []
        texts = ["。".join(part for part in (entity, text) if part) for entity, text, _ in items]
        vectors = self._embed(texts)
        labels = []
        for row, (text, (_, _, relations)) in enumerate(zip(texts, items)):
            haystack = normalize(text)
            raw = self._domain_words.count(haystack)
            for relation in {normalize(r) for r in relations}:
                for index in self._relations.get(relation, ()):
                    raw[index] += 1
            rules_fired = raw.sum() > 0
            embedded = bool(np.any(vectors[row]))
            method = {(True, True): "rules+embedding", (True, False): "rules",
                      (False, True): "embedding", (False, False): "none"}[(bool(rules_fired), embedded)]
            best, confidence = self._decide(raw, self._prototypes["domains"] @ vectors[row])
            label = DomainLabel(self.taxonomy.domains[best].id, confidence if method != "none" else 0.0, method)
            if self.topics:
                label = self._with_topic(label, haystack + "。" + "。".join(normalize(r) for r in relations),
                                         vectors[row])
            labels.append(label)
        return labels

    def _with_topic(self, label: DomainLabel, haystack: str, vector: np.ndarray) -> DomainLabel:
        # Relation names join the haystack here: topics have no relation lists of their own,
        # but names such as 节日活动 or 院校代码 still carry topic words.
        topic_raw = self._topic_words.count(haystack)
        topic_index, topic_confidence = self._decide(topic_raw, self._prototypes["topics"] @ vector)
        rows = self._subtopic_rows[topic_index]
        sub_raw = self._subtopic_words.count(haystack)[rows]
        sub_index, _ = self._decide(sub_raw, self._prototypes["subtopics"][rows] @ vector)
        topic = self.taxonomy.topics[topic_index]
        if not topic_raw.any() and not vector.any():
            topic_confidence = 0.0
        return DomainLabel(label.domain, label.confidence, label.method, topic.id,
                           topic.subtopics[sub_index].id, topic_confidence)

    def assign(self, entity: str, text: str, relations: Sequence[str]) -> DomainLabel:
        return self.assign_many([(entity, text, relations)])[0]


def label_pairs(pairs: Iterable[Pair], assigner: DomainAssigner, batch_size: int = 512) -> Iterator[Pair]:
    """Set each pair's domain (and topic) fields, a batch of pairs per embedding call, streaming."""
    embedder = getattr(assigner.embedder, "name", type(assigner.embedder).__name__)
    batch: list[Pair] = []

    def flush() -> Iterator[Pair]:
        labels = assigner.assign_many((p.entity, p.text, [t.relation for t in p.triples]) for p in batch)
        for pair, label in zip(batch, labels, strict=True):
            pair.domain, pair.domain_confidence = label.domain, label.confidence
            pair.domain_method = label.method if label.method in ("rules", "none") else f"{label.method}:{embedder}"
            pair.topic, pair.subtopic = label.topic, label.subtopic
            yield pair
        batch.clear()

    for pair in pairs:
        batch.append(pair)
        if len(batch) >= batch_size:
            yield from flush()
    if batch:
        yield from flush()
