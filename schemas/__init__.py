"""Record types and Arrow schemas shared by every stage."""

from schemas.records import (
    DOMAINS,
    DROPPED_TRIPLE_SCHEMA,
    ITEM_KINDS,
    ITEM_SCHEMA,
    PAGE_SCHEMA,
    PAGE_STATUSES,
    PAIR_SCHEMA,
    RELATION_SCHEMA,
    SOURCES,
    TRIPLE_SCHEMA,
    InfoboxEntry,
    Item,
    Page,
    Pair,
    ReleaseFile,
    ReleaseManifest,
    Triple,
    schema_name,
    schema_version,
)

__all__ = [
    "DOMAINS", "DROPPED_TRIPLE_SCHEMA", "ITEM_KINDS", "ITEM_SCHEMA", "PAGE_SCHEMA", "PAGE_STATUSES", "PAIR_SCHEMA",
    "RELATION_SCHEMA", "SOURCES", "TRIPLE_SCHEMA", "InfoboxEntry", "Item", "Page", "Pair", "ReleaseFile",
    "ReleaseManifest", "Triple", "schema_name", "schema_version",
]
