"""The reviewable facts table behind the bundled mirror.

``facts/*.jsonl`` holds one encyclopedia entry per line (title, sense, domain,
type, summary, infobox rows, sections). Everything the mirror serves is rendered
from these records, so the corpus grows by adding lines.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from schemas import DOMAINS
from schemas.jsonl import JSONLinesError, read_jsonl

FACTS_DIR = Path(__file__).with_name("facts")
REQUIRED = ("title", "sense", "domain", "type", "summary", "infobox", "sections")


class FactsError(ValueError):
    """A facts file is malformed; the message names the file and line."""


@dataclass(slots=True)
class Entry:
    title: str
    sense: str
    domain: str
    type: str
    summary: str
    infobox: list[tuple[str, str]]
    sections: list[tuple[str, list[str]]]
    baidu_id: int = 0
    sogou_id: int = 0
    layout: str = "baidu"  # which Baidu layout renders this entry
    labels: dict = field(default_factory=dict)  # planted noise, for synthetic entries

    @property
    def key(self) -> str:
        return f"{self.title}\t{self.sense}"

    def text(self) -> str:
        return self.summary + "".join(p for _, paras in self.sections for p in paras)


def stable_int(text: str, modulo: int) -> int:
    return int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:12], 16) % modulo


def load_facts(directory: Path = FACTS_DIR) -> list[Entry]:
    """Read every ``*.jsonl`` file in ``directory``, in file-name order."""
    files = sorted(Path(directory).glob("*.jsonl"))
    if not files:
        raise FactsError(f"no facts files (*.jsonl) in {directory}")
    entries: list[Entry] = []
    seen: dict[str, str] = {}
    for path in files:
        try:
            lines = list(read_jsonl(path, name=path.name, hint="one entry object per line"))
        except JSONLinesError as exc:
            raise FactsError(str(exc)) from None
        for number, record in lines:
            where = f"{path.name}:{number}"
            missing = [k for k in REQUIRED if k not in record]
            if missing:
                raise FactsError(f"{where}: missing field(s) {', '.join(missing)}")
            if record["domain"] not in DOMAINS:
                raise FactsError(f"{where}: domain {record['domain']!r} is not one of {', '.join(DOMAINS)}")
            try:
                entry = Entry(
                    title=record["title"].strip(),
                    sense=record["sense"].strip(),
                    domain=record["domain"],
                    type=record["type"],
                    summary=record["summary"].strip(),
                    infobox=[(str(n).strip(), str(v).strip()) for n, v in record["infobox"]],
                    sections=[(s["heading"], list(s["paragraphs"])) for s in record["sections"]],
                )
            except (AttributeError, KeyError, TypeError, ValueError):
                raise FactsError(f"{where}: title, sense and summary must be strings, infobox a list of "
                                 '[name, value], sections a list of {"heading", "paragraphs"}') from None
            if entry.key in seen:
                continue  # the first file to define a (title, sense) wins; later copies are ignored
            seen[entry.key] = where
            entries.append(entry)
    _assign_ids(entries)
    return entries


def _assign_ids(entries: list[Entry]) -> None:
    used_b: set[int] = set()
    used_s: set[int] = set()
    for entry in entries:
        entry.baidu_id = _free_id(entry.key, 10_000, 9_000_000, used_b)
        entry.sogou_id = _free_id("sogou\t" + entry.key, 100_000, 900_000, used_s)
        # About one entry in four is served in Baidu's older layout, as a crawl meets both.
        entry.layout = "baidu_legacy" if stable_int("layout\t" + entry.key, 4) == 0 else "baidu"


def _free_id(key: str, low: int, span: int, used: set[int]) -> int:
    candidate = low + stable_int(key, span)
    while candidate in used:
        candidate += 1
    used.add(candidate)
    return candidate
