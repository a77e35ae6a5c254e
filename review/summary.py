"""What the review commands print: a release's queue and agreement, and what an import recorded."""

from __future__ import annotations

from typing import Iterator

from review.store import ReviewStore


def status_lines(store: ReviewStore, name: str, version: str) -> Iterator[str]:
    """The queue's counts and verdicts, Cohen's kappa overall, then agreement per annotator pair."""
    s = store.status(name, version)
    kappa = "-" if s["kappa"] is None else f"{s['kappa']:.3f}"
    yield (f"{name} {version}: {s['queued']} queued; open {s['open']}, agreed {s['agreed']}, "
           f"disputed {s['disputed']}, adjudicated {s['adjudicated']}\n"
           f"  verdicts  accept {s['accepted']}, reject {s['rejected']}\n"
           f"  Cohen's kappa over {s['doubly_annotated']} doubly annotated items: {kappa}")
    for row in store.stats(name, version)["by_pair"]:
        k = "-" if row["kappa"] is None else f"{row['kappa']:.3f}"
        yield f"  {row['group']:<24} {row['items']:>5} items  agreement {row['agreement']:.0%}  kappa {k}"


def import_lines(name: str, version: str, result: dict) -> list[str]:
    """The counts of ``labelstudio.import_tasks``' result, each skip reason, and the first ten problems."""
    lines = [f"{name} {version}: imported {result['imported']}, already there {result['already_there']}, "
             f"skipped {sum(result['skipped'].values())}"]
    lines += [f"  skipped {n}: {reason}" for reason, n in sorted(result["skipped"].items())]
    lines += [f"    task {problem.get('task')} item {problem.get('item_id')} by {problem.get('person')}: "
              f"{problem.get('message') or problem.get('reason')}" for problem in result.get("problems", [])[:10]]
    return lines


def refused(result: dict) -> str:
    """Why an import was not recorded whole, in one line ('' when it was: only cancelled annotations, or
    none, skipped beside what was recorded). An import that recorded nothing at all is always refused."""
    skipped = sum(result["skipped"].values())
    if not result["imported"] and not result["already_there"]:
        if not skipped:
            return "nothing imported: the file holds no annotations"
        reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(result["skipped"].items()))
        return f"nothing imported: all {skipped} annotations skipped ({reasons})"
    kept_out = {reason: n for reason, n in result["skipped"].items() if reason != "cancelled"}
    if not kept_out:
        return ""
    return f"{sum(kept_out.values())} annotations not recorded ({', '.join(kept_out)}); the reasons are above"
