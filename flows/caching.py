"""What a stage's result depends on, as one key; the stage tasks cached by it.

A stage's key is the sha256 of: the stage's name, a digest of the code (every source and data file of the
packages that compute records), the settings that affect it, the content of every file those settings name
(a taxonomy, templates, question files), and the keys or content digests of its inputs. Two runs that give
a stage the same key get the same records from it, so the second takes the first's result: Prefect's cache
(a ``cache_key_fn`` returning the key, results persisted under ``<data_dir>/cache/prefect``) answers, and
the task run shows as Cached. A stage writes its files into ``<data_dir>/work/<stage>/<key>/``, emptied when
it starts and marked done (``.done``) when it ends; a cached result whose directory is gone or unfinished is
computed again (``refresh_cache``), so a cache entry never points at missing files.

Run-only settings (ports, workers, the task runner) are not part of any key.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from schemas.storage.shards import sha256_file

PACKAGES = ("crawlers", "filters", "verifiers", "builders", "schemas", "warehouse", "flows")
CODE_SUFFIXES = {".py", ".tsv", ".toml", ".txt", ".jsonl", ".json", ".md"}
DONE = ".done"
RESULT = ".result.pickle"


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """sha256 of the packages' source and data files (names and bytes), computed once per process."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parent.parent
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*")):
            if path.is_file() and path.suffix in CODE_SUFFIXES and "__pycache__" not in path.parts:
                digest.update(path.relative_to(root).as_posix().encode() + b"\0")
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def file_digest(path: Path | str | None) -> str | None:
    """sha256 of a file's bytes, or of a directory's files (names and bytes); None for None."""
    if path is None:
        return None
    path = Path(path)
    if path.is_dir():
        digest = hashlib.sha256()
        for child in sorted(p for p in path.rglob("*") if p.is_file()):
            digest.update(child.relative_to(path).as_posix().encode() + b"\0" + bytes.fromhex(file_digest(child)))
        return digest.hexdigest()
    if not path.exists():
        return f"missing:{path}"
    return sha256_file(path)


def _with_file_digests(value: Any) -> Any:
    """A settings section's JSON with each file path it names followed by that file's digest."""
    if isinstance(value, dict):
        return {k: _with_file_digests(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_file_digests(v) for v in value]
    if isinstance(value, Path):
        return {"path": str(value), "sha256": file_digest(value)}
    return value


def section(settings_section) -> Any:
    """A pydantic settings section as key material: its values, and the digests of the files it names; not
    the settings that change only how fast a result comes (the section's ``SPEED_ONLY``)."""
    speed_only = getattr(type(settings_section), "SPEED_ONLY", frozenset())
    data = {name: getattr(settings_section, name) for name in type(settings_section).model_fields
            if name not in speed_only}
    return json.loads(json.dumps(_with_file_digests(data), default=_json_default))


def _json_default(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return _with_file_digests({k: getattr(value, k) for k in type(value).model_fields})
    return str(value)


def stage_key(stage: str, *parts: Any, code: bool = True) -> str:
    """The key of a stage given everything its result depends on (JSON-able parts); ``code``: and the code
    (off for the crawl, whose pages are the site's, and which ``zhbench reparse`` parses again)."""
    material = json.dumps([stage, code_digest() if code else "", *parts], sort_keys=True, ensure_ascii=False,
                          default=_json_default)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]


def work_dir(data_dir: Path, stage: str, key: str) -> Path:
    return Path(data_dir) / "work" / stage / key


def is_done(directory: Path) -> bool:
    return (Path(directory) / DONE).is_file()


def begin(directory: Path) -> Path:
    """An empty stage directory (what a killed attempt left is removed)."""
    shutil.rmtree(directory, ignore_errors=True)
    Path(directory).mkdir(parents=True)
    return Path(directory)


def finish(directory: Path, result: Any = None) -> None:
    """Mark a stage directory finished, its result kept beside its files: a run killed after this line but
    before Prefect recorded the result takes it from here instead of computing the stage again."""
    import cloudpickle

    kept = Path(directory) / RESULT
    kept.with_suffix(".tmp").write_bytes(cloudpickle.dumps(result))
    kept.with_suffix(".tmp").replace(kept)
    (Path(directory) / DONE).write_text("", encoding="utf-8")


def finished(directory: Path) -> tuple[bool, Any]:
    """(True, result) of a finished stage directory whose result was kept; (False, None) otherwise."""
    import pickle

    kept = Path(directory) / RESULT
    if not (is_done(directory) and kept.is_file()):
        return False, None
    try:
        return True, pickle.loads(kept.read_bytes())
    except Exception:  # written by other code (an older release of zhbench): compute it again
        return False, None


def key_of(context, parameters: dict) -> str:
    """Prefect ``cache_key_fn``: the stage key the flow computed and passed as the ``key`` parameter."""
    return f"zhbench-{parameters['key']}"


def result_storage(data_dir: Path):
    """Where the stage tasks' results (and so the cache) are kept: a folder of the data directory, saved as a
    Prefect block (Prefect wants result storage it can name) called ``zhbench-results-<hash of the path>``."""
    from prefect.filesystems import LocalFileSystem

    path = (Path(data_dir) / "cache" / "prefect").resolve()
    path.mkdir(parents=True, exist_ok=True)
    storage = LocalFileSystem(basepath=str(path))
    storage.save(f"zhbench-results-{hashlib.sha256(str(path).encode()).hexdigest()[:12]}", overwrite=True)
    return storage
