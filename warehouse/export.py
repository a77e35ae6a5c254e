"""Releases in the formats evaluation harnesses read.

* ``chinese-simpleqa-jsonl``: the simpleqa config as Chinese SimpleQA's flat records
  ``{"id", "primary_category", "secondary_category", "question", "answer", "urls"}``,
  categories by their Chinese names as in Chinese SimpleQA's data (自然科学, 天文学 ...),
  one JSON object per line, UTF-8: what OpenCompass's and evalscope's Chinese SimpleQA
  loaders read. OpenCompass takes question, answer and primary_category. evalscope reads
  split "train" of a dataset directory (a directory holding this one file loads as
  that split), takes question and answer, keeps id and secondary_category, and groups
  by primary_category, which must be one of the six topic names in filters/taxonomy.toml.
* ``simple-evals-csv``: the same items as simple-evals' SimpleQA CSV, columns
  ``metadata,problem,answer``; metadata is the Python-literal dict simple-evals ships
  (``{'topic': ..., 'answer_type': ..., 'urls': [...]}``).
* ``jsonl``: every config and split as ``<config>/<split>.jsonl``, all columns.

Rows come in the release's order (by id), so an export is the same bytes every time.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Iterator

import pyarrow.parquet as pq

from filters.domains import load_taxonomy
from schemas import ReleaseManifest
from warehouse.release import ReleaseError, config_files, load_manifest

FORMATS = ("chinese-simpleqa-jsonl", "simple-evals-csv", "jsonl")
SPLITS = ("eval", "train", "all")


def _category_names(manifest: ReleaseManifest) -> tuple[dict[str, str], dict[str, str]]:
    """Topic and subtopic ids → their Chinese names, from the taxonomy the release was built with."""
    path = ((manifest.config or {}).get("align") or {}).get("taxonomy")
    try:
        taxonomy = load_taxonomy(Path(path) if path else None)
    except (OSError, ValueError):
        taxonomy = load_taxonomy(None)  # the file moved since: the bundled one names the same ids
    topics = {t.id: t.name for t in taxonomy.topics}
    subtopics = {s.id: s.name for t in taxonomy.topics for s in t.subtopics}
    return topics, subtopics


def _rows(directory: Path, manifest: ReleaseManifest, config: str, split: str) -> Iterator[dict]:
    files = config_files(manifest, config, split)
    if not files:
        have = sorted({f"{f.config}/{f.split}" for f in manifest.files})
        raise ReleaseError(f"{manifest.name} {manifest.version} has no {config} rows for split {split!r} "
                           f"(it holds: {', '.join(have)})")
    for f in sorted(files, key=lambda f: f.split):
        for batch in pq.ParquetFile(directory / f.path, pre_buffer=False).iter_batches(10_000):
            yield from batch.to_pylist()


def _write_atomically(path: Path, lines: Iterator[str]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    count = 0
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as handle:
            for line in lines:
                handle.write(line)
                count += 1
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return count


def export(directory: Path, fmt: str, out: Path, split: str = "eval") -> dict[str, int]:
    """Write the release in ``fmt`` to ``out`` (a file, or a directory for ``jsonl``); returns
    rows written per file."""
    if fmt not in FORMATS:
        raise ReleaseError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if split not in SPLITS:
        raise ReleaseError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
    manifest = load_manifest(directory)
    out = Path(out)
    if fmt == "jsonl":
        written = {}
        for f in manifest.files:
            if split != "all" and f.split not in (split, "all"):
                continue
            target = out / f.config / f"{f.split}.jsonl"
            rows = (json.dumps(r, ensure_ascii=False, default=str) + "\n"
                    for b in pq.ParquetFile(directory / f.path, pre_buffer=False).iter_batches(10_000) for r in b.to_pylist())
            written[str(target)] = _write_atomically(target, rows)
        return written
    topics, subtopics = _category_names(manifest)
    records = ({"id": r["item_id"], "primary_category": topics.get(r["primary_category"], r["primary_category"] or ""),
                "secondary_category": subtopics.get(r["secondary_category"], r["secondary_category"] or ""),
                "question": r["question"], "answer": r["answer"], "urls": list(r["urls"] or []),
                "answer_type": r.get("answer_kind") or ""}
               for r in _rows(directory, manifest, "simpleqa", split))
    if fmt == "chinese-simpleqa-jsonl":
        lines = (json.dumps({k: v for k, v in rec.items() if k != "answer_type"}, ensure_ascii=False) + "\n"
                 for rec in records)
        return {str(out): _write_atomically(out, lines)}

    def csv_lines() -> Iterator[str]:
        yield "metadata,problem,answer\r\n"
        for rec in records:
            buffer = io.StringIO()
            metadata = {"topic": rec["primary_category"], "answer_type": rec["answer_type"], "urls": rec["urls"]}
            csv.writer(buffer).writerow([repr(metadata), rec["question"], rec["answer"]])
            yield buffer.getvalue()

    count = _write_atomically(out, csv_lines())
    return {str(out): count - 1}
