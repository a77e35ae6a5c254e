"""Train and eval splits by entity, so that no entity and no fact is on both sides.

CDTP (§4.1) splits each domain 80/20. Splitting items one by one leaks: an entity's KGC
item in eval and its triple-to-text item in train give the answer away. Here the unit is
the entity: every item whose head is that entity, in every config, lands in one split.
Two entities that state a fact about each other (曹雪芹's 代表作品 is 红楼梦 and 红楼梦's 作者 is
曹雪芹) form one group, so the fact is not asked in eval one way and taught in train the other.

Groups are ranked per domain by ``md5(seed:group)`` and taken into eval, each when that brings
the domain's eval items closer to ``eval_fraction`` of its items; a group's domain is the most
common domain of its items. Deterministic: the same items and seed give the same splits.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable

from filters.normalize import value_key


@dataclass(frozen=True)
class SplitUnit:
    """What the split needs of one item: its id, head entity, domain, and the entities it relates
    the head to (the answer or given value; for triple-to-text every triple's tail)."""

    item_id: str
    head: str
    domain: str | None
    others: tuple[str, ...] = ()


class _Groups:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, key: str) -> str:
        root = self.parent.setdefault(key, key)
        while root != self.parent[root]:
            self.parent[root] = self.parent[self.parent[root]]
            root = self.parent[root]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:  # the smaller key is the root, so groups are named the same on every run
            self.parent[max(ra, rb)] = min(ra, rb)


def assign_splits(units: Iterable[SplitUnit], eval_fraction: float = 0.2, seed: int = 13) -> dict[str, str]:
    """item id -> "train" | "eval"."""
    if not 0 < eval_fraction < 1:
        raise ValueError(f"eval_fraction must be in (0, 1), got {eval_fraction}")
    units = list(units)
    groups = _Groups()
    stated: set[tuple[str, str]] = set()
    for unit in units:
        head = value_key(unit.head)
        groups.find(head)
        for other in unit.others:
            stated.add((head, value_key(other)))
    for a, b in stated:
        if a != b and (b, a) in stated:
            groups.union(a, b)
    by_group: dict[str, list[SplitUnit]] = defaultdict(list)
    for unit in units:
        by_group[groups.find(value_key(unit.head))].append(unit)
    by_domain: dict[str, list[str]] = defaultdict(list)
    for group, members in by_group.items():
        domains = Counter(str(u.domain) for u in members)
        domain = min(domains, key=lambda d: (-domains[d], d))
        by_domain[domain].append(group)
    splits: dict[str, str] = {}
    for domain, names in by_domain.items():
        names.sort(key=lambda g: (hashlib.md5(f"{seed}:{g}".encode("utf-8")).hexdigest(), g))
        total = sum(len(by_group[g]) for g in names)
        quota = round(eval_fraction * total)
        taken = 0
        for group in names:
            size = len(by_group[group])
            # take a group when that brings the domain's eval items closer to the quota (a big group
            # that would overshoot by more than it fills is left for train; smaller ones follow)
            split = "eval" if abs(quota - taken - size) < abs(quota - taken) else "train"
            if split == "eval":
                taken += size
            for unit in by_group[group]:
                splits[unit.item_id] = split
    return splits


def unit_of(item) -> SplitUnit:
    """The split unit of an Item record."""
    if item.kind == "t2t":
        others = tuple(line.split("｜")[2] for line in item.question.splitlines() if line.count("｜") >= 2)
    else:
        others = (item.tail or item.answer,)
    return SplitUnit(item.item_id, item.head, item.domain, others)
