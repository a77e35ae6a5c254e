"""Reading a release back: show, diff, the harness exports, and loading with datasets, DuckDB and pandas."""

from __future__ import annotations

import ast
import csv
import json

import duckdb
import pandas as pd
import pytest

from flows.cli import main
from schemas import ReleaseManifest
from tests.warehouse.conftest import items, pairs, publish_release
from warehouse.export import export
from warehouse.inspect import diff, show
from warehouse.release import ReleaseError


def test_the_release_loads_with_datasets_duckdb_and_pandas(release, tmp_path):
    import datasets

    manifest = ReleaseManifest.from_json((release / "manifest.json").read_text())
    qa = {f.split: str(release / f.path) for f in manifest.files if f.config == "qa"}
    loaded = datasets.load_dataset("parquet", data_files=qa, cache_dir=str(tmp_path / "hf"))
    assert set(loaded) == {"train", "eval"}
    assert loaded["train"].num_rows + loaded["eval"].num_rows == 12
    row = loaded["eval"][0]
    assert len(row["options"]) == 10 and row["options"][row["answer_index"]] == row["answer"]
    assert row["capability"] == "information acquisition and question answering" and row["dataset"] == "cdtp-qa"

    total = duckdb.sql(f"SELECT count(*) FROM read_parquet('{release}/*/*.parquet', union_by_name = true) "
                       "WHERE kind = 'simpleqa'").fetchall()[0][0]
    assert total == 12

    frame = pd.read_parquet(release / "cdtp_pairs" / "all.parquet")
    assert len(frame) == 12 and frame["pair_id"].is_unique


def test_show_names_provenance_labels_and_validation(release):
    text = show(release)
    assert "cdtp 0.1.0" in text and "source crawl   snap" in text
    assert "kgc       information acquisition and question answering → knowledge graph completion → cdtp-kgc" in text
    assert "validation     passed" in text


def test_diff_counts_added_removed_and_changed_rows_with_examples(tmp_path):
    data = tmp_path / "data"
    old = publish_release(tmp_path, data)
    changed_items = [i for i in items() if i.item_id not in ("simpleqa001", "cloze002")]
    text = "实体3的海拔为1003米。"  # the page changed; its triple-to-text item with it
    for item in changed_items:
        if item.item_id == "t2t003":
            item.answer = text
    more_pairs = pairs(13)
    more_pairs[3].text, more_pairs[3].position_index = text, round((len(text) - 1) / len(text), 6)
    more_pairs[3].triples[0].span_end = len(text) - 1
    new = publish_release(tmp_path, data, pair_records=more_pairs, item_records=changed_items)
    by_config = {d.config: d for d in diff(old, new)}
    assert (by_config["cdtp_pairs"].added, by_config["cdtp_pairs"].removed, by_config["cdtp_pairs"].changed) == (1, 0, 1)
    assert by_config["cdtp_pairs"].examples["added"] == ["p012: 实体12"]
    assert by_config["simpleqa"].removed == 1 and by_config["simpleqa"].examples["removed"][0].startswith("simpleqa001")
    assert by_config["cloze"].removed == 1
    t2t = by_config["t2t"]
    assert t2t.changed == 1 and "changed: answer" in t2t.examples["changed"][0]
    assert by_config["kgc"].added == by_config["kgc"].removed == by_config["kgc"].changed == 0


def test_chinese_simpleqa_export_has_the_flat_records_with_chinese_category_names(release, tmp_path):
    out = tmp_path / "csqa"
    written = export(release, "chinese-simpleqa-jsonl", out, split="all")
    assert [(w.path, w.rows, w.split) for w in written] == [(out / "eval" / "chinese_simpleqa.jsonl", 3, "eval"),
                                                            (out / "train" / "chinese_simpleqa.jsonl", 9, "train")]
    rows = [json.loads(line) for line in written[0].path.read_text(encoding="utf-8").splitlines()]
    assert list(rows[0]) == ["id", "primary_category", "secondary_category", "question", "answer", "urls"]
    assert rows[0]["primary_category"] == "自然与自然科学" and rows[0]["secondary_category"] == "地理"
    import datasets

    loaded = datasets.load_dataset("json", data_files={"test": str(written[0].path)},
                                   cache_dir=str(tmp_path / "hf"))["test"]
    assert loaded.num_rows == 3 and set(loaded.column_names) >= {"question", "answer", "primary_category"}


def test_simple_evals_csv_has_metadata_problem_answer(release, tmp_path):
    (written,) = export(release, "simple-evals-csv", tmp_path / "simple-evals", split="eval")
    assert written.path == tmp_path / "simple-evals" / "eval" / "simple_qa_test_set.csv" and written.rows == 3
    with open(written.path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3 and list(rows[0]) == ["metadata", "problem", "answer"]
    metadata = ast.literal_eval(rows[0]["metadata"])
    assert metadata["topic"] == "自然与自然科学" and metadata["urls"][0].startswith("http://x/item/")


def test_exports_are_the_same_bytes_twice_and_errors_are_one_line(release, tmp_path, capsys):
    export(release, "jsonl", tmp_path / "a", split="all")
    export(release, "jsonl", tmp_path / "b", split="all")
    for path in (tmp_path / "a").rglob("*.jsonl"):
        assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes()
    with pytest.raises(ReleaseError, match="unknown export format"):
        export(release, "xml", tmp_path / "x")
    code = main(["release", "show", "7.7.7", "--data-dir", str(release.parents[2])])
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith("zhbench: error: no release '7.7.7'") and "Traceback" not in err
