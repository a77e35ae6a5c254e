"""A published release is sealed: read-only on disk, written by no command but publish, and `release verify`
fails on anything added to it."""

from __future__ import annotations

import shutil
import stat

import pyarrow as pa
import pyarrow.parquet as pq

from flows.cli import main
from schemas.storage.catalog import Catalog
from tests.sealed import lift_seal
from tests.warehouse.test_release import publish, shards  # noqa: F401 (the pair shards fixture)
from warehouse.release import list_versions, repair, verify


def modes(release) -> dict[str, int]:
    return {p.relative_to(release).as_posix(): stat.S_IMODE(p.lstat().st_mode)
            for p in [release, *sorted(release.rglob("*"))]}


def test_a_published_release_is_read_only_and_the_next_version_still_publishes(shards, tmp_path):  # noqa: F811
    data = tmp_path / "data"
    first = publish(shards, data)
    found = modes(first)
    assert found["."] == 0o555 and found["cdtp_pairs"] == 0o555 and found["dropped_triples"] == 0o555
    assert found["manifest.json"] == found["README.md"] == found["cdtp_pairs/all.parquet"] == 0o444
    assert set(found.values()) == {0o555, 0o444}
    root = data / "releases" / "cdtp"
    assert stat.S_IMODE(root.stat().st_mode) & stat.S_IWUSR  # the name's directory takes the next version
    second = publish(shards, data)
    assert second.name == "0.2.0" and set(modes(second).values()) == {0o555, 0o444}
    assert list_versions(data, "cdtp") == ["0.1.0", "0.2.0"] and verify(first) == verify(second) == []
    assert sorted(p.name for p in root.iterdir()) == ["0.1.0", "0.2.0"]  # no temporary directory left


def test_a_sealed_release_a_killed_publisher_left_before_its_rename_is_removed(shards, tmp_path):  # noqa: F811
    data = tmp_path / "data"
    first = publish(shards, data)
    leftover = data / "releases" / "cdtp" / ".tmp-0.2.0-999999"
    shutil.copytree(first, leftover)  # written and sealed, never renamed: modes copied with it
    assert stat.S_IMODE(leftover.stat().st_mode) == 0o555
    assert repair(data) == ["removed releases/cdtp/.tmp-0.2.0-999999, a release a killed run was writing "
                            "(never published)"]
    assert not leftover.exists() and list_versions(data, "cdtp") == ["0.1.0"]


def test_a_release_published_before_releases_were_sealed_is_sealed_by_the_next_start(shards, tmp_path):  # noqa: F811
    data = tmp_path / "data"
    release = lift_seal(publish(shards, data))  # as an earlier version of zhbench left it
    assert repair(data) == ["sealed releases/cdtp/0.1.0: made read-only (files 0444, directories 0555), as "
                            "publishing leaves every release"]
    assert set(modes(release).values()) == {0o555, 0o444} and verify(release) == []
    assert repair(data) == []


def test_a_file_added_into_a_release_fails_verify_naming_each_file(shards, tmp_path, capsys):  # noqa: F811
    data = tmp_path / "data"
    release = lift_seal(publish(shards, data))  # as someone who overrides the seal (or root) could
    pq.write_table(pa.table({"item_id": ["evil"]}), release.parent / "evil.parquet")
    (release / "kgc").mkdir()
    shutil.move(release.parent / "evil.parquet", release / "kgc" / "evil.parquet")
    (release / "cdtp_pairs" / "notes.txt").write_text("mine\n")
    (release / "empty").mkdir()
    assert verify(release) == [
        "cdtp_pairs/notes.txt: not in the manifest (added after the release was written); readers that glob the "
        "directory would load it",
        "empty/: an empty directory the manifest does not list",
        "kgc/evil.parquet: not in the manifest (added after the release was written); readers that glob the "
        "directory would load it"]
    assert main(["release", "verify", "0.1.0", "--data-dir", str(data)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3 and all(line.startswith(f"{release}: ") for line in out)
    assert "kgc/evil.parquet: not in the manifest" in out[2] and "cdtp_pairs/notes.txt" in out[0]
    # A repair never registers a release with an added file.
    (data / "catalog.duckdb").unlink()
    (line,) = repair(data)
    assert line.startswith("not registered: releases/cdtp/0.1.0 (cdtp_pairs/notes.txt: not in the manifest")
    assert Catalog(data / "catalog.duckdb").releases("cdtp") == []


def tree(directory) -> dict[str, int]:
    return {p.relative_to(directory).as_posix(): p.stat().st_size for p in sorted(directory.rglob("*"))}


def test_export_into_the_releases_tree_is_refused_even_with_force_and_writes_nothing(shards, tmp_path,  # noqa: F811
                                                                                     capsys, monkeypatch):
    data = tmp_path / "data"
    release = publish(shards, data)
    before = tree(data / "releases")
    monkeypatch.chdir(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(release, target_is_directory=True)
    for out, data_dir in ((release, data), (release / "cdtp_pairs", data), (data / "releases" / "cdtp" / "0.9.0", data),
                          (link, data), ("data/releases/cdtp/0.1.0", "data")):  # a new version's place; a link
        code = main(["export", "0.1.0", "--format", "jsonl", "--out", str(out), "--force", "--data-dir", str(data_dir)])
        err = capsys.readouterr().err
        assert code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
        assert err == (f"zhbench: error: --out {out} is inside {data_dir}/releases, where only zhbench run's publish "
                       "writes (published releases are read-only); give a path outside it, such as "
                       f"{data_dir}/exports\n"), err
    # The release given as a directory of another data directory: refused all the same.
    code = main(["export", str(release), "--format", "jsonl", "--out", str(release / "x"), "--force"])
    assert code == 1 and "is inside the release" in capsys.readouterr().err
    code = main(["review", "export", "0.1.0", "--out", str(release / "tasks.json"), "--data-dir", str(data)])
    assert code == 1 and "zhbench: error: --out" in capsys.readouterr().err
    code = main(["mirror", "synth", "--count", "3", "--out", str(release / "synth.jsonl")])
    assert code == 1 and f"is inside the release {release}" in capsys.readouterr().err
    assert tree(data / "releases") == before and verify(release) == []
    # Outside the tree an export goes on as before.
    assert main(["export", "0.1.0", "--format", "jsonl", "--out", str(tmp_path / "out"), "--data-dir", str(data)]) == 0
    assert (tmp_path / "out" / "cdtp_pairs" / "all.jsonl").is_file()
