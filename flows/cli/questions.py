"""``zhbench align`` and ``questions check``: records given on the command line judged by the pipeline's rules,
one verdict line each."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from flows.cli.common import UsageError, command, data_dir_option, file_path, group, real, whole


def cmd_questions_check(args: argparse.Namespace) -> int:
    from flows.questions import Summary, check_questions, llm_judge, read_questions, read_senses

    questions = read_questions(Path(args.file))
    senses = read_senses(Path(args.senses)) if args.senses else None
    summary = Summary()
    with llm_judge(args.llm_model, args.llm_base_url, args.llm_api_key_env, Path(args.data_dir)) as judge:
        for result in check_questions(questions, [Path(p) for p in args.against], args.max_answer_chars, summary,
                                      args.explain, senses, judge):
            print(json.dumps(result, ensure_ascii=False), flush=False)
    sys.stdout.flush()
    print(summary.line(), file=sys.stderr)
    return 0


def cmd_align(args: argparse.Namespace) -> int:
    from filters.align_lines import RelationsFileError, align_lines, read_relations

    if not 0 < args.threshold < 1:
        raise UsageError(f"--threshold must be between 0 and 1, got {args.threshold}")
    try:
        relations = read_relations(Path(args.relations)) if args.relations else set()
    except RelationsFileError as exc:
        raise UsageError(str(exc)) from None
    skipped = []

    def skip(number: int, why: str) -> None:
        skipped.append(number)
        print(f"zhbench align: line {number}: skipped, {why}", file=sys.stderr)

    stdin = getattr(sys.stdin, "buffer", sys.stdin)  # bytes, so that a line of bad UTF-8 is one skipped line
    for verdict in align_lines(stdin, skip, relations, args.threshold, cut=not args.no_cut):
        print(json.dumps(verdict, ensure_ascii=False))
    return 1 if skipped else 0


def register(sub) -> None:
    align = command(sub, "align",
                    "Apply the CDTP alignment filters to pairs read as JSON lines from stdin; one JSON line "
                    "per pair on stdout. A line that is not a pair record, or repeats an earlier line's id, "
                    "is skipped with a message naming its line number, and the exit status is 1.",
                    "echo '{\"id\": \"1\", \"entity\": \"泰山\", \"text\": \"泰山海拔1545米。\", "
                    "\"triples\": [[\"泰山\", \"海拔\", \"1545米\"]]}' | zhbench align", cmd_align)
    align.add_argument("--relations", type=file_path,
                       help="file of relation names (one per line) added to the batch's own")
    align.add_argument("--threshold", type=real(0, 1, above=True), default=0.75,
                       help="keep pairs whose position index exceeds this (default 0.75, as in CDTP)")
    align.add_argument("--no-cut", action="store_true",
                       help="judge each text whole instead of cutting what it states beyond its kept triples "
                            "(the output's text is the pair's text: cut, or as given with --no-cut)")

    _, questions = group(sub, "questions", "Check question files against the short-answer criteria and "
                                           "registered benchmark questions.",
                         "zhbench questions check mine.jsonl\n"
                         "zhbench questions check mine.jsonl --against chinese_simpleqa.jsonl", "questions_command")
    check = command(questions, "check", "Check each question of a JSON-lines file ({\"question\", \"answer\", "
                                        "\"id\"?}; the answer may be empty): one JSON line per question on "
                                        "stdout, a summary on stderr.",
                    "zhbench questions check mine.jsonl > verdicts.jsonl\n"
                    "zhbench questions check mine.jsonl --explain   # each rejection with the text that triggered it\n"
                    "zhbench questions check mine.jsonl --senses data/releases/cdtp/0.1.0/pages.parquet\n"
                    "zhbench questions check mine.jsonl --llm-model qwen2.5-72b-instruct   # a reader as well\n"
                    "zhbench questions check mine.jsonl --against chinese_simpleqa.jsonl --against old.csv",
                    cmd_questions_check)
    check.add_argument("file", type=file_path, help="JSON lines with question, answer and optional id and relation")
    check.add_argument("--against", action="append", default=[], metavar="DB", type=file_path,
                       help="a registered question file (JSON lines or CSV with a question/problem column); "
                            "repeatable; matches are listed in contaminated_by")
    check.add_argument("--max-answer-chars", type=whole(1, 10_000), default=20,
                       help="answer length budget in characters of the answer's Chinese core (default 20)")
    check.add_argument("--explain", action="store_true",
                       help="add \"explain\": each failed criterion with its field and the span that triggered it")
    check.add_argument("--llm-model", help="also have this model (OpenAI-compatible endpoint) read each question "
                                           "the rules accept, for what rules cannot see: ambiguity, garbled "
                                           "questions, answers that do not answer")
    check.add_argument("--llm-base-url", default="http://127.0.0.1:8000/v1", help="the model's endpoint")
    check.add_argument("--llm-api-key-env", default="OPENAI_API_KEY",
                       help="environment variable holding the model's API key")
    data_dir_option(check, "where the model's replies are cached")
    check.add_argument("--senses", metavar="FILE", type=file_path,
                       help="titles several entries share: a TSV of title<TAB>sense label, or pages.parquet of a "
                            "crawl or release; a question naming one without saying which is underspecified")
