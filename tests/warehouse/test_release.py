from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from warehouse.publish import publish_stage
from flows.settings import ReleaseSettings
from schemas import Pair, Triple
from warehouse.release import ReleaseError, list_versions, next_version, verify
from schemas.storage.shards import ShardWriter
from tests.sealed import lift_seal


def pair(i: int, kept: bool = True) -> Pair:
    return Pair(
        pair_id=f"p{i:03d}", entity=f"实体{i}", text=f"实体{i}海拔{i}米。", url=f"http://x/item/{i}",
        triples=[Triple(f"实体{i}", "海拔", f"{i}米", decision="kept", span_end=5),
                 Triple(f"实体{i}", "别名", "无", decision="dropped", reason="grounding:value_not_in_text")],
        decision="kept" if kept else "dropped", reason="" if kept else "pair:no_grounded_triple",
        page_hash=f"h{i}",
    )


@pytest.fixture()
def shards(tmp_path):
    # Written out of order and across shards: the release must not depend on either.
    with ShardWriter(tmp_path / "pairs", "pairs", Pair, rows_per_shard=7, batch_size=3) as writer:
        writer.write_all(pair(i, kept=i % 5 != 0) for i in reversed(range(20)))
    return writer.paths


def publish(shards, data_dir, version=None):
    return publish_stage(shards, ReleaseSettings(version=version), data_dir, {"k": 1}, {"pairs": 20}, "snap", None)


def test_release_holds_kept_pairs_with_kept_triples_and_a_side_table(shards, tmp_path):
    release = publish(shards, tmp_path / "data")
    manifest = json.loads((release / "manifest.json").read_text())
    files = {f["config"]: f for f in manifest["files"]}
    assert files["cdtp_pairs"]["rows"] == 16 and files["dropped_triples"]["rows"] == 20
    table = pq.read_table(release / "cdtp_pairs" / "all.parquet")
    assert table.column("pair_id").to_pylist() == sorted(table.column("pair_id").to_pylist())
    assert all(len(t) == 1 and t[0]["decision"] == "kept" for t in table.column("triples").to_pylist())
    assert table.schema.metadata[b"zhbench.schema_version"] == Pair.VERSION.encode()
    assert manifest["source_snapshot"] == "snap" and manifest["version"] == "0.1.0"
    assert "configs:" in (release / "README.md").read_text()
    assert verify(release) == []


def test_same_input_gives_byte_identical_files(shards, tmp_path):
    first = json.loads((publish(shards, tmp_path / "a") / "manifest.json").read_text())
    second = json.loads((publish(shards, tmp_path / "b") / "manifest.json").read_text())
    assert [f["sha256"] for f in first["files"]] == [f["sha256"] for f in second["files"]]


def test_versions_increase_and_never_overwrite(shards, tmp_path):
    data = tmp_path / "data"
    publish(shards, data)
    assert next_version(data, "cdtp") == "0.2.0"
    second = publish(shards, data)
    assert second.name == "0.2.0"
    assert json.loads((second / "manifest.json").read_text())["parent"] == "0.1.0"
    with pytest.raises(ReleaseError, match="already exists"):
        publish(shards, data, version="0.1.0")
    assert list_versions(data, "cdtp") == ["0.1.0", "0.2.0"]
    assert not [p for p in (data / "releases" / "cdtp").iterdir() if p.name.startswith(".tmp")]


def test_verify_reports_a_changed_file(shards, tmp_path):
    release = lift_seal(publish(shards, tmp_path / "data"))
    target = release / "dropped_triples" / "all.parquet"
    target.write_bytes(target.read_bytes() + b"x")
    (problem,) = verify(release)
    assert problem.startswith("dropped_triples/all.parquet: sha256")


def test_a_schema_change_raises_the_major_number(shards, tmp_path):
    data = tmp_path / "data"
    first = lift_seal(publish(shards, data))
    manifest = json.loads((first / "manifest.json").read_text())
    # Pretend the first release was written with an older pair schema.
    for entry in manifest["files"]:
        if entry["config"] == "cdtp_pairs":
            entry["schema_version"] = "0.9.0"
    (first / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ReleaseError, match="major number must rise: use 1.0.0"):
        publish(shards, data, version="0.2.0")
    assert publish(shards, data).name == "1.0.0"
    assert publish(shards, data).name == "1.1.0"  # same schemas again: a minor step


def test_a_chosen_version_must_be_newer_than_the_latest(shards, tmp_path):
    data = tmp_path / "data"
    publish(shards, data, version="0.3.0")
    with pytest.raises(ReleaseError, match="not newer than the latest release of cdtp, 0.3.0; use 0.4.0"):
        publish(shards, data, version="0.2.0")


def test_release_verify_finds_a_flipped_byte(shards, tmp_path, capsys):
    from flows.cli import main

    release = lift_seal(publish(shards, tmp_path / "data"))
    target = release / "cdtp_pairs" / "all.parquet"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, one byte different
    target.write_bytes(bytes(data))
    assert main(["release", "verify", "0.1.0", "--data-dir", str(tmp_path / "data")]) == 1
    out = capsys.readouterr().out
    assert "cdtp_pairs/all.parquet: sha256" in out and "differs from the manifest's" in out
    assert main(["release", "verify", "0.1.0", "--data-dir", str(tmp_path / "data")]) == 1
    target.write_bytes(b"PAR1" + bytes(20))  # truncated to garbage
    assert main(["release", "verify", "0.1.0", "--data-dir", str(tmp_path / "data")]) == 1
    assert "no longer readable Parquet" in capsys.readouterr().out


def release_digests(release) -> dict[str, str]:
    from schemas.storage.shards import sha256_file

    return {p.relative_to(release).as_posix(): sha256_file(p) for p in sorted(release.rglob("*")) if p.is_file()}


def test_two_publishes_of_one_input_are_the_same_bytes_in_every_file_with_source_date_epoch(shards, tmp_path,
                                                                                             monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    first = publish_stage(shards, ReleaseSettings(), tmp_path / "a", {"k": 1}, {"pairs": 20}, "snap", "flow-a",
                          run_id="run-a")
    second = publish_stage(list(reversed(shards)), ReleaseSettings(), tmp_path / "b", {"k": 1}, {"pairs": 20},
                           "snap", "flow-b", run_id="run-b")
    assert release_digests(first) == release_digests(second)
    manifest = json.loads((first / "manifest.json").read_text())
    assert manifest["created_at"] == "2026-01-01T00:00:00+00:00" and manifest["flow_run_id"] is None
    assert "run-a" not in (first / "manifest.json").read_text() + (first / "README.md").read_text()


def test_the_release_time_is_source_date_epoch_or_now_and_a_malformed_one_is_an_error():
    from datetime import datetime, timezone

    from warehouse.release import release_time

    assert release_time({"SOURCE_DATE_EPOCH": "0"}) == "1970-01-01T00:00:00+00:00"
    now = datetime.fromisoformat(release_time({}))
    assert abs((now - datetime.now(timezone.utc)).total_seconds()) < 5
    for bad in ("1.5", "-1", "yesterday", "１２"):
        with pytest.raises(ReleaseError, match="SOURCE_DATE_EPOCH must be whole seconds"):
            release_time({"SOURCE_DATE_EPOCH": bad})


def test_a_publish_registers_the_release_with_its_run_in_the_catalog(shards, tmp_path):
    from schemas.storage.catalog import Catalog

    data = tmp_path / "data"
    publish_stage(shards, ReleaseSettings(), data, {}, {}, "snap", "flow-1", run_id="run-1")
    publish_stage(shards, ReleaseSettings(version="0.10.0"), data, {}, {}, "snap", "flow-2", run_id="run-2")
    publish_stage(shards, ReleaseSettings(version="0.9.0"), data / "other", {}, {}, "snap", None)
    rows = Catalog(data / "catalog.duckdb").releases("cdtp")
    assert [(r["version"], r["run_id"], r["flow_run_id"], r["state"]) for r in rows] == [
        ("0.1.0", "run-1", "flow-1", "published"), ("0.10.0", "run-2", "flow-2", "published")]
    assert all(r["published_at"] is not None and r["path"] == f"releases/cdtp/{r['version']}" for r in rows)


def test_a_publish_while_another_process_holds_the_data_directory_is_refused(shards, tmp_path):
    from tests.warehouse.test_lock import hold
    from warehouse.lock import DataDirLocked

    child = hold(tmp_path / "data")
    try:
        with pytest.raises(DataDirLocked, match="is in use by pid"):
            publish(shards, tmp_path / "data")
    finally:
        child.kill()
        child.wait()
    assert list_versions(tmp_path / "data", "cdtp") == []


def test_every_config_of_a_release_loads_by_name_with_datasets(release, tmp_path):
    """As a harness loads it: ``load_dataset(release_dir, name)``, for each config the manifest lists, and the
    default config with no name."""
    datasets = pytest.importorskip("datasets")
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    expected: dict[str, dict[str, int]] = {}
    for f in manifest["files"]:
        if f["rows"]:  # datasets refuses an empty split; the card leaves it out
            expected.setdefault(f["config"], {})["train" if f["split"] == "all" else f["split"]] = f["rows"]
    assert {"cdtp_pairs", "kgc", "qa", "t2t", "cloze", "simpleqa"} <= set(expected)
    assert "dropped_triples" not in expected  # no rows in this release: in the table, not in the YAML
    assert "| dropped_triples | all | 0 |" in (release / "README.md").read_text(encoding="utf-8")
    for config, splits in expected.items():
        loaded = datasets.load_dataset(str(release), config, cache_dir=str(tmp_path / "hf"))
        assert {name: len(part) for name, part in loaded.items()} == splits, config
    default = datasets.load_dataset(str(release), cache_dir=str(tmp_path / "hf"))
    assert {name: len(part) for name, part in default.items()} == expected[manifest["files"][0]["config"]]
