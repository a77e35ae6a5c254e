"""The alignment filters over pairs given as JSON lines (``zhbench align``).

Each line is a pair record; a line that is not one, or repeats an earlier line's id, is skipped and
reported by its line number, and the other pairs are judged as the flow judges crawled ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Callable, Iterator

from filters.align import AlignmentRules
from filters.base import Funnel, apply_filters
from filters.triples import head_aliases, relation_aliases
from schemas import Pair, Triple
from schemas.jsonl import read_jsonl

PAIR_RECORD = '{"id", "entity", "text", "triples": [[head, relation, tail], ...]}'


class RelationsFileError(ValueError):
    """The relations file is missing or unreadable; the message says which and why."""


def read_relations(path: Path) -> set[str]:
    """The relation names of a file, one per line (blank lines ignored)."""
    path = Path(path)
    if not path.is_file():
        raise RelationsFileError(f"relations file {path} does not exist (one relation name per line)")
    try:
        names = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise RelationsFileError(f"relations file {path} is not UTF-8; save it as UTF-8") from None
    return {line.strip() for line in names if line.strip()}


def pair_from_record(record: dict) -> Pair:
    """The pair of one input record, or a ValueError saying what the record lacks."""
    scalar = (str, int, float)
    missing = [key for key in ("id", "entity", "text", "triples") if key not in record]
    if missing:
        raise ValueError("no " + ", ".join(f'"{key}"' for key in missing))
    if not isinstance(record["id"], (str, int)) or isinstance(record["id"], bool):
        raise ValueError('"id" must be a string or a number')
    if not isinstance(record["entity"], str) or not isinstance(record["text"], str):
        raise ValueError('"entity" and "text" must be strings')
    rows = record["triples"]
    if not isinstance(rows, list) or not all(
            isinstance(row, list) and len(row) == 3 and all(isinstance(v, scalar) for v in row) for row in rows):
        raise ValueError('"triples" must be a list of [head, relation, tail]')
    triples = [Triple(head=str(h), relation=str(r), tail=str(t)) for h, r, t in rows]
    return Pair(pair_id=str(record["id"]), entity=record["entity"], text=record["text"], triples=triples,
                aliases=head_aliases(record["entity"], triples))


def read_pairs(stream: IO, skip: Callable[[int, str], None]) -> list[Pair]:
    """The pairs of a JSON-lines stream; ``skip(line number, why)`` for each line that is not taken."""
    pairs = []
    first_line: dict[str, int] = {}
    for number, record in read_jsonl(stream, on_error=lambda e: skip(e.line, f"{e.reason}; expected {PAIR_RECORD}")):
        try:
            pair = pair_from_record(record)
        except ValueError as exc:
            skip(number, f"not a pair record ({exc}); expected {PAIR_RECORD}")
            continue
        if pair.pair_id in first_line:
            skip(number, f"id {pair.pair_id!r} is already used on line {first_line[pair.pair_id]}; "
                         "give each pair its own id")
            continue
        first_line[pair.pair_id] = number
        pairs.append(pair)
    return pairs


def align_lines(stream: IO, skip: Callable[[int, str], None], relations: set[str] = frozenset(),
                threshold: float = 0.75, cut: bool = True) -> Iterator[dict]:
    """One verdict record per pair of the stream, judged against ``relations`` and the pairs' own relations.

    The whole stream is read (and its bad lines skipped) before the first verdict: the relation
    vocabulary is the batch's.
    """
    pairs = read_pairs(stream, skip)
    vocabulary = set(relations) | {t.relation for pair in pairs for t in pair.triples}
    rules = AlignmentRules(dict.fromkeys(sorted(vocabulary), 1), None, relation_aliases(), threshold, cut=cut)
    triple_filters, pair_filters, cutter = rules.judge()
    for pair in apply_filters(pairs, triple_filters, pair_filters, Funnel(), cutter):
        yield {
            "id": pair.pair_id, "decision": "keep" if pair.decision == "kept" else "drop",
            "reason": pair.reason, "position_index": pair.position_index,
            "text": pair.text, "cuts": pair.cuts,
            "triples": [{"head": t.head, "relation": t.relation, "tail": t.tail, "kept": t.decision == "kept",
                         "reason": t.reason} for t in pair.triples],
        }
