"""Reading a release's manifest: what every floor that reads a release needs (the review queue, the catalog's
registry, the exporters), below the writer in ``warehouse.release``."""

from __future__ import annotations

import json
import re
from pathlib import Path

from packaging.version import Version

from schemas.records import ReleaseFile, ReleaseManifest

SEMVER = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


class ReleaseError(RuntimeError):
    """A release cannot be written or read; the message says which and why."""


def by_config(files: list[ReleaseFile]) -> dict[str, list[ReleaseFile]]:
    """A release's files grouped by config, in manifest order."""
    grouped: dict[str, list[ReleaseFile]] = {}
    for f in files:
        grouped.setdefault(f.config, []).append(f)
    return grouped


def config_files(manifest: ReleaseManifest, config: str, split: str = "all") -> list[ReleaseFile]:
    """The files of one config; ``split`` "all" means every split."""
    return [f for f in manifest.files if f.config == config and (split == "all" or f.split == split)]


def load_manifest(release_dir: Path) -> ReleaseManifest:
    path = Path(release_dir) / "manifest.json"
    if not path.is_file():
        raise ReleaseError(f"{release_dir} is not a release: it has no manifest.json")
    try:
        return ReleaseManifest.from_json(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, TypeError, KeyError) as exc:
        raise ReleaseError(f"{path} is not a valid manifest ({exc})") from None


def releases_root(data_dir: Path, name: str) -> Path:
    return Path(data_dir) / "releases" / name


def list_versions(data_dir: Path, name: str) -> list[str]:
    root = releases_root(data_dir, name)
    if not root.is_dir():
        return []
    found = [p.name for p in root.iterdir() if SEMVER.match(p.name) and (p / "manifest.json").is_file()]
    return sorted(found, key=Version)


def refuse_release_tree(out: Path, releases_dir: Path | None = None, option: str = "--out") -> Path:
    """``out``, a path a command is about to write, unless it lies where only publishing writes: in
    ``releases_dir`` (a data directory's ``releases/``) or inside a release directory (a version directory
    with a manifest.json). A published release is sealed; a file added to it would be read by every glob over
    it. Refused even with --force, with a ReleaseError naming the place."""
    target = Path(out).resolve()  # symlinks followed: a link into releases/ is refused like the path itself
    if releases_dir is not None:
        root = Path(releases_dir).resolve()
        if target == root or root in target.parents:
            raise ReleaseError(f"{option} {out} is inside {releases_dir}, where only zhbench run's publish writes "
                               "(published releases are read-only); give a path outside it, such as "
                               f"{Path(releases_dir).parent / 'exports'}")
    release = next((p for p in (target, *target.parents) if SEMVER.match(p.name) and (p / "manifest.json").is_file()),
                   None)
    if release is not None:
        raise ReleaseError(f"{option} {out} is inside the release {release}, which only zhbench run's publish "
                           "writes (published releases are read-only); give a path outside it")
    return Path(out)
