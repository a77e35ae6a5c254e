"""``zhbench run`` as one call: the flow run under the data-directory lock with the live stage display,
and the summary printed when it ends."""

from __future__ import annotations

import sys
from pathlib import Path

from flows.settings import Settings
from schemas.releases import ReleaseError, load_manifest


def launch(settings: Settings, flow: str, wait: bool = False, quiet: bool = False, since: float | None = None):
    """Run ``flow`` (cdtp or simpleqa) holding the data directory's lock, on inputs ``flows.preflight.check_run``
    passed.

    since: ``time.monotonic()`` when the command started, so the display counts the engine's start-up.
    Returns the flow's ``RunSummary`` and the seconds from ``since`` to the first stage (None when no
    stage started).
    """
    from warehouse.lock import data_dir_lock, describe

    def waiting(holder: dict) -> None:
        print(f"zhbench: {settings.data_dir} is in use by {describe(holder)}; waiting for it to finish",
              file=sys.stderr, flush=True)

    with data_dir_lock(Path(settings.data_dir), wait=wait, waiting=waiting):
        from flows import progress
        from flows.cdtp import run_flow
        from flows.display import StageDisplay

        with StageDisplay(quiet=quiet, since=since) as display, progress.listening(display):
            summary = run_flow(settings, flow)
    startup = None if display.first_started is None or since is None else display.first_started - since
    return summary, startup


def format_summary(summary, seconds: float | None = None, startup: float | None = None) -> str:
    """seconds: from the start of the command (default: the flow's own wall time); startup: until its first stage."""
    pages = summary.pages
    total = sum(pages.values())
    detail = ", ".join(f"{k} {v}" for k, v in pages.items())
    funnel = summary.funnel
    dropped = funnel["triples_dropped"]
    dropped_text = ", ".join(f"{k} {v}" for k, v in dropped.items()) or "none"
    pair_drops = ", ".join(f"{k} {v}" for k, v in funnel["pairs_dropped"].items()) or "none"
    retried = {k.rsplit("/", 1)[-1]: v for k, v in summary.crawl_stats.items()
               if k.startswith(("zhbench/retry/", "zhbench/blocked/"))}
    if retried:
        detail += "; refetched after " + ", ".join(f"{k} {v}" for k, v in sorted(retried.items()))
    not_kept = {k.removeprefix("zhbench/not_kept/"): v for k, v in summary.crawl_stats.items()
                if k.startswith("zhbench/not_kept/")}
    if not_kept:
        detail += "; not kept " + ", ".join(f"{k} {v}" for k, v in sorted(not_kept.items()))
    lines = [
        f"zhbench run finished in {summary.seconds if seconds is None else seconds:.1f} s"
        + (f" (engine start-up {startup:.1f} s)" if startup is not None else ""),
        *(f"  repaired        {line}" for line in summary.repaired),
        f"  pages crawled   {total} ({detail})",
        f"  pairs kept      {funnel['pairs_kept']} of {funnel['pairs_in']} (dropped: {pair_drops})",
        f"  triples kept    {funnel['triples_kept']} of {funnel['triples_in']}",
        f"  triples dropped {sum(dropped.values())} ({dropped_text})",
    ]
    items = funnel.get("items") or {}
    if items.get("items_kept"):
        lines.append("  items           " + ", ".join(f"{k} {v}" for k, v in items["items_kept"].items()))
    applied = funnel.get("review") or {}
    if applied.get("reviewed"):
        lines.append(f"  human review    {applied['reviewed']} reviewed items: {applied['verified']} kept as "
                     f"human-verified ({applied['answers_applied']} with an adjudicated answer), "
                     f"{applied['dropped']} dropped")
    if (funnel.get("review") or {}).get("queued"):
        release = summary.release_dir
        lines.append(f"  review          {funnel['review']['queued']} items queued for two blind annotations "
                     f"(zhbench review status {release.name} --name {release.parent.name})")
    if summary.release_dir is None:
        lines.append(f"  release         {summary.note}")
    else:
        lines += [f"  release         {summary.release_dir}",
                  "  manifest        " + ("checksums verified" if not summary.problems else "; ".join(summary.problems))]
        lines += _validation_lines(summary)
    return "\n".join(lines)


def _validation_lines(summary) -> list[str]:
    try:
        validation = load_manifest(summary.release_dir).validation
    except ReleaseError:  # the manifest line above already says what is wrong with the release
        return []
    if not validation:
        return ["  validation      off (release.gate = false)"]
    suites = validation.get("suites", {})
    docs = summary.run_dir / "validation" / "gx" / "uncommitted" / "data_docs" / "local_site" / "index.html"
    return [f"  validation      passed: {sum(s['expectations'] for s in suites.values())} expectations in "
            f"{len(suites)} suites; Data Docs {docs}"]
