"""What a test-taker reads in a multiple-choice item, audited (``zhbench audit``'s item.true_distractor,
item.family_distractor and item.kind_mismatch): every page of the item's entity as crawled, the value families the
crawl teaches, and the options' written form. The rest of the audit is warehouse.audit.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from filters.normalize import value_key
from schemas import Page, Pair


def asked_end(item: dict) -> str:
    """Which end of its triple a released item asks: tail (any, one of several, is a tail) or head."""
    return item.get("asked") or "tail"


class Readers:
    """What a reader of a multiple-choice item knows beyond the release: every page of its entity (the text as
    crawled, every sense: builders.page_truth) and the value families the crawl teaches (builders.families); both
    from the crawl the manifest names, the same as the item stage read."""

    def __init__(self, pages: list[Path], pairs: list[dict], asked: list[dict]):
        from builders.families import Families, crawl_families, descriptions, learn_near
        from builders.page_truth import PageTruth, page_title
        from filters.rules.grounding import GroundingFilter

        by_head = [i for i in asked if asked_end(i) == "head"]
        heads = {i["head"] for i in asked} | {page_title(i.get("tail") or "") for i in by_head}
        heads |= {o for i in by_head for o in i.get("options") or ()}
        self.texts = _head_texts(pages, heads) if pages else {}
        if not pages:  # the released pairs' texts as crawled stand in for their pages
            for pair in pairs:
                self.texts.setdefault(pair["entity"], []).append(pair.get("source_text") or pair["text"])
        self.pages = PageTruth(lambda wanted: {h: self.texts[h] for h in wanted if h in self.texts}, GroundingFilter())
        self.families = crawl_families(pages) if pages else Families.load(learned=learn_near(descriptions(
            ((f"{p['entity']}#{p.get('sense') or ''}", r, [t["tail"] for t in p["triples"] if t["relation"] == r])
             for p in pairs for r in {t["relation"] for t in p["triples"] or []}), None, set())))


def _head_texts(pages: list[Path], heads: set[str]) -> dict[str, list[str]]:
    """title -> the texts (summary and body) of its pages, for the titles of ``heads``."""
    from schemas.storage.shards import iter_records

    found: dict[str, list[str]] = defaultdict(list)
    for page in iter_records(pages, Page, columns=("url", "status", "title", "summary", "paragraphs")):
        if page.status == "ok" and page.title in heads:
            found[page.title].append("\n".join([page.summary, *page.paragraphs]))
    return found


def audit_reading(items: list[dict], truth, typer, by_pair: dict[str, dict], readers: Readers, out) -> None:
    """The multiple-choice rules a test-taker's reading adds (item.true_distractor, item.family_distractor,
    item.kind_mismatch); ``truth``: what the entities' pages give (warehouse.audit.Truth), ``out``: the config's
    report (warehouse.audit.ConfigReport)."""
    from builders.formats import value_format
    from builders.items import stated_by
    from filters.rules.grounding import GroundingFilter

    states = stated_by(GroundingFilter())
    for item in items:
        options, gold, relation = item["options"] or [], item["answer"], item["relation"]
        index = item["answer_index"]
        name = f"{item['question']} [{gold}]"
        asked = asked_end(item)
        distractors = [o for i, o in enumerate(options) if i != index]
        row = by_pair.get((item["source_pair_ids"] or [""])[0])
        anchors = [gold]
        if asked != "head":
            anchors += sorted(truth.values.get(value_key(item["head"]), {}).get(relation, ()))
        crawled = None if row is None or asked == "head" or not row.get("source_text") else Pair(
            pair_id=f"{row['pair_id']}#source", entity=row["entity"], text=row["source_text"],
            aliases=row["aliases"] or [])
        gold_format = value_format(gold, relation)
        gold_level = typer.answer_type(gold, relation, asked).level
        for option in distractors:
            if asked == "head":
                given = item.get("tail") or ""
                where = readers.pages.gives_head(option, relation, given, gold, readers.families.names(given))
            else:
                where = "text as crawled" if crawled is not None and states(crawled, relation, option) else \
                    readers.pages.states(item["head"], row["aliases"] if row else (), relation, option, anchors)
            if where:
                out.add("item.true_distractor", f"{name}: {option} ({where})")
            family = readers.families.related(option, anchors, relation)
            if family:
                out.add("item.family_distractor", f"{name}: {option} (family of {family})")
            option_format = value_format(option, relation)
            level = typer.option_type(option, relation, asked).level
            if (option_format.kind != gold_format.kind or option_format.span != gold_format.span
                    or (gold_format.kind in ("number", "quantity", "date", "period", "text") and
                        option_format.unit != gold_format.unit)):
                out.add("item.kind_mismatch", f"{name}: {option} is a {option_format.kind} "
                                              f"{option_format.unit}, the gold a {gold_format.kind} {gold_format.unit}")
            elif gold_level and level and gold_level != level:
                out.add("item.kind_mismatch", f"{name}: {option} is a {level}, the gold a {gold_level}")
