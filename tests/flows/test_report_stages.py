"""The run report's stage timings, the previous run beside it, and chart labels that fit."""

from __future__ import annotations

import json
import re
from pathlib import Path

from flows import report
from flows.cli import main

FIXTURE = Path(__file__).parents[1] / "fixtures" / "reports" / "mirror-run.json"


def old_report(run: str = "20261123T174019Z-1e8e67") -> dict:
    """A real report from before runs recorded stage timings."""
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    data["run"] = run
    return data


def timed_report(run: str = "20261124T090000Z-aaaaaa", crawl_s: float = 30.0) -> dict:
    data = old_report(run)
    data["funnel"]["pairs_dropped"]["position_index:below_threshold"] = 220
    data.update(started_at="2026-11-24T09:00:00+00:00", seconds=60.0, stages=[
        {"stage": "crawl", "seconds": crawl_s, "cached": False, "in": None, "out": 382, "unit": "pages"},
        {"stage": "align", "seconds": 15.0, "cached": True, "in": 378, "out": 74, "unit": "pairs"},
        {"stage": "publish", "seconds": 3.0, "cached": False, "in": 80, "out": 80, "unit": "items"},
    ])
    return data


def write_run(root: Path, data: dict) -> Path:
    run_dir = root / "runs" / data["run"]
    run_dir.mkdir(parents=True)
    (run_dir / "report.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return run_dir


def test_text_report_has_a_stage_table_with_share_counts_and_cached():
    text = report.as_text(timed_report())
    assert "stage timings of the flow's 60.0 s" in text
    assert re.search(r"crawl\s+30\.0\s+50%\s+– → 382 pages", text)
    assert re.search(r"align\s+15\.0\s+25%\s+378 → 74 pairs\s+cached", text)
    assert re.search(r"publish\s+3\.0\s+5%\s+80 → 80 items$", text, re.M)


def test_previous_run_is_shown_beside_with_the_change():
    text = report.as_text(timed_report(), timed_report("20261123T000000Z-bbbbbb", crawl_s=40.0))
    assert "previous run 20261123T000000Z-bbbbbb" in text
    assert re.search(r"crawl\s+30\.0\s+50%\s+– → 382 pages\s+40\.0\s+-10\.0", text)
    assert re.search(r"pages fetched\s+382\s+382\s+\+0", text)


def test_previous_run_without_timings_shows_dashes_and_its_counts():
    text = report.as_text(timed_report(), old_report())
    assert re.search(r"crawl\s+30\.0\s+50%\s+– → 382 pages\s+–\s+–", text)
    assert re.search(r"position_index:below_threshold\s+220\s+231\s+-11", text)


def test_an_old_report_without_stages_still_renders():
    text = report.as_text(old_report())
    html = report.as_html(old_report())
    assert "stage timings" not in text and "pages fetched" in text
    assert "Stage timings" not in html and "<h2>Funnel</h2>" in html


def test_html_has_the_stage_table_and_the_previous_run_section():
    html = report.as_html(timed_report(), old_report())
    assert "<h2>Stage timings</h2>" in html
    assert "<td>align</td><td class=num>15.0</td><td class=num>25%</td><td>378 → 74 pairs</td><td>cached</td>" in html
    assert "<h2>Beside the previous run</h2>" in html and "20261123T174019Z-1e8e67" in html
    assert ("<td>pairs dropped: position_index:below_threshold</td><td class=num>220</td>"
            "<td class=num>231</td><td class=num>-11</td>") in html


def test_previous_run_is_the_latest_earlier_run_with_a_report(tmp_path):
    first = write_run(tmp_path, old_report("20261120T000000Z-111111"))
    (tmp_path / "runs" / "20261121T000000Z-222222").mkdir()  # killed: no report
    this = write_run(tmp_path, timed_report("20261122T000000Z-333333"))
    write_run(tmp_path, old_report("20261123T000000Z-444444"))  # later: not "previous"
    assert report.previous_run(this) == first
    assert report.previous_run(first) is None
    assert report.load_previous(this)["run"] == "20261120T000000Z-111111"


def test_an_unreadable_previous_report_is_left_out(tmp_path):
    broken = tmp_path / "runs" / "20261120T000000Z-111111"
    broken.mkdir(parents=True)
    (broken / "report.json").write_text("{not json", encoding="utf-8")
    this = write_run(tmp_path, timed_report("20261122T000000Z-333333"))
    assert report.load_previous(this) is None


def test_every_label_is_drawn_whole_left_of_its_bar():
    long_label = "trailing_relation:uncovered_relation_after_last_triple（中文标签：关系未覆盖）"
    svg = report._bars([("ok", 3), (long_label, 5)], "#c8553d")
    assert svg.startswith('<svg role="img" ') and "<script" not in svg
    # Vega-Lite's default cuts a label at 180 px with "…": here no label is cut
    assert f">{long_label}</text>" in svg and "…" not in svg
    # the plot starts right of the label column, which is as wide as the longest label
    left = float(re.search(r'transform="translate\(([0-9.]+),', svg).group(1))
    assert left > float(re.search(r'transform="translate\(([0-9.]+),', report._bars([("ok", 3)], "#000")).group(1))
    assert int(re.search(r'<svg role="img" [^>]*width="(\d+)"', svg).group(1)) >= left + report.BAR_PX


def test_report_command_compares_with_the_previous_run(tmp_path, capsys):
    write_run(tmp_path, old_report("20261120T000000Z-111111"))
    this = write_run(tmp_path, timed_report("20261122T000000Z-333333"))
    assert main(["report", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "previous run 20261120T000000Z-111111" in out and "stage timings" in out
    assert "Beside the previous run" in (this / "report.html").read_text(encoding="utf-8")


def test_a_reason_new_in_this_run_was_dropped_zero_times_before_and_timings_show_no_negative_zero():
    now = timed_report()
    now["funnel"]["pairs_dropped"]["dedup:released_exact_duplicate"] = 14
    before = timed_report("20261123T000000Z-bbbbbb", crawl_s=30.04)
    text = report.as_text(now, before)
    assert re.search(r"dedup:released_exact_duplicate\s+14\s+0\s+\+14", text)
    assert re.search(r"crawl\s+30\.0 .*30\.0\s+\+0\.0", text)
    assert "-0.0" not in text
