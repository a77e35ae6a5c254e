"""A stage's work directory keeps its result with its files, so a run killed between the stage's end and
Prefect recording the result does not compute the stage again."""

from __future__ import annotations

from pathlib import Path

from flows import caching
from flows.stages import in_work_dir


def test_a_finished_directory_gives_its_result_without_computing_again(tmp_path):
    calls = []

    def compute(directory: Path) -> dict:
        calls.append(directory)
        (directory / "part.parquet").write_bytes(b"rows")
        return {"shards": [directory / "part.parquet"], "funnel": {"pairs_kept": 3}}

    out = tmp_path / "work" / "align" / "k1"
    first = in_work_dir(out, compute)
    assert caching.is_done(out) and len(calls) == 1
    assert in_work_dir(out, compute) == first and len(calls) == 1  # taken from the directory
    # Unfinished (killed before .done) or written without a kept result: computed again, from an empty directory.
    (out / caching.DONE).unlink()
    (out / "stale.tmp").write_bytes(b"half")
    assert in_work_dir(out, compute) == first and len(calls) == 2 and not (out / "stale.tmp").exists()
    (out / caching.RESULT).write_bytes(b"not a pickle")
    assert in_work_dir(out, compute) == first and len(calls) == 3
