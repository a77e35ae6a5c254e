"""CUGE-style labels for release configs: capability → task → dataset.

The table lives in ``warehouse/hierarchy.toml`` (reviewable); every evaluation
config of a release gets its labels in the manifest and the dataset card, and
every item row carries them, so a harness can slice results by any level.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_PATH = Path(__file__).with_name("hierarchy.toml")
LEVELS = ("capability", "task", "dataset")


class HierarchyError(ValueError):
    """The hierarchy file is unreadable or incomplete; the message says where."""


@dataclass(frozen=True, slots=True)
class Labels:
    config: str
    role: str  # evaluation | source
    capability: str = ""
    capability_zh: str = ""
    task: str = ""
    task_zh: str = ""
    dataset: str = ""
    metrics: tuple[str, ...] = field(default_factory=tuple)
    description: str = ""

    def as_dict(self) -> dict:
        return {"role": self.role, "capability": self.capability, "capability_zh": self.capability_zh,
                "task": self.task, "task_zh": self.task_zh, "dataset": self.dataset,
                "metrics": list(self.metrics), "description": self.description}


def load_hierarchy(release_name: str, path: Path | None = None) -> dict[str, Labels]:
    """The labels per config, with ``{name}`` in dataset names replaced by the release name."""
    path = Path(path or DEFAULT_PATH)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise HierarchyError(f"cannot read the hierarchy file {path}: {exc}") from None
    table: dict[str, Labels] = {}
    for config, entry in raw.items():
        if not isinstance(entry, dict):
            raise HierarchyError(f"{path}: [{config}] must be a table")
        role = entry.get("role", "evaluation")
        if role not in ("evaluation", "source"):
            raise HierarchyError(f"{path}: [{config}] role must be 'evaluation' or 'source', got {role!r}")
        if role == "evaluation":
            missing = [k for k in LEVELS if not str(entry.get(k, "")).strip()]
            if missing:
                raise HierarchyError(f"{path}: [{config}] needs {', '.join(missing)} (an evaluation config is "
                                     "labelled at every level)")
        table[config] = Labels(
            config=config, role=role, capability=entry.get("capability", ""),
            capability_zh=entry.get("capability_zh", ""), task=entry.get("task", ""),
            task_zh=entry.get("task_zh", ""), dataset=str(entry.get("dataset", "")).replace("{name}", release_name),
            metrics=tuple(entry.get("metrics", ())), description=entry.get("description", ""))
    return table
