"""The realistic profile of the mirror: generated entries that behave like real Baidu Baike pages.

The demo facts table is tidy (short summaries that repeat the infobox verbatim); this profile
is not. ``RealisticCorpus(size, seed)`` generates a small world knowledge graph implicitly by
index and writes each entity's page the way Baike editors do:

* a long tail: 5% famous entries (summaries of 300-600 characters, 10-20 infobox rows,
  referenced by many others), 25% mid (80-250, 5-10 rows) and 70% long-tail entries
  (20-80 characters, 2-5 rows, few inbound references);
* summaries from clause templates with several phrasings per relation: its name (面积为…),
  a cue word (生于, 毕业于, 注入 ...) or a Baike convention (the lifespan parentheses, 字/号/原名/
  又称, 「A人」, an appositive description «唐朝诗人»);
* planted properties at the rates in ``rates``, each labelled in ``entry.labels`` (schema in
  ``labels._Page.labels``): infobox rows the text never mentions, extra facts, paraphrased values,
  value-only traps, stale rows, false values the text states as well (the page wrong throughout;
  only other sites, crawlers.mirror.web, give the true one), partial values, long enumerations,
  multi-sense titles, citation marks and stray spaces, near duplicates.

Entry ``i`` depends only on (seed, size, i) and is computed in O(1) (``world`` says how). The first
50 indices are real countries, dynasties and elements with real facts; generated people are
fictional and long dead. Each type belongs to one CDTP domain (``rates.DOMAIN``), except people,
whose domain follows their occupation (a poet is humanities_society, an official history_politics ...).

Measured on one core (Python 3.11, the development container): 100,000 entries in 31 s
(0.31 ms each), resident memory flat at about 90 MB (the caches are bounded).

What the first 2,000 entries of seed 0 hold (tests/crawlers/test_realistic.py checks that each
property occurs): of 8,980 infobox values other than 中文名, 50% are supported by the summary
(by name 19%, cue word 17%, convention 15%; 55 in a paraphrased form), 45% never appear, 3.4%
appear only in a clause about something else, 0.8% are contradicted (stale) and 0.8% given only
in part; 51 (0.6%) are planted false, the text stating the same wrong value (50 of them supported
by it); 1,920 extra facts (617 named by their relation) in 1,203 entries, 254 entries with a
named extra fact after the last supported value; 184 enumerations of 4-10 items, 125 of them
only partly in the infobox; 3% of titles shared by 2-3 entries; 0.85% near duplicates; citation
marks or stray spaces in 70% of summaries.

The modules, each importing only modules listed before it:

* tables: ``rates`` (tiers, planted rates, the type mix), ``fixed`` (the real entities), ``pools``
  (word pools and name tables), ``phrasing`` (how the text states a relation);
* small parts: ``streams`` (seeded randomness), ``values`` (a value, its markup and notations),
  ``records`` (the dataclasses);
* the world: ``world`` (index layout, names, cores, references), and each type's facts in
  ``facts_people``, ``facts_places`` and ``facts_nature``;
* a page's summary: ``noise`` (the infobox rows and the fates planted in them), ``text`` (the
  opening, the body, sentences fitted to length), ``labels`` (the summary assembled with its
  citation marks and stray spaces, and its labels);
* ``corpus``: ``RealisticCorpus``, each entry composed with its infobox, sections, sense and layout.

The pages' HTML is rendered by crawlers.mirror.render, as for the demo profile.
"""

from crawlers.mirror.realistic.corpus import RealisticCorpus
from crawlers.mirror.realistic.fixed import N_FIXED
from crawlers.mirror.realistic.phrasing import ALIASES, FILLERS, LINK_FILLERS, PHRASES
from crawlers.mirror.realistic.rates import INFOBOX_ROWS, REALISTIC_ID_BASE, SUMMARY_CHARS

__all__ = [
    "ALIASES", "FILLERS", "INFOBOX_ROWS", "LINK_FILLERS", "N_FIXED", "PHRASES", "REALISTIC_ID_BASE", "SUMMARY_CHARS",
    "RealisticCorpus",
]
