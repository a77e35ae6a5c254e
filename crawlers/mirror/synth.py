"""Synthetic encyclopedia entries for benchmarks, recombined from the facts table.

Entry ``i`` of a synthetic corpus depends only on (seed, i), so any slice of a
corpus of a million entries can be produced or served without producing the rest.
Each synthetic entry takes a real entry of the same type as its template: a new
name, infobox values drawn from the same relation elsewhere in the table, and a
summary written from sentence templates. Noise is planted in known proportions,
and every entry's ``labels`` say what was planted, so filters can be scored:

* ``ungrounded``: infobox rows the text never mentions (redundant triples);
* ``trailing``: a sentence after the last triple mention stating a relation that
  no infobox row covers (a redundant description);
* ``near_duplicate_of``: the entry is a lightly edited copy of an earlier one.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterator

from crawlers.mirror.facts import Entry
from crawlers.mirror.render import item_path

SYNTHETIC_ID_BASE = 20_000_000
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍红建文辉宁鹏云志新光林宏春晓斌海波国庆德成东"
PLACE = "安平宁和兴隆丰泰昌永新清源华阳江河山川石青白云南北东西湖溪"
SUFFIX = {
    "river": "河", "lake": "湖", "mountain": "山", "city": "市", "place": "镇", "country": "国",
    "company": "科技有限公司", "university": "大学", "organisation": "协会", "institution": "研究所",
    "compound": "酸", "element": "素", "mineral": "石", "plant": "草", "animal": "鹿", "species": "蝶",
    "astronomical": "星", "device": "仪", "invention": "机", "technology": "技术", "software": "系统",
    "spacecraft": "号", "structure": "桥", "currency": "币", "work": "记", "book": "集", "film": "传",
    "festival": "节", "art": "曲", "language": "语", "dynasty": "朝", "event": "之役", "concept": "论",
}
CLAUSES = ("{rel}为{val}", "{rel}是{val}", "其{rel}为{val}")


@dataclass(frozen=True)
class SynthConfig:
    """Proportions of planted noise; the defaults give a corpus most filters must work on."""

    seed: int = 0
    ungrounded_rate: float = 0.3
    trailing_rate: float = 0.2
    near_duplicate_rate: float = 0.05

    def __post_init__(self) -> None:
        for name in ("ungrounded_rate", "trailing_rate", "near_duplicate_rate"):
            value = getattr(self, name)
            if not 0 <= value <= 1:
                raise ValueError(f"{name} must be in [0, 1], got {value}")


class Synthesizer:
    def __init__(self, facts: list[Entry], config: SynthConfig = SynthConfig()):
        usable = [e for e in facts if len(e.infobox) >= 3]
        if not usable:
            raise ValueError("synthesis needs facts entries with at least 3 infobox rows")
        self.templates = usable
        self.config = config

    @cached_property
    def _values(self) -> dict[str, list[str]]:
        pool: dict[str, list[str]] = {}
        for entry in self.templates:
            for name, value in entry.infobox:
                pool.setdefault(name, []).append(value)
        return {k: sorted(set(v)) for k, v in sorted(pool.items())}

    @cached_property
    def _relations(self) -> list[str]:
        return sorted(self._values)

    def _rng(self, index: int, salt: str = "") -> random.Random:
        return random.Random(f"{self.config.seed}:{index}:{salt}")

    def is_duplicate(self, index: int) -> bool:
        return index > 0 and self._rng(index, "dup").random() < self.config.near_duplicate_rate

    def entry(self, index: int) -> Entry:
        if index < 0:
            raise IndexError(index)
        if self.is_duplicate(index):
            rng = self._rng(index, "dup")
            source = rng.randrange(index)
            while self.is_duplicate(source):
                source = self._rng(source, "dup").randrange(source) if source else 0
            return self._near_duplicate(self._original(source), index, rng)
        return self._original(index)

    def __iter__(self) -> Iterator[Entry]:
        index = 0
        while True:
            yield self.entry(index)
            index += 1

    def take(self, count: int) -> Iterator[Entry]:
        for index in range(count):
            yield self.entry(index)

    def _name(self, template: Entry, rng: random.Random) -> str:
        if template.type == "person":
            return rng.choice(SURNAMES) + "".join(rng.choice(GIVEN) for _ in range(rng.choice((1, 2))))
        return "".join(rng.choice(PLACE) for _ in range(2)) + SUFFIX.get(template.type, "")

    def _original(self, index: int) -> Entry:
        rng = self._rng(index)
        template = self.templates[rng.randrange(len(self.templates))]
        name = self._name(template, rng)
        infobox: list[tuple[str, str]] = []
        for relation, _ in template.infobox:
            if relation == "中文名":
                infobox.append((relation, name))
            elif relation == "外文名":
                continue  # a recombined foreign name would be nonsense
            else:
                infobox.append((relation, rng.choice(self._values[relation])))
        mentioned = [row for row in infobox if row[0] != "中文名"]
        ungrounded: list[str] = []
        if len(mentioned) > 1 and rng.random() < self.config.ungrounded_rate:
            dropped = mentioned.pop(rng.randrange(len(mentioned)))
            ungrounded.append(dropped[0])
        clauses = [rng.choice(CLAUSES).format(rel=rel, val=val) for rel, val in mentioned]
        summary = f"{name}，{template.sense}，" + "，".join(clauses) + "。"
        trailing = False
        if rng.random() < self.config.trailing_rate:
            covered = {rel for rel, _ in infobox}
            extra = [r for r in self._relations if r not in covered]
            if extra:
                relation = rng.choice(extra)
                summary += f"此外，其{relation}为{rng.choice(self._values[relation])}。"
                trailing = True
        sections = [(heading, [p.replace(template.title, name) for p in paragraphs])
                    for heading, paragraphs in template.sections]
        return Entry(
            title=name, sense=template.sense, domain=template.domain, type=template.type,
            summary=summary, infobox=infobox, sections=sections,
            baidu_id=SYNTHETIC_ID_BASE + index, sogou_id=SYNTHETIC_ID_BASE + index,
            layout="baidu_legacy" if rng.random() < 0.25 else "baidu",
            labels={"synthetic": True, "index": index, "template": template.key,
                    "ungrounded": ungrounded, "trailing": trailing, "near_duplicate_of": None},
        )

    def _near_duplicate(self, source: Entry, index: int, rng: random.Random) -> Entry:
        summary = source.summary
        commas = [i for i, ch in enumerate(summary) if ch == "，"]
        if commas:
            at = rng.choice(commas)
            summary = summary[:at] + "；" + summary[at + 1:]
        labels = dict(source.labels, index=index, near_duplicate_of=source.labels["index"])
        return Entry(
            title=source.title, sense=source.sense, domain=source.domain, type=source.type,
            summary=summary, infobox=list(source.infobox), sections=list(source.sections),
            baidu_id=SYNTHETIC_ID_BASE + index, sogou_id=SYNTHETIC_ID_BASE + index,
            layout=source.layout, labels=labels,
        )


def to_record(entry: Entry) -> dict:
    """The facts-table form of an entry, plus its planted-noise labels."""
    return {
        "title": entry.title, "sense": entry.sense, "domain": entry.domain, "type": entry.type,
        "summary": entry.summary, "infobox": [list(row) for row in entry.infobox],
        "sections": [{"heading": h, "paragraphs": p} for h, p in entry.sections],
        "labels": entry.labels,
    }


def write_synthetic(synth: Synthesizer, count: int, out: Path, seeds_out: Path | None = None) -> None:
    """The first ``count`` entries as JSON lines in ``out`` (whole or not at all), and with ``seeds_out``
    each entry's Baidu-form path, one per line."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".tmp-{out.name}")
    seeds = open(seeds_out, "w", encoding="utf-8") if seeds_out else None
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            for entry in synth.take(count):
                handle.write(json.dumps(to_record(entry), ensure_ascii=False) + "\n")
                if seeds:
                    seeds.write(item_path(entry.title, entry.baidu_id) + "\n")
    finally:
        if seeds:
            seeds.close()
    tmp.replace(out)
