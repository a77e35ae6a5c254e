"""Seconds to align one pair holding one very long relation name, value or text, as ``zhbench align`` does.

    python -m bench.long_inputs_bench [--chars 2000 16000]

Each case is one pair whose text states 海拔 1545米, plus a 16,000-character repetitive string (the worst
case for the automata and the overlapping matches): as a relation name, as a value, or as a value the
text repeats twice. A name or a value past its limit (filters/mentions.py) is dropped before matching, so
the time stays that of a short pair; before the limits a 16,000-character name took 103 s.
"""

from __future__ import annotations

import argparse
import io
import json
import time


def case(kind: str, chars: int) -> dict:
    long = "关" * chars
    pair = {"id": "1", "entity": "泰山", "text": "泰山海拔1545米。", "triples": [["泰山", "海拔", "1545米"]]}
    if kind == "relation":
        pair["triples"].append(["泰山", long, "山东"])
    elif kind == "value":
        pair["triples"].append(["泰山", "位于", long])
    else:  # a value of 500 characters (the limit) in a text that repeats the long string twice
        pair["text"] += "泰山位于" + long * 2 + "。"
        pair["triples"].append(["泰山", "位于", "关" * 500])
    return pair


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, nargs="+", default=[2000, 16000])
    args = parser.parse_args()
    from filters.align_lines import align_lines
    from filters.text import segmenter

    segmenter()  # jieba's dictionary, loaded once before the clock
    for chars in args.chars:
        for kind in ("relation", "value", "text"):
            line = json.dumps(case(kind, chars), ensure_ascii=False).encode("utf-8")
            start = time.perf_counter()
            (verdict,) = align_lines(io.BytesIO(line), lambda n, why: None)
            seconds = time.perf_counter() - start
            reasons = [t["reason"] for t in verdict["triples"] if t["reason"]]
            print(f"{kind:<9} {chars:>6} characters  {seconds:6.2f} s  {reasons}")


if __name__ == "__main__":
    main()
