"""Random kills of ``zhbench run`` on the bundled mirror, each followed by a rerun: what the rerun leaves must be
what an unkilled run leaves, review queue included.

    python -m bench.kill_trial [--kills 20] [--seed 45] [--dir /tmp/zhbench-kill-trial]

First one unkilled run (the reference): its release's manifest checksum, its review queue (every item's config,
category, status and payload), when its publish stage started and when its release was moved into place. Then, for
each trial, a fresh data directory; a run killed with SIGKILL (the main process only, as the kernel's OOM killer or
``kill -9 PID`` does: what it started must notice and stop on its own); the same command again. Half the kills fall
anywhere in a run (uniformly over the reference run's length); the other half within 0.4 s after the killed run's
release directory appears (the rename): where a kill leaves a release that is in place but not yet registered,
queued for review or recorded as its run's, the window an earlier trial lost review work in. Every run has the same
``SOURCE_DATE_EPOCH``.

Checked after each rerun, against the reference:
- the rerun exits 0, and its release's manifest is byte-identical (same sha256);
- the review queue holds exactly the reference's items, each with the same payload (0 lost, 0 extra, 0 changed);
- the catalog owes the queue nothing (``review_owed``) and ``repair`` finds nothing left to settle;
- no process the killed run started outlives it by more than 30 s.

Printed: a line per trial (where the kill landed, what the rerun's start repaired, the checks), then the totals.
Exits 1 if any check failed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench.localhost import child_pids, free_port, zhbench_env
from warehouse.release import remove_tree

EPOCH = "1767225600"
STAGE_LINE = re.compile(r"^zhbench: (\w+) (started|done)")
ORPHAN_GRACE_S = 30.0
AFTER_RENAME_S = 0.4  # a run finished its review stage 0.34 s after its rename in an earlier trial of this bench


def run_command(data: Path) -> list[str]:
    return [sys.executable, "-m", "flows.cli", "run", "--data-dir", str(data), "--mirror-port", str(free_port())]


def release_dir(data: Path) -> Path:
    return data / "releases" / "cdtp" / "0.1.0"


def manifest_sha(data: Path) -> str | None:
    manifest = release_dir(data) / "manifest.json"
    return hashlib.sha256(manifest.read_bytes()).hexdigest() if manifest.is_file() else None


def queue(data: Path) -> dict[tuple[str, str], tuple]:
    """The review queue of cdtp 0.1.0: (config, item_id) → (category, status, payload)."""
    if not (data / "review.sqlite").is_file():
        return {}
    with sqlite3.connect(data / "review.sqlite") as con:
        rows = con.execute("SELECT config, item_id, category, status, payload FROM queue "
                           "WHERE release_name = 'cdtp' AND release_version = '0.1.0'").fetchall()
    return {(config, item): (category, status, json.loads(payload)) for config, item, category, status, payload in rows}


def settled(data: Path) -> tuple[list, list[str]]:
    """What the catalog still owes the review queue, and what a repair would still do (both empty when sound)."""
    from schemas.storage.catalog import Catalog
    from warehouse.release import repair

    return Catalog(data / "catalog.duckdb").review_owed(), repair(data)


def stage_at(output: str) -> str:
    """The stage a run was in when it stopped, from its progress lines ("start-up" before the first)."""
    where = "start-up"
    for line in output.splitlines():
        found = STAGE_LINE.match(line)
        if found:
            where = found.group(1) if found.group(2) == "started" else f"after {found.group(1)}"
    return where


def reference_run(work: Path, env: dict) -> dict:
    data = work / "reference"
    began, marks = time.monotonic(), {}
    process = subprocess.Popen(run_command(data), cwd=work, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    output: list[str] = []

    def read() -> None:  # each progress line timed as it arrives
        for line in process.stdout:
            output.append(line)
            if found := STAGE_LINE.match(line):
                marks.setdefault(f"{found.group(1)} {found.group(2)}", time.monotonic() - began)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    release = release_dir(data)
    while process.poll() is None and not release.is_dir():  # when the release is moved into place
        time.sleep(0.005)
    marks["rename"] = time.monotonic() - began
    process.wait()
    reader.join()
    if process.returncode != 0:
        raise SystemExit(f"the reference run failed ({process.returncode}):\n{''.join(output)[-3000:]}")
    length = time.monotonic() - began
    return {"data": data, "sha": manifest_sha(data), "queue": queue(data), "length": length,
            "publish_at": marks["publish started"], "rename_at": marks["rename"]}


def killed_run(data: Path, env: dict, work: Path, delay: float, at_rename: bool) -> tuple[list[int], str]:
    """A run killed ``delay`` seconds after its start, or after its release directory appeared (the rename):
    the processes it had started, and the stage it was in."""
    log = work / f"{data.name}.killed.log"
    release = release_dir(data)
    with open(log, "w", encoding="utf-8") as out:
        process = subprocess.Popen(run_command(data), cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT)
    if at_rename:
        while not release.is_dir() and process.poll() is None:
            time.sleep(0.002)
    began = time.monotonic()
    while time.monotonic() - began < delay and process.poll() is None:
        time.sleep(0.002)
    children = child_pids(process.pid)
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
    process.wait()
    where = "finished before the kill" if process.returncode == 0 else stage_at(log.read_text(encoding="utf-8"))
    return children, where


def outliving(pids: list[int]) -> list[int]:
    """Of the processes a killed run started, those still there after the grace (killed then, and named)."""
    def running(pid: int) -> bool:  # a zombie has ended, only its parent has not read its status yet
        try:
            return "zombie" not in Path(f"/proc/{pid}/status").read_text(errors="replace").lower()
        except OSError:  # gone
            return False

    deadline = time.monotonic() + ORPHAN_GRACE_S
    alive = [pid for pid in pids if running(pid)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [pid for pid in alive if running(pid)]
    for pid in alive:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return alive


def compare(reference: dict, found: dict) -> tuple[int, int, int]:
    lost = [key for key in reference if key not in found]
    extra = [key for key in found if key not in reference]
    changed = [key for key in reference if key in found and found[key] != reference[key]]
    return len(lost), len(extra), len(changed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20, help="killed runs, each rerun (default 20)")
    parser.add_argument("--seed", type=int, default=45, help="seed of the kill times (default 45)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/zhbench-kill-trial"), help="scratch directory")
    args = parser.parse_args(argv)
    remove_tree(args.dir)
    args.dir.mkdir(parents=True)
    env = zhbench_env(args.dir / "prefect-home", SOURCE_DATE_EPOCH=EPOCH, ZHBENCH_ENGINE_IDLE_S="120")
    reference = reference_run(args.dir, env)
    print(f"reference run: {reference['length']:.1f} s (publish started at {reference['publish_at']:.1f} s, the "
          f"release in place at {reference['rename_at']:.1f} s, {reference['length'] - reference['rename_at']:.2f} s "
          f"before its exit), manifest {reference['sha'][:16]}…, "
          f"{len(reference['queue'])} items queued for review")
    rng = random.Random(args.seed)
    failures, lost_total, where_counts = 0, 0, {}
    for trial in range(1, args.kills + 1):
        at_rename = trial % 2 == 0
        delay = rng.uniform(0, AFTER_RENAME_S) if at_rename else rng.uniform(0, reference["length"])
        data = args.dir / f"trial-{trial:02d}"
        children, where = killed_run(data, env, args.dir, delay, at_rename)
        orphans = outliving(children)
        rerun = subprocess.run(run_command(data), cwd=args.dir, env=env, capture_output=True, text=True,
                               timeout=900)
        repaired = [line.split(None, 1)[1] for line in rerun.stdout.splitlines() if line.startswith("  repaired ")]
        sha, found = manifest_sha(data), queue(data)
        lost, extra, changed = compare(reference["queue"], found)
        owed, left = settled(data)
        problems = [text for text, bad in (
            (f"rerun exit {rerun.returncode}: {rerun.stderr.strip()[-300:]}", rerun.returncode != 0),
            (f"manifest {sha and sha[:16]} differs", sha != reference["sha"]),
            (f"queue: {lost} lost, {extra} extra, {changed} changed", lost or extra or changed),
            (f"still owed: {owed}", owed), (f"repair left: {left}", left),
            (f"outlived the kill: pids {orphans}", orphans)) if bad]
        failures += bool(problems)
        lost_total += lost
        where_counts[where] = where_counts.get(where, 0) + 1
        anchor = "after the rename" if at_rename else "after start"
        print(f"trial {trial:2d}: killed {delay:5.2f} s {anchor:<21} in {where:<16} "
              f"repaired: {'; '.join(repaired) or 'nothing'}")
        print(f"          {'; '.join(problems) if problems else f'ok: manifest identical, {len(found)} queued'}")
        if not problems:
            remove_tree(data)  # sealed releases inside; a failed trial's directory is kept to look at
    print(f"{args.kills} kills ({', '.join(f'{k} {v}' for k, v in sorted(where_counts.items()))}): "
          f"{lost_total} review items lost, {failures} trials with a failed check")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
