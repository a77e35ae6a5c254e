"""Published releases are sealed read-only (warehouse.release.seal): modes that stop every user but root. A test
that damages a release on purpose, as someone who overrides the seal could, lifts it first."""

from __future__ import annotations

from pathlib import Path


def lift_seal(release: Path) -> Path:
    """Make a release directory writable again: its directories 0755, its files 0644."""
    release = Path(release)
    for path in (release, *release.rglob("*")):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    return release
