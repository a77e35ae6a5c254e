"""``zhbench release``, ``audit``, ``export`` and ``score``: published releases read back, checked, exported and
scored."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from flows.cli.common import command, file_path, group, outside_releases, release_dir, release_options


def cmd_release_list(args: argparse.Namespace) -> int:
    from warehouse.inspect import list_releases

    for line in list_releases(Path(args.data_dir), args.name):
        print(line)
    return 0


def cmd_release_verify(args: argparse.Namespace) -> int:
    from warehouse.release import verify

    directory = release_dir(args)
    problems = verify(directory)
    if problems:
        for problem in problems:
            print(f"{directory}: {problem}")
        return 1
    print(f"{directory}: every file matches the manifest")
    return 0


def cmd_release_show(args: argparse.Namespace) -> int:
    from warehouse.inspect import show

    print(show(release_dir(args)))
    return 0


def cmd_release_diff(args: argparse.Namespace) -> int:
    from warehouse.inspect import diff, format_diff

    old, new = release_dir(args, args.old), release_dir(args, args.new)
    print(format_diff(args.old, args.new, diff(old, new)))
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from warehouse.audit import audit_json, audit_release

    report = audit_release(release_dir(args))
    print(audit_json(report) if args.json else report.table())
    return 0 if report.ok else 1


def cmd_export(args: argparse.Namespace) -> int:
    from warehouse.export import export

    directory = release_dir(args)
    default = Path(args.data_dir) / "exports" / f"{directory.parent.name}-{directory.name}-{args.format}"
    out = outside_releases(args.out or default, data_dir=args.data_dir)
    for written in export(directory, args.format, out, args.split, args.force):
        print(f"{written.path}  {written.rows} rows  split {written.split}")
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    from warehouse.scoring import format_scores, llm_grader, score_release

    directory = release_dir(args)
    with llm_grader(args.grader_model, args.grader_base_url, args.grader_api_key_env, Path(args.data_dir)) as grader:
        result = score_release(directory, Path(args.predictions), split=args.split,
                               baseline=Path(args.baseline) if args.baseline else None, grader=grader)
    print(json.dumps(result, ensure_ascii=False, indent=2) if args.json else format_scores(result))
    return 0


def register(sub) -> None:
    _, release = group(sub, "release", "List, show, verify and compare releases.",
                       "zhbench release list\nzhbench release show 0.1.0\nzhbench release diff 0.1.0 0.2.0",
                       "release_command")
    for name, help_text, example, func, versions in (
        ("list", "List the versions of a release.", "zhbench release list --name cdtp", cmd_release_list, ()),
        ("show", "Show a release: provenance, files, labels, validation and counts.",
         "zhbench release show 0.1.0", cmd_release_show, ("release",)),
        ("verify", "Check a release's files against its manifest checksums.",
         "zhbench release verify 0.1.0\nzhbench release verify zhbench-data/releases/cdtp/0.1.0",
         cmd_release_verify, ("release",)),
        ("diff", "Rows added, removed and changed per config between two releases, with examples.",
         "zhbench release diff 0.1.0 0.2.0", cmd_release_diff, ("old", "new")),
    ):
        p = command(release, name, help_text, example, func)
        for argument in versions:
            p.add_argument(argument, help="a version of --name, or a release directory")
        release_options(p)

    audit = command(sub, "audit", "Recompute every promise of a release from its files (pair coverage, distractors, "
                                  "one gold per question, splits, cloze); exit 1 on any violation.",
                    "zhbench audit 0.1.0\nzhbench audit 0.1.0 --json > audit.json", cmd_audit)
    audit.add_argument("release", help="a version of --name, or a release directory")
    audit.add_argument("--json", action="store_true", help="print the report as JSON")
    release_options(audit)

    export = command(sub, "export", "Write a release in a harness's format, one file per split.",
                     "zhbench export 0.1.0 --format chinese-simpleqa-jsonl --out csqa\n"
                     "  # csqa/eval/chinese_simpleqa.jsonl, csqa/train/chinese_simpleqa.jsonl: evalscope's\n"
                     "  # local_path and OpenCompass's path are csqa/eval\n"
                     "zhbench export 0.1.0 --format simple-evals-csv --split eval --out simple-evals\n"
                     "zhbench export 0.1.0 --format jsonl --out cdtp-jsonl\n"
                     "zhbench export 0.1.0 --format jsonl --out cdtp-jsonl --force   # again, over the last one",
                     cmd_export)
    export.add_argument("release", help="a version of --name, or a release directory")
    export.add_argument("--format", required=True, choices=["chinese-simpleqa-jsonl", "simple-evals-csv", "jsonl"])
    export.add_argument("--split", default="all", choices=["eval", "train", "all"],
                        help="which split (default all: every split, each in its own file)")
    export.add_argument("--out", help="output directory, new or empty, outside <data-dir>/releases (default "
                                      "<data-dir>/exports/<name>-<version>-<format>)")
    export.add_argument("--force", action="store_true",
                        help="write into a non-empty --out, replacing the files of the same names (or a file there)")
    release_options(export)

    score = command(sub, "score", "Score a model's predictions on a release (CDTP, Chinese SimpleQA and "
                                  "CUGE-style metrics).",
                    "zhbench score 0.1.0 --predictions preds.jsonl\n"
                    "zhbench score 0.1.0 --predictions preds.jsonl --baseline baseline.jsonl --json", cmd_score)
    score.add_argument("release", help="a version of --name, or a release directory")
    score.add_argument("--predictions", type=file_path, required=True,
                       help="JSON lines {\"id\": item_id, \"prediction\": ...} or {\"id\", \"ranking\": [...]}")
    score.add_argument("--baseline", type=file_path, help="a baseline model's predictions: dataset scores are divided "
                                                          "by its (CUGE's normalisation)")
    score.add_argument("--split", default="eval", choices=["eval", "train", "all"], help="which split (default eval)")
    score.add_argument("--json", action="store_true", help="print the scores as JSON")
    score.add_argument("--grader-model", help="grade simpleqa answers with this model (OpenAI-compatible endpoint); "
                                              "default: normalised matching")
    score.add_argument("--grader-base-url", default="http://127.0.0.1:8000/v1", help="the grader's endpoint")
    score.add_argument("--grader-api-key-env", default="OPENAI_API_KEY",
                       help="environment variable holding the grader's API key")
    release_options(score)
