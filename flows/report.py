"""The run report: the funnel of a run (in, out, and why) as text and as an HTML page with a chart."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path


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


def load(run_dir: Path) -> dict:
    return json.loads((Path(run_dir) / "report.json").read_text(encoding="utf-8"))


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


def as_text(report: dict) -> str:
    lines = [f"run {report['run']}  release {report.get('release') or report.get('note') or '-'}", ""]
    for name, count in stages(report):
        lines.append(f"  {name:<20}{count:>8}")
    funnel = report["funnel"]
    lines += ["", "  pairs dropped by reason"]
    lines += [f"    {k:<56}{v:>8}" for k, v in sorted(funnel["pairs_dropped"].items(), key=lambda x: -x[1])]
    lines += ["", f"  triples kept {funnel['triples_kept']} of {funnel['triples_in']}; dropped by reason"]
    lines += [f"    {k:<56}{v:>8}" for k, v in sorted(funnel["triples_dropped"].items(), key=lambda x: -x[1])]
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
        ("item verifiers: dropped", {k: v["dropped"] for k, v in (items.get("verification") or {}).items()
                                     if isinstance(v, dict) and "dropped" in v}),
    ]
    return [(title, list(counts.items())) for title, counts in sections if counts]


def _bars(rows: list[tuple[str, int]], colour: str) -> str:
    if not rows:
        return "<p>none</p>"
    top = max(v for _, v in rows) or 1
    height = 26 * len(rows) + 10
    parts = [f'<svg width="760" height="{height}" role="img">']
    for i, (label, value) in enumerate(rows):
        y = 10 + 26 * i
        width = int(420 * value / top)
        parts.append(f'<text x="300" y="{y + 15}" text-anchor="end" font-size="13">{escape(label)}</text>'
                     f'<rect x="310" y="{y}" width="{width}" height="20" fill="{colour}"></rect>'
                     f'<text x="{316 + width}" y="{y + 15}" font-size="13">{value}</text>')
    parts.append("</svg>")
    return "".join(parts)


def as_html(report: dict) -> str:
    funnel = report["funnel"]
    pair_drops = sorted(funnel["pairs_dropped"].items(), key=lambda x: -x[1])
    triple_drops = sorted(funnel["triples_dropped"].items(), key=lambda x: -x[1])
    return (
        '<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8">'
        f"<title>zhbench run {escape(report['run'])}</title>"
        "<style>body{font-family:sans-serif;margin:2em;max-width:820px}</style></head><body>"
        f"<h1>Run {escape(report['run'])}</h1><p>Release: {escape(str(report.get('release') or report.get('note') or '-'))}</p>"
        f"<h2>Funnel</h2>{_bars(stages(report), '#4878a8')}"
        f"<h2>Pairs dropped, by reason</h2>{_bars(pair_drops, '#c8553d')}"
        f"<h2>Triples dropped, by reason</h2>{_bars(triple_drops, '#e09f3e')}"
        + "".join(f"<h2>Kept pairs, by {escape(kind)}</h2>{_bars(list(counts.items()), '#6a994e')}"
                  for kind, counts in (funnel.get("domains") or {}).items() if counts)
        + "".join(f"<h2>{escape(title[:1].upper() + title[1:])}</h2>{_bars(rows, '#7b6d8d')}"
                  for title, rows in item_sections(funnel.get("items") or {}))
        + "</body></html>\n"
    )
