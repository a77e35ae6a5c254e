from __future__ import annotations

import json

import pytest

from tests.warehouse.conftest import items, mcq, publish_release
from warehouse.gate import GateFailed


def test_a_sound_release_passes_every_suite_and_records_it(release):
    manifest = json.loads((release / "manifest.json").read_text())
    validation = manifest["validation"]
    assert validation["passed"] is True
    assert set(validation["suites"]) == {"zhbench.cdtp_pairs", "zhbench.dropped_triples", "zhbench.kgc",
                                         "zhbench.qa", "zhbench.t2t", "zhbench.cloze", "zhbench.simpleqa",
                                         "zhbench.questions"}
    assert all(s["failed"] == 0 and s["expectations"] > 0 for s in validation["suites"].values())
    assert manifest["hierarchy"]["kgc"]["task"] == "knowledge graph completion"
    assert manifest["hierarchy"]["cdtp_pairs"]["role"] == "source"


def test_broken_items_block_the_release_and_each_failure_is_named(tmp_path):
    broken = {
        "qa003": (mcq(3, "qa", options=[f"{k}米" for k in range(8)] + ["1003米"], answer_index=8, answer="1003米"),
                  "n_options"),
        "kgc004": (mcq(4, "kgc", question="（实体4，海拔，？）", answer="1004米", answer_index=0,
                       options=["1004米", "1004米"] + [f"{k}米" for k in range(8)]), "gold_count"),
        "simpleqa005": (mcq(5, "simpleqa", options=[], answer_index=None, answer="一" * 30,
                            question="实体5有多高？"), "answer_chars"),
        "qa006": (mcq(6, "qa", domain="cooking"), "(domain)"),
    }
    records = [i for i in items() if i.item_id not in broken] + [item for item, _ in broken.values()]
    data = tmp_path / "data"
    with pytest.raises(GateFailed) as failure:
        publish_release(tmp_path, data, item_records=records)
    message = str(failure.value)
    assert "was not published" in message
    for _, expected in broken.values():
        assert expected in message
    assert not (data / "releases" / "cdtp" / "0.1.0").exists()
    assert not [p for p in (data / "releases" / "cdtp").iterdir() if p.name.startswith(".tmp")]
    docs = tmp_path / "validation" / "gx" / "uncommitted" / "data_docs" / "local_site" / "index.html"
    assert docs.is_file() and str(docs) in message
    assert list((tmp_path / "validation" / "gx" / "uncommitted" / "validations").rglob("*.json"))


def test_a_question_in_two_configs_blocks_the_release(tmp_path):
    records = items()
    for item in records:
        if item.item_id == "simpleqa003":
            item.question = "qa：实体3的海拔是多少？"
    with pytest.raises(GateFailed, match="zhbench.questions"):
        publish_release(tmp_path, tmp_path / "data", item_records=records)


def test_the_gate_can_be_turned_off(tmp_path):
    records = [i for i in items() if i.item_id != "qa003"] + [mcq(3, "qa", domain="cooking")]
    release = publish_release(tmp_path, tmp_path / "data", item_records=records, gate=False)
    assert json.loads((release / "manifest.json").read_text())["validation"] == {}


def test_a_dropped_triple_without_a_reason_blocks_the_release(tmp_path):
    from schemas import Triple
    from tests.warehouse.conftest import pairs

    records = pairs()
    records[3].triples.append(Triple("实体3", "所属国家", "中国", decision="dropped", reason=None))
    with pytest.raises(GateFailed, match=r"zhbench.dropped_triples .*\(reason\)"):
        publish_release(tmp_path, tmp_path / "data", pair_records=records)


def test_the_suites_read_one_table_at_a_time(tmp_path):
    from schemas.releases import load_manifest
    from warehouse.gate import GateRules, _checks

    release = publish_release(tmp_path, tmp_path / "data", gate=False)
    checks = _checks(release, load_manifest(release).files, GateRules())
    first = next(checks)
    assert first.suite == "zhbench.cdtp_pairs" and len(first.frame) == 12
    dropped = next(c for c in checks if c.suite == "zhbench.dropped_triples")
    assert list(dropped.frame.columns) == ["pair_id", "reason"]  # what its expectations read
    assert [c.suite for c in checks][-1] == "zhbench.questions"
