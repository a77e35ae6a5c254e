"""Seed entry lists in the formats real seed sources use, resolved to entry URLs per site.

The format is chosen by the file's suffix:

* ``.tsv``: KgCLUE-style ``entity<TAB>relation<TAB>value`` per line;
* ``.csv``: OwnThink-style, a ``实体,属性,值`` header, then one triple per line;
* ``.json``: a list whose items are titles (strings) or objects with a ``"title"`` or a ``"url"``;
* ``.jsonl``: one object per line with a ``"title"`` or a ``"url"``;
* anything else: plain text, one entry title per line; ``#`` starts a comment.

The seed entries are the head entities, in file order, each once. A seed that is an ``http://`` or
``https://`` URL (a ``"url"`` of a JSON seed, or such a line) is fetched as it is; any other is a title,
turned into the site's URL for it (:func:`seed_url`). A seed too long to be a title (:func:`too_long`) is
no error: the crawl records it as dropped, with reason ``seed_too_long``, and goes on with the others.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from urllib.parse import quote

SITES = ("baidu", "sogou", "wikipedia")
SEEDS_DIR = Path(__file__).parent / "mirror" / "seeds"
FORMATS = "a .tsv (KgCLUE), .csv (OwnThink), .json, .jsonl or .txt list of entry titles"
# Wikipedia's titles are at most 255 bytes; Baike's are far shorter.
MAX_TITLE_CHARS = 255
# Scrapy's URLLENGTH_LIMIT: a longer request is dropped by it with nothing but a counter to say so.
MAX_URL_CHARS = 2083
_JSON_SEED = 'a title, or an object with a "title" or a "url"'
JSON_HINT = 'a .json seed file is a list of titles or of objects with a "title" or a "url"'
JSONL_HINT = 'a .jsonl seed file holds one object with a "title" or a "url" a line'


class SeedError(ValueError):
    """A seed file cannot be read; the message names the file and line."""


def read_seeds(path: Path | str) -> list[str]:
    path = Path(path)
    if path.is_dir():
        raise SeedError(f"seed file {path} is a directory; give {FORMATS}")
    if not path.is_file():
        raise SeedError(f"seed file {path} does not exist (give {FORMATS})")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SeedError(f"seed file {path} is not UTF-8 text (byte {exc.start}); convert it with iconv -t utf-8") from None
    suffix = path.suffix.lower()
    if suffix == ".tsv":
        titles = _read_tsv(path, text)
    elif suffix == ".csv":
        titles = _read_csv(path, text)
    elif suffix == ".json":
        titles = _read_json(path, text)
    elif suffix == ".jsonl":
        titles = _read_jsonl(path, text)
    else:
        titles = [line.strip() for line in text.splitlines()]
        titles = [t for t in titles if t and not t.startswith("#")]
    if not titles:
        raise SeedError(f"seed file {path} holds no entry titles")
    return list(dict.fromkeys(titles))


def _read_json(path: Path, text: str) -> list[str]:
    items = _loads(path, text, 1, JSON_HINT)
    if not isinstance(items, list):
        raise SeedError(f"{path}: expected a JSON list of seeds ({_JSON_SEED} each), found {_kind(items)}")
    return [t for n, item in enumerate(items, 1) if (t := _json_seed(item, f"{path}: seed {n}"))]


def _read_jsonl(path: Path, text: str) -> list[str]:
    seeds = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            item = _loads(path, line, number, JSONL_HINT)
            if not isinstance(item, dict):
                raise SeedError(f"{path}:{number}: expected an object with a \"title\" or a \"url\", "
                                f"found {_kind(item)}")
            if seed := _json_seed(item, f"{path}:{number}"):
                seeds.append(seed)
    return seeds


def _loads(path: Path, text: str, line: int, hint: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SeedError(f"{path}:{line + exc.lineno - 1}: not JSON ({exc.msg}, column {exc.colno}); {hint}") \
            from None
    except (RecursionError, ValueError):  # nested thousands deep, or a number of thousands of digits
        raise SeedError(f"{path}:{line}: nested too deep or a number too long to be seeds; {hint}") from None


def _json_seed(item, where: str) -> str:
    """The seed a JSON item gives (a title or an http(s) URL); "" for a blank title."""
    if isinstance(item, str):
        return item.strip()
    if not isinstance(item, dict):
        raise SeedError(f"{where}: expected {_JSON_SEED}, found {_kind(item)}")
    title, url = item.get("title"), item.get("url")
    if isinstance(title, str):
        return title.strip()
    if isinstance(url, str) and is_url(url.strip()):
        return url.strip()
    if "title" in item:
        raise SeedError(f"{where}: \"title\" must be a string, found {_kind(title)}")
    if "url" in item:
        raise SeedError(f"{where}: \"url\" must be an http:// or https:// URL, found {str(url)[:100]!r}")
    raise SeedError(f"{where}: an object with neither \"title\" nor \"url\"; give {_JSON_SEED}")


def _kind(value) -> str:
    return {list: "a list", dict: "an object", str: "a string", bool: "true or false", type(None): "null"}.get(
        type(value), "a number")


def is_url(seed: str) -> bool:
    return seed.startswith(("http://", "https://")) and len(seed) > len("https://")


def too_long(base_url: str, site: str, seed: str) -> str:
    """Why a seed cannot be fetched (``seed_too_long: ...``), or "" when it can: a title longer than any
    site's, or a URL (the seed's, or the one its title gives) longer than Scrapy sends."""
    if not is_url(seed) and len(seed) > MAX_TITLE_CHARS:
        return f"seed_too_long: a title of {len(seed):,} characters (titles have at most {MAX_TITLE_CHARS})"
    url = seed_url(base_url, site, seed)
    if len(url) > MAX_URL_CHARS:
        return f"seed_too_long: its URL has {len(url):,} characters (at most {MAX_URL_CHARS} are sent)"
    return ""


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


def dropped(seed: str, reason: str) -> dict:
    """A seed the crawl does not fetch, as its fetch log records it: the seed (its first 100 characters), its
    length and why."""
    return {"seed": seed if len(seed) <= 100 else seed[:100] + "…", "seed_chars": len(seed), "reason": reason}


def seed_url(base_url: str, site: str, title: str) -> str:
    """The URL a site answers for an entry title (it may redirect to the entry's own URL); a URL seed as it is."""
    if is_url(title):
        return title
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
