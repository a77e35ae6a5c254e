"""Peak memory of the review server under a burst of wrong logins sent at once.

    python -m bench.login_burst [--logins 40] [--one-address]

Starts ``zhbench review serve``'s app (uvicorn, 127.0.0.1) on a fresh data directory with one account,
logs in once to warm it up, then sends ``--logins`` wrong-password logins together, each for another
name and, by ``X-Forwarded-For`` (which uvicorn trusts from the loopback address), from another client
address, so the login limit lets every one through and only the bound on concurrent Argon2 hashes
(review/passwords.py) holds memory down. ``--one-address`` sends them all from one address: the login
limit then verifies 10 and refuses the rest. Prints the server's resident memory after the warm-up and
its peak (VmHWM), the answers by status and the wall time.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

from bench.localhost import free_port, wait_port
from review.store import ReviewStore

ROOT = Path(__file__).resolve().parents[1]


def memory_mb(pid: int, field: str) -> float:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", text, re.M).group(1)) / 1024


def login(url: str, name: str, password: str, address: str) -> int:
    with httpx.Client(base_url=url, timeout=300) as client:
        token = re.search(r'name="login_token" value="([^"]*)"', client.get("/login").text).group(1)
        return client.post("/login", data={"login_token": token, "name": name, "password": password},
                           headers={"X-Forwarded-For": address}).status_code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--logins", type=int, default=40, help="wrong logins sent at once (default 40)")
    parser.add_argument("--one-address", action="store_true", help="send them all from one client address")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ReviewStore.at(tmp).add_user("li", "annotator", "correct horse battery")
        port = free_port()
        server = subprocess.Popen([sys.executable, "-c", f"from review.app import serve; serve({tmp!r}, port={port})"],
                                  cwd=ROOT)
        try:
            wait_port(port, 30)
            url = f"http://127.0.0.1:{port}"
            assert login(url, "li", "correct horse battery", "192.0.2.1") == 303
            before = memory_mb(server.pid, "VmRSS")
            statuses: list[int] = []
            barrier = threading.Barrier(args.logins)

            def guess(n: int) -> None:
                address = "198.51.100.7" if args.one_address else f"10.{n // 250}.{n % 250}.1"
                barrier.wait()
                statuses.append(login(url, f"guess{n}", f"wrong-{n}", address))

            threads = [threading.Thread(target=guess, args=(n,)) for n in range(args.logins)]
            started = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - started
            peak = memory_mb(server.pid, "VmHWM")
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(f"{args.logins} wrong logins at once{' from one address' if args.one_address else ''}: "
          f"answers {dict(sorted(Counter(statuses).items()))}, {wall:.1f} s; server RSS {before:.0f} MB after "
          f"warm-up, peak {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
