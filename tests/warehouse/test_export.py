"""Harness exports load in evalscope and OpenCompass as their Chinese SimpleQA loaders read them,
and `zhbench export` writes every split unless told otherwise and says what it wrote."""

from __future__ import annotations

import json

import pytest

from flows.cli import main
from tests.warehouse.conftest import split_of
from warehouse.export import export
from warehouse.release import ReleaseError

# evalscope/benchmarks/chinese_simple_qa/csimple_qa_adapter.py: SUBSET_LIST; records whose
# primary_category is not one of these fall out of every subset.
EVALSCOPE_SUBSETS = {"中华文化", "人文与社会科学", "工程、技术与应用科学", "生活、艺术与文化", "社会", "自然与自然科学"}
EVAL_IDS = [f"simpleqa{i:03d}" for i in range(12) if split_of(i) == "eval"]


def evalscope_load(path, cache_dir):
    """What evalscope does with a local_path: load_dataset_from_hub (evalscope/api/dataset/hub.py) for
    the adapter's eval_split 'train' and the default subset, then record_to_sample on every row."""
    import datasets

    dataset = datasets.load_dataset(path=str(path), name=None, split="train", revision=None, download_mode=None,
                                    cache_dir=str(cache_dir))
    return [{"input": r["question"], "target": r["answer"], "subset_key": r.get("primary_category", "default"),
             "id": r.get("id", "unknown"), "secondary_category": r.get("secondary_category", "")} for r in dataset]


def opencompass_load(path, name="chinese_simpleqa"):
    """What CsimpleqaDataset.load (opencompass/datasets/chinese_simpleqa.py) reads: <path>/<name>.jsonl,
    name 'chinese_simpleqa' in its configs, and these fields of each line."""
    with open(path / f"{name}.jsonl", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    return [{"primary_category": r["primary_category"], "question": r["question"], "gold_ans": r["answer"],
             "question_id": r["id"]} for r in rows]


def test_each_split_directory_loads_in_evalscope_as_the_train_split_it_asks_for(release, tmp_path):
    export(release, "chinese-simpleqa-jsonl", tmp_path / "csqa")
    samples = evalscope_load(tmp_path / "csqa" / "eval", tmp_path / "hf")
    assert [s["id"] for s in samples] == EVAL_IDS
    assert all(s["input"] and s["target"] and s["secondary_category"] == "地理" for s in samples)
    assert {s["subset_key"] for s in samples} == {"自然与自然科学"} <= EVALSCOPE_SUBSETS
    train = evalscope_load(tmp_path / "csqa" / "train", tmp_path / "hf")
    assert len(train) == 12 - len(EVAL_IDS) and not {s["id"] for s in train} & set(EVAL_IDS)


def test_a_file_name_with_a_split_word_is_what_evalscope_cannot_load(tmp_path):
    import datasets

    # Hugging Face reads "eval" in a file name as split "test": evalscope's request for "train" fails.
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "cdtp-0.1.0-simpleqa-eval.jsonl").write_text('{"question": "q", "answer": "a"}\n')
    with pytest.raises(ValueError, match='Unknown split "train"'):
        evalscope_load(tmp_path / "old", tmp_path / "hf")
    assert list(datasets.load_dataset(str(tmp_path / "old"), cache_dir=str(tmp_path / "hf"))) == ["test"]


def test_each_split_directory_is_an_opencompass_path(release, tmp_path):
    export(release, "chinese-simpleqa-jsonl", tmp_path / "csqa", split="eval")
    rows = opencompass_load(tmp_path / "csqa" / "eval")
    assert [r["question_id"] for r in rows] == EVAL_IDS
    assert all(r["question"] and r["gold_ans"] and r["primary_category"] == "自然与自然科学" for r in rows)
    assert not (tmp_path / "csqa" / "train").exists()


def test_the_cli_writes_every_split_by_default_and_says_what_it_wrote(release, capsys):
    data = release.parents[2]
    assert main(["export", "0.1.0", "--format", "chinese-simpleqa-jsonl", "--data-dir", str(data)]) == 0
    out = data / "exports" / "cdtp-0.1.0-chinese-simpleqa-jsonl"
    assert capsys.readouterr().out.splitlines() == [
        f"{out / 'eval' / 'chinese_simpleqa.jsonl'}  3 rows  split eval",
        f"{out / 'train' / 'chinese_simpleqa.jsonl'}  9 rows  split train"]

    assert main(["export", "0.1.0", "--format", "jsonl", "--split", "train", "--data-dir", str(data)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.endswith(("split train", "split all")) for line in lines)
    assert any(line.endswith("cdtp_pairs/all.jsonl  12 rows  split all") for line in lines)


def test_an_out_path_that_is_a_file_is_a_one_line_error(release, tmp_path, capsys):
    (tmp_path / "old.jsonl").write_text("")
    with pytest.raises(ReleaseError, match="is a file"):
        export(release, "chinese-simpleqa-jsonl", tmp_path / "old.jsonl")
    code = main(["export", str(release), "--format", "simple-evals-csv", "--out", str(tmp_path / "old.jsonl")])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("zhbench: error:") and "is a file" in err and "Traceback" not in err


def test_an_export_never_replaces_what_is_there_without_force(release, tmp_path, capsys):
    out = tmp_path / "csqa"
    (first,) = export(release, "chinese-simpleqa-jsonl", out, split="eval")
    before = first.path.read_bytes()
    with pytest.raises(ReleaseError, match="is not empty; .*--force"):
        export(release, "chinese-simpleqa-jsonl", out, split="eval")
    first.path.write_text("mine\n")
    (out / "notes.txt").write_text("mine too\n")
    code = main(["export", str(release), "--format", "chinese-simpleqa-jsonl", "--split", "eval", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1 and "is not empty" in err and "--force" in err
    assert first.path.read_text() == "mine\n"  # untouched

    assert main(["export", str(release), "--format", "chinese-simpleqa-jsonl", "--split", "eval", "--out", str(out),
                 "--force"]) == 0
    assert first.path.read_bytes() == before and (out / "notes.txt").read_text() == "mine too\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp")]


def test_an_empty_directory_is_written_into_and_a_file_is_replaced_only_with_force(release, tmp_path, monkeypatch):
    (tmp_path / "empty").mkdir()
    assert export(release, "jsonl", tmp_path / "empty", split="eval")
    (tmp_path / "old.jsonl").write_text("old\n")
    with pytest.raises(ReleaseError, match="is a file"):
        export(release, "jsonl", tmp_path / "old.jsonl")
    assert (tmp_path / "old.jsonl").read_text() == "old\n"
    written = export(release, "jsonl", tmp_path / "old.jsonl", force=True)
    assert (tmp_path / "old.jsonl").is_dir() and all(w.path.is_file() for w in written)
    monkeypatch.chdir(tmp_path)  # a relative --out is under the current directory
    assert main(["export", str(release), "--format", "jsonl", "--out", "rel/out"]) == 0
    assert (tmp_path / "rel" / "out" / "cdtp_pairs" / "all.jsonl").is_file()
