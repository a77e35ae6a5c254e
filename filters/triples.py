"""Triples from infobox rows, and the pair (entity text + triples) a page yields."""

from __future__ import annotations

import hashlib

from schemas import Page, Pair, Triple

TEXT_SCOPES = ("summary", "full")


def pair_id(canonical_url: str) -> str:
    return hashlib.sha256(canonical_url.encode("utf-8")).hexdigest()[:16]


def extract_triples(page: Page) -> list[Triple]:
    """One triple per single value of each infobox row, head = the page's title."""
    triples: list[Triple] = []
    seen: set[tuple[str, str]] = set()
    for entry in page.infobox:
        values = entry.values or ([entry.value] if entry.value else [])
        for value in values:
            key = (entry.name, value)
            if key in seen:
                continue
            seen.add(key)
            triples.append(Triple(head=page.title, relation=entry.name, tail=value, raw_value=entry.value))
    return triples


def page_to_pair(page: Page, text_scope: str = "summary") -> Pair:
    """The CDTP pair of a page: its summary (or its whole text) with its infobox triples."""
    if text_scope not in TEXT_SCOPES:
        raise ValueError(f"text_scope must be one of {TEXT_SCOPES}, got {text_scope!r}")
    text = page.summary if text_scope == "summary" else "\n".join([page.summary, *page.paragraphs]).strip()
    return Pair(
        pair_id=pair_id(page.canonical_url or page.url),
        entity=page.title,
        sense=page.subtitle,
        url=page.canonical_url or page.url,
        source=page.source,
        text=text,
        triples=extract_triples(page),
        page_hash=page.content_hash,
    )
