"""Precision and recall of triple grounding on hand-labelled judgements.

    python -m bench.grounding_bench [--errors] [--split dev|test|all]

``bench/data/grounding/judgements.jsonl`` holds (text, triple, supported?) judgements
labelled by reading (the rule and the sources are in its README): real Baidu Baike and
Toutiao Baike pages saved in public repositories, the CDTP paper's Tables 2 and 3, and
entries of the bundled mirror. Each judgement is run through the alignment's grounding
filter (:class:`filters.align.GroundingFilter`, relation names through the alias table);
a kept triple is a "supported" prediction. Reported per split and per source: precision
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
    return judgement["group"].split("-")[0]  # real | mirror | cdtp


def predict(judgements: list[dict]) -> tuple[list[bool], list[bool]]:
    """(relation-aware grounding, value-only matching) predictions, one per judgement."""
    from filters.align import AlignedText, GroundingFilter
    from filters.triples import relation_aliases
    from schemas import Pair, Triple

    aliases = relation_aliases()
    grounding = GroundingFilter()
    found, value_only = [], []
    for j in judgements:
        pair = Pair(pair_id=j["group"], entity=j["entity"], text=j["text"])
        relation = aliases.get(j["relation"], j["relation"])
        found.append(grounding.check(Triple(j["entity"], relation, j["value"]), pair).keep)
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
    args = parser.parse_args(argv)
    from filters.normalize import normalize

    judgements = [j for j in load(args.file) if args.split == "all" or j["split"] == args.split]
    # A value that restates the title (华为's 简称 华为) is dropped by policy, whatever the text says.
    policy = [j for j in judgements if normalize(j["value"]) == normalize(j["entity"])]
    judgements = [j for j in judgements if j not in policy]
    found, value_only = predict(judgements)
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
