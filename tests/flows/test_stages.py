"""Stage functions of the cdtp flow, without the engine."""

from __future__ import annotations

import json

from filters.dedup_stage import dedup_stage
from flows.settings import DedupSettings
from schemas import Pair, Triple
from schemas.storage.shards import ShardWriter, iter_records


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


def _search_validated(tmp_path, cut: bool):
    """长江's pair through search validation, where search finds 长江 with 东海 on another page but never with
    6397千米: the 全长 triple goes, and the text still states it."""
    from datetime import datetime, timezone

    from filters.align import AlignmentRules
    from filters.base import Funnel, apply_filters
    from flows.settings import VerifySettings
    from flows.verify import verify_stage
    from schemas import Page

    text = "长江注入东海，是亚洲第一长河，也是世界第三长河，全长6397千米。"
    rules = AlignmentRules({"注入": 2, "全长": 2}, ["注入", "全长"], cut=cut)
    pair = Pair(pair_id="cj", entity="长江", text=text, url="http://x/cj",
                triples=[Triple("长江", "注入", "东海"), Triple("长江", "全长", "6397千米")])
    triple_filters, pair_filters, cutter = rules.judge()
    (judged,) = apply_filters([pair], triple_filters, pair_filters, Funnel(), cutter)
    assert judged.decision == "kept" and judged.position_index > 0.9
    assert judged.text == "长江注入东海，全长6397千米。" if cut else judged.text == text
    with ShardWriter(tmp_path / "pairs", "pairs", Pair) as writer:
        writer.write(judged)
    fetched = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with ShardWriter(tmp_path / "pages", "pages", Page) as pages:
        pages.write_all([Page(url="http://x/cj", title="长江", summary=text, fetched_at=fetched),
                         Page(url="http://x/hh", title="黄河", summary="黄河注入渤海，长江注入东海。", fetched_at=fetched)])
    funnel = {"pairs_in": 1, "pairs_kept": 1, "pairs_dropped": {}, "triples_in": 2, "triples_kept": 2,
              "triples_dropped": {}}
    result = verify_stage(writer.paths, pages.paths, VerifySettings(search_backend="crawl"), funnel, tmp_path / "out",
                          tmp_path / "catalog.duckdb", rules.save(tmp_path / "rules.json"))
    (after,) = iter_records(result["shards"], Pair)
    assert [t.decision for t in after.triples] == ["kept", "dropped"]
    return after, result


def test_a_search_drop_whose_value_the_text_states_cuts_it_from_the_text(tmp_path):
    after, result = _search_validated(tmp_path, cut=True)
    assert (after.decision, after.reason) == ("kept", "")
    assert after.text == "长江注入东海。" and "6397" not in after.text
    assert after.source_text.startswith("长江注入东海，是亚洲第一长河")
    assert any("6397千米" in c["reason"] for c in after.cuts)
    assert "".join(ch for i, ch in enumerate(after.source_text)
                   if not any(c["start"] <= i < c["end"] for c in after.cuts)) == after.text
    assert after.position_index > 0.75  # the index of the cut text, for the triple the pair still has
    assert result["funnel"]["pairs_kept"] == 1 and result["funnel"]["pairs_dropped"] == {}


def test_without_the_cut_a_search_drop_that_uncovers_text_drops_the_pair_with_its_reason(tmp_path):
    after, result = _search_validated(tmp_path, cut=False)
    assert (after.decision, after.reason) == ("dropped", "search:position_index:below_threshold")
    assert after.position_index < 0.75  # the index describes the triple the pair still has
    assert result["funnel"]["pairs_dropped"] == {"search:position_index:below_threshold": 1}
    assert result["funnel"]["pairs_kept"] == 0
