"""Items read as a test-taker reads them: a seeded sample for labelling, and the figures of a labelled sample.

    python -m bench.item_sample real --out DIR            # items from real Baidu Baike summaries (no crawl needed)
    python -m bench.item_sample draw --release NAME=DIR ... --out sample.jsonl [--per-kind 25] [--seed 42]
    python -m bench.item_sample score sample.jsonl labels.jsonl [--json]

``real`` builds items from the 813 real Baidu Baike entries of ``bench/data/real_baike`` (summary and infobox as a
public crawler saved them: repository garlicleek/Mybaidubaike, no licence stated, the texts Baidu Baike's; mostly
regional produce and foods, plants, NBA players): each entry is aligned as a run aligns a page (the rules learned
from this corpus, every CDTP rule, the cut), then the item stage builds every kind from the judged pairs with the
entries as the crawl's pages. No search validation: there is no web here.

``draw`` samples ``--per-kind`` kept items of kgc, qa, cloze and simpleqa from each release or item directory
(``random.Random(seed)`` over the items in id order), each with what an annotator needs: the question, the
options, the gold, ``also_true``, and the text of the entity's pages. ``score`` reads the labels (one JSON object a
line: ``item_id``, ``right_options``: every option a test-taker who knows the world would defend, ``wrong_kind``:
options of another kind than the gold, ``other_fillers``: for a cloze blank, other values that make a true
sentence, ``other_answers``: for a short answer, other values that answer it, ``other_forms``: the same fact in a
form the scoring misses, ``sound``: the item as a whole is a valid test item, ``note``) and reports, per source
and kind, the items with more than one defensible answer, options of the wrong kind, cloze blanks with another
filler, and the scoring gaps. The labelling rule is in ``bench/data/items/README.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

KINDS = ("kgc", "qa", "cloze", "simpleqa")


def real_items(out: Path) -> Path:
    """Items of every kind from the real summaries; returns the directory of their shards."""
    from datetime import datetime, timezone

    from bench.real_baike_bench import _SOURCE_NOTE, load, pairs_of, rules_of
    from crawlers.parsers.text import clean_name, split_values
    from filters.base import Funnel, apply_filters
    from filters.domains import DomainAssigner, label_pairs, load_taxonomy
    from filters.embeddings import make_embedder
    from flows.items import items_stage
    from flows.settings import AlignSettings, ItemsSettings
    from schemas import InfoboxEntry, Item, Page, Pair
    from schemas.storage.shards import ShardWriter

    entries = load()
    pairs = pairs_of(entries)
    rules = rules_of(pairs)
    triple_filters, pair_filters, cutter = rules.judge()
    align = AlignSettings()
    assigner = DomainAssigner(load_taxonomy(align.taxonomy), make_embedder(align.embedder, None),
                              align.domain_rule_weight, topics=align.topics)
    judged = list(label_pairs(apply_filters(pairs, triple_filters, pair_filters, Funnel(), cutter), assigner))
    out.mkdir(parents=True, exist_ok=True)
    with ShardWriter(out / "pairs", "pairs", Pair) as writer:
        writer.write_all(judged)
    pair_shards = writer.paths
    fetched = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with ShardWriter(out / "pages", "pages", Page) as writer:
        for entry in entries:
            infobox = [InfoboxEntry(clean_name(n), v, split_values(v)) for n, v in entry["infobox"]]
            writer.write(Page(url=entry["url"], title=entry["name"], status="ok", source="baidu",
                              summary=_SOURCE_NOTE.sub("", entry["summary"]), infobox=infobox, fetched_at=fetched))
    page_shards = writer.paths
    result = items_stage(pair_shards, ItemsSettings(), out / "items", cache_dir=out / "cache", page_shards=page_shards)
    kept = Counter(i.kind for i in _items(result["shards"]) if i.decision == "kept")
    print(f"real: {len(entries)} entries, {sum(p.decision == 'kept' for p in judged)} pairs kept; items "
          + ", ".join(f"{k} {kept[k]}" for k in sorted(kept)), file=sys.stderr)
    return out


def _items(paths):
    from schemas import Item
    from schemas.storage.shards import iter_records

    return list(iter_records(paths, Item))


def _source(directory: Path) -> tuple[list[dict], list[Path]]:
    """(kept item rows, page shards) of a release directory or a ``real`` output directory."""
    import pyarrow.parquet as pq

    directory = Path(directory)
    manifest = directory / "manifest.json"
    if manifest.is_file():
        rows = [r for kind in KINDS for path in sorted((directory / kind).glob("*.parquet"))
                for r in pq.read_table(path).to_pylist()]
        data_dir = directory.parents[2]
        crawl = json.loads(manifest.read_text(encoding="utf-8")).get("sources", {}).get("crawl", [])
        return rows, [data_dir / p for p in crawl]
    shards = sorted((directory / "items").rglob("items-*.parquet"))
    shards = [p for p in shards if p.parent.name == "items"] or shards
    rows = [i.to_row() for i in _items(shards) if i.decision == "kept"]
    return rows, sorted((directory / "pages").glob("*.parquet"))


def draw(sources: dict[str, Path], per_kind: int, seed: int) -> list[dict]:
    from schemas import Page
    from schemas.storage.shards import iter_records

    sample: list[dict] = []
    for name, directory in sources.items():
        rows, pages = _source(directory)
        by_kind: dict[str, list[dict]] = defaultdict(list)
        for row in sorted(rows, key=lambda r: r["item_id"]):
            if row["kind"] in KINDS:
                by_kind[row["kind"]].append(row)
        rng = random.Random(seed)
        chosen = [r for kind in KINDS for r in rng.sample(by_kind[kind], min(per_kind, len(by_kind[kind])))]
        heads = {r["head"] for r in chosen}
        texts: dict[str, list[str]] = defaultdict(list)
        for page in iter_records(pages, Page, columns=("url", "status", "title", "subtitle", "summary", "paragraphs")):
            if page.status == "ok" and page.title in heads:
                texts[page.title].append(f"【{page.subtitle or page.title}】" + "\n".join([page.summary, *page.paragraphs]))
        for r in chosen:
            sample.append({"source": name, "item_id": r["item_id"], "kind": r["kind"], "head": r["head"],
                           "sense": r.get("sense") or "", "relation": r["relation"], "question": r["question"],
                           "options": r.get("options") or [], "answer": r["answer"],
                           "also_true": r.get("also_true") or [], "pages": texts.get(r["head"], [])})
    return sample


def score(sample: list[dict], labels: list[dict]) -> dict:
    by_id = {label["item_id"]: label for label in labels}
    table: dict[tuple[str, str], Counter] = defaultdict(Counter)
    missing = [s["item_id"] for s in sample if s["item_id"] not in by_id]
    for s in sample:
        label = by_id.get(s["item_id"])
        if label is None:
            continue
        row = table[(s["source"], s["kind"])]
        row["items"] += 1
        if s["kind"] in ("kgc", "qa"):
            right = set(label.get("right_options") or [])
            row["several_right"] += len(right - {s["answer"]}) > 0
            row["gold_wrong"] += s["answer"] not in right
            row["options"] += len(s["options"])
            row["wrong_kind"] += len(label.get("wrong_kind") or [])
            row["items_wrong_kind"] += bool(label.get("wrong_kind"))
        if s["kind"] == "cloze":
            row["other_filler"] += bool(label.get("other_fillers"))
        if s["kind"] == "simpleqa":
            row["several_right"] += bool(label.get("other_answers"))
        if s["kind"] in ("cloze", "simpleqa"):
            row["other_forms"] += bool(label.get("other_forms"))
        row["sound"] += bool(label.get("sound"))
    total = Counter()
    for row in table.values():
        total.update(row)
    return {"by_source_kind": {f"{a}/{b}": dict(c) for (a, b), c in sorted(table.items())}, "total": dict(total),
            "missing": missing}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.item_sample", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    real = sub.add_parser("real")
    real.add_argument("--out", type=Path, required=True)
    drawing = sub.add_parser("draw")
    drawing.add_argument("--release", action="append", required=True, help="NAME=DIR, a release or `real` output")
    drawing.add_argument("--out", type=Path, required=True)
    drawing.add_argument("--per-kind", type=int, default=25)
    drawing.add_argument("--seed", type=int, default=42)
    scoring = sub.add_parser("score")
    scoring.add_argument("sample", type=Path)
    scoring.add_argument("labels", type=Path)
    scoring.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "real":
        print(real_items(args.out))
        return 0
    if args.command == "draw":
        sources = dict(spec.split("=", 1) for spec in args.release)
        sample = draw({k: Path(v) for k, v in sources.items()}, args.per_kind, args.seed)
        args.out.write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in sample), encoding="utf-8")
        print(f"{len(sample)} items drawn to {args.out}", file=sys.stderr)
        return 0
    read = lambda p: [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]  # noqa
    result = score(read(args.sample), read(args.labels))
    print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
