"""The CDTP filters against the realistic mirror's planted labels, and the funnel next to CDTP's figures.

    python -m bench.realistic_bench [--size 5000] [--seed 0] [--funnel] [--dir /tmp/zhbench-realistic]

Entries of the realistic profile (crawlers.mirror.realistic) are rendered as Baidu pages and parsed
back (the parser and cleaner see their citation marks and stray spaces), so every record is what a
crawl of the mirror would hold; each entry's labels say what its summary states. Reported:

* grounding (with the relation cues a run learns from these pages): precision and recall of "the text
  states this infobox value" against the labelled rows (``supported``), by how the row was planted;
* each pair rule on its own (position index, trailing relation, enumeration), applied to the triples
  the grounding kept, against the truth the labels give: the position index of the supported rows
  at most 0.75; a relation named, after the last supported mention, by an extra fact no supported
  row covers; an enumeration with an item no supported row gives;
* with ``--funnel``: the whole pipeline after the crawl (alignment, dedup, search validation, items)
  on the same pages, with the share of entries that become pairs, of triples kept, of pairs with at
  most three triples, beside the CDTP paper's figures (about 26% of entries, about half of the
  triples, 96% of pairs), and the multiple-choice items that got nine distractors.

Deterministic for a seed. 100,000 entries take several minutes (rendering and parsing dominate).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

CDTP = {"pairs_per_entry": 0.26, "triples_kept": 0.5, "pairs_le3": 0.96}


def pages(size: int, seed: int, out_dir: Path) -> tuple[list[Path], dict[str, dict]]:
    """Page shards of the corpus (rendered and parsed as a crawl would), and each page URL's labels."""
    from crawlers.mirror import render
    from crawlers.mirror.site import Site
    from crawlers.parsers import parse
    from schemas import Page
    from schemas.storage.shards import ShardWriter

    site = Site(profile="realistic", size=size, seed=seed, faults=False)
    labels: dict[str, dict] = {}
    fetched = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with ShardWriter(out_dir, "pages", Page) as writer:
        for entry in site.entries:
            url = "http://mirror.invalid" + render.item_path(entry.title, entry.baidu_id)
            page = parse(site._render_baidu(entry).body, url)
            page.canonical_url, page.fetched_at, page.content_hash = url, fetched, f"{entry.baidu_id:016x}"
            writer.write(page)
            labels[url] = entry.labels
    return writer.paths, labels


def _scores(pairs: list[tuple[bool, bool]]) -> tuple[float, float, int, int]:
    tp = sum(t and p for t, p in pairs)
    fp = sum(p and not t for t, p in pairs)
    fn = sum(t and not p for t, p in pairs)
    return (tp / (tp + fp) if tp + fp else 1.0, tp / (tp + fn) if tp + fn else 1.0, tp + fn, len(pairs))


LIST_JOINS = ("、", "和", "及", "与", "以及")


def listed(label: dict) -> list[list[tuple[str, bool]]]:
    """Lists the labels show: mentions (rows and extra facts, by their spans) next to each other, joined only
    by 、 or a final 和/及/与; per item, whether a supported row gives it."""
    clean = label["clean_summary"]
    mentions = sorted([(r["span"][0], r["span"][1], r["supported"]) for r in label["rows"] if r["span"]]
                      + [(x["span"][0], x["span"][1], False) for x in label["extra_facts"]])
    lists, current = [], []
    for start, end, supported in mentions:
        if current and clean[current[-1][1]:start] in LIST_JOINS:
            current.append((start, end, supported))
            continue
        if len(current) > 1:
            lists.append(current)
        current = [(start, end, supported)]
    if len(current) > 1:
        lists.append(current)
    return [[(clean[a:b], ok) for a, b, ok in group] for group in lists]


def rules(page_shards: list[Path], labels: dict[str, dict]) -> dict:
    """Grounding and each pair rule against the labels."""
    from filters.rules.enumeration import EnumerationFilter
    from filters.rules.grounding import GroundedPairFilter, GroundingFilter
    from filters.rules.position_index import PositionIndexFilter
    from filters.rules.trailing_relation import TrailingRelationFilter
    from filters.text import PairTextCache
    from filters.normalize import normalize
    from filters.triples import page_to_pair, relation_aliases
    from schemas import Page
    from schemas.storage.shards import iter_records

    aliases = relation_aliases()
    canonical = lambda r: aliases.get(r, r)  # noqa: E731
    vocabulary = Counter()
    pairs = []
    for page in iter_records(page_shards, Page):
        if page.status == "ok" and page.url in labels:
            pair = page_to_pair(page)
            pairs.append((pair, labels[page.url]))
            vocabulary.update({t.relation for t in pair.triples})
    # the grounding with the cues a run learns from these pages (filters.cues_learned)
    from filters.cues_learned import CueLearner, as_table
    from filters.grounding import Grounder, RelationCues

    learner = CueLearner()
    for pair, _ in pairs:
        learner.add(pair.text, [(t.relation, t.tail) for t in pair.triples], [pair.entity])
    cache = PairTextCache()
    grounding = GroundingFilter(cache, Grounder(RelationCues(learned=as_table(learner.cues()))))
    grounded_pair = GroundedPairFilter(cache)
    position = PositionIndexFilter(0.75)
    trailing = TrailingRelationFilter(vocabulary, cache, aliases=aliases)
    enumeration = EnumerationFilter(cache)
    by_how: dict[str, list[tuple[bool, bool]]] = {}
    judged = {"position_index": [], "trailing_relation": [], "enumeration": []}
    for pair, label in pairs:
        rows = {(canonical(r["relation"]), normalize(r["value"])): r for r in label["rows"]}
        for t in pair.triples:
            verdict = grounding.check(t, pair)
            t.decision, t.span_end = ("kept" if verdict.keep else "dropped"), verdict.info.get("span_end", -1)
            row = rows.get((t.relation, normalize(t.tail)))
            if row is None or t.relation == "中文名" or normalize(t.tail) == normalize(pair.entity):
                continue  # 中文名 restates the title: dropped by policy, not by the text
            by_how.setdefault(row["how"], []).append((row["supported"], verdict.keep))
        supported = [r for r in label["rows"] if r["supported"] and canonical(r["relation"]) != "中文名"]
        if not supported or not pair.kept_triples():
            continue
        clean = label["clean_summary"]
        last = max(r["span"][1] for r in supported)
        truth_index = len(normalize(clean[:last])) / max(len(normalize(clean)), 1)
        covered = {canonical(r["relation"]) for r in supported}
        given = {normalize(r["value"]).strip("《》") for r in supported}
        stated_after = [x for x in label["extra_facts"] if x["named"] and x["span"][0] >= last] + \
            [r for r in label["rows"] if not r["supported"] and r["span"] and r["named"] and r["span"][0] >= last] + \
            [{"relation": name} for f in label["fillers"] if f["span"][0] >= last for name in f["names"]]
        truths = {
            "position_index": truth_index <= 0.75,
            # a fact of the entry stated after the last supported mention, by its relation's name, that no
            # supported row covers (an extra fact, or a row's value given otherwise)
            # (by a name of the corpus vocabulary: CDTP cross-references "all Baike-extracted relations")
            "trailing_relation": any(canonical(x["relation"]) not in covered and canonical(x["relation"]) in vocabulary
                                     for x in stated_after),
            # a list in the text with an item no supported row gives: a planted enumeration, or a list inside a
            # sentence that states no fact of the entry (「与某某、某某交往甚密」)
            "enumeration": any(normalize(item).strip("《》") not in given for e in label["enumerations"]
                               for item in e["items"])
            or any("、" in clean[f["span"][0]:f["span"][1]] for f in label["fillers"])
            or any(not all(supported for _, supported in items) for items in listed(label)),
        }
        index = grounded_pair.check(pair)
        pair.position_index = index.info.get("position_index")
        predicted = {"position_index": not position.check(pair).keep,
                     "trailing_relation": not trailing.check(pair).keep,
                     "enumeration": not enumeration.check(pair).keep}
        for name in judged:
            judged[name].append((truths[name], predicted[name]))
    every = [x for v in by_how.values() for x in v]
    return {"pairs": len(pairs), "grounding": _scores(every),
            "grounding_by_how": {k: _scores(v) for k, v in sorted(by_how.items())},
            "rules": {k: _scores(v) for k, v in judged.items()}}


def funnel(page_shards: list[Path], work: Path) -> dict:
    """The stages of a run after the crawl, on the same pages."""
    from filters.align_stage import align_stage
    from filters.dedup_stage import dedup_stage
    from flows.items import items_stage
    from flows.settings import AlignSettings, DedupSettings, ItemsSettings, VerifySettings
    from flows.verify import verify_stage
    from schemas import Pair
    from schemas.storage.shards import iter_records

    aligned = align_stage(page_shards, AlignSettings(), work / "pairs")
    deduped = dedup_stage(aligned.shards, DedupSettings(against_releases=False), aligned.funnel, work / "dedup")
    verified = verify_stage(deduped["shards"], page_shards, VerifySettings(), deduped["funnel"], work / "verified",
                            work / "catalog.duckdb", aligned.rules)
    entries = sum(aligned.pages_by_status.values())
    out = {}
    for name, shards, counts in (("without search validation", deduped["shards"], deduped["funnel"]),
                                 ("with search validation (BM25 over the crawl)", verified["shards"],
                                  verified["funnel"])):
        kept = [p for p in iter_records(shards, Pair) if p.decision == "kept"]
        sizes = Counter(len(p.kept_triples()) for p in kept)
        out[name] = {"entries": entries, "pairs": len(kept), "pairs_per_entry": len(kept) / max(entries, 1),
                     "triples_kept": counts["triples_kept"] / max(counts["triples_in"], 1),
                     # the 中文名 row restating the title is dropped by policy, not for what the text says
                     "triples_kept_of_others": counts["triples_kept"] / max(
                         counts["triples_in"] - counts["triples_dropped"].get("grounding:restates_head", 0), 1),
                     "triples_in_kept_pairs": sum(sizes[k] * k for k in sizes),
                     "pairs_le3": sum(v for k, v in sizes.items() if k <= 3) / max(len(kept), 1),
                     "triples_per_pair": sum(sizes[k] * k for k in sizes) / max(len(kept), 1),
                     "pairs_cut": sum(1 for p in kept if p.cuts) / max(len(kept), 1),
                     "median_chars_kept": (statistics.median(len(p.text) / max(len(p.source_text), 1) for p in kept)
                                           if kept else 0.0),
                     "pairs_dropped": counts["pairs_dropped"]}
    for name, shards in (("items", verified["shards"]), ("items without search validation", deduped["shards"])):
        report = items_stage(shards, ItemsSettings(), work / name.replace(" ", "-"), work / "cache",
                             page_shards=page_shards)["report"]
        out[name] = {k: report.get(k) for k in ("items_kept", "mcq_candidates", "mcq_with_nine_distractors",
                                                "distractor_source_share", "asked")}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--funnel", action="store_true", help="also run the stages after the crawl")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/zhbench-realistic"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    shutil.rmtree(args.dir, ignore_errors=True)
    started = time.perf_counter()
    shards, labels = pages(args.size, args.seed, args.dir / "pages")
    print(f"{args.size} realistic entries (seed {args.seed}) rendered and parsed in "
          f"{time.perf_counter() - started:.0f} s")
    started = time.perf_counter()
    result = rules(shards, labels)
    print(f"filters against the labels ({result['pairs']} pages, {time.perf_counter() - started:.0f} s)")
    print(f"  {'':<22} {'precision':>9} {'recall':>7} {'positives':>9} {'judged':>7}")
    p, r, pos, n = result["grounding"]
    print(f"  {'grounding':<22} {p:>9.3f} {r:>7.3f} {pos:>9} {n:>7}")
    for how, (p, r, pos, n) in result["grounding_by_how"].items():
        print(f"    rows planted {how:<9} {p:>9.3f} {r:>7.3f} {pos:>9} {n:>7}")
    for name, (p, r, pos, n) in result["rules"].items():
        print(f"  {name:<22} {p:>9.3f} {r:>7.3f} {pos:>9} {n:>7}")
    if args.funnel:
        started = time.perf_counter()
        result["funnel"] = funnel(shards, args.dir / "run")
        print(f"\nthe stages after the crawl ({time.perf_counter() - started:.0f} s), beside CDTP's figures")
        for name, f in result["funnel"].items():
            if name.startswith("items"):
                print(f"  {name}: " + json.dumps(f, ensure_ascii=False))
                continue
            print(f"  {name}: {f['pairs']} pairs of {f['entries']} entries ({f['pairs_per_entry']:.1%}; CDTP about "
                  f"{CDTP['pairs_per_entry']:.0%}), triples kept {f['triples_kept']:.1%} "
                  f"({f['triples_kept_of_others']:.1%} of those not restating the title; CDTP about half), "
                  "pairs with at most 3 triples "
                  f"{f['pairs_le3']:.1%} (CDTP 96%), triples per pair {f['triples_per_pair']:.2f}, texts cut "
                  f"{f['pairs_cut']:.1%} (median share of characters kept {f['median_chars_kept']:.1%})")
            print("    pairs dropped: " + ", ".join(f"{k} {v}" for k, v in sorted(f["pairs_dropped"].items(),
                                                                                      key=lambda x: -x[1])))
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2, default=str))
    shutil.rmtree(args.dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
