"""The search validation's searches asked while the alignment still runs, so that the verify stage finds them in
the catalog's cache (flows/verify.py).

As each part of the alignment ends, the queries of its kept pairs' kept triples are handed to a process of their
own, which asks the search service (a SearXNG instance, a search API, the mirror's search) and caches the answers
in the catalog (``CachedSearch``: a journal of its own, folded into the catalog when it ends). A process, not a
thread: the alignment keeps the run's process busy, and a thread of it would wait for the interpreter's lock after
every answer. The verify stage decides as it would have: every answer it reads is the search's, asked once; a pair
the dedup stage drops later was searched for nothing (a few in a hundred). The crawl's own index is not searched
ahead: it is built and searched in the run's process.

A search that fails ahead stops the searching ahead and nothing more: the verify stage asks again and says what is
wrong. The process stops by itself when the run's process is gone, however it went.

    python -m flows.search_ahead      (started by SearchAhead: its first line of input says what to search)
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Iterator

from flows.children import Child, stop_when_orphaned
from flows.settings import VerifySettings


class SearchAhead:
    """``feed`` it each alignment part's result as it ends; ``close`` waits for every query handed over to be
    asked (the verify stage's start); ``stop`` stops the searching at once (a run that failed)."""

    def __init__(self, settings: VerifySettings, catalog_path: Path):
        self.asked, self.failed, self._ended = 0, "", False
        self._child = Child("flows.search_ahead")
        self._process = self._child.process
        self._send({"settings": settings.model_dump(mode="json"), "catalog": str(catalog_path),
                    "parent": os.getpid()})

    @staticmethod
    def wanted(settings: VerifySettings) -> bool:
        return settings.search and not settings.searches_the_crawl

    def _send(self, message) -> None:
        try:
            self._process.stdin.write(json.dumps(message, ensure_ascii=False) + "\n")
            self._process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):  # it has stopped: close() says why
            pass

    def feed(self, part: dict) -> None:
        self._send([str(path) for path in part["shards"]])

    def close(self) -> None:
        """Wait for what was handed over to be asked; once, whoever calls it again."""
        if self._ended:
            return
        self._ended = True
        try:
            out, _ = self._process.communicate()  # the end of its input: the last part was handed over
        except (BrokenPipeError, OSError):  # it had stopped: what it said is all there is
            out = self._process.stdout.read() if not self._process.stdout.closed else ""
            self._process.wait()
        try:
            report = json.loads(out.strip().splitlines()[-1])
            self.asked, self.failed = int(report["asked"]), str(report["failed"])
        except (IndexError, ValueError, KeyError, TypeError):
            tail = self._child.said_last(1)
            self.failed = f"the process searching ahead ended without a report (exit {self._process.returncode})" \
                          + (f": {tail}" if tail else "")
        self._child.release()

    def stop(self) -> None:
        """Stop searching at once: what it asked so far is journaled, the rest is the verify stage's. Also
        where a close() waiting for it was cut short (a Ctrl-C, a SIGTERM)."""
        self._ended = True
        self._child.stop()


class _NoSearchAhead:
    """Nothing to search ahead: no search service in another process, or a verify stage done already."""

    asked, failed = 0, ""

    def feed(self, part: dict) -> None:
        pass

    def close(self) -> None:
        pass


@contextlib.contextmanager
def search_ahead(settings: VerifySettings, data_dir: Path,
                 verify_key: str) -> Iterator["SearchAhead | _NoSearchAhead"]:
    """A SearchAhead for the run, or one that does nothing where there is no search to ask ahead or the verify
    stage is done already (a run started again). At the block's end it is closed (waited for), or, where the
    block raised, stopped."""
    from flows import caching

    if not SearchAhead.wanted(settings) or caching.is_done(caching.work_dir(data_dir, "verify", verify_key)):
        yield _NoSearchAhead()
        return
    ahead = SearchAhead(settings, Path(data_dir) / "catalog.duckdb")
    try:
        yield ahead
    except BaseException:
        ahead.stop()
        raise
    ahead.close()


# --- the process -----------------------------------------------------------------------------------------


def _child() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the run's process stops this one: a Ctrl-C is for it
    first = json.loads(sys.stdin.readline())
    stop_when_orphaned(int(first["parent"]))
    from flows.verify import batched, claims, search_backend
    from schemas import Pair
    from schemas.storage.shards import iter_records
    from verifiers.search import CachedSearch, SearchValidator

    settings, catalog = VerifySettings(**first["settings"]), Path(first["catalog"])
    asked, failed, search, backend = 0, "", None, None
    try:
        for line in sys.stdin:
            if failed or not line.strip():
                continue
            shards = json.loads(line)
            try:
                if search is None:
                    backend = search_backend(settings, [], catalog)
                    search = CachedSearch(backend, catalog)
                pairs = iter_records(shards, Pair, columns=("pair_id", "text", "decision", "entity", "triples"))
                for batch in batched(pairs, 2048):
                    queries = [SearchValidator.query(head, relation) for head, _, relation, _, _ in claims(batch)]
                    search.search_many(queries, settings.k)
                    asked += len(queries)
            except Exception as exc:  # noqa: BLE001 - the verify stage asks again and says what is wrong
                failed = f"{type(exc).__name__}: {exc}"
    finally:
        if search is not None:
            search.close()
        if backend is not None:
            backend.close()
    print(json.dumps({"asked": asked, "failed": failed}, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_child())
