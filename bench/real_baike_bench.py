"""The alignment on real Baidu Baike summaries with their infoboxes: yield, values kept, how much is cut.

    python -m bench.real_baike_bench [--show N] [--json]

``bench/data/real_baike/summaries.jsonl`` holds 813 Baidu Baike entries (summary and infobox rows) saved
by a public crawler (repository garlicleek/Mybaidubaike; each line names its file and commit; the README
beside it says more). Mostly foods, produce, plants and basketball players: the partial infoboxes and
free summaries of real pages, not the mirror's.

Each entry goes through the alignment as a run's pages do: the cell split into values and the relation
names through the alias table (filters.triples), the rules built from this corpus (relation counts and the
frequency filter, the lexicon, the cues learned from it), every CDTP rule, the cut. Reported:

* pairs per entry (CDTP keeps about 26%: 7 million pairs of 27 million entries, paper section 3);
* of the values a summary writes out verbatim (a row's value found as it is in the summary, outside the
  entity's name: the title restated is left out), the share the triple filters ground (before the pair rules and the cut), and the
  share a released pair ships;
* triples per pair (and the share of pairs with at most three), the share of pairs whose text was cut, the
  median share of characters kept;
* the drops by reason, and where the values written out went (shipped, cut with a unit that states a fact
  no row gives, not grounded, in a dropped pair); ``--show N`` prints N pairs, source and cut text side by
  side.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

DATA = Path(__file__).with_name("data") / "real_baike" / "summaries.jsonl"
CDTP_PAIRS_PER_ENTRY = 0.26
# What the crawler left of Baidu's citation block under a summary.
_SOURCE_NOTE = re.compile(r"（概述(?:图)?参考来源：\s*）")


def load(path: Path = DATA) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def pairs_of(entries: list[dict]):
    """The entries as pairs, their triples extracted as a page's are."""
    from crawlers.parsers.text import clean_name, split_values
    from filters.clean import clean
    from filters.triples import extract_triples, head_aliases, pair_id
    from schemas import InfoboxEntry, Page, Pair

    out = []
    for entry in entries:
        infobox = [InfoboxEntry(clean_name(name), value, split_values(value)) for name, value in entry["infobox"]]
        page = Page(url=entry["url"], title=entry["name"], summary=entry["summary"], infobox=infobox)
        triples = extract_triples(page)
        text = clean(_SOURCE_NOTE.sub("", entry["summary"]))
        out.append(Pair(pair_id=pair_id(entry["url"]), entity=entry["name"], text=text, url=entry["url"],
                        triples=triples, aliases=head_aliases(entry["name"], triples), source_text=text))
    return out


def rules_of(pairs, min_support: int = 2, lexicon_min_pages: int = 2):
    """The alignment rules a run would build from this corpus."""
    from filters.align import AlignmentRules
    from filters.rules.relation_frequency import frequent_relations
    from filters.cues_learned import CueLearner, as_table
    from filters.triples import relation_aliases

    counts = Counter(r for p in pairs for r in {t.relation for t in p.triples})
    values = Counter(v for p in pairs for v in {t.tail for t in p.triples if len(t.tail) >= 2})
    learner = CueLearner()
    for p in pairs:
        learner.add(p.text, [(t.relation, t.tail) for t in p.triples], [p.entity])
    return AlignmentRules(dict(counts), frequent_relations(dict(counts), min_support), relation_aliases(),
                          lexicon=sorted(v for v, n in values.items() if n >= lexicon_min_pages),
                          learned_cues=as_table(learner.cues()))


def verbatim(pair, value: str) -> bool:
    """Whether the summary writes the value out: found as it is, outside the entity's own name (土豆 in
    「土豆浓汤是一道家常菜」 is the title restated, not a value written out)."""
    from filters.normalize import normalize

    needle, text, name = normalize(value), normalize(pair.source_text), normalize(pair.entity)
    if not needle or needle == name:
        return False
    names = [(m.start(), m.end()) for m in re.finditer(re.escape(name), text)] if len(name) > len(needle) else []
    at = text.find(needle)
    while at != -1:
        if not any(a <= at and at + len(needle) <= b for a, b in names):
            return True
        at = text.find(needle, at + 1)
    return False


def measure(entries: list[dict]) -> dict:
    from filters.base import Funnel, apply_filters

    from filters.base import _judge_triple

    pairs = pairs_of(entries)
    rules = rules_of(pairs)
    triple_filters, pair_filters, cutter = rules.judge()
    grounded = {}  # (pair id, triple index) -> kept by the triple filters alone, before pair rules and the cut
    why = {}  # ... and the reason when not
    for p in pairs:
        for n, t in enumerate(p.triples):
            probe = type(t)(t.head, t.relation, t.tail)
            _judge_triple(probe, p, triple_filters)
            grounded[(p.pair_id, n)] = probe.decision == "kept"
            why[(p.pair_id, n)] = probe.reason
    funnel = Funnel()
    judged = list(apply_filters(pairs, triple_filters, pair_filters, funnel, cutter))
    kept = [p for p in judged if p.decision == "kept"]
    written = [(p, t) for p in judged for t in p.triples if t.relation != "中文名" and verbatim(p, t.tail)]
    written_kept = [(p, t) for p, t in written if p.decision == "kept" and t.decision == "kept"]
    written_grounded = [(p, t) for p in judged for n, t in enumerate(p.triples)
                        if t.relation != "中文名" and verbatim(p, t.tail) and grounded[(p.pair_id, n)]]
    cut = [p for p in kept if p.cuts]
    fate = Counter()  # where each value written out went
    for p in judged:
        for n, t in enumerate(p.triples):
            if t.relation == "中文名" or not verbatim(p, t.tail):
                continue
            if not grounded[(p.pair_id, n)]:
                fate[f"not grounded ({why[(p.pair_id, n)]})"] += 1
            elif p.decision != "kept":
                fate[f"pair dropped ({p.reason})"] += 1
            elif t.decision != "kept":
                fate[f"cut with its unit ({t.reason})"] += 1
            else:
                fate["shipped"] += 1
    return {
        "entries": len(judged), "pairs": len(kept), "pairs_per_entry": len(kept) / max(len(judged), 1),
        "values_written": len(written), "values_written_kept": len(written_kept),
        "values_written_kept_share": len(written_kept) / max(len(written), 1),
        "values_written_grounded_share": len(written_grounded) / max(len(written), 1),
        "values_written_in_kept_pairs_kept_share": len(written_kept) / max(
            sum(1 for p, _ in written if p.decision == "kept"), 1),
        "triples_per_pair": sum(len(p.kept_triples()) for p in kept) / max(len(kept), 1),
        "pairs_at_most_three_triples": sum(1 for p in kept if len(p.kept_triples()) <= 3) / max(len(kept), 1),
        "pairs_cut": len(cut) / max(len(kept), 1),
        "median_chars_kept": statistics.median(len(p.text) / max(len(p.source_text), 1) for p in kept) if kept else 0,
        "pairs_dropped": dict(Counter(p.reason for p in judged if p.decision != "kept").most_common()),
        "triples_dropped": dict(funnel.triples_dropped.most_common()),
        "learned_cues": sum(len(v) for v in rules.learned_cues.values()),
        "values_written_fate": dict(fate.most_common()),
        "_pairs": judged,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, default=DATA)
    parser.add_argument("--show", type=int, default=0, help="print this many kept pairs, source and cut text")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = measure(load(args.file))
    judged = result.pop("_pairs")
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
        return 0
    print(f"{result['entries']} real Baidu Baike entries ({args.file.name})")
    print(f"  pairs                {result['pairs']} ({result['pairs_per_entry']:.1%} of entries; CDTP about "
          f"{CDTP_PAIRS_PER_ENTRY:.0%})")
    print(f"  values written out   {result['values_written']}: grounded by the triple filters "
          f"{result['values_written_grounded_share']:.1%}; shipped in a pair {result['values_written_kept']} "
          f"({result['values_written_kept_share']:.1%}; of those in kept pairs "
          f"{result['values_written_in_kept_pairs_kept_share']:.1%})")
    print(f"  triples per pair     {result['triples_per_pair']:.2f}; pairs with at most three triples "
          f"{result['pairs_at_most_three_triples']:.1%} (CDTP 96%)")
    print(f"  pairs cut            {result['pairs_cut']:.1%}, median share of characters kept "
          f"{result['median_chars_kept']:.1%}")
    print(f"  learned cues         {result['learned_cues']}")
    print("  pairs dropped        " + ", ".join(f"{k} {v}" for k, v in result["pairs_dropped"].items()))
    print("  triples dropped      " + ", ".join(f"{k} {v}" for k, v in result["triples_dropped"].items()))
    total = max(sum(result["values_written_fate"].values()), 1)
    print("  values written out   " + ", ".join(f"{k} {v / total:.1%}" for k, v in result["values_written_fate"].items()))
    kept = [p for p in judged if p.decision == "kept"]
    for pair in random.Random(args.seed).sample(kept, min(args.show, len(kept))):
        print(f"\n== {pair.entity}\n  source: {pair.source_text}\n  cut:    {pair.text}")
        print("  triples: " + "；".join(f"{t.relation}={t.tail}" for t in pair.kept_triples()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
