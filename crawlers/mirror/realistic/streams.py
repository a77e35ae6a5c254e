"""Seeded randomness: a stable hash of integers, the salts that keep an entity's random streams
apart, weighted choice, and the seeded bijection that gives distinct ranks distinct names."""

from __future__ import annotations

import math
import random

_MASK = (1 << 64) - 1
# Salts keep the random streams of one entity's parts independent of each other.
_S_PLAN, _S_TIER, _S_CORE, _S_NAMER, _S_FACTS, _S_ENTRY, _S_BIRTH, _S_DUP, _S_LAYOUT, _S_RELATED, \
    _S_SECTIONS, _S_TOWN, _S_AUTHOR, _S_FALSE = range(1, 15)


def _mix(*parts: int) -> int:
    """A 64-bit hash of a few integers (splitmix64 rounds), stable across runs and platforms."""
    x = 0x9E3779B97F4A7C15
    for part in parts:
        x = ((x ^ (part & _MASK)) * 0xBF58476D1CE4E5B9) & _MASK
        x ^= x >> 29
        x = (x * 0x94D049BB133111EB) & _MASK
        x ^= x >> 32
    return x


def _weighted(rng: random.Random, pairs) -> object:
    total = sum(w for _, w in pairs)
    point = rng.random() * total
    for item, weight in pairs:
        point -= weight
        if point < 0:
            return item
    return pairs[-1][0]


class _Namer:
    """A seeded bijection from member ranks onto a mixed-radix name space: distinct ranks, distinct names."""

    __slots__ = ("radixes", "size", "a", "c", "tables")

    def __init__(self, radixes: tuple[int, ...], rng: random.Random):
        self.radixes = radixes
        self.size = math.prod(radixes)
        a = rng.randrange(1, self.size) if self.size > 1 else 1
        while math.gcd(a, self.size) != 1:
            a += 1
        self.a, self.c = a, rng.randrange(self.size)
        self.tables = tuple(tuple(rng.sample(range(r), r)) for r in radixes)

    def digits(self, x: int) -> list[int]:
        v = (self.a * (x % self.size) + self.c) % self.size
        out, carry = [], 0
        for radix, table in zip(self.radixes, self.tables):
            v, d = divmod(v, radix)
            d = table[(d + carry) % radix]
            carry += d * 7 + 1  # each digit is shifted by the ones before it: still a bijection
            out.append(d)
        return out
