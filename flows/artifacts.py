"""A run's report as Prefect artifacts, so the Prefect UI and API show the funnel beside the flow run.

``publish_artifacts`` makes three, in the current flow run: a table (``zhbench-funnel``), a markdown summary
(``zhbench-report``) and the release (``zhbench-release``): its path as text and a table of its files with
their rows and checksums, or, when the run published nothing, why. (A ``file://`` link would be refused by
the browser showing the Prefect UI, and points at a machine the reader may not be on.) The report itself
(``runs/<run>/report.json``, ``zhbench report``) stays the record; the artifacts are a view of it.
"""

from __future__ import annotations

import json
from pathlib import Path

from flows.report import difference, in_out, stage_timings, stages

FUNNEL_KEY = "zhbench-funnel"
REPORT_KEY = "zhbench-report"
RELEASE_KEY = "zhbench-release"

BAR_CHARS = 30  # the longest bar of the markdown chart, in characters
_EIGHTHS = " ▏▎▍▌▋▊▉"


def publish_artifacts(report: dict, release_dir: Path | None, previous: dict | None = None) -> list[str]:
    """Create the run's artifacts in the current flow (or task) run and return their keys.

    previous: the report of the run before, shown beside this one. Outside a run this does nothing. An
    artifact the API refuses is logged and left out: the run has already written its report and release.
    """
    from prefect.context import FlowRunContext, TaskRunContext

    if FlowRunContext.get() is None and TaskRunContext.get() is None:
        return []
    from prefect.artifacts import create_markdown_artifact, create_table_artifact
    from prefect.logging import get_run_logger

    run = report.get("run", "?")
    makers = [
        (FUNNEL_KEY, lambda: create_table_artifact(
            funnel_rows(report, previous), key=FUNNEL_KEY,
            description=f"zhbench run {run}: records reaching each stage, and pairs dropped by reason")),
        (REPORT_KEY, lambda: create_markdown_artifact(
            report_markdown(report, previous), key=REPORT_KEY, description=f"zhbench run {run}: summary")),
    ]
    if release_dir is not None:
        name, version = release_name(Path(release_dir))
        makers.append((RELEASE_KEY, lambda: create_markdown_artifact(
            release_markdown(Path(release_dir)), key=RELEASE_KEY,
            description=f"the release zhbench run {run} published: {name} {version}")))
    else:
        makers.append((RELEASE_KEY, lambda: create_markdown_artifact(
            no_release_markdown(report), key=RELEASE_KEY, description=f"zhbench run {run} published no release")))
    keys = []
    for key, make in makers:
        try:
            make()
            keys.append(key)
        except Exception as exc:  # the API refused or is gone; the run's own files are complete
            get_run_logger().warning("artifact %s not created: %s", key, exc)
    return keys


def release_markdown(release_dir: Path) -> str:
    """The release as a reader of the Prefect UI needs it: name, version, where it is (as text, to copy),
    and each file with its config, split, rows, size and SHA-256 from the manifest."""
    try:
        manifest = json.loads((release_dir / "manifest.json").read_text(encoding="utf-8"))
        files = list(manifest["files"])
        name, version = str(manifest["name"]), str(manifest["version"])
    except (OSError, ValueError, KeyError, TypeError):
        files = None
        name, version = release_name(release_dir)
    lines = [f"# Release {name} {version}", "", f"Path: `{release_dir.resolve()}`", ""]
    if files is None:
        return "\n".join(lines + ["No readable `manifest.json`: `zhbench release verify` says what is wrong."]) + "\n"
    lines += [f"{len(files)} files, {sum(int(f.get('rows') or 0) for f in files)} rows. Check them with "
              f"`zhbench release verify {version} --name {name}`.", "",
              "| file | config | split | rows | bytes | sha256 |", "|---|---|---|---:|---:|---|"]
    for f in files:
        lines.append(f"| `{_cell(f.get('path', '?'))}` | {_cell(f.get('config', ''))} | {_cell(f.get('split', ''))} | "
                     f"{f.get('rows', '')} | {f.get('bytes', '')} | `{f.get('sha256', '')}` |")
    return "\n".join(lines) + "\n"


def no_release_markdown(report: dict) -> str:
    """Why the run published nothing, in its report's own words."""
    funnel = report.get("funnel") or {}
    lines = ["# No release", "", f"zhbench run {report.get('run', '?')} published no release: "
             f"{report.get('note') or 'it stopped before publishing'}."]
    if funnel:
        lines += ["", f"Pairs kept {funnel.get('pairs_kept', 0)} of {funnel.get('pairs_in', 0)}; "
                      "the run's funnel and summary are the artifacts `zhbench-funnel` and `zhbench-report`."]
    return "\n".join(lines) + "\n"


def release_name(release_dir: Path) -> tuple[str, str]:
    """(name, version) from the release's manifest; from its path (releases/<name>/<version>) without one."""
    try:
        manifest = json.loads((release_dir / "manifest.json").read_text(encoding="utf-8"))
        return str(manifest["name"]), str(manifest["version"])
    except (OSError, ValueError, KeyError, TypeError):
        return release_dir.parent.name, release_dir.name


def funnel_rows(report: dict, previous: dict | None = None) -> list[dict]:
    """The table artifact's rows: each funnel stage with its count, then each pair-drop reason; with
    ``previous``, its count and the change too (a reason only the previous run had shows 0 now)."""
    drops = report["funnel"]["pairs_dropped"]
    rows = list(stages(report)) + [(f"pairs dropped: {k}", v)
                                   for k, v in sorted(drops.items(), key=lambda x: (-x[1], x[0]))]
    if previous is None:
        return [{"stage": name, "count": count} for name, count in rows]
    # A reason the previous run lacks dropped none then; a stage it lacks (search) was not measured.
    dropped_before = {f"pairs dropped: {k}": v for k, v in previous["funnel"]["pairs_dropped"].items()}
    before = dict(stages(previous)) | {k: 0 for k, _ in rows if k.startswith("pairs dropped: ")} | dropped_before
    rows += [(k, 0) for k in sorted(dropped_before) if k not in dict(rows)]
    return [{"stage": name, "count": count, "previous": before.get(name),
             "change": None if before.get(name) is None else count - before[name]} for name, count in rows]


def text_bar(value: float, top: float, width: int = BAR_CHARS) -> str:
    """``value`` as a bar of block characters, ``width`` long at ``top``, in eighths of a character."""
    if top <= 0 or value <= 0:
        return ""
    eighths = round(8 * width * min(value, top) / top)
    return "█" * (eighths // 8) + (_EIGHTHS[eighths % 8] if eighths % 8 else "")


def report_markdown(report: dict, previous: dict | None = None) -> str:
    """The run summary: release, the funnel as a text bar chart, pair drops, and stage timings; with
    ``previous``, that run's numbers beside."""
    funnel = report["funnel"]
    lines = [f"# zhbench run {report['run']}", "",
             f"Release: {_release_text(report)}"]
    if report.get("seconds") is not None:
        lines.append(f"Started {report.get('started_at') or '?'}, the flow took {report['seconds']:.1f} s.")
    if previous is not None:
        lines.append(f"Previous run: {previous['run']} (release: {_release_text(previous)}).")
    lines += ["", "## Funnel", ""] + _chart(stages(report), dict(stages(previous)) if previous else None)
    lines += ["", f"Pairs kept {funnel['pairs_kept']} of {funnel['pairs_in']}; triples kept "
                  f"{funnel['triples_kept']} of {funnel['triples_in']}."]
    drops = sorted(funnel["pairs_dropped"].items(), key=lambda x: (-x[1], x[0]))
    if drops:
        lines += ["", "## Pairs dropped, by reason", ""] + _chart(
            drops, {k: 0 for k, _ in drops} | previous["funnel"]["pairs_dropped"] if previous else None)
    timings = stage_timings(report)
    if timings:
        before = {r["stage"]: r.get("seconds") for r in (previous or {}).get("stages") or []}
        head = "| stage | seconds | share | in → out | cached |"
        rule = "|---|---:|---:|---|---|"
        if previous is not None:
            head, rule = head + " previous s | change s |", rule + "---:|---:|"
        lines += ["", "## Stage timings", "", head, rule]
        for r in timings:
            row = (f"| {_cell(r['stage'])} | {r['seconds']:.1f} | {r['share']:.0%} | {_cell(in_out(r))} | "
                   f"{'cached' if r.get('cached') else ''} |")
            if previous is not None:
                old = before.get(r["stage"])
                row += f" {'–' if old is None else f'{old:.1f}'} | {difference(r['seconds'], old, 1)} |"
            lines.append(row)
    return "\n".join(lines) + "\n"


def _chart(rows: list[tuple[str, int]], previous: dict | None) -> list[str]:
    """A fenced text chart: label, count, bar; with ``previous``, its count and the change."""
    top = max((v for _, v in rows), default=0)
    width = max(len(k) for k, _ in rows)
    head = f"{'':<{width}}  {'count':>7}  {'':<{BAR_CHARS}}" + ("  previous  change" if previous is not None else "")
    out = ["```text", head.rstrip()]
    for label, value in rows:
        line = f"{label:<{width}}  {value:>7}  {text_bar(value, top):<{BAR_CHARS}}"
        if previous is not None:
            old = previous.get(label)
            line += f"  {'–' if old is None else old:>8}  {difference(value, old):>6}"
        out.append(line.rstrip())
    return out + ["```"]


def _release_text(report: dict) -> str:
    return f"`{report['release']}`" if report.get("release") else (report.get("note") or "none")


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")
