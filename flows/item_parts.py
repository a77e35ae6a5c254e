"""The item build split between processes: its batches of pairs cut into runs of about equal triples, the first
built by the stage's process, each other by a process of its own (``python -m flows.item_parts``), all at once.

Choosing distractors is most of the item stage, and it is Python: one process keeps one core busy. Each process
builds the crawl's models (value types, the graph, the difficulty panel, the web's statements) from the same
shards, so each part decides as the whole build would:

* a value that an earlier batch asked by its head is not asked by its head again (``ItemBuilder._asks``): a
  part first reads the batches before it for that, without building them;
* a sentence is used by one cloze item: the stage's process takes the parts' items in order and leaves out a
  cloze item whose sentence an earlier part used, counted as the one build would count it.

The items, their order and the counts are those of one process (a test holds them equal). Only a build without
an LLM and with character n-gram vectors is split: a model would be loaded once per process, and its
embedding cache and the LLM's replies are written by one.

    python -m flows.item_parts      (started by ``started``: its input says which batches to build)
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Iterator

import pyarrow.compute as pc
import pyarrow.parquet as pq

from flows.children import Child, stop_when_orphaned
from flows.settings import ItemsSettings

# Batches a part is given at the least: a process of its own starts Python, imports the builders and builds
# the crawl's models (about 5 s at 10k pages), which one batch does not repay. At 2k realistic pages (8,249 kept
# triples, 5 batches) two parts took the stage from 13.8 s to 12.0 s.
MIN_BATCHES = 2
# Processes a build is split between at the most, however many cores: each holds its own copy of the crawl's
# models (562-618 MB at 10k realistic pages, in four runs), and each adds the seconds of its
# model building, which the parts do not share.
MAX_PARTS = 4


class ItemPartError(RuntimeError):
    """A process building a part of the items stopped without its items."""


def portable(settings: ItemsSettings) -> bool:
    """Whether a build with these settings can be split: character n-gram vectors, computed where needed."""
    return settings.embedder.strip().startswith("char-ngram")


def plan(pair_shards: list[Path], batch_size: int, processes: int) -> list[tuple[int, int | None]]:
    """The parts of the build, as (first batch, batch to stop before; None: the last), in order: one per
    process up to MAX_PARTS, each of about the same number of triples and at least MIN_BATCHES batches;
    [(0, None)] for one."""
    if processes < 2:
        return [(0, None)]
    sizes: list[int] = []  # triples of each batch, as builders.items.batches cuts them
    current = 0
    for path in pair_shards:
        table = pq.read_table(path, columns=["decision", "triples"])
        lengths = pc.fill_null(pc.list_value_length(table.column("triples")), 0).to_pylist()
        for decision, triples in zip(table.column("decision").to_pylist(), lengths):
            if decision != "kept":
                continue
            current += triples
            if current >= batch_size:
                sizes.append(current)
                current = 0
    if current:
        sizes.append(current)
    count = min(processes, MAX_PARTS, len(sizes) // MIN_BATCHES)
    if count < 2:
        return [(0, None)]
    total, cuts, running = sum(sizes), [0], 0
    for index, size in enumerate(sizes):
        running += size
        if len(cuts) < count and running >= total * len(cuts) / count and index + 1 < len(sizes):
            cuts.append(index + 1)
    return [(first, stop) for first, stop in zip(cuts, [*cuts[1:], None])]


class Part:
    """One part of the build in a process of its own; ``result`` waits for it."""

    def __init__(self, spec: dict):
        self._child = Child("flows.item_parts")
        self._process = self._child.process
        self.first, self.stop_before = spec["first"], spec["stop"]
        with contextlib.suppress(BrokenPipeError, OSError):  # it stopped at once: result() says why
            self._process.stdin.write(json.dumps(spec, ensure_ascii=False))
            self._process.stdin.close()

    def result(self) -> dict:
        """Its item shards, counts and cloze sentences; ItemPartError if it stopped without them."""
        out = self._process.stdout.read()
        self._process.wait()
        try:
            return json.loads(out.strip().splitlines()[-1])
        except (IndexError, ValueError):
            tail = self._child.said_last(3)
            raise ItemPartError(f"the process building items of batches {self.first} to "
                                f"{self.stop_before if self.stop_before is not None else 'the last'} ended without "
                                f"them (exit {self._process.returncode})" + (f": {tail}" if tail else "")) from None
        finally:
            self._child.release()

    def stop(self) -> None:
        self._child.stop()


@contextlib.contextmanager
def started(parts: list[tuple[int, int | None]], spec: dict) -> Iterator[list[Part]]:
    """A process for each part, started now; where the block raises (or is interrupted), stopped."""
    running: list[Part] = []
    try:
        for number, (first, stop) in enumerate(parts, 1):
            running.append(Part({**spec, "first": first, "stop": stop, "parent": os.getpid(),
                                 "out": str(Path(spec["raw_dir"]) / f"part-{number}")}))
        yield running
    except BaseException:
        for part in running:
            part.stop()
        raise


def merged(result: dict, builder) -> Iterator:
    """A part's items, in order, as the whole build would have given them after the parts before (whose cloze
    sentences ``builder.cloze_sentences`` holds); its counts added to the builder's."""
    from schemas import Item
    from schemas.storage.shards import iter_records

    builder.stats.add(result["stats"])
    sentence_of = result["cloze"]
    for item in iter_records([Path(p) for p in result["shards"]], Item):
        if item.kind == "cloze":
            key = sentence_of[item.item_id]
            if key in builder.cloze_sentences:  # an earlier part's item uses the sentence
                builder.stats.built["cloze"] -= 1
                builder.stats.dropped["cloze:sentence_used_by_another_item"] += 1
                continue
            builder.cloze_sentences[key] = item.item_id
        yield item


# --- the process -----------------------------------------------------------------------------------------


def _child() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the stage's process stops this one: a Ctrl-C is for it
    spec = json.loads(sys.stdin.read())
    stop_when_orphaned(int(spec["parent"]))
    from builders.templates import load_templates
    from filters.embeddings import make_embedder
    from flows.item_models import item_builder
    from flows.settings import VerifySettings
    from schemas import Item, Pair
    from schemas.storage.shards import ShardWriter, iter_records

    settings = ItemsSettings(**spec["items"])
    verify = VerifySettings(**spec["verify"]) if spec["verify"] is not None else None
    pair_shards = [Path(p) for p in spec["pair_shards"]]
    embedder = make_embedder(settings.embedder)
    with item_builder(pair_shards, settings, embedder, load_templates(settings.templates), None,
                      [Path(p) for p in spec["page_shards"]], verify,
                      Path(spec["cache"]) if spec["cache"] else None, spec["batch_size"]) as builder:
        with ShardWriter(Path(spec["out"]), "items", Item) as writer:
            writer.write_all(builder.build(iter_records(pair_shards, Pair), spec["first"], spec["stop"]))
    print(json.dumps({"shards": [str(p) for p in writer.paths], "stats": builder.stats.counters(),
                      "cloze": {item: key for key, item in builder.cloze_sentences.items()}}, ensure_ascii=False),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_child())
