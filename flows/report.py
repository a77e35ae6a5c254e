"""The run report: the funnel of a run (in, out, and why) as text and as an HTML page with a chart."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Callable


class ReportError(ValueError):
    """A run has no report; the message says where it looked."""


def runs_root(data_dir: Path) -> Path:
    return Path(data_dir) / "runs"


def find_run(data_dir: Path, name: str | None) -> Path:
    root = runs_root(data_dir)
    if name:
        candidate = Path(name) if (Path(name) / "report.json").exists() else root / name
    else:
        runs = sorted(p for p in root.iterdir() if (p / "report.json").exists()) if root.is_dir() else []
        if not runs:
            raise ReportError(f"no run with a report under {root}; run zhbench run first")
        candidate = runs[-1]
    if not (candidate / "report.json").exists():
        raise ReportError(f"{candidate} has no report.json (is it a run directory under {root}?)")
    return candidate


def write_report(data_dir: Path, name: str | None = None, show: Callable[[str], None] = print) -> Path:
    """Show the named (default: latest) run's funnel as text, then write it as ``report.html`` beside it.

    show: called with the text first, so that a page that cannot be written still leaves the text shown.
    Returns the page's path.
    """
    run_dir = find_run(Path(data_dir), name)
    data = load(run_dir)
    previous = load_previous(run_dir)
    show(as_text(data, previous))
    html = run_dir / "report.html"
    html.write_text(as_html(data, previous), encoding="utf-8")
    return html


def load(run_dir: Path) -> dict:
    return json.loads((Path(run_dir) / "report.json").read_text(encoding="utf-8"))


def previous_run(run_dir: Path) -> Path | None:
    """The run before ``run_dir`` beside it (run names are timestamps, so sorted names are run order) that
    has a report; None for the first run."""
    run_dir = Path(run_dir)
    earlier = sorted(p for p in run_dir.parent.iterdir()
                     if p.name < run_dir.name and (p / "report.json").is_file()) if run_dir.parent.is_dir() else []
    return earlier[-1] if earlier else None


def load_previous(run_dir: Path) -> dict | None:
    """The report of ``previous_run``; None when there is none, or when it cannot be read: the comparison
    is extra, and a damaged older run must not stop this run's report."""
    before = previous_run(run_dir)
    if before is None:
        return None
    try:
        previous = load(before)
        stages(previous)  # the shape the comparison reads
        return previous
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def stage_timings(report: dict) -> list[dict]:
    """The run's stages in run order, each with its share of the run; [] for a report from before timings.

    The share is of the flow's wall time when the report has it, else of the stages' sum.
    """
    rows = report.get("stages") or []
    total = report.get("seconds") or sum(r.get("seconds") or 0.0 for r in rows)
    return [{**r, "share": (r.get("seconds") or 0.0) / total if total else 0.0} for r in rows]


def in_out(row: dict) -> str:
    """A stage's ``in → out unit``, with – for a count it did not report."""
    def count(value):
        return "–" if value is None else str(value)

    unit = f" {row['unit']}" if row.get("unit") else ""
    return f"{count(row.get('in'))} → {count(row.get('out'))}{unit}"


def difference(now: float | int | None, before: float | int | None, digits: int = 0) -> str:
    """``now - before`` signed (+3, -1.2), rounded to ``digits`` for a float; – when either is unknown."""
    if now is None or before is None:
        return "–"
    diff = now - before
    if isinstance(diff, int):
        return f"{diff:+d}"
    diff = round(diff, digits or 1) or 0.0  # no "-0.0"
    return f"{diff:+.{digits or 1}f}"


def stages(report: dict) -> list[tuple[str, int]]:
    """The funnel's stages, each with how many records reached it."""
    pages = report["pages"]
    funnel = report["funnel"]
    drops = funnel["pairs_dropped"]
    alignment_drops = sum(v for k, v in drops.items() if not k.startswith(("dedup:", "search:")))
    dedup_drops = sum(v for k, v in drops.items() if k.startswith("dedup:"))
    rows = [
        ("pages fetched", sum(pages.values())),
        ("content pages", pages.get("ok", 0)),
        ("pairs aligned", funnel["pairs_in"] - alignment_drops),
        ("pairs after dedup", funnel["pairs_in"] - alignment_drops - dedup_drops),
    ]
    if "search" in funnel:
        rows.append(("pairs search-checked", funnel["pairs_kept"]))
    return rows


def as_text(report: dict, previous: dict | None = None) -> str:
    """The report as text; ``previous``: the run before it, shown in a second column with the change."""
    lines = [f"run {report['run']}  release {report.get('release') or report.get('note') or '-'}"]
    if report.get("seconds") is not None:
        lines.append(f"started {report.get('started_at') or '?'}, {report['seconds']:.1f} s")
    if previous is not None:
        release = previous.get("release") or previous.get("note") or "-"
        lines.append(f"previous run {previous['run']}  release {release}")
    lines.append("")
    lines += _counts_text(stages(report), stages(previous) if previous else None, width=20, indent="  ")
    lines += _timings_text(report, previous)
    funnel = report["funnel"]
    before = previous["funnel"] if previous else None
    lines += ["", "  pairs dropped by reason"]
    lines += _counts_text(sorted(funnel["pairs_dropped"].items(), key=lambda x: -x[1]),
                          list(before["pairs_dropped"].items()) if before else None, absent=0)
    lines += ["", f"  triples kept {funnel['triples_kept']} of {funnel['triples_in']}; dropped by reason"]
    lines += _counts_text(sorted(funnel["triples_dropped"].items(), key=lambda x: -x[1]),
                          list(before["triples_dropped"].items()) if before else None, absent=0)
    for kind, counts in (funnel.get("domains") or {}).items():
        if counts:
            lines += ["", f"  kept pairs by {kind}"]
            lines += [f"    {k:<56}{v:>8}" for k, v in counts.items()]
    for title, counts in item_sections(funnel.get("items") or {}):
        lines += ["", f"  {title}"]
        lines += [f"    {k:<56}{v:>8}" for k, v in counts]
    items = funnel.get("items") or {}
    if items.get("mcq_candidates"):
        lines += ["", f"  candidate kgc/qa items with nine distractors  {items['mcq_with_nine_distractors']:.1%} of "
                      f"{items['mcq_candidates']} (the others dropped, never padded)"]
    verification = items.get("verification")
    if verification:
        lines += ["", f"  item verifiers that ran: {', '.join(verification['verifiers_ran']) or 'none'}",
                  f"  each dropped item with its verifier, reason and evidence: runs/{report['run']}/items/"
                  "verification.jsonl"]
    return "\n".join(lines)


def _counts_text(rows: list[tuple[str, int]], previous: list[tuple[str, int]] | None, width: int = 56,
                 indent: str = "    ", absent: int | None = None) -> list[str]:
    """``label  count`` lines; with ``previous``, its count and the change beside (a reason only the
    previous run had is listed with 0 now). absent: a label the previous run lacks counted as this (0 for
    drop reasons: none dropped), or None (–: not measured then, like search before it existed)."""
    if previous is None:
        return [f"{indent}{k:<{width}}{v:>8}" for k, v in rows]
    before = {k: absent for k, _ in rows} | dict(previous) if absent is not None else dict(previous)
    rows = rows + [(k, 0) for k, _ in previous if k not in dict(rows)]
    head = f"{indent}{'':<{width}}{'this run':>10}{'previous':>10}{'change':>8}"
    return [head] + [f"{indent}{k:<{width}}{v:>10}{_fmt(before.get(k)):>10}{difference(v, before.get(k)):>8}"
                     for k, v in rows]


def _fmt(value) -> str:
    return "–" if value is None else str(value)


def _timings_text(report: dict, previous: dict | None) -> list[str]:
    rows = stage_timings(report)
    if not rows:
        return []
    before = {r["stage"]: r for r in (previous or {}).get("stages") or []}
    flow = f" of the flow's {report['seconds']:.1f} s" if report.get("seconds") else ""
    lines = ["", f"  stage timings{flow}",
             f"    {'stage':<12}{'seconds':>9}{'share':>7}  {'in → out':<28}{'':<8}"
             + (f"{'previous':>10}{'change':>8}" if previous is not None else "")]
    for r in rows:
        line = (f"    {r['stage']:<12}{r['seconds']:>9.1f}{r['share']:>7.0%}  {in_out(r):<28}"
                f"{'cached' if r.get('cached') else '':<8}")
        if previous is not None:
            old = before.get(r["stage"], {}).get("seconds")
            line += f"{'–' if old is None else f'{old:.1f}':>10}{difference(r['seconds'], old, 1):>8}"
        lines.append(line.rstrip())
    return lines


def item_sections(items: dict) -> list[tuple[str, list[tuple[str, int]]]]:
    """The item stage's distributions, as (title, rows) for the text and HTML reports."""
    sections = [
        ("items kept, by kind", items.get("items_kept")),
        ("items dropped, by kind and reason", items.get("items_dropped")),
        ("gold position among the ten options (kgc; uniform is right)", items.get("gold_position")),
        ("distractor sources (kgc)", items.get("distractor_sources")),
        ("distractor sources, share in percent (kgc)",
         {k: round(100 * v, 1) for k, v in (items.get("distractor_source_share") or {}).items()}),
        ("which end of the triple is asked (kgc)", items.get("asked")),
        (f"distractor similarity to the gold ({items.get('embedder', '?')})", items.get("distractor_similarity")),
        ("candidates rejected, by reason", items.get("rejected_candidates")),
        ("offline baselines (no model): items each answers, by config",
         {f"{kind}:{name}": n for kind, row in ((items.get("baselines") or {}).get("configs") or {}).items()
          for name, n in row["solved"].items() if kind != "t2t"}),
        ("offline baselines: easy share of each config after the budget, percent",
         {kind: round(100 * row["easy_share"], 1)
          for kind, row in ((items.get("baselines") or {}).get("configs") or {}).items() if kind != "t2t"}),
        ("item verifiers: dropped", {k: v["dropped"] for k, v in (items.get("verification") or {}).items()
                                     if isinstance(v, dict) and "dropped" in v}),
    ]
    return [(title, list(counts.items())) for title, counts in sections if counts]


BAR_PX = 420  # the width of the bars' axis


def _bars(rows: list[tuple[str, int]], colour: str) -> str:
    """A horizontal bar chart (Altair's Vega-Lite, rendered to static SVG by vl-convert, so the page needs no
    script and no network); every label is whole (no length limit) and the label column is as wide as the
    longest one."""
    if not rows:
        return "<p>none</p>"
    import altair as alt
    import vl_convert as vlc

    data = alt.Data(values=[{"label": label, "count": value, "order": i} for i, (label, value) in enumerate(rows)])
    bars = alt.Chart(data).mark_bar(color=colour).encode(
        y=alt.Y("label:N", sort=alt.EncodingSortField("order"), title=None, axis=alt.Axis(labelLimit=0)),
        x=alt.X("count:Q", title=None))
    chart = (bars + bars.mark_text(align="left", dx=3).encode(text="count:Q")).properties(width=BAR_PX)
    svg = vlc.vegalite_to_svg(chart.to_dict())
    return svg.replace("<svg ", '<svg role="img" ', 1)


def _table(head: list[str], rows: list[list], numeric: set[int] = frozenset()) -> str:
    cells = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f'<td{" class=num" if i in numeric else ""}>{escape(str(c))}</td>'
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def _timings_html(report: dict, previous: dict | None) -> str:
    rows = stage_timings(report)
    if not rows:
        return ""
    before = {r["stage"]: r for r in (previous or {}).get("stages") or []}
    head = ["stage", "seconds", "share of the run", "in → out", "cached"]
    if previous is not None:
        head += [f"previous ({previous['run']}) s", "change s"]
    body = []
    for r in rows:
        row = [r["stage"], f"{r['seconds']:.1f}", f"{r['share']:.0%}", in_out(r), "cached" if r.get("cached") else ""]
        if previous is not None:
            old = before.get(r["stage"], {}).get("seconds")
            row += ["–" if old is None else f"{old:.1f}", difference(r["seconds"], old, 1)]
        body.append(row)
    numeric = {1, 2} | ({5, 6} if previous is not None else set())
    return (f"<h2>Stage timings</h2>{_table(head, body, numeric)}"
            f"{_bars([(r['stage'], round(r['seconds'], 1)) for r in rows], '#5c8a8a')}")


def _previous_html(report: dict, previous: dict | None) -> str:
    if previous is None:
        return ""
    before = dict(stages(previous))
    rows = [[name, count, _fmt(before.get(name)), difference(count, before.get(name))]
            for name, count in stages(report)]
    drops = dict(previous["funnel"]["pairs_dropped"])
    now = report["funnel"]["pairs_dropped"]
    rows += [[f"pairs dropped: {k}", now.get(k, 0), drops.get(k, 0), difference(now.get(k, 0), drops.get(k, 0))]
             for k in sorted(set(now) | set(drops), key=lambda k: -now.get(k, 0))]
    return (f"<h2>Beside the previous run</h2><p>Previous run: {escape(previous['run'])}, release "
            f"{escape(str(previous.get('release') or previous.get('note') or '-'))}</p>"
            + _table(["", "this run", "previous", "change"], rows, {1, 2, 3}))


def as_html(report: dict, previous: dict | None = None) -> str:
    """The report as an HTML page; ``previous``: the run before it, compared in its own section."""
    funnel = report["funnel"]
    pair_drops = sorted(funnel["pairs_dropped"].items(), key=lambda x: -x[1])
    triple_drops = sorted(funnel["triples_dropped"].items(), key=lambda x: -x[1])
    return (
        '<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8">'
        f"<title>zhbench run {escape(report['run'])}</title>"
        "<style>body{font-family:sans-serif;margin:2em;max-width:1000px}svg.marks{max-width:100%;height:auto}"
        "table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left}td.num{text-align:right}</style>"
        f"</head><body><h1>Run {escape(report['run'])}</h1>"
        f"<p>Release: {escape(str(report.get('release') or report.get('note') or '-'))}</p>"
        + (f"<p>Started {escape(str(report.get('started_at') or '?'))}, {report['seconds']:.1f} s</p>"
           if report.get("seconds") is not None else "")
        + f"<h2>Funnel</h2>{_bars(stages(report), '#4878a8')}"
        + _previous_html(report, previous)
        + _timings_html(report, previous)
        + f"<h2>Pairs dropped, by reason</h2>{_bars(pair_drops, '#c8553d')}"
        f"<h2>Triples dropped, by reason</h2>{_bars(triple_drops, '#e09f3e')}"
        + "".join(f"<h2>Kept pairs, by {escape(kind)}</h2>{_bars(list(counts.items()), '#6a994e')}"
                  for kind, counts in (funnel.get("domains") or {}).items() if counts)
        + "".join(f"<h2>{escape(title[:1].upper() + title[1:])}</h2>{_bars(rows, '#7b6d8d')}"
                  for title, rows in item_sections(funnel.get("items") or {}))
        + "</body></html>\n"
    )
