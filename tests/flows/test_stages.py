"""Stage functions of the cdtp flow, without the engine."""

from __future__ import annotations

import json

from flows.cdtp import dedup_stage
from flows.settings import DedupSettings
from schemas import Pair, Triple
from warehouse.shards import ShardWriter, iter_records


def test_dedup_stage_drops_later_copies_and_updates_the_funnel(tmp_path):
    text = "长江是亚洲第一长河和世界第三长河，全长6397千米，发源于青藏高原的唐古拉山脉各拉丹冬峰，注入东海。"
    pairs = [
        Pair(pair_id="a", entity="长江", text=text, triples=[Triple("长江", "全长", "6397千米")]),
        Pair(pair_id="b", entity="长江", text=text.replace("，", "；", 1), triples=[Triple("长江", "全长", "6397千米")]),
        Pair(pair_id="c", entity="黄河", text="黄河是中国第二长河，全长约5464千米，注入渤海。",
             triples=[Triple("黄河", "全长", "约5464千米")]),
        Pair(pair_id="d", entity="淮河", text=text, decision="dropped", reason="pair:no_grounded_triple"),
    ]
    with ShardWriter(tmp_path / "in", "pairs", Pair) as writer:
        writer.write_all(pairs)
    funnel = {"pairs_in": 4, "pairs_kept": 3, "pairs_dropped": {"pair:no_grounded_triple": 1}}
    result = dedup_stage(writer.paths, DedupSettings(), funnel, tmp_path / "out")
    decisions = {p.pair_id: (p.decision, p.reason) for p in iter_records(result["shards"], Pair)}
    assert decisions == {"a": ("kept", ""), "b": ("dropped", "dedup:near_duplicate"), "c": ("kept", ""),
                         "d": ("dropped", "pair:no_grounded_triple")}
    assert result["funnel"]["pairs_kept"] == 2
    assert result["funnel"]["pairs_dropped"] == {"dedup:near_duplicate": 1, "pair:no_grounded_triple": 1}
    (group,) = [json.loads(line) for line in (tmp_path / "out" / "duplicates.jsonl").read_text().splitlines()]
    assert (group["pair_id"], group["duplicate_of"], group["kind"]) == ("b", "a", "near")
