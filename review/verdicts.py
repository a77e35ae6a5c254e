"""Settled reviews applied to the next release's items and pairs.

Per item with a settled verdict (agreed or adjudicated, in any earlier review of the same item id):

* rejected: dropped, reason ``review:rejected``;
* accepted, and the human answer is the pipeline's after :func:`review.store.answer_key`: kept,
  ``human_review`` added to ``verified_by``;
* accepted by an adjudicator with another answer: the answer is replaced (for options, the option
  with that answer becomes the gold; none has it: dropped, ``review:answer_not_in_options``), and
  ``verified_by`` keeps only ``human_review``: the automatic checks judged the old answer;
* accepted by two annotators with another answer than the pipeline's: dropped,
  ``review:answer_differs`` (Chinese SimpleQA keeps only items where people and pipeline agree).

A rejected pair (``cdtp_pairs``) is dropped from the pairs, with the triple-to-text items made
from it (``review:pair_rejected``): their text is the pair's.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from review.store import ReviewStore, answer_key

VERIFIED = "human_review"
OPTION_KINDS = ("qa", "kgc")


def apply_item(row: dict, settled: dict, counts: Counter) -> dict:
    """One item row after its settled review (``row`` is not changed)."""
    row = dict(row)
    counts["reviewed"] += 1
    counts[settled["status"]] += 1
    if settled["verdict"] == "reject":
        counts["dropped_rejected"] += 1
        return _drop(row, "review:rejected")
    human = settled["answer"] or row["answer"]
    if answer_key(human) != answer_key(row["answer"]):
        if settled["status"] != "adjudicated":
            counts["dropped_answer_differs"] += 1
            return _drop(row, "review:answer_differs")
        if row["kind"] in OPTION_KINDS:
            keys = [answer_key(o) for o in row["options"] or []]
            if answer_key(human) not in keys:
                counts["dropped_answer_not_in_options"] += 1
                return _drop(row, "review:answer_not_in_options")
            row["answer_index"] = keys.index(answer_key(human))
            human = row["options"][row["answer_index"]]
        if row.get("tail") == row["answer"]:
            row["tail"] = human
        row["answer"] = human
        counts["answers_applied"] += 1
        # The other sites' pages the evidence check kept stated the old answer: they go, and the provenance
        # says who set this one (zhbench audit then reads no stored text for it).
        provenance = json.loads(row.get("provenance") or "{}")
        if provenance.pop("evidence", None) is not None:
            row["urls"] = list(row.get("urls") or [])[:1]
        provenance["answer_set_by"] = VERIFIED
        row["provenance"] = json.dumps(provenance, ensure_ascii=False, sort_keys=True)
        # The automatic checks judged the old answer; of the new one, only people's check can be claimed.
        row["verified_by"] = []
    row["verified_by"] = [*(v for v in row["verified_by"] or [] if v != VERIFIED), VERIFIED]
    counts["verified"] += 1
    return row


def _drop(row: dict, reason: str) -> dict:
    if row.get("decision") == "kept":
        row["decision"], row["reason"] = "dropped", reason
    return row


def apply_verdicts(store_path: Path, item_shards: list[Path], pair_shards: list[Path], out_dir: Path
                   ) -> tuple[list[Path], list[Path], dict]:
    """The item and pair shards with the settled reviews applied (shards without a reviewed record are
    passed on as they are; changed ones are written to ``out_dir``), and the counts for the card."""
    if not Path(store_path).is_file():
        return item_shards, pair_shards, {}
    store = ReviewStore(store_path)
    settled = store.settled()
    if not settled:
        return item_shards, pair_shards, {}
    counts: Counter = Counter()
    rejected_pairs = {i for i, s in settled.items() if s["verdict"] == "reject"}
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    def rewrite(shards: list[Path], id_column: str, touched: set[str] | None, change) -> list[Path]:
        """Shards holding an id of ``touched`` (every shard when None) rewritten with ``change(row)`` (a new
        row, or None to keep it); the others passed on as they are."""
        out = []
        for n, shard in enumerate(shards):
            table = pq.read_table(shard)
            if touched is not None and touched.isdisjoint(table.column(id_column).to_pylist()):
                out.append(shard)
                continue
            rows = [change(row) or row for row in table.to_pylist()]
            path = out_dir / f"{id_column.split('_')[0]}-{n:05d}.parquet"
            pq.write_table(pa.Table.from_pylist(rows, table.schema), path)
            out.append(path)
        return out

    def item_change(row):
        if row["decision"] != "kept":
            return None
        if row["kind"] == "t2t" and rejected_pairs & set(row["source_pair_ids"] or []):
            counts["dropped_pair_rejected"] += 1
            return _drop(dict(row), "review:pair_rejected")
        found = settled.get(row["item_id"])
        return apply_item(row, found, counts) if found else None

    def pair_change(row):
        if row["pair_id"] not in rejected_pairs or row["decision"] != "kept":
            return None
        counts["pairs_dropped_rejected"] += 1
        return _drop(dict(row), "review:rejected")

    # The t2t items of a rejected pair change too, and any shard may hold one: then every shard is read.
    items = rewrite(item_shards, "item_id", None if rejected_pairs else set(settled), item_change)
    pairs = rewrite(pair_shards, "pair_id", rejected_pairs, pair_change) if rejected_pairs else pair_shards
    summary = {k: counts[k] for k in ("reviewed", "agreed", "adjudicated", "verified", "answers_applied",
                                      "dropped_rejected", "dropped_answer_differs", "dropped_answer_not_in_options",
                                      "dropped_pair_rejected", "pairs_dropped_rejected")}
    summary["dropped"] = sum(v for k, v in summary.items() if k.startswith("dropped_"))
    return items, pairs, summary


def rejected_relations(data_dir: Path) -> list[str]:
    """Relations people rejected in review (review/store.py); none while there is no review file."""
    path = Path(data_dir) / "review.sqlite"
    return ReviewStore(path).rejected_relations() if path.is_file() else []
