"""A run's start-up: from the command to its first stage, with the Prefect server shared or the run's own.

    python -m bench.startup_bench [--rounds 3] [--max-pages 20] [--dir /tmp/zhbench-startup-bench]

Each round runs ``zhbench run --max-pages N`` on the bundled mirror twice, alternating: once with
``ZHBENCH_ENGINE_IDLE_S=0`` (the run starts its own temporary server, as every run did before the server was
shared) and once with the shared server of a Prefect home that an earlier run of the bench started (a warm
machine: the server answers already). Each run is a fresh data directory; the figure is the run's own
"engine start-up" (the command's start to its first stage). Printed: the median of each, their ratio, and the
CPU reference of this machine (10M additions in Python), measured before the rounds.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from bench.localhost import free_port, zhbench_env
from bench.machine import cpu_reference


def startup(work: Path, name: str, max_pages: int, env: dict) -> float:
    data = work / name
    shutil.rmtree(data, ignore_errors=True)
    result = subprocess.run([sys.executable, "-m", "flows.cli", "run", "--data-dir", str(data), "--quiet",
                             "--max-pages", str(max_pages), "--mirror-port", str(free_port())],
                            capture_output=True, text=True, cwd=work, env=env, timeout=900)
    found = re.search(r"engine start-up ([\d.]+) s", result.stdout)
    if result.returncode != 0 or not found:
        raise SystemExit(f"the run failed ({result.returncode}):\n{result.stderr[-3000:]}")
    shutil.rmtree(data, ignore_errors=True)
    return float(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternated pairs of runs (default 3)")
    parser.add_argument("--max-pages", type=int, default=20, help="pages each run crawls (default 20)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/zhbench-startup-bench"), help="scratch directory")
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    home = args.dir / "prefect-home"
    own, shared = zhbench_env(home, ZHBENCH_ENGINE_IDLE_S="0"), zhbench_env(home, ZHBENCH_ENGINE_IDLE_S="120")
    reference = cpu_reference()
    first = startup(args.dir, "warm-up", args.max_pages, shared)  # starts the shared server (and migrates)
    times: dict[str, list[float]] = {"own server": [], "shared server": []}
    for _ in range(args.rounds):
        times["own server"].append(startup(args.dir, "own", args.max_pages, own))
        times["shared server"].append(startup(args.dir, "shared", args.max_pages, shared))
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}, CPU reference {reference:.2f} s; "
          f"{args.rounds} alternated rounds of zhbench run --max-pages {args.max_pages}")
    print(f"  the run that started the shared server: {first:.1f} s")
    for name, values in times.items():
        print(f"  {name:<14} start-up median {statistics.median(values):.1f} s  ({', '.join(f'{v:.1f}' for v in values)})")
    ratio = statistics.median(times["own server"]) / statistics.median(times["shared server"])
    print(f"  own / shared: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
