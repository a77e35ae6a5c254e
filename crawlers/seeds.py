"""Seed entry lists in the formats real seed sources use, resolved to entry URLs per site.

* KgCLUE-style TSV: ``entity<TAB>relation<TAB>value`` per line (``.tsv``);
* OwnThink-style CSV: a ``实体,属性,值`` header, then one triple per line (``.csv``);
* plain text: one entry title per line (anything else); ``#`` starts a comment.

The seed entries are the head entities, in file order, each once.
"""

from __future__ import annotations

import csv
from pathlib import Path
from urllib.parse import quote

SITES = ("baidu", "sogou", "wikipedia")
SEEDS_DIR = Path(__file__).parent / "mirror" / "seeds"


class SeedError(ValueError):
    """A seed file cannot be read; the message names the file and line."""


def read_seeds(path: Path | str) -> list[str]:
    path = Path(path)
    if not path.is_file():
        raise SeedError(f"seed file {path} does not exist (give a .tsv, .csv or .txt list of entry titles)")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SeedError(f"seed file {path} is not UTF-8 text (byte {exc.start}); convert it with iconv -t utf-8") from None
    suffix = path.suffix.lower()
    if suffix == ".tsv":
        titles = _read_tsv(path, text)
    elif suffix == ".csv":
        titles = _read_csv(path, text)
    else:
        titles = [line.strip() for line in text.splitlines()]
        titles = [t for t in titles if t and not t.startswith("#")]
    if not titles:
        raise SeedError(f"seed file {path} holds no entry titles")
    return list(dict.fromkeys(titles))


def _read_tsv(path: Path, text: str) -> list[str]:
    titles = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if len(cells) != 3:
            raise SeedError(
                f"{path}:{number}: expected 3 tab-separated columns (entity, relation, value), found {len(cells)}"
            )
        if cells[0].strip():
            titles.append(cells[0].strip())
    return titles


def _read_csv(path: Path, text: str) -> list[str]:
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        return []
    header = [c.strip() for c in rows[0]]
    if header[:3] != ["实体", "属性", "值"]:
        raise SeedError(f"{path}:1: expected the OwnThink header 实体,属性,值, found {','.join(header)!r}")
    titles = []
    for number, row in enumerate(rows[1:], 2):
        if not row or not "".join(row).strip():
            continue
        if len(row) != 3:
            raise SeedError(f"{path}:{number}: expected 3 comma-separated columns (实体,属性,值), found {len(row)}")
        if row[0].strip():
            titles.append(row[0].strip())
    return titles


def seed_url(base_url: str, site: str, title: str) -> str:
    """The URL a site answers for an entry title (it may redirect to the entry's own URL)."""
    base = base_url.rstrip("/")
    if site == "baidu":
        return f"{base}/item/{quote(title, safe='')}"
    if site == "sogou":
        return f"{base}/search/fullsearch.htm?keyword={quote(title, safe='')}"
    if site == "wikipedia":
        return f"{base}/wiki/{quote(title.replace(' ', '_'), safe='()_')}"
    raise SeedError(f"unknown site {site!r}; choose one of {', '.join(SITES)}")


def bundled_seed_files() -> list[Path]:
    return sorted(p for p in SEEDS_DIR.iterdir() if p.suffix in (".tsv", ".csv", ".txt"))
