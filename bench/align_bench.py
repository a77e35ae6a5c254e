"""Peak memory and throughput of the alignment and dedup stages as the corpus grows.

    python -m bench.align_bench [--pairs 100000 1000000] [--dir /tmp/zhbench-align-bench]

For each size, a child process writes that many synthetic pages (crawlers.mirror.synth,
with its planted noise) as page shards; a second child runs ``align_stage`` on them
and a third ``dedup_stage`` on its output, exactly as ``zhbench run`` does (each stage
is a task with its own inputs on disk), and each reports its own peak RSS
(``ru_maxrss``) and pairs/s (dedup: kept pairs in per second). Each stage streams its input shards, so the peak should
stay flat as the corpus grows; what does grow is the dedup's on-disk work files.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path


def write_pages(count: int, out_dir: Path) -> None:
    from crawlers.mirror.facts import load_facts
    from crawlers.mirror.synth import SynthConfig, Synthesizer
    from schemas import InfoboxEntry, Page
    from schemas.storage.shards import ShardWriter

    fetched = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with ShardWriter(out_dir, "pages", Page) as writer:
        for index, entry in enumerate(Synthesizer(load_facts(), SynthConfig(seed=5)).take(count)):
            url = f"http://bench.invalid/item/{entry.title}/{index}"
            writer.write(Page(
                url=url, canonical_url=url, title=entry.title, subtitle=entry.sense, status="ok", source="baidu",
                summary=entry.summary, content_hash=f"{index:016x}", fetched_at=fetched,
                infobox=[InfoboxEntry(name, value, [v for v in value.split("、") if v])
                         for name, value in entry.infobox]))


def run_align(pages_dir: Path, out_dir: Path) -> dict:
    from filters.align_stage import align_stage
    from flows.settings import AlignSettings

    start = time.perf_counter()
    aligned = align_stage(sorted(pages_dir.glob("*.parquet")), AlignSettings(), out_dir / "pairs")
    (out_dir / "funnel.json").write_text(json.dumps(aligned.funnel), encoding="utf-8")
    return {"pairs": aligned.funnel["pairs_in"], "seconds": time.perf_counter() - start,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def run_dedup(out_dir: Path) -> dict:
    from filters.dedup_stage import dedup_stage
    from flows.settings import DedupSettings

    funnel = json.loads((out_dir / "funnel.json").read_text(encoding="utf-8"))
    start = time.perf_counter()
    deduped = dedup_stage(sorted((out_dir / "pairs").glob("*.parquet")), DedupSettings(), funnel,
                          out_dir / "pairs-dedup")
    return {"in": funnel["pairs_kept"], "kept": deduped["funnel"]["pairs_kept"],
            "seconds": time.perf_counter() - start,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/zhbench-align-bench"))
    parser.add_argument("--child", choices=["pages", "align", "dedup"], help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child == "pages":
        write_pages(args.count, args.dir)
        return 0
    if args.child == "align":
        print(json.dumps(run_align(args.dir / "pages", args.dir / "out")))
        return 0
    if args.child == "dedup":
        print(json.dumps(run_dedup(args.dir / "out")))
        return 0

    print(f"{'pairs':>9} {'kept':>8} {'align p/s':>10} {'align RSS':>10} {'dedup p/s':>10} {'dedup RSS':>10}")
    for count in args.pairs:
        work = args.dir / str(count)
        shutil.rmtree(work, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "bench.align_bench", "--child", "pages", "--count", str(count),
                        "--dir", str(work / "pages")], check=True)
        results = {}
        for stage in ("align", "dedup"):
            done = subprocess.run([sys.executable, "-m", "bench.align_bench", "--child", stage, "--dir", str(work)],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                print(f"{stage} failed on {count} pairs:\n{done.stderr[-3000:]}", file=sys.stderr)
                return 1
            results[stage] = json.loads(done.stdout.strip().splitlines()[-1])
        a, d = results["align"], results["dedup"]
        print(f"{a['pairs']:>9} {d['kept']:>8} {a['pairs'] / a['seconds']:>10.0f} {a['peak_rss_mb']:>7.0f} MB "
              f"{d['in'] / max(d['seconds'], 1e-9):>10.0f} {d['peak_rss_mb']:>7.0f} MB", flush=True)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
