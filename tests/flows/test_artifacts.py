"""The run's Prefect artifacts: created in a real flow run on a temporary Prefect server, then read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flows.artifacts import FUNNEL_KEY, RELEASE_KEY, REPORT_KEY, funnel_rows, publish_artifacts, text_bar

REPORT = Path(__file__).parents[1] / "fixtures" / "reports" / "mirror-run.json"


def sample_report() -> dict:
    report = json.loads(REPORT.read_text(encoding="utf-8"))
    report.update(started_at="2026-11-24T09:00:00+00:00", seconds=44.0, stages=[
        {"stage": "crawl", "seconds": 22.0, "cached": False, "in": None, "out": 382, "unit": "pages"},
        {"stage": "align", "seconds": 11.0, "cached": True, "in": 378, "out": 74, "unit": "pairs"},
    ])
    return report


def previous_report() -> dict:
    report = json.loads(REPORT.read_text(encoding="utf-8"))
    report["run"] = "20261122T080000Z-000000"
    report["funnel"]["pairs_dropped"]["position_index:below_threshold"] = 240
    return report


@pytest.fixture(scope="module")
def prefect_server():
    """A temporary Prefect server and database for this module's flow runs."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


def artifacts_of(flow_run_id) -> dict:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    with get_client(sync_client=True) as client:
        found = client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run_id])))
    return {a.key: a for a in found}


def test_a_flow_run_gets_the_funnel_table_the_summary_and_the_release_table(prefect_server, tmp_path):
    from prefect import flow
    from prefect.runtime import flow_run

    release = tmp_path / "releases" / "cdtp" / "0.1.0"
    release.mkdir(parents=True)
    files = [{"path": "kgc/train.parquet", "config": "kgc", "split": "train", "rows": 125, "bytes": 30191,
              "sha256": "71f00c06" * 8},
             {"path": "kgc/eval.parquet", "config": "kgc", "split": "eval", "rows": 32, "bytes": 17560,
              "sha256": "9bff05f7" * 8}]
    (release / "manifest.json").write_text(json.dumps({"name": "cdtp", "version": "0.1.0", "files": files}),
                                           encoding="utf-8")

    @flow(name="artifacts-test")
    def publishing():
        return publish_artifacts(sample_report(), release, previous_report()), flow_run.id

    keys, run_id = publishing()

    assert keys == [FUNNEL_KEY, REPORT_KEY, RELEASE_KEY]
    found = artifacts_of(run_id)
    assert {k: a.type for k, a in found.items()} == {FUNNEL_KEY: "table", REPORT_KEY: "markdown",
                                                     RELEASE_KEY: "markdown"}
    table = json.loads(found[FUNNEL_KEY].data)
    by_stage = {row["stage"]: row for row in table}
    assert by_stage["pages fetched"]["count"] == 382
    assert by_stage["pairs dropped: position_index:below_threshold"] == {
        "stage": "pairs dropped: position_index:below_threshold", "count": 231, "previous": 240, "change": -9}
    markdown = found[REPORT_KEY].data
    assert "# zhbench run 20261123T174019Z-1e8e67" in markdown
    assert "Previous run: 20261122T080000Z-000000" in markdown
    assert "pages fetched" in markdown and "█" in markdown
    assert "| crawl | 22.0 | 50% | – → 382 pages |  |" in markdown
    assert "| align | 11.0 | 25% | 378 → 74 pairs | cached |" in markdown
    shown = found[RELEASE_KEY].data
    # No file:// link (a browser showing the UI refuses it): the path as text, the files as a table.
    assert "file://" not in shown and "](" not in shown
    assert f"Path: `{release.resolve()}`" in shown
    assert "2 files, 157 rows" in shown
    assert f"| `kgc/train.parquet` | kgc | train | 125 | 30191 | `{'71f00c06' * 8}` |" in shown
    assert f"| `kgc/eval.parquet` | kgc | eval | 32 | 17560 | `{'9bff05f7' * 8}` |" in shown


def test_a_run_without_a_release_says_why_in_the_release_artifact(prefect_server):
    from prefect import flow
    from prefect.runtime import flow_run

    report = sample_report() | {"release": None, "note": "no pair passed the filters"}

    @flow(name="artifacts-test-no-release")
    def publishing():
        return publish_artifacts(report, None), flow_run.id

    keys, run_id = publishing()
    assert keys == [FUNNEL_KEY, REPORT_KEY, RELEASE_KEY]
    shown = artifacts_of(run_id)[RELEASE_KEY].data
    assert shown.startswith("# No release\n")
    assert "published no release: no pair passed the filters." in shown


def test_outside_a_flow_run_nothing_is_created():
    assert publish_artifacts(sample_report(), Path("/nonexistent/cdtp/0.1.0")) == []


def test_funnel_rows_count_a_reason_missing_from_either_run_as_zero_there():
    previous = previous_report()
    previous["funnel"]["pairs_dropped"]["gone:reason"] = 3
    report = sample_report()
    report["funnel"]["pairs_dropped"]["new:reason"] = 2
    rows = {r["stage"]: r for r in funnel_rows(report, previous)}
    assert rows["pairs dropped: gone:reason"] == {"stage": "pairs dropped: gone:reason", "count": 0,
                                                  "previous": 3, "change": -3}
    assert rows["pairs dropped: new:reason"] == {"stage": "pairs dropped: new:reason", "count": 2,
                                                 "previous": 0, "change": 2}


def test_text_bar_is_full_at_the_top_value_and_empty_at_zero():
    assert text_bar(10, 10, width=4) == "████"
    assert text_bar(5, 10, width=3) == "█▌"
    assert text_bar(0, 10) == ""
    assert text_bar(3, 0) == ""
