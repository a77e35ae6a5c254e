"""Peak memory and throughput of the alignment and dedup stages as the corpus grows.

    python -m bench.align_bench [--pairs 100000 1000000] [--dir /tmp/zhbench-align-bench]

For each size, a child process writes that many synthetic pages (crawlers.mirror.synth,
with its planted noise) as page shards; a second child runs ``align_stage`` and
``dedup_stage`` on them exactly as ``zhbench run`` does and reports its own peak RSS
(``ru_maxrss``) and pairs/s. Each stage streams its input shards, so the peak should
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
    from warehouse.shards import ShardWriter

    fetched = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with ShardWriter(out_dir, "pages", Page) as writer:
        for index, entry in enumerate(Synthesizer(load_facts(), SynthConfig(seed=5)).take(count)):
            url = f"http://bench.invalid/item/{entry.title}/{index}"
            writer.write(Page(
                url=url, canonical_url=url, title=entry.title, subtitle=entry.sense, status="ok", source="baidu",
                summary=entry.summary, content_hash=f"{index:016x}", fetched_at=fetched,
                infobox=[InfoboxEntry(name, value, [v for v in value.split("、") if v])
                         for name, value in entry.infobox]))


def run_stages(pages_dir: Path, out_dir: Path) -> dict:
    from flows.cdtp import align_stage, dedup_stage
    from flows.settings import AlignSettings, DedupSettings

    shards = sorted(pages_dir.glob("*.parquet"))
    start = time.perf_counter()
    aligned = align_stage(shards, AlignSettings(), out_dir / "pairs")
    middle = time.perf_counter()
    deduped = dedup_stage(aligned.shards, DedupSettings(), aligned.funnel, out_dir / "pairs-dedup")
    end = time.perf_counter()
    funnel = deduped["funnel"]
    return {"pairs": funnel["pairs_in"], "kept": funnel["pairs_kept"], "align_s": middle - start,
            "dedup_s": end - middle, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/zhbench-align-bench"))
    parser.add_argument("--child", choices=["pages", "stages"], help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child == "pages":
        write_pages(args.count, args.dir)
        return 0
    if args.child == "stages":
        print(json.dumps(run_stages(args.dir / "pages", args.dir / "out")))
        return 0

    print(f"{'pairs':>9} {'kept':>8} {'align p/s':>10} {'dedup p/s':>10} {'peak RSS':>10}")
    for count in args.pairs:
        work = args.dir / str(count)
        shutil.rmtree(work, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "bench.align_bench", "--child", "pages", "--count", str(count),
                        "--dir", str(work / "pages")], check=True)
        done = subprocess.run([sys.executable, "-m", "bench.align_bench", "--child", "stages", "--dir", str(work)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            print(f"stages failed on {count} pairs:\n{done.stderr[-3000:]}", file=sys.stderr)
            return 1
        result = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{result['pairs']:>9} {result['kept']:>8} {result['pairs'] / result['align_s']:>10.0f} "
              f"{result['kept'] / max(result['dedup_s'], 1e-9):>10.0f} {result['peak_rss_mb']:>8.0f} MB",
              flush=True)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
