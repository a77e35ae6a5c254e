"""Triples from infobox rows, and the pair (entity text + triples) a page yields."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from crawlers.urls import public_url
from filters.clean import clean
from filters.normalize import normalize, normalize_once
from schemas import Page, Pair, Triple

RELATION_ALIASES = Path(__file__).with_name("relation_aliases.tsv")


@lru_cache(maxsize=4)
def relation_aliases(path: Path = RELATION_ALIASES) -> dict[str, str]:
    """alias -> canonical relation name, from a tab-separated table (``#`` starts a comment)."""
    table: dict[str, str] = {}
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) != 2 or not all(c.strip() for c in cells):
            raise ValueError(f"{path}:{number}: expected 'alias<TAB>canonical'")
        table[cells[0].strip()] = cells[1].strip()
    return table

TEXT_SCOPES = ("summary", "full")

# Relations (after the alias table) whose values are other names of the entity itself.
NAME_RELATIONS = frozenset({"中文名", "外文名", "别名", "简称", "全称", "本名", "原名", "学名", "字", "号"})


def head_aliases(title: str, triples: list[Triple]) -> list[str]:
    """The entity's names besides its title, from its name rows, in infobox order, without repeats."""
    names: list[str] = []
    seen = {normalize(title)}
    for triple in triples:
        if triple.relation in NAME_RELATIONS and triple.tail and normalize(triple.tail) not in seen:
            seen.add(normalize(triple.tail))
            names.append(triple.tail)
    return names


def pair_id(canonical_url: str) -> str:
    return hashlib.sha256(canonical_url.encode("utf-8")).hexdigest()[:16]


def extract_triples(page: Page, aliases: dict[str, str] | None = None) -> list[Triple]:
    """One triple per single value of each infobox row, head = the page's title.

    Relation names go through the alias table (出生时间 and 出生年月 become 出生日期).
    """
    aliases = relation_aliases() if aliases is None else aliases
    triples: list[Triple] = []
    seen: set[tuple[str, str]] = set()
    for entry in page.infobox:
        relation = aliases.get(entry.name, entry.name)
        values = entry.values or ([entry.value] if entry.value else [])
        for value in (clean(v) for v in values):
            key = (relation, value)
            if key in seen:
                continue
            seen.add(key)
            triples.append(Triple(head=page.title, relation=relation, tail=value, raw_value=entry.value))
    return triples


def page_to_pair(page: Page, text_scope: str = "summary") -> Pair:
    """The CDTP pair of a page: its summary (or its whole text) with its infobox triples."""
    if text_scope not in TEXT_SCOPES:
        raise ValueError(f"text_scope must be one of {TEXT_SCOPES}, got {text_scope!r}")
    text = page.summary if text_scope == "summary" else "\n".join([page.summary, *page.paragraphs]).strip()
    text = clean(text)
    triples = extract_triples(page)
    # The public site's URL, not where it was fetched (the mirror's port): ids and releases do not
    # depend on the fetch address.
    url = public_url(page.canonical_url or page.url, page.source)
    written = normalize_once(text)
    linked = sorted({link["title"] for link in page.links
                     if link.get("title") and len(normalize(link["title"])) >= 2 and normalize(link["title"]) in written})
    return Pair(
        pair_id=pair_id(url),
        entity=page.title,
        sense=page.subtitle,
        url=url,
        source=page.source,
        text=text,
        triples=triples,
        page_hash=page.content_hash,
        aliases=head_aliases(page.title, triples),
        source_text=text,
        linked=linked,
    )
