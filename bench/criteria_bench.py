"""The offline SimpleQA criteria on real questions: how many they accept, and why they reject the rest.

    python -m bench.criteria_bench [--file ../shared/data/chinese_simpleqa.jsonl]

Reads the 3,000 human-verified questions of Chinese SimpleQA (repository
OpenStellarTeam/ChineseSimpleQA, file data/chinese_simpleqa.jsonl; JSON lines with id,
question and answer) and applies :func:`builders.criteria.check_question` to each, as
the pipeline does to an LLM-written question (no relation). Printed: the acceptance,
the count of each reason, questions per second, and the check of every rejection
against ``bench/data/criteria/rejections.tsv``, the justification written for each one
after reading it: rejections without a justification and justified rows no longer
rejected are listed. Then the flawed questions of ``tests/fixtures/questions/flawed.jsonl``:
how many the rules reject with their expected reasons. Exit status 1 when a rejection is
unjustified, a justified row is no longer rejected, a flawed question passes, or the
acceptance is under the target; when the data file is not there, says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = ROOT.parent / "shared" / "data" / "chinese_simpleqa.jsonl"
REJECTIONS = Path(__file__).resolve().parent / "data" / "criteria" / "rejections.tsv"
FLAWED = ROOT / "tests" / "fixtures" / "questions" / "flawed.jsonl"
TARGET = 0.98  # accepted share of real, human-verified questions


@dataclass(frozen=True)
class Justified:
    id: str
    question: str
    answer: str
    reasons: tuple[str, ...]
    justification: str


def load_questions(path: Path) -> list[dict]:
    """JSON lines with at least id, question and answer."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_rejections(path: Path = REJECTIONS) -> dict[str, Justified]:
    """The justification table by id: tab-separated id, question, answer, reasons (comma-separated),
    justification, after a header line; ``#`` lines are comments."""
    rows: dict[str, Justified] = {}
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    for number, line in enumerate(lines[1:], 2):
        fields = line.split("\t")
        if len(fields) != 5 or not fields[4].strip():
            raise ValueError(f"{path}: row {number} needs 5 tab-separated fields and a justification: {line!r}")
        rows[fields[0]] = Justified(fields[0], fields[1], fields[2], tuple(fields[3].split(",")), fields[4])
    return rows


def rejections(rows: list[dict]) -> dict[str, list[str]]:
    """id -> reason codes, for the rows the criteria reject."""
    from builders.criteria import check_question

    out = {}
    for row in rows:
        failed = check_question(row["question"], row["answer"])
        if failed:
            out[row["id"]] = failed
    return out


def unjustified(rejected: dict[str, list[str]], table: dict[str, Justified]) -> list[str]:
    """Ids rejected without a row in the table, or rejected for other reasons than the row gives."""
    return [i for i, reasons in rejected.items() if i not in table or tuple(reasons) != table[i].reasons]


def flawed_result(path: Path = FLAWED) -> tuple[int, int, list[dict], list[dict]]:
    """(rejected with the expected reasons, decidable offline, the misses, the rows marked offline: false)."""
    from builders.criteria import check_question

    rows = load_questions(path)
    offline = [r for r in rows if r.get("offline", True)]
    misses = [r for r in offline if not set(r["expected"]) <= set(check_question(r["question"], r["answer"]))]
    return len(offline) - len(misses), len(offline), misses, [r for r in rows if not r.get("offline", True)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE, help="JSON lines with id, question, answer")
    args = parser.parse_args(argv)
    if not args.file.exists():
        print(f"{args.file} is not there: nothing to measure (the Chinese SimpleQA file lives in ../shared/data/).")
        return 0

    from builders.criteria import check_question

    rows = load_questions(args.file)
    check_question("他是谁？", "6")  # load the segmenter and its tagger before timing
    started = time.perf_counter()
    rejected = rejections(rows)
    seconds = time.perf_counter() - started
    accepted = 1 - len(rejected) / len(rows)
    print(f"{args.file}: {len(rows)} questions, {len(rows) - len(rejected)} accepted ({accepted:.1%}), "
          f"{len(rejected)} rejected; target {TARGET:.0%} ({'met' if accepted >= TARGET else 'NOT met'}); "
          f"{len(rows) / seconds:,.0f} questions/s")
    counts = Counter(reason for reasons in rejected.values() for reason in reasons)
    for reason, count in counts.most_common():
        print(f"  {reason:<24} {count}")

    table = load_rejections()
    by_id = {row["id"]: row for row in rows}
    missing = unjustified(rejected, table)
    stale = [i for i in table if i in by_id and i not in rejected]
    print(f"justified rejections: {len(rejected) - len(missing)} of {len(rejected)} ({REJECTIONS.relative_to(ROOT)})")
    for i in missing:
        print(f"  NOT JUSTIFIED {i}\t{by_id[i]['question']}\t{by_id[i]['answer']}\t{','.join(rejected[i])}")
    for i in stale:
        print(f"  NO LONGER REJECTED {i}\t{table[i].question}\t{table[i].answer}")

    caught, decidable, misses, undecidable = flawed_result()
    print(f"flawed questions ({FLAWED.relative_to(ROOT)}): rejected {caught} of {decidable} with the expected reasons; "
          f"{len(undecidable)} more marked offline: false (no rule can tell from the text)")
    for row in misses:
        print(f"  MISSED {row['category']}\t{row['question']}\t{row['answer']}\texpected {','.join(row['expected'])}")
    return 1 if missing or stale or misses or accepted < TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
