"""Precision and recall of triple grounding on hand-labelled judgements.

    python -m bench.grounding_bench [--errors] [--split dev|test|all]

``bench/data/grounding/judgements.jsonl`` holds (text, triple, supported?) judgements
labelled by reading (the rule and the sources are in its README): real Baidu Baike and
Toutiao Baike pages saved in public repositories, the CDTP paper's Tables 2 and 3, and
entries of both profiles of the bundled mirror. Each judgement is run through the alignment's
grounding filter (:class:`filters.rules.grounding.GroundingFilter`, relation names through the alias
table) with the cues a run learns from the crawl the text comes from (``--table-only``: the
reviewable table alone); a kept triple is a "supported" prediction. Reported per split and per source: precision
and recall of "supported", with the old value-only rule (the value appears standalone in
the text) beside it for comparison; ``--errors`` lists every disagreement.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

JUDGEMENTS = Path(__file__).with_name("data") / "grounding" / "judgements.jsonl"


def load(path: Path = JUDGEMENTS) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def source_kind(judgement: dict) -> str:
    return judgement["group"].split("-")[0]  # real | mirror | realistic | cdtp


def learned_cues(kind: str) -> dict[str, list[str]]:
    """The cues a run learns from the corpus a judgement's text comes from (filters.cues_learned): real
    Baidu pages from the 813 saved summaries of bench/data/real_baike (the CDTP tables too), demo mirror
    entries from the demo facts table, realistic ones from the realistic corpus they were drawn from."""
    from crawlers.parsers.text import split_values
    from filters.clean import clean
    from filters.cues_learned import CueLearner, as_table
    from filters.triples import relation_aliases

    aliases = relation_aliases()
    learner = CueLearner()

    def add(title: str, summary: str, rows) -> None:
        facts = [(aliases.get(name, name), clean(v)) for name, value in rows for v in split_values(value)]
        learner.add(clean(summary), facts, [title])

    if kind in ("real", "cdtp"):
        from bench.real_baike_bench import load as load_real

        for entry in load_real():
            add(entry["name"], entry["summary"], entry["infobox"])
    elif kind == "mirror":
        from crawlers.mirror.facts import load_facts

        for entry in load_facts():
            add(entry.title, entry.summary, entry.infobox)
    elif kind == "realistic":
        from crawlers.mirror.realistic import RealisticCorpus

        for entry in RealisticCorpus(2000, 0).take(2000):
            add(entry.title, entry.summary, entry.infobox)
    return as_table(learner.cues())


def predict(judgements: list[dict], learned: bool = False) -> tuple[list[bool], list[bool]]:
    """(relation-aware grounding, value-only matching) predictions, one per judgement; with ``learned``, the
    grounding also uses the cues learned from the corpus each judgement's text comes from, as a run does."""
    from filters.rules.grounding import GroundingFilter
    from filters.text import AlignedText
    from filters.grounding import Grounder, RelationCues
    from filters.triples import relation_aliases
    from schemas import Pair, Triple

    aliases = relation_aliases()
    filters: dict[str, GroundingFilter] = {}
    found, value_only = [], []
    for j in judgements:
        kind = source_kind(j) if learned else ""
        if kind not in filters:
            filters[kind] = GroundingFilter(grounder=Grounder(RelationCues(learned=learned_cues(kind)))) if kind \
                else GroundingFilter()
        pair = Pair(pair_id=j["group"], entity=j["entity"], text=j["text"])
        relation = aliases.get(j["relation"], j["relation"])
        found.append(filters[kind].check(Triple(j["entity"], relation, j["value"]), pair).keep)
        value_only.append(AlignedText(j["text"]).find(j["value"]) is not None)
    return found, value_only


def scores(truth: list[bool], predicted: list[bool]) -> tuple[float, float, int]:
    tp = sum(t and p for t, p in zip(truth, predicted))
    fp = sum(p and not t for t, p in zip(truth, predicted))
    fn = sum(t and not p for t, p in zip(truth, predicted))
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall, len(truth)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="all", choices=["dev", "test", "all"])
    parser.add_argument("--errors", action="store_true", help="list every judgement the grounding gets wrong")
    parser.add_argument("--file", type=Path, default=JUDGEMENTS)
    parser.add_argument("--table-only", action="store_true",
                        help="the reviewable cue table alone, without the cues a run learns from its crawl")
    args = parser.parse_args(argv)
    from filters.normalize import normalize

    judgements = [j for j in load(args.file) if args.split == "all" or j["split"] == args.split]
    # A value that restates the title (华为's 简称 华为) is dropped by policy, whatever the text says.
    policy = [j for j in judgements if normalize(j["value"]) == normalize(j["entity"])]
    judgements = [j for j in judgements if j not in policy]
    found, value_only = predict(judgements, learned=not args.table_only)
    truth = [j["supported"] for j in judgements]
    groups: dict[str, list[int]] = defaultdict(list)
    for n, j in enumerate(judgements):
        for key in ("all", f"split {j['split']}", f"source {source_kind(j)}",
                    f"{j['split']} / {source_kind(j)}"):
            groups[key].append(n)
    print(f"grounding on {len(judgements)} hand-labelled judgements ({args.file.name}, split {args.split}; "
          f"{len(policy)} whose value restates the title left out: the alignment drops those by policy)")
    print(f"{'':<18} {'n':>5} {'precision':>10} {'recall':>8}   {'value-only P':>12} {'R':>6}")
    for key in sorted(groups, key=lambda k: (k != "all", k)):
        rows = groups[key]
        p, r, n = scores([truth[i] for i in rows], [found[i] for i in rows])
        vp, vr, _ = scores([truth[i] for i in rows], [value_only[i] for i in rows])
        print(f"{key:<18} {n:>5} {p:>10.3f} {r:>8.3f}   {vp:>12.3f} {vr:>6.3f}")
    if args.errors:
        print("\ndisagreements (label, predicted, relation, value, note):")
        for j, got in zip(judgements, found):
            if got != j["supported"]:
                print(f"  {j['id']:<28} {'T' if j['supported'] else 'F'} {'T' if got else 'F'}  "
                      f"{j['relation']}={j['value']}  | {j['note']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
