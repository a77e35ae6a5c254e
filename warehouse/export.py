"""Releases in the formats evaluation harnesses read, one file per split, in the layout each loads
unchanged (``--out`` is a directory):

* ``chinese-simpleqa-jsonl``: ``<out>/<split>/chinese_simpleqa.jsonl``, the simpleqa config as
  Chinese SimpleQA's flat records ``{"id", "primary_category", "secondary_category", "question",
  "answer", "urls"}``, categories by their Chinese names as in Chinese SimpleQA's data (自然与自然科学,
  地理 ...), one JSON object per line, UTF-8. Each split's directory is a dataset both harnesses
  load as it is:

  - evalscope (``evalscope/benchmarks/chinese_simple_qa/csimple_qa_adapter.py``, ``eval_split='train'``)
    hands a local directory to ``datasets.load_dataset(path=<dir>, name=None, split="train")``
    (``evalscope/api/dataset/hub.py``, ``load_dataset_from_hub``). Hugging Face infers splits from
    file names, so the file is named without a split word: a name holding ``eval`` or ``test``
    loads as split "test" and the request for "train" fails. It takes question and answer, keeps
    id and secondary_category, and makes primary_category the subset, one of the six topic names
    of filters/taxonomy.toml (other values are left out of every subset).
  - OpenCompass (``opencompass/datasets/chinese_simpleqa.py``, ``CsimpleqaDataset.load``) opens
    ``<path>/<name>.jsonl`` with ``name='chinese_simpleqa'``, reading id, question, answer and
    primary_category.
* ``simple-evals-csv``: ``<out>/<split>/simple_qa_test_set.csv``, the same items as simple-evals'
  SimpleQA CSV (its file's name), columns ``metadata,problem,answer``; metadata is the
  Python-literal dict simple-evals ships (``{'topic': ..., 'answer_type': ..., 'urls': [...]}``).
* ``jsonl``: every config as ``<out>/<config>/<split>.jsonl``, all columns.

``split`` "all" writes every split the release has; "eval" or "train" one (and, for ``jsonl``,
the configs that have no splits). Rows come in the release's order (by id), so an export is the
same bytes every time.

An export never writes into a data directory's ``releases/`` tree or a release directory, even when
asked (published releases are sealed: warehouse/release.py). It never replaces what is there unless asked:
``out`` must be new or an empty directory;
with ``force`` it may be a non-empty directory (the files of the export's names are replaced, others
are left) or a file (replaced by the directory). A new ``out`` is written beside its place and moved
there with one rename, so a reader never sees half an export.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pyarrow.parquet as pq

from filters.domains import load_taxonomy
from schemas import ReleaseFile, ReleaseManifest
from schemas.releases import ReleaseError, config_files, load_manifest, refuse_release_tree

FORMATS = ("chinese-simpleqa-jsonl", "simple-evals-csv", "jsonl")
SPLITS = ("eval", "train", "all")
# The file of one split, inside <out>/<split>/, named as the harness names its own.
FILE_NAMES = {"chinese-simpleqa-jsonl": "chinese_simpleqa.jsonl", "simple-evals-csv": "simple_qa_test_set.csv"}


@dataclass(frozen=True, slots=True)
class Exported:
    """One file an export wrote."""

    path: Path
    rows: int
    split: str


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


def _rows(directory: Path, file: ReleaseFile) -> Iterator[dict]:
    for batch in pq.ParquetFile(directory / file.path, pre_buffer=False).iter_batches(10_000):
        yield from batch.to_pylist()


def _simpleqa_records(rows: Iterator[dict], topics: dict[str, str], subtopics: dict[str, str]) -> Iterator[dict]:
    """Chinese SimpleQA's record of each item, and its answer type for simple-evals' metadata."""
    for r in rows:
        yield {"id": r["item_id"], "primary_category": topics.get(r["primary_category"], r["primary_category"] or ""),
               "secondary_category": subtopics.get(r["secondary_category"], r["secondary_category"] or ""),
               "question": r["question"], "answer": r["answer"], "urls": list(r["urls"] or []),
               "answer_type": r.get("answer_kind") or ""}


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


def export(directory: Path, fmt: str, out: Path, split: str = "all", force: bool = False) -> list[Exported]:
    """Write the release in ``fmt`` under the directory ``out``, one file per split (``split`` "all":
    every split); returns what was written. Refuses an ``out`` that is a file or a non-empty directory
    unless ``force``."""
    if fmt not in FORMATS:
        raise ReleaseError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if split not in SPLITS:
        raise ReleaseError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
    manifest = load_manifest(directory)
    # never into the releases/ the release sits in (<data_dir>/releases/<name>/<version>), even with force
    root = Path(directory).resolve().parent.parent
    out = refuse_release_tree(out, root if root.name == "releases" else None)
    if out.exists() and not out.is_dir():
        if not force:
            raise ReleaseError(f"{out} is a file; --out names the directory {fmt} is written into "
                               "(--force replaces the file)")
        out.unlink()
    if out.is_dir():
        if any(out.iterdir()) and not force:
            raise ReleaseError(f"{out} is not empty; give a new or empty directory as --out, or --force to "
                               "write into it (replacing the files of the same names)")
        return _write(directory, manifest, fmt, split, out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".tmp-{out.name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        written = _write(directory, manifest, fmt, split, tmp)
        try:
            os.rename(tmp, out)
        except OSError as exc:
            if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR):
                raise
            raise ReleaseError(f"{out} was written by another process during this export; nothing was "
                               "replaced (give --force to write into it)") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return [Exported(out / e.path.relative_to(tmp), e.rows, e.split) for e in written]


def _write(directory: Path, manifest: ReleaseManifest, fmt: str, split: str, out: Path) -> list[Exported]:
    if fmt == "jsonl":
        written = []
        for f in manifest.files:
            if split != "all" and f.split not in (split, "all"):
                continue
            target = out / f.config / f"{f.split}.jsonl"
            rows = (json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in _rows(directory, f))
            written.append(Exported(target, _write_atomically(target, rows), f.split))
        return written
    files = config_files(manifest, "simpleqa", split)
    if not files:
        have = sorted({f"{f.config}/{f.split}" for f in manifest.files})
        raise ReleaseError(f"{manifest.name} {manifest.version} has no simpleqa rows for split {split!r} "
                           f"(it holds: {', '.join(have)})")
    topics, subtopics = _category_names(manifest)
    written = []
    for f in sorted(files, key=lambda f: f.split):
        target = out / f.split / FILE_NAMES[fmt]
        records = _simpleqa_records(_rows(directory, f), topics, subtopics)
        if fmt == "chinese-simpleqa-jsonl":
            lines = (json.dumps({k: v for k, v in rec.items() if k != "answer_type"}, ensure_ascii=False) + "\n"
                     for rec in records)
            written.append(Exported(target, _write_atomically(target, lines), f.split))
        else:
            written.append(Exported(target, _write_atomically(target, _csv_lines(records)) - 1, f.split))
    return written


def _csv_lines(records: Iterator[dict]) -> Iterator[str]:
    yield "metadata,problem,answer\r\n"
    for rec in records:
        buffer = io.StringIO()
        metadata = {"topic": rec["primary_category"], "answer_type": rec["answer_type"], "urls": rec["urls"]}
        csv.writer(buffer).writerow([repr(metadata), rec["question"], rec["answer"]])
        yield buffer.getvalue()
