"""How the realistic corpus is made up: popularity tiers, the rates at which each property is planted,
and the mix of entity types per block (with each type's CDTP domain and family)."""

REALISTIC_ID_BASE = 30_000_000
BLOCK = 100  # the index space is cut into blocks of this many entries with a fixed type mix

# --- Planted rates ----------------------------------------------------------------------------
# Set once, a priori, from how Baike pages typically read (not measured on a Baike sample), and
# never tuned to make a filter score come out at a given figure. The shares a corpus ends up
# with are reported in the package docstring.

# Popularity tiers: in every run of 20 members of a type, 1 famous, 5 mid, 14 long-tail
# (Baike's own long tail: most entries are short stubs nobody links to).
TIER_PATTERN = ("famous",) + ("mid",) * 5 + ("long_tail",) * 14
SUMMARY_CHARS = {"famous": (300, 600), "mid": (80, 250), "long_tail": (20, 80)}
INFOBOX_ROWS = {"famous": (10, 20), "mid": (5, 10), "long_tail": (2, 5)}
# A reference goes to a famous entity half the time, as links on real pages cluster on
# well-known entries; within a tier, lower ranks are favoured (u ** REF_SKEW).
REF_TIER_WEIGHTS = (0.5, 0.3, 0.2)
REF_SKEW = 2.0
# An optional fact of base probability p is known with probability p ** FACT_EXPONENT[tier]:
# famous entities are documented fully, long-tail ones sparsely.
FACT_EXPONENT = {"famous": 0.0, "mid": 1.0, "long_tail": 2.0}

# Row fates. CDTP (section 3.2) keeps about half of all infobox triples: the rest are not
# in the text, so a row is stated with probability P_ROW_STATED before the length budget of
# the tier drops more (long-tail summaries state one or two rows at most).
P_ROW_STATED = 0.55
P_ROW_VALUE_ONLY = 0.06    # of rows with a trap phrasing: the value sits in a clause about something else
P_ROW_CONTRADICTED = 0.05  # of date and quantity rows: the infobox value is stale
P_ROW_FALSE = 0.1          # of stated date and quantity rows: the page is wrong, its infobox and its text alike;
                           # the true value is what other sites (crawlers.mirror.web) state, if any does. High
                           # for an encyclopedia, so that a 1,500-entry crawl holds some fifty to measure on.
P_ROW_PARTIAL = 0.2        # of stated full dates and province-qualified places: the text gives only part
P_RELATION_ALIAS = 0.2     # a minority of pages spell a relation differently (出生时间 for 出生日期)
P_PATTERN = 0.7            # a stated row with a Baike convention in the opening uses it
P_SUBJECTLESS_HEAD = 0.05  # pages without a 中文名 row
# Paraphrased values, of the stated rows where the paraphrase applies.
P_DATE_NOTATION = 0.12     # 1881-09-25 or 1881.9.25 for 1881年9月25日
P_NUMERAL = 0.12           # 一八八一年, 一百二十回 for 1881年, 120回
P_UNIT_WORD = 0.2          # 公里 for 千米, 平方公里 for 平方千米, 公斤 for 千克, 摄氏度 for ℃
P_APPROXIMATE = 0.12       # 约960万平方千米 for 960万平方千米
# Facts the text states that the infobox lacks.
P_EXTRA = 0.3              # of the entity's facts without a row
P_EXTRA_TRAILING = 0.5     # an extra fact goes after the infobox facts rather than among them
MAX_EXTRA = {"famous": 5, "mid": 3, "long_tail": 1}
# Enumerations (代表作品, 主要支流, 主演 ...) of 4-10 items.
P_ENUM_STATED = 0.7        # an enumerable row is listed in full in the text
P_ENUM_INFOBOX_ALL = 0.5   # the infobox lists every item; otherwise only the first few
# How a stated row is phrased outside the opening: by a cue word most often, by the relation's
# name often, by a convention (是一位物理学家, 又称…) least.
HOW_WEIGHTS = {"name": 0.35, "cue": 0.5, "pattern": 0.15}
P_OPENING_EXTRA = 0.5      # an opening convention states a fact that has no row (an extra fact, not named)
P_MERGE = 0.4              # the first body sentence continues the opening sentence after a comma
P_SUBJECT = 0.5            # a body sentence repeats its subject (他, 该河, the name) rather than dropping it
# Noise in the summary string (the project's cleaner removes it).
P_CITATION = 0.25          # a citation mark after a sentence ([3], [4-6])
P_STRAY_SPACE = 0.2        # an entry with one or two stray spaces
# Multi-sense titles and near duplicates, per block of 100 entries.
HOMONYM_GROUPS = ((2, 0.2), (3, 0.5), (4, 0.3))  # about 3 shared titles per ~97 titles: ~3%
# Who shares a title: two people (pp), three people (ppp), a person and a town named after the
# same words (pl), two towns (ll), a novel and the film of it (bf).
HOMONYM_KINDS = (("pp", 0.55), ("ppp", 0.1), ("pl", 0.15), ("ll", 0.1), ("bf", 0.1))
NEAR_DUPLICATES_PER_BLOCK = 1  # 1% of entries are lightly edited copies of an earlier one
RELATED_LINKS = 3              # uniform "related entries" links in the sections keep every page reachable

# --- The type mix -------------------------------------------------------------------------------

BLOCK_MIX = (("person", 34), ("city", 6), ("place", 6), ("river", 4), ("mountain", 3), ("lake", 2),
             ("book", 5), ("film", 3), ("work", 6), ("company", 6), ("university", 3), ("organisation", 3),
             ("plant", 4), ("animal", 4), ("species", 2), ("compound", 3), ("event", 4), ("treaty", 2))
COUNT = dict(BLOCK_MIX)
TYPE_CODE = {t: n for n, t in enumerate(["country", "dynasty", "element", *COUNT])}
DOMAIN = {
    "city": "history_politics", "place": "history_politics", "river": "nature_environment",
    "mountain": "nature_environment", "lake": "nature_environment", "book": "humanities_society",
    "film": "humanities_society", "work": "humanities_society", "company": "technology_economics",
    "university": "humanities_society", "organisation": "technology_economics",
    "plant": "nature_environment", "animal": "nature_environment", "species": "nature_environment",
    "compound": "nature_environment", "event": "history_politics", "treaty": "history_politics",
    "country": "history_politics", "dynasty": "history_politics", "element": "nature_environment",
}
FAMILY = {"person": "person", "city": "geo", "place": "geo", "river": "geo", "mountain": "geo", "lake": "geo",
          "book": "work", "film": "work", "work": "work", "company": "org", "university": "org",
          "organisation": "org", "plant": "nature", "animal": "nature", "species": "nature",
          "compound": "nature", "element": "nature", "event": "history", "treaty": "history",
          "country": "history", "dynasty": "history"}
